/// The tokens of the JSON value being built, in input order, with their text in one byte arena.
///
/// A ``JSONParser`` appends to its tape as yajl reports events. The tape is what decoders read:
/// no dictionary, no `Any`, no `String` per key. Text is kept as unescaped UTF-8 bytes and numbers
/// as the exact text of the input, converted only when a reader asks (see ``JSONTape/Value``).
///
/// Indices are absolute: the first token the parser ever produced has index 0, and an index keeps
/// naming the same token after earlier tokens are released with ``removeTokens(before:)``. That is
/// how a streaming consumer bounds memory: once it has consumed a value, it releases the tokens
/// before the next one, and the tape reuses its storage.
///
/// ```swift
/// let tape = try JSONParser.parse(Array(#"{"name": "Ada", "born": 1815}"#.utf8))
/// let root = try tape.value(at: tape.startIndex)
/// let born = try root["born"]?.integer(as: Int.self)   // 1815
/// ```
public struct JSONTape: Sendable {
    @usableFromInline var tokens: ContiguousArray<JSONToken> = []
    @usableFromInline var arena: ContiguousArray<UInt8> = []
    /// The absolute index of `tokens[0]`.
    @usableFromInline var firstIndex = 0
    /// The absolute arena offset of `arena[0]`.
    @usableFromInline var arenaBase = 0

    /// The most tokens the tape has held at once since it was created.
    public private(set) var peakTokenCount = 0
    /// The most arena bytes the tape has held at once since it was created.
    public private(set) var peakByteCount = 0

    /// Creates an empty tape.
    public init() {}

    /// The number of arena bytes the tape holds now (text of keys, strings and numbers).
    public var byteCount: Int { arena.count }
    /// The number of tokens the tape can hold before it must grow its storage.
    public var tokenCapacity: Int { tokens.capacity }
    /// The number of arena bytes the tape can hold before it must grow its storage.
    public var byteCapacity: Int { arena.capacity }

    /// Releases every token before `index` and the arena bytes only they used. Indices of the tokens
    /// that remain do not change. Storage is kept for reuse.
    ///
    /// - Precondition: `startIndex <= index <= endIndex`.
    public mutating func removeTokens(before index: Int) {
        precondition(index >= firstIndex && index <= endIndex, "removeTokens(before:) index out of range")
        let dropped = index - firstIndex
        guard dropped > 0 else { return }
        // Text offsets grow with token order, so the first remaining token with text marks the
        // first arena byte still needed.
        var keepFrom = arenaBase + arena.count
        for token in tokens[dropped...] where token.hasText {
            keepFrom = token.payload
            break
        }
        tokens.removeFirst(dropped)
        firstIndex = index
        let droppedBytes = keepFrom - arenaBase
        if droppedBytes > 0 {
            arena.removeFirst(droppedBytes)
            arenaBase = keepFrom
        }
    }

    /// Releases every token; ``startIndex`` moves to ``endIndex``. Storage is kept for reuse.
    public mutating func removeAll() {
        firstIndex = endIndex
        arenaBase += arena.count
        tokens.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
    }

    // MARK: Building (used by the parser)

    mutating func appendText(_ kind: JSONToken.Kind, _ text: UnsafeRawBufferPointer, at position: JSONPosition) {
        let offset = arenaBase + arena.count
        arena.append(contentsOf: text)
        // Safe because the parser rejects any token longer than JSONLimits.maxStringBytes, which
        // cannot exceed Int, and refuses limits above UInt32.max (see JSONParser.init).
        tokens.append(
            JSONToken(
                kind: kind,
                length: UInt32(truncatingIfNeeded: text.count),
                payload: offset,
                byteOffset: position.byteOffset,
                line: position.line,
                column: position.column
            )
        )
        noteGrowth()
    }

    mutating func appendMarker(_ kind: JSONToken.Kind, payload: Int, at position: JSONPosition) {
        tokens.append(
            JSONToken(
                kind: kind,
                length: 0,
                payload: payload,
                byteOffset: position.byteOffset,
                line: position.line,
                column: position.column
            )
        )
        noteGrowth()
    }

    /// Records on a container's start token where it ends and how many children it has, if the
    /// start token has not been released.
    mutating func closeContainer(startingAt start: Int, endingAt end: Int, childCount: Int) {
        guard start >= firstIndex else { return }
        tokens[start - firstIndex].payload = end
        tokens[start - firstIndex].length = UInt32(clamping: childCount)
    }

    mutating func noteGrowth() {
        if tokens.count > peakTokenCount { peakTokenCount = tokens.count }
        if arena.count > peakByteCount { peakByteCount = arena.count }
    }
}

extension JSONTape: RandomAccessCollection {
    /// The absolute index of the first token still held.
    @inlinable
    public var startIndex: Int { firstIndex }
    /// The absolute index one past the last token.
    @inlinable
    public var endIndex: Int { firstIndex + tokens.count }

    /// The token at an absolute index.
    ///
    /// - Precondition: `startIndex <= index < endIndex`.
    @inlinable
    public subscript(index: Int) -> JSONToken {
        tokens[index - firstIndex]
    }
}

extension JSONTape {
    /// Calls `body` with the text of a key, string or number token: unescaped UTF-8 for keys and
    /// strings, the input's exact text for numbers. The buffer is valid only inside `body`.
    ///
    /// - Precondition: `token.hasText`, and the token has not been released.
    @inlinable
    public func withUnsafeText<R, E: Error>(
        of token: JSONToken,
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        precondition(token.hasText, "withUnsafeText(of:) needs a key, string or number token")
        let start = token.payload - arenaBase
        precondition(start >= 0, "withUnsafeText(of:) on a released token")
        let result: Result<R, E> = arena.withUnsafeBytes { bytes in
            // Safe because appendText stored exactly `length` bytes at `payload`.
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<start + Int(token.length)])
            do throws(E) {
                return .success(try body(text))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The text of a key, string or number token as a `String`.
    public func text(of token: JSONToken) -> String {
        withUnsafeText(of: token) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether a key or string token's text is exactly `bytes`, compared without making a `String`.
    @inlinable
    public func text(of token: JSONToken, equals bytes: UnsafeRawBufferPointer) -> Bool {
        guard Int(token.length) == bytes.count else { return false }
        return withUnsafeText(of: token) { text in
            text.elementsEqual(bytes)
        }
    }

    /// The absolute index one past the value that starts at `index`, or `nil` while that value is
    /// still being parsed.
    @inlinable
    public func endOfValue(at index: Int) -> Int? {
        let token = self[index]
        switch token.kind {
        case .objectStart, .arrayStart:
            return token.payload < 0 ? nil : token.payload + 1
        case .key:
            preconditionFailure("endOfValue(at:) called on a key; a value starts after it")
        default:
            return index + 1
        }
    }
}
