internal import CSluiceTape
import Synchronization

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
public struct JSONTape: @unchecked Sendable {
    // Sendable because the storage is never mutated while shared: every mutation goes through
    // `makeUnique()` first (copy on write), as for the standard library's collections.
    @usableFromInline var storage: TapeStorage

    /// Creates an empty tape.
    public init() {
        storage = TapeStorage()
    }

    /// The tape whose storage is `storage`.
    @usableFromInline
    init(storage: TapeStorage) {
        self.storage = storage
    }

    /// The most tokens the tape has held at once since it was created.
    public var peakTokenCount: Int {
        Swift.max(storage.buffer.pointee.peakTokenCount, storage.buffer.pointee.tokenCount)
    }
    /// The most arena bytes the tape has held at once since it was created.
    public var peakByteCount: Int { Swift.max(storage.buffer.pointee.peakByteCount, storage.buffer.pointee.byteCount) }
    /// The number of arena bytes the tape holds now (text of keys, strings and numbers).
    public var byteCount: Int { storage.buffer.pointee.byteCount }
    /// The number of tokens the tape can hold before it must grow its storage.
    public var tokenCapacity: Int { storage.buffer.pointee.tokenCapacity }
    /// The number of arena bytes the tape can hold before it must grow its storage.
    public var byteCapacity: Int { storage.buffer.pointee.byteCapacity }

    /// Releases every token before `index` and the arena bytes only they used. Indices of the tokens
    /// that remain do not change. Storage is kept for reuse.
    ///
    /// - Precondition: `startIndex <= index <= endIndex`.
    public mutating func removeTokens(before index: Int) {
        precondition(index >= startIndex && index <= endIndex, "removeTokens(before:) index out of range")
        guard index > startIndex else { return }
        makeUnique()
        storage.buffer.pointee.removeTokens(before: index)
    }

    /// Releases every token; ``startIndex`` moves to ``endIndex``. Storage is kept for reuse.
    public mutating func removeAll() {
        makeUnique()
        storage.buffer.pointee.removeTokens(before: endIndex)
    }

    /// Makes the storage this tape's own before a mutation (copy on write).
    @inline(__always)
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The buffer for appending without a uniqueness check per token. The parser calls
    /// ``makeUnique()`` once per chunk and then appends through this while yajl calls back, when
    /// no other copy of the tape can exist.
    var uncheckedBuffer: UnsafeMutablePointer<TapeBuffer> { storage.buffer }
}

/// The tape's memory: tokens and arena bytes in two manually grown buffers.
///
/// A struct behind a pointer, not stored properties of a class, so that the parser's callbacks
/// append with plain loads and stores: no reference counting, no uniqueness or exclusivity check
/// per token. `JSONToken` is a trivial type, so buffers move with `memcpy`.
@usableFromInline
struct TapeBuffer {
    @usableFromInline var tokens: UnsafeMutablePointer<JSONToken>
    @usableFromInline var tokenCount = 0
    @usableFromInline var tokenCapacity: Int
    @usableFromInline var bytes: UnsafeMutablePointer<UInt8>
    @usableFromInline var byteCount = 0
    @usableFromInline var byteCapacity: Int
    /// The absolute index of `tokens[0]`.
    @usableFromInline var firstIndex = 0
    /// The absolute arena offset of `bytes[0]`.
    @usableFromInline var arenaBase = 0
    var peakTokenCount = 0
    var peakByteCount = 0
    /// `UTF8Validation.smallStringsMatch`, asked when the buffer is made, for readers inlined into
    /// other modules (`TapeTokens.string(of:)`), which cannot reach the answer kept in C.
    @usableFromInline let makesSmallStrings: Bool

    init(tokenCapacity: Int = 64, byteCapacity: Int = 512) {
        self.tokenCapacity = tokenCapacity
        self.byteCapacity = byteCapacity
        makesSmallStrings = UTF8Validation.smallStringsMatch
        tokens = .allocate(capacity: tokenCapacity)
        bytes = .allocate(capacity: byteCapacity)
    }

    /// The two buffers and their capacities, as spare memory holds them.
    var memory: SpareTapeMemory.Buffers {
        get {
            SpareTapeMemory.Buffers(
                tokens: tokens,
                tokenCapacity: tokenCapacity,
                bytes: bytes,
                byteCapacity: byteCapacity
            )
        }
        set {
            tokens = newValue.tokens
            tokenCapacity = newValue.tokenCapacity
            bytes = newValue.bytes
            byteCapacity = newValue.byteCapacity
        }
    }

    func deallocate() {
        memory.free()
    }

    @inline(__always)
    mutating func append(_ token: JSONToken) {
        if tokenCount == tokenCapacity { growTokens(toHold: tokenCount + 1) }
        // Safe because tokenCount < tokenCapacity after growing.
        (tokens + tokenCount).initialize(to: token)
        tokenCount += 1
    }

    /// Copies `text` into the arena and returns its absolute offset.
    @inline(__always)
    mutating func appendText(_ text: UnsafeRawBufferPointer) -> Int {
        let offset = arenaBase + byteCount
        if byteCount + text.count > byteCapacity { growBytes(toHold: byteCount + text.count) }
        if let source = text.baseAddress {
            // Safe because the arena has room for text.count more bytes after growing.
            UnsafeMutableRawPointer(bytes + byteCount).copyMemory(from: source, byteCount: text.count)
        }
        byteCount += text.count
        return offset
    }

    /// Copies a number's text into the arena, followed by its trailer (the digits read once, see
    /// `JSONNumberText.Digits`), and returns the text's absolute offset. Every number token's text
    /// has a trailer: the tokenizer and yajl's callbacks in C write it the same way.
    @inline(__always)
    mutating func appendNumber(_ text: UnsafeRawBufferPointer) -> Int {
        let trailer = Int(SLUICE_NUMBER_TRAILER_SIZE)
        let needed = byteCount + text.count + trailer
        if needed > byteCapacity { growBytes(toHold: needed) }
        let offset = appendText(text)
        if let source = text.baseAddress {
            // Safe because the arena has room for the trailer after growing.
            sluice_number_trailer(source.assumingMemoryBound(to: UInt8.self), text.count, bytes + byteCount)
        }
        byteCount += trailer
        return offset
    }

    /// `appendNumber(_:)`, with `flags` added to the trailer's.
    mutating func appendNumber(_ text: UnsafeRawBufferPointer, addingFlags flags: UInt8) -> Int {
        let offset = appendNumber(text)
        bytes[byteCount - Int(SLUICE_NUMBER_TRAILER_SIZE) + 10] |= flags
        return offset
    }

    /// Copies the text of a number that has no digits (JSON5's `Infinity`, `NaN`) with a
    /// trailer that holds `value` as converted, and returns the text's absolute offset.
    mutating func appendNumber(_ text: UnsafeRawBufferPointer, converted value: Double) -> Int {
        let trailer = Int(SLUICE_NUMBER_TRAILER_SIZE)
        let needed = byteCount + text.count + trailer
        if needed > byteCapacity { growBytes(toHold: needed) }
        let offset = appendText(text)
        var flags = UInt8(SLUICE_NUMBER_CONVERTED)
        if value.sign == .minus { flags |= UInt8(SLUICE_NUMBER_NEGATIVE) }
        // Laid out as `sluice_number_digits`: the magnitude's bits, a scale of 0, the flags.
        let out = UnsafeMutableRawPointer(bytes + byteCount)
        out.storeBytes(of: value.magnitude.bitPattern, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: 0, toByteOffset: 8, as: Int16.self)
        out.storeBytes(of: flags, toByteOffset: 10, as: UInt8.self)
        out.storeBytes(of: 0, toByteOffset: 11, as: UInt8.self)
        byteCount += trailer
        return offset
    }

    /// Room for at least `tokens` tokens and `bytes` bytes of text, so that a tape whose size is
    /// known beforehand is not grown (and copied) a dozen times on the way there. Capacities
    /// double as appending grows them, so they are the sizes growth would have reached.
    mutating func reserve(tokens: Int, bytes: Int) {
        // A fresh tape takes the buffers a released one left, where they are large enough.
        if tokens > tokenCapacity || bytes > byteCapacity, tokenCount == 0, byteCount == 0,
            let spare = SpareTapeMemory.take(tokens: tokens, bytes: bytes)
        {
            deallocate()
            memory = spare
            return
        }
        if tokens > tokenCapacity { growTokens(toHold: tokens) }
        if bytes > byteCapacity { growBytes(toHold: bytes) }
    }

    private mutating func growTokens(toHold needed: Int) {
        var newCapacity = tokenCapacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newTokens = UnsafeMutablePointer<JSONToken>.allocate(capacity: newCapacity)
        newTokens.moveInitialize(from: tokens, count: tokenCount)
        tokens.deallocate()
        tokens = newTokens
        tokenCapacity = newCapacity
    }

    private mutating func growBytes(toHold needed: Int) {
        var newCapacity = byteCapacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBytes.moveInitialize(from: bytes, count: byteCount)
        bytes.deallocate()
        bytes = newBytes
        byteCapacity = newCapacity
    }

    mutating func removeTokens(before index: Int) {
        peakTokenCount = max(peakTokenCount, tokenCount)
        peakByteCount = max(peakByteCount, byteCount)
        let dropped = index - firstIndex
        // Text offsets grow with token order, so the first remaining token with text marks the
        // first arena byte still needed.
        var keepFrom = arenaBase + byteCount
        for position in dropped..<tokenCount where tokens[position].hasText {
            keepFrom = tokens[position].payload
            break
        }
        // copyMemory is memmove: the regions overlap, and tokens are trivial, so bytes suffice.
        UnsafeMutableRawPointer(tokens).copyMemory(
            from: tokens + dropped,
            byteCount: (tokenCount - dropped) * MemoryLayout<JSONToken>.stride
        )
        tokenCount -= dropped
        firstIndex = index
        let droppedBytes = keepFrom - arenaBase
        if droppedBytes > 0 {
            UnsafeMutableRawPointer(bytes).copyMemory(from: bytes + droppedBytes, byteCount: byteCount - droppedBytes)
            byteCount -= droppedBytes
            arenaBase = keepFrom
        }
    }
}

/// Owns a ``TapeBuffer``; shared between copies of a ``JSONTape`` until one of them mutates.
@usableFromInline
final class TapeStorage {
    @usableFromInline let buffer: UnsafeMutablePointer<TapeBuffer>

    init() {
        buffer = .allocate(capacity: 1)
        buffer.initialize(to: TapeBuffer())
    }

    private init(copying source: TapeBuffer) {
        var copy = TapeBuffer(tokenCapacity: max(source.tokenCapacity, 1), byteCapacity: max(source.byteCapacity, 1))
        copy.tokens.initialize(from: source.tokens, count: source.tokenCount)
        copy.bytes.initialize(from: source.bytes, count: source.byteCount)
        copy.tokenCount = source.tokenCount
        copy.byteCount = source.byteCount
        copy.firstIndex = source.firstIndex
        copy.arenaBase = source.arenaBase
        copy.peakTokenCount = source.peakTokenCount
        copy.peakByteCount = source.peakByteCount
        buffer = .allocate(capacity: 1)
        buffer.initialize(to: copy)
    }

    func copy() -> TapeStorage {
        TapeStorage(copying: buffer.pointee)
    }

    deinit {
        SpareTapeMemory.keepOrFree(buffer.pointee.memory)
        buffer.deinitialize(count: 1)
        buffer.deallocate()
    }
}

/// The buffers of the last tape released, kept for the next tape sized up front (a document
/// decoded whole, a parallel batch).
///
/// Why: a tape of a few megabytes is above malloc's threshold for mapping memory afresh, and
/// each decode of a document that size asked the kernel for new pages, touched them (a fault
/// each, some 2 500 for canada.json) and gave them back; the second decode in a process paid it
/// again as malloc moved the tape into its heap. Handing the same buffers to the next tape costs
/// a lock. At most ``JSONTape/spareMemoryLimit`` bytes are kept, one tape's buffers at a time.
enum SpareTapeMemory {
    // @unchecked Sendable: the pointers belong to whoever holds the value, and are handed over
    // whole, under the lock.
    struct Buffers: @unchecked Sendable {
        var tokens: UnsafeMutablePointer<JSONToken>
        var tokenCapacity: Int
        var bytes: UnsafeMutablePointer<UInt8>
        var byteCapacity: Int

        var size: Int { tokenCapacity * MemoryLayout<JSONToken>.stride + byteCapacity }

        func free() {
            tokens.deallocate()
            bytes.deallocate()
        }
    }

    private struct Slot {
        var buffers: Buffers?
    }

    private static let slot = Mutex(Slot())
    static let limit = Atomic<Int>(32 << 20)

    /// Keeps `released` for the next tape, in place of a smaller one kept before, when it is
    /// within the limit; frees what is not kept. Buffers under 64 KiB are freed without taking
    /// the lock: malloc's own bins hand memory that size back as cheaply, and the many small
    /// tapes of short documents would each take it for nothing.
    static func keepOrFree(_ released: Buffers) {
        let limit = limit.load(ordering: .relaxed)
        guard released.size <= limit, released.size >= 64 << 10 else {
            released.free()
            return
        }
        let unkept = slot.withLock { slot -> Buffers? in
            if let kept = slot.buffers, kept.size >= released.size { return released }
            defer { slot.buffers = released }
            return slot.buffers
        }
        unkept?.free()
    }

    /// The kept buffers, when they hold `tokens` tokens and `bytes` bytes; they stay kept
    /// otherwise.
    static func take(tokens: Int, bytes: Int) -> Buffers? {
        slot.withLock { slot in
            guard let kept = slot.buffers, kept.tokenCapacity >= tokens, kept.byteCapacity >= bytes else { return nil }
            slot.buffers = nil
            return kept
        }
    }

    /// Frees what is kept (the limit was set anew).
    static func drop() {
        slot.withLock { slot in
            defer { slot.buffers = nil }
            return slot.buffers
        }?.free()
    }
}

extension JSONTape {
    /// The most memory, in bytes of capacity, that the buffers of a released tape are kept for
    /// the next decode in this process; 32 MiB unless set, 0 to keep none. Repeated decodes of
    /// documents of a few megabytes then reuse one tape's memory instead of each asking the
    /// system for new pages. At most one tape's buffers are kept at a time, and of them only the
    /// pages the last document reached are resident (about five times a document of short
    /// tokens, such as canada.json's numbers; twice one of long strings). Setting it frees what
    /// is kept; a negative limit counts as 0.
    public static var spareMemoryLimit: Int {
        get { SpareTapeMemory.limit.load(ordering: .relaxed) }
        set {
            SpareTapeMemory.limit.store(Swift.max(newValue, 0), ordering: .relaxed)
            SpareTapeMemory.drop()
        }
    }
}

extension JSONTape: RandomAccessCollection {
    /// The absolute index of the first token still held.
    @inlinable
    public var startIndex: Int { storage.buffer.pointee.firstIndex }
    /// The absolute index one past the last token.
    @inlinable
    public var endIndex: Int { storage.buffer.pointee.firstIndex + storage.buffer.pointee.tokenCount }

    /// The token at an absolute index.
    ///
    /// - Precondition: `startIndex <= index < endIndex`.
    @inlinable
    public subscript(index: Int) -> JSONToken {
        let buffer = storage.buffer
        let position = index - buffer.pointee.firstIndex
        precondition(position >= 0 && position < buffer.pointee.tokenCount, "JSONTape index out of range")
        return buffer.pointee.tokens[position]
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
        let buffer = storage.buffer
        let start = token.payload - buffer.pointee.arenaBase
        precondition(
            start >= 0 && start + Int(token.length) <= buffer.pointee.byteCount,
            "withUnsafeText(of:) on a released token"
        )
        // Safe because the precondition keeps the range inside the arena's initialized bytes, and
        // `self` keeps the storage alive for the duration of the call.
        return try withExtendedLifetime(storage) { () throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: buffer.pointee.bytes + start, count: Int(token.length)))
        }
    }

    /// The text of a key, string or number token as a `String`.
    public func text(of token: JSONToken) -> String {
        withUnsafeText(of: token) { UTF8Validation.string(ofChecked: $0, isASCII: token.isASCII) }
    }

    /// Whether a key or string token's text is exactly `bytes`, compared without making a `String`.
    public func text(of token: JSONToken, equals bytes: UnsafeRawBufferPointer) -> Bool {
        guard Int(token.length) == bytes.count else { return false }
        return withUnsafeText(of: token) { text in
            text.hasSameBytes(as: bytes)
        }
    }

    /// For the end token of an array or object at `index`, the absolute index of its start token
    /// (which may have been released); `nil` for other tokens. Lets a consumer that released a
    /// container's start recognise its end.
    @inlinable
    public func startOfContainer(endingAt index: Int) -> Int? {
        let token = self[index]
        return token.kind == .objectEnd || token.kind == .arrayEnd ? token.payload : nil
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
