public import Foundation

extension StreamingJSONDecoder {
    /// Decodes the values of a JSON Lines file (or another ``JSONSequenceFormat``) one by one as
    /// the chunks arrive, in memory the size of one value, however long the input is.
    ///
    /// ```swift
    /// for try await event in decoder.values(of: Event.self, from: body) {   // NDJSON
    ///     try database.insert(event)
    /// }
    /// ```
    ///
    /// Chunks are pulled only when the values of the previous one have been taken. Blank lines
    /// are skipped, lines may end with CRLF, and a UTF-8 byte order mark at the start is skipped.
    /// A value that is not valid JSON throws `DecodingError.dataCorrupted` whose message gives its
    /// line, column and byte offset in the input; a value that fails to decode throws with its
    /// index among the values as the coding path's first key, and its line and column in the
    /// message. The same strategies apply as for `decode(_:from:)`; ``elements(of:at:from:)``
    /// is the counterpart for the elements of one big array.
    public func values<Value: Decodable, Chunks: AsyncSequence>(
        of type: Value.Type,
        format: JSONSequenceFormat = .lines,
        from chunks: Chunks
    ) -> JSONValueSequence<Value, Chunks> where Chunks.Element: ContiguousBytes {
        let (options, limits, _) = snapshot()
        return JSONValueSequence(
            chunks: chunks,
            format: format,
            options: options,
            limits: limits,
            onUndecodable: onUndecodableValue
        )
    }

    /// The values of the JSON Lines file at `path` (`-` for standard input), or of another
    /// ``JSONSequenceFormat``, as an asynchronous sequence: ``values(of:format:from:)`` over the
    /// file's chunks.
    public func values<Value: Decodable>(
        of type: Value.Type,
        format: JSONSequenceFormat = .lines,
        fromFileAt path: String
    ) -> JSONValueSequence<Value, FileChunks> {
        values(of: type, format: format, from: FileChunkReader.chunks(ofFileAt: path))
    }

    /// Decodes the values of the JSON Lines file at `path` (`-` for standard input), or of another
    /// ``JSONSequenceFormat``, calling `body` with each as soon as it is complete, in memory the
    /// size of one value.
    ///
    /// - Throws: ``FileChunkReader/Failure`` when the file cannot be read, `DecodingError` as
    ///   ``values(of:format:from:)`` describes, or what `body` throws (which stops the reading).
    public func forEachValue<Value: Decodable>(
        of type: Value.Type,
        format: JSONSequenceFormat = .lines,
        inFileAt path: String,
        _ body: (Value) throws -> Void
    ) throws {
        let reader = try FileChunkReader(path: path)
        let streamer = makeValueStreamer(of: type, format: format)
        try reader.forEachChunk { chunk in try streamer.feed(chunk, body) }
        try streamer.finish(body)
    }

    /// Decodes the values of a JSON Lines input held in memory, or of another
    /// ``JSONSequenceFormat``, calling `body` with each in turn.
    public func forEachValue<Value: Decodable>(
        of type: Value.Type,
        format: JSONSequenceFormat = .lines,
        in data: Data,
        _ body: (Value) throws -> Void
    ) throws {
        let streamer = makeValueStreamer(of: type, format: format)
        try data.withUnsafeBytes { try streamer.feed($0, body) }
        try streamer.finish(body)
    }

    func makeValueStreamer<Value: Decodable>(of type: Value.Type, format: JSONSequenceFormat) -> ValueStreamer<Value> {
        let (options, limits, _) = snapshot()
        return ValueStreamer(format: format, options: options, limits: limits, onUndecodable: onUndecodableValue)
    }
}

/// The sequence reader and the decode context of one stream of values.
final class ValueStreamer<Value: Decodable> {
    private let reader: JSONSequenceReader
    private let context: TapeDecodingContext
    private let onUndecodable: (@Sendable (JSONSkippedValue) -> Void)?

    init(
        format: JSONSequenceFormat,
        options: TapeDecodingOptions,
        limits: JSONLimits,
        onUndecodable: (@Sendable (JSONSkippedValue) -> Void)? = nil
    ) {
        self.onUndecodable = onUndecodable
        let reader = JSONSequenceReader(format: format, limits: limits)
        if let onUndecodable {
            // Each record stands between separators: one that is not JSON is passed over as
            // well, and the next separator starts the next.
            reader.valueFault = { [unowned reader] fault, _ in
                onUndecodable(JSONSkippedValue(index: reader.count, malformed: fault))
            }
        }
        self.reader = reader
        // One context for the whole stream: uniquing spans the values, as it spans one document.
        context = TapeDecodingContext(options: options)
    }

    /// Reads a chunk and hands over every value it completes.
    func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Value) throws -> Void) throws {
        try StreamingJSONDecoder.publicErrors {
            do {
                try reader.feed(chunk) { value, at in try hand(value, at: at, to: body) }
            } catch let error as JSONError {
                throw StreamingJSONDecoder.invalidJSON(error)
            }
        }
    }

    /// Ends the input: the last value, when no separator follows it.
    func finish(_ body: (Value) throws -> Void) throws {
        try StreamingJSONDecoder.publicErrors {
            do {
                try reader.finish { value, at in try hand(value, at: at, to: body) }
            } catch let error as JSONError {
                throw StreamingJSONDecoder.invalidJSON(error)
            }
        }
    }

    /// Decodes a value and hands it to `body`; or, when it fails to decode and the caller asked
    /// for it, passes it over and tells the caller.
    private func hand(_ value: JSONTape.Value, at: JSONSequenceIndex, to body: (Value) throws -> Void) throws {
        guard let onUndecodable else { return try body(decode(value, at: at)) }
        let decoded: Value
        do {
            decoded = try StreamingJSONDecoder.publicErrors { try decode(value, at: at) }
        } catch let error as DecodingError {
            context.state.pendingChildren.removeAll(keepingCapacity: true)
            onUndecodable(JSONSkippedValue(index: at.index, failed: value, error: error))
            return
        }
        try body(decoded)
    }

    private func decode(_ value: JSONTape.Value, at: JSONSequenceIndex) throws -> Value {
        try TapeDecoder.decodeStreamed(Value.self, from: value, at: at.index, parentPath: [], context: context)
    }
}

/// The values of a JSON Lines input (or another ``JSONSequenceFormat``), decoded as chunks
/// arrive; see ``StreamingJSONDecoder/values(of:format:from:)``.
public struct JSONValueSequence<Value: Decodable, Chunks: AsyncSequence>: AsyncSequence
where Chunks.Element: ContiguousBytes {
    let chunks: Chunks
    let format: JSONSequenceFormat
    let options: TapeDecodingOptions
    let limits: JSONLimits
    let onUndecodable: (@Sendable (JSONSkippedValue) -> Void)?

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            pump: ChunkPump(chunks.makeAsyncIterator()),
            streamer: ValueStreamer(format: format, options: options, limits: limits, onUndecodable: onUndecodable)
        )
    }

    /// Pulls a chunk only when the values of the previous one have all been taken.
    public struct Iterator: AsyncIteratorProtocol {
        var pump: ChunkPump<Chunks>
        let streamer: ValueStreamer<Value>
        var ready = ReadyResults<Value>()

        init(pump: ChunkPump<Chunks>, streamer: ValueStreamer<Value>) {
            self.pump = pump
            self.streamer = streamer
        }

        public mutating func next() async throws -> Value? {
            if let value = ready.take() { return value }
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
