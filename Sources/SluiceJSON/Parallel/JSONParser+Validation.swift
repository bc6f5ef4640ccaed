extension JSONParser {
    /// Checks that a file holds exactly one well-formed JSON value, streaming it chunk by chunk and
    /// releasing tokens as it goes, so memory stays small whatever the file's size.
    ///
    /// ```swift
    /// let bytes = try JSONParser.validateSyntax(of: FileChunkReader(path: "export.json"))
    /// ```
    ///
    /// With more than one thread, the elements of the arrays at `paths` (where a document's bulk
    /// is) are checked by other threads, batch by batch, while this one reads on; the first fault
    /// is the same, with the same position and message, for any number of threads.
    ///
    /// - Parameters:
    ///   - reader: Where the bytes come from.
    ///   - limits: The limits to enforce.
    ///   - parallelism: How many threads check the document. Default: ``Parallelism/automatic``.
    ///   - paths: The arrays whose elements other threads may check. Default: the root, when it
    ///     is an array.
    /// - Returns: The number of bytes read.
    /// - Throws: ``JSONError`` at the first fault in the input, or ``FileChunkReader/Failure``
    ///   when the input cannot be read.
    @discardableResult
    public static func validateSyntax(
        of reader: FileChunkReader,
        limits: JSONLimits = .default,
        parallelism: Parallelism = .automatic,
        splittingArraysAt paths: [JSONPath] = [""]
    ) throws -> Int {
        let parser = JSONParser(limits: limits)
        // A batch needs no decoding: parsing it is the check.
        let driver = ParallelSplitDriver<Void>(paths: paths, threads: parallelism.threadCount) {
            { batch, _ in
                batch.parseAsArray(limits: limits, arrayDepth: paths[batch.target].steps.count + 1).map { _ in }
            }
        }
        func parse(_ bytes: UnsafeRawBufferPointer) throws {
            try parser.parse(bytes)
            parser.removeAllTokens()
        }
        func stepOver(_ batch: JSONBatch, _: Void) throws {
            try parser.parseStandIn(for: batch)
            parser.removeAllTokens()
        }
        try reader.forEachChunk { chunk in
            if let driver {
                try driver.feed(chunk, bytes: parse, batch: stepOver)
            } else {
                try parse(chunk)
            }
        }
        try driver?.finish(bytes: parse, batch: stepOver)
        try parser.finish()
        return parser.bytesParsed
    }
}
