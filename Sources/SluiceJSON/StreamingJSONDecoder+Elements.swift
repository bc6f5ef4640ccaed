public import Foundation

extension StreamingJSONDecoder {
    /// Decodes the elements of the array at `path` one by one as the chunks arrive, in memory the
    /// size of one element, however long the array and the document are.
    ///
    /// ```swift
    /// for try await status in decoder.elements(of: Status.self, at: "statuses", from: body) {
    ///     try database.insert(status)
    /// }
    /// ```
    ///
    /// Chunks are pulled only when the elements of the previous one have been taken. Every array
    /// at the path is streamed (a path through arrays, such as `pages.0.items`, names one). When
    /// the document ends without an array at the path, the sequence throws `valueNotFound`
    /// (nothing there, or `null`) or `typeMismatch` (something else there). An element that
    /// fails to decode throws with its coding path: the path's steps, then its index.
    public func elements<Element: Decodable, Chunks: AsyncSequence>(
        of type: Element.Type,
        at path: JSONPath,
        from chunks: Chunks
    ) -> JSONElementSequence<Element, Chunks> where Chunks.Element: ContiguousBytes {
        let (options, limits) = snapshot()
        return JSONElementSequence(chunks: chunks, path: path, options: options, limits: limits)
    }

    /// The elements of the array at `path` in the file at `file` (`-` for standard input), as an
    /// asynchronous sequence: ``elements(of:at:from:)`` over the file's chunks.
    ///
    /// ```swift
    /// for try await status in decoder.elements(of: Status.self, at: "statuses", fromFileAt: "twitter.json") {
    ///     print(status.text)
    /// }
    /// ```
    public func elements<Element: Decodable>(
        of type: Element.Type,
        at path: JSONPath,
        fromFileAt file: String
    ) -> JSONElementSequence<Element, FileChunks> {
        elements(of: type, at: path, from: FileChunkReader.chunks(ofFileAt: file))
    }

    /// Decodes the elements of the array at `path` in the file at `path` (`-` for standard input),
    /// calling `body` with each as soon as it is complete, in memory the size of one element.
    ///
    /// - Throws: ``FileChunkReader/Failure`` when the file cannot be read, `DecodingError` as
    ///   ``elements(of:at:from:)`` describes, or what `body` throws (which stops the reading).
    public func forEachElement<Element: Decodable>(
        of type: Element.Type,
        at path: JSONPath,
        inFileAt file: String,
        _ body: (Element) throws -> Void
    ) throws {
        let reader = try FileChunkReader(path: file)
        let streamer = makeStreamer(of: type, at: path)
        try reader.forEachChunk { chunk in try streamer.feed(chunk, body) }
        try streamer.finish(body)
    }

    /// Decodes the elements of the array at `path` in a document held in memory, calling `body`
    /// with each in turn.
    public func forEachElement<Element: Decodable>(
        of type: Element.Type,
        at path: JSONPath,
        in data: Data,
        _ body: (Element) throws -> Void
    ) throws {
        let streamer = makeStreamer(of: type, at: path)
        try data.withUnsafeBytes { try streamer.feed($0, body) }
        try streamer.finish(body)
    }

    func makeStreamer<Element: Decodable>(of type: Element.Type, at path: JSONPath) -> ElementStreamer<Element> {
        let (options, limits) = snapshot()
        return ElementStreamer(path: path, options: options, limits: limits)
    }
}

/// The parser, the element reader and the decode context of one element stream. A class: the
/// async iterator's chunk pump calls into it from a closure.
final class ElementStreamer<Element: Decodable> {
    private let parser: JSONParser
    private var reader: JSONElementReader
    private let context: TapeDecodingContext
    private let pathKeys: [any CodingKey]

    init(path: JSONPath, options: TapeDecodingOptions, limits: JSONLimits) {
        parser = JSONParser(limits: limits)
        reader = JSONElementReader(path: path)
        // One context for the whole stream: uniquing spans the elements, as it spans one document.
        context = TapeDecodingContext(options: options)
        pathKeys = path.steps.map { step in Int(step).map { AnyCodingKey(intValue: $0) } ?? AnyCodingKey(step) }
    }

    /// The most tokens the parser held at once: what bounds the stream's memory.
    var peakTokenCount: Int { parser.tape.peakTokenCount }

    /// Parses a chunk and hands over every element it completes; then releases their tokens.
    func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Element) throws -> Void) throws {
        try StreamingJSONDecoder.publicErrors { try feedChunk(chunk, body) }
    }

    /// Ends the input: checks the document was whole and had an array at the path.
    func finish(_ body: (Element) throws -> Void) throws {
        try StreamingJSONDecoder.publicErrors { try finishInput(body) }
    }

    private func feedChunk(_ chunk: UnsafeRawBufferPointer, _ body: (Element) throws -> Void) throws {
        do {
            try StreamingJSONDecoder.parsing { try parser.parse(chunk) }
        } catch {
            // The elements completed before the fault are handed over first, so what a consumer
            // sees does not depend on where the chunks were cut.
            try drain(body)
            throw error
        }
        try drain(body)
    }

    private func finishInput(_ body: (Element) throws -> Void) throws {
        try StreamingJSONDecoder.parsing { try parser.finish() }
        try drain(body)
        guard let kind = reader.targetKind else {
            throw DecodingError.valueNotFound(
                [Element].self,
                DecodingError.Context(
                    codingPath: pathKeys,
                    debugDescription: "The document has no value at \(reader.path)."
                )
            )
        }
        guard kind == .arrayStart else {
            let context = DecodingError.Context(
                codingPath: pathKeys,
                debugDescription:
                    "Expected an array at \(reader.path) but found \(kind.nounPhrase)\(reader.targetPosition.map { " at \($0)" } ?? "")."
            )
            throw kind == .null
                ? DecodingError.valueNotFound([Element].self, context) : .typeMismatch([Element].self, context)
        }
    }

    private func drain(_ body: (Element) throws -> Void) throws {
        let context = self.context
        let pathKeys = self.pathKeys
        try reader.advance(over: parser.tape) { value, index in
            let decoder = TapeDecoder(value: value, context: context, parentPath: pathKeys, key: ElementKey(index))
            let element = try decoder.decodeValue(Element.self)
            // Parent links an element left waiting (its parent is not streamed) would pile up.
            context.state.pendingChildren.removeAll(keepingCapacity: true)
            try body(element)
        }
        parser.removeTokens(before: reader.firstNeededIndex(on: parser.tape))
    }
}

/// The elements of the array at a path, decoded as chunks arrive; see
/// ``StreamingJSONDecoder/elements(of:at:from:)``.
public struct JSONElementSequence<Element: Decodable, Chunks: AsyncSequence>: AsyncSequence
where Chunks.Element: ContiguousBytes {
    let chunks: Chunks
    let path: JSONPath
    let options: TapeDecodingOptions
    let limits: JSONLimits

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            pump: ChunkPump(chunks.makeAsyncIterator()),
            streamer: ElementStreamer(path: path, options: options, limits: limits)
        )
    }

    /// Pulls a chunk only when the elements of the previous one have all been taken.
    public struct Iterator: AsyncIteratorProtocol {
        var pump: ChunkPump<Chunks, Element>
        let streamer: ElementStreamer<Element>

        public mutating func next() async throws -> Element? {
            let streamer = self.streamer
            return try await pump.next { chunk, emit in
                if let chunk {
                    try streamer.feed(chunk, emit)
                } else {
                    try streamer.finish(emit)
                }
            }
        }
    }
}
