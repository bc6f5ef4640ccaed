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
        let (options, limits, parallel) = snapshot()
        return JSONElementSequence(
            chunks: chunks,
            path: path,
            options: options,
            limits: limits,
            parallel: parallel,
            onUndecodable: onUndecodableValue
        )
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
        let (options, limits, parallel) = snapshot()
        return ElementStreamer(
            path: path,
            options: options,
            limits: limits,
            parallel: parallel,
            onUndecodable: onUndecodableValue
        )
    }
}

/// The parser, the element reader and the decode context of one element stream, and the parallel
/// driver when other threads help (see ParallelBatches.swift). A class: the async iterator's chunk
/// pump calls into it from a closure.
final class ElementStreamer<Element: Decodable>: SplitDocumentReader {
    let parser: JSONParser
    private var reader: JSONElementReader
    private let context: TapeDecodingContext
    private let pathKeys: [any CodingKey]
    private let onUndecodable: (@Sendable (JSONSkippedValue) -> Void)?
    let splitDriver: ParallelSplitDriver<[Element]>?

    init(
        path: JSONPath,
        options: TapeDecodingOptions,
        limits: JSONLimits,
        parallel: ParallelOptions,
        onUndecodable: (@Sendable (JSONSkippedValue) -> Void)? = nil
    ) {
        self.onUndecodable = onUndecodable
        parser = JSONParser(limits: limits)
        reader = JSONElementReader(path: path)
        // One context for the whole stream: uniquing spans the elements, as it spans one document.
        context = TapeDecodingContext(options: options)
        let pathKeys: [any CodingKey] = path.steps.map { step in
            Int(step).map { AnyCodingKey(intValue: $0) } ?? AnyCodingKey(step)
        }
        self.pathKeys = pathKeys
        // Uniquing and parent links tie elements together through the one context, which threads
        // cannot share: those streams stay on one thread.
        if options.uniquing.isEmpty && options.identityStore == nil {
            splitDriver = ParallelSplitDriver(
                paths: [path],
                threads: parallel.threads.threadCount,
                batchBytes: parallel.batchBytes
            ) {
                Self.batchReader(pathKeys: pathKeys, options: options, limits: limits)
            }
        } else {
            splitDriver = nil
        }
    }

    /// What a worker thread reads a batch with: its own decode context, each batch parsed on its
    /// own; `nil` for a batch with a fault, which the merger then reads sequentially.
    private static func batchReader(
        pathKeys: [any CodingKey],
        options: TapeDecodingOptions,
        limits: JSONLimits
    ) -> BatchWorkers<[Element]>.Work {
        let context = TapeDecodingContext(options: options)
        return { batch, before in
            guard let parser = batch.parseAsArray(limits: limits, arrayDepth: pathKeys.count + 1) else { return nil }
            let tape = parser.tape
            var elements: [Element] = []
            elements.reserveCapacity(batch.elementCount)
            do {
                for (offset, value) in try tape.value(at: tape.startIndex).elements().enumerated() {
                    elements.append(try decodeElement(value, at: before + offset, context: context, pathKeys: pathKeys))
                }
            } catch {
                return nil
            }
            return elements
        }
    }

    /// The most tokens the parser held at once: what bounds the stream's memory.
    var peakTokenCount: Int { parser.tape.peakTokenCount }
    /// How many batches other threads (or this one, as a worker) read: tests check the parallel
    /// path ran.
    private(set) var batchesMerged = 0

    /// Parses a chunk and hands over every element it completes; then releases their tokens.
    func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Element) throws -> Void) throws {
        try StreamingJSONDecoder.publicErrors { try feedDocument(chunk, body) }
    }

    /// Ends the input: checks the document was whole and had an array at the path.
    func finish(_ body: (Element) throws -> Void) throws {
        try StreamingJSONDecoder.publicErrors {
            try finishDocument(body)
            try checkTarget()
        }
    }

    func parseFailure(_ error: JSONError) -> any Error { StreamingJSONDecoder.invalidJSON(error) }

    /// A batch a worker read: the reader reports the stand-in the parser read for it as one
    /// element; the worker's elements are handed over in its place.
    func handOver(_ elements: [Element], _ body: (Element) throws -> Void) throws {
        var standIns = 0
        reader.advance(over: parser.tape) { _, _ in standIns += 1 }
        precondition(standIns == 1, "Internal inconsistency: a batch's stand-in was not read as one element")
        reader.skipElements(elements.count - 1)
        batchesMerged += 1
        parser.removeTokens(before: reader.firstNeededIndex(on: parser.tape))
        for element in elements { try body(element) }
    }

    private func checkTarget() throws {
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

    func drain(_ body: (Element) throws -> Void) throws {
        let context = self.context
        let pathKeys = self.pathKeys
        if let onUndecodable {
            try reader.advance(over: parser.tape) { value, index in
                let element: Element
                do {
                    element = try StreamingJSONDecoder.publicErrors {
                        try Self.decodeElement(value, at: index, context: context, pathKeys: pathKeys)
                    }
                } catch let error as DecodingError {
                    // Passed over: the caller hears of it, and the stream goes on. (A batch a
                    // worker could not decode whole is read here, one element at a time, so
                    // this one place sees every failure.)
                    context.state.pendingChildren.removeAll(keepingCapacity: true)
                    onUndecodable(JSONSkippedValue(index: index, failed: value, error: error))
                    return
                }
                try body(element)
            }
        } else {
            try reader.advance(over: parser.tape) { value, index in
                try body(try Self.decodeElement(value, at: index, context: context, pathKeys: pathKeys))
            }
        }
        parser.removeTokens(before: reader.firstNeededIndex(on: parser.tape))
    }

    /// Decodes the element `index` of the streamed arrays, on this thread or a worker's.
    private static func decodeElement(
        _ value: JSONTape.Value,
        at index: Int,
        context: TapeDecodingContext,
        pathKeys: [any CodingKey]
    ) throws -> Element {
        try TapeDecoder.decodeStreamed(Element.self, from: value, at: index, parentPath: pathKeys, context: context)
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
    let parallel: ParallelOptions
    let onUndecodable: (@Sendable (JSONSkippedValue) -> Void)?

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            pump: ChunkPump(chunks.makeAsyncIterator()),
            streamer: ElementStreamer(
                path: path,
                options: options,
                limits: limits,
                parallel: parallel,
                onUndecodable: onUndecodable
            )
        )
    }

    /// Pulls a chunk only when the elements of the previous one have all been taken.
    public struct Iterator: AsyncIteratorProtocol {
        var pump: ChunkPump<Chunks>
        let streamer: ElementStreamer<Element>
        var ready = ReadyResults<Element>()

        init(pump: ChunkPump<Chunks>, streamer: ElementStreamer<Element>) {
            self.pump = pump
            self.streamer = streamer
        }

        public mutating func next() async throws -> Element? {
            if let element = ready.take() { return element }
            let streamer = self.streamer
            let more = try await pump.refill(&ready) { chunk, batch in
                if let chunk {
                    try streamer.feed(chunk) { batch.append($0) }
                } else {
                    try streamer.finish { batch.append($0) }
                }
            }
            return more ? ready.take() : nil
        }
    }
}
