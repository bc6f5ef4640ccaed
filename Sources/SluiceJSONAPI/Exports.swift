// `import SluiceJSONAPI` is all a user writes: the JSON:API types are made of SluiceJSON's
// (`JSONValue` for meta, `JSONError` for bad input, `StreamingJSONDecoder` for a typed meta,
// `FileChunkReader` for files), so they come with it, as NIO's umbrella modules do.
@_exported public import SluiceJSON
