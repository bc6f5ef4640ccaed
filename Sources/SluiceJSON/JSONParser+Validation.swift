extension JSONParser {
    /// Checks that a file holds exactly one well-formed JSON value, streaming it chunk by chunk and
    /// releasing tokens as it goes, so memory stays small whatever the file's size.
    ///
    /// ```swift
    /// let bytes = try JSONParser.validateSyntax(of: FileChunkReader(path: "export.json"))
    /// ```
    ///
    /// - Parameters:
    ///   - reader: Where the bytes come from.
    ///   - limits: The limits to enforce.
    /// - Returns: The number of bytes read.
    /// - Throws: ``JSONError`` at the first fault in the input, or ``FileChunkReader/Failure``
    ///   when the input cannot be read.
    @discardableResult
    public static func validateSyntax(of reader: FileChunkReader, limits: JSONLimits = .default) throws -> Int {
        let parser = JSONParser(limits: limits)
        try reader.forEachChunk { chunk in
            try parser.parse(chunk)
            parser.removeAllTokens()
        }
        try parser.finish()
        return parser.bytesParsed
    }
}
