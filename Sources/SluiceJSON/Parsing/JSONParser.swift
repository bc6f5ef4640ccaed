// The parser: JSON text turned into a tape of tokens, chunk by chunk.
//
// Two readers share the work. The tokenizer (CSluiceTokenizer.c) reads a chunk from where the
// last token ended and writes the tokens itself: it takes only what it can prove well-formed and
// ordinary, and stops just after the last token it wrote at anything else (a fault, a token cut
// by the chunk's end, a limit, a full buffer). There yajl takes over, put in the parser's state by
// a short muted prefix (`startYajl`), reads the next token through the callbacks below, and hands
// back (`hand_back`): so every rule about the unusual and every error keeps one definition, yajl's
// and the Swift callbacks', and the common token costs a fraction of what yajl and its callbacks
// spend on it. The tests hold the two to the same tapes and errors, token for token.
//
// yajl is a push parser. Each `yajl_parse` call lexes what it can of one chunk and calls back once
// per token; a token cut by the chunk's end is kept inside yajl and finished by the next call. The
// design of the yajl side follows from three facts about that:
//
// 1. yajl keeps the pointer to its callback table and calls C function pointers. So the table is
//    allocated on the heap for the parser's lifetime, the callbacks capture nothing, and each one
//    reaches the parser's state through the context pointer (`ParserState.from`). All mutable state
//    lives in one heap-allocated struct, `ParserState`, reached through that pointer: no class
//    property access, so no exclusivity check or reference counting per token. The callbacks yajl
//    calls are C (CSluiceTape): they build the common tokens themselves, in the fields every token
//    touches (`ParserState.hot`, shared with Swift and the tokenizer), and call the Swift callbacks
//    here for everything else, so each rule and each error is written once, in Swift.
// 2. A Swift error cannot cross a C frame. A callback that finds a fault records it and returns 0;
//    yajl stops with `yajl_status_client_canceled` and `parse` rethrows the recorded error.
//    Every yajl status is turned into a Swift error in one place (`ParserState.error(for:)`).
// 3. yajl reports no positions, only how far into the buffer it was handed it has read. Inside a
//    callback that is the end of the token just lexed. The start is found by stepping over the
//    whitespace and separators after the previous token; counting line feeds on the way gives line
//    and column for free, since tokens themselves never contain a raw line feed. A token that began
//    in an earlier chunk is remembered at that chunk's end (`pendingStart`). Because every position
//    is derived from bytes and never from where chunks happen to split, the same input gives the
//    same tokens and the same errors however it is cut.
//
// The grammar checks are yajl's wherever the tokenizer is not sure. On top of them the parser
// enforces the limits and a strict UTF-8 check (see UTF8Validation.swift). Numbers stay text until
// someone asks (JSONTape.Value).

internal import CSluiceTape
internal import CYajl
public import Foundation

/// An incremental JSON parser: feed it chunks of any size as they arrive, then call ``finish()``.
///
/// The parser appends a token to its ``tape`` for every key, scalar and bracket. It never builds a
/// dictionary or an `Any`. A consumer reads the new tokens after each chunk and releases those it is
/// done with (``removeTokens(before:)``), which keeps memory bounded however long the input is.
///
/// ```swift
/// let parser = JSONParser()
/// for chunk in chunks {
///     try parser.parse(chunk)
///     // read parser.tape, then release what was consumed:
///     parser.removeAllTokens()
/// }
/// try parser.finish()
/// ```
///
/// The input must be one JSON value (RFC 8259) in UTF-8: no comments, no trailing commas, nothing
/// after the value but whitespace. A UTF-8 byte order mark at the very start is skipped, as RFC
/// 8259 lets a parser do (positions still count its three bytes, so byte offsets stay the file's;
/// columns on the first line start after it). Every fault throws a ``JSONError`` with its position; after one,
/// the parser is spent and rethrows the same error. Limits come from ``JSONLimits``.
///
/// A parser is not thread-safe; use one per document.
public final class JSONParser {
    private let callbacks: UnsafeMutablePointer<yajl_callbacks>
    let state: UnsafeMutablePointer<ParserState>
    private var finished = false
    /// The first bytes of the input while they may still be a byte order mark (a chunk may end
    /// inside one); `nil` once the start of the input has been judged.
    private var leadingBytes: [UInt8]? = []
    /// Whether the tokenizer reads what it can and yajl only the rest; off, yajl reads everything
    /// (the tests compare the two).
    let usesTokenizer: Bool

    /// Creates a parser that enforces `limits`.
    public convenience init(limits: JSONLimits = .default) {
        self.init(limits: limits, usesTokenizer: true)
    }

    /// Creates a parser that enforces `limits`, with yajl reading every byte when `usesTokenizer`
    /// is off: the reference the fuzz targets and tests hold the tokenizer to. Not for users: the
    /// tokenizer reads the same tokens, positions and errors, faster.
    @_spi(Reference)
    public init(limits: JSONLimits, usesTokenizer: Bool) {
        self.usesTokenizer = usesTokenizer
        state = .allocate(capacity: 1)
        state.initialize(to: ParserState(limits: limits))
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: yajl_callbacks())
        sluice_tape_callbacks(callbacks)
        ParserState.installCallbacks(in: state.pointee.hot, state: state)
        if !usesTokenizer { startYajl() }
    }

    deinit {
        if let handle = state.pointee.handle { yajl_free(handle) }
        callbacks.deinitialize(count: 1)
        callbacks.deallocate()
        state.pointee.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Hands the input to a new yajl handle from the parser's current point: yajl first reads,
    /// with the callbacks muted, a prefix that leaves it in the parser's state.
    private func startYajl() {
        guard let handle = yajl_alloc(callbacks, nil, UnsafeMutableRawPointer(state.pointee.hot)) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        // yajl's leniencies are off by default; set them anyway so the choice is visible here.
        // Strings are validated as UTF-8 (dont_validate_strings off); no comments, no trailing
        // garbage, one value only, and a partial value at the end is an error.
        _ = cyajl_config(handle, yajl_allow_comments, 0)
        _ = cyajl_config(handle, yajl_dont_validate_strings, 0)
        _ = cyajl_config(handle, yajl_allow_trailing_garbage, 0)
        _ = cyajl_config(handle, yajl_allow_multiple_values, 0)
        _ = cyajl_config(handle, yajl_allow_partial_values, 0)
        state.pointee.handle = handle
        let hot = state.pointee.hot
        var prefix = [UInt8](repeating: 0, count: 4 * hot.pointee.container_count + 8)
        let length = sluice_yajl_prefix(hot, &prefix, prefix.count)
        if length > 0 {
            hot.pointee.muted = true
            let status = yajl_parse(handle, prefix, length)
            hot.pointee.muted = false
            precondition(status == yajl_status_ok, "Internal inconsistency: yajl refused the parser's own state")
        }
        hot.pointee.hand_back = usesTokenizer
    }

    /// Makes the parser ready for another value that starts at the input's byte `offset`, on `line`
    /// at `column`, keeping its buffers: what reads a sequence of values (JSON Lines) does between
    /// values, so that each value costs no allocation and reports the input's own positions. A
    /// byte order mark is not skipped there.
    package func reset(startingAt offset: Int, line: Int, column: Int) {
        if let handle = state.pointee.handle { yajl_free(handle) }
        state.pointee.reset(startingAt: offset, line: line, lineStart: offset - (column - 1))
        finished = false
        leadingBytes = nil
        if !usesTokenizer { startYajl() }
    }

    /// For a parser that starts inside a document: no byte order mark can stand there.
    func startsMidDocument() {
        leadingBytes = nil
    }

    /// Lets the tokenizer read on: yajl stopped after the token it was started for.
    private func stopYajl() {
        if let handle = state.pointee.handle { yajl_free(handle) }
        state.pointee.handle = nil
        state.pointee.hot.pointee.handed_back = false
    }

    /// The tokens parsed and not yet released.
    ///
    /// Read it between calls to `parse`; a copy kept across a call makes the parser copy its
    /// storage instead of appending in place.
    public var tape: JSONTape {
        _read { yield state.pointee.tape }
    }

    /// The limits this parser enforces.
    public var limits: JSONLimits { state.pointee.limits }

    /// The number of input bytes handed to the parser so far.
    public var bytesParsed: Int { state.pointee.chunkBase }

    /// The number of arrays and objects open at the current point of the input.
    public var depth: Int { state.pointee.containers.count }

    /// Whether a complete top-level value has been parsed. Only whitespace may follow.
    public var isComplete: Bool { state.pointee.sawToken && state.pointee.containers.isEmpty }

    /// Releases every token before the absolute index `index`; see ``JSONTape/removeTokens(before:)``.
    public func removeTokens(before index: Int) {
        state.pointee.tape.removeTokens(before: index)
    }

    /// Releases every token parsed so far.
    public func removeAllTokens() {
        state.pointee.tape.removeAll()
    }

    /// Whether the last chunk left more tape than ``JSONLimits/maxHeldBytes``. The fault is
    /// thrown at the next call, once the consumer has released what it read of the chunk: if the
    /// tape is still too large then, it is one value still open, and the fault names where that
    /// value starts (the first token held) rather than the chunk's end where the limit was found.
    private var heldOverLimit = false

    /// Whether the tape holds more than ``JSONLimits/maxHeldBytes`` now.
    private var holdsOverLimit: Bool {
        let buffer = state.pointee.tape.uncheckedBuffer.pointee
        return buffer.tokenCount * MemoryLayout<JSONToken>.stride + buffer.byteCount > state.pointee.limits.maxHeldBytes
    }

    /// Throws the held-bytes fault found in the last chunk (see `heldOverLimit`).
    private func checkHeldBytes() throws(JSONError) {
        guard heldOverLimit else { return }
        let tape = state.pointee.tape
        let open = holdsOverLimit && tape.endIndex > tape.startIndex
        throw state.pointee.heldBytesLimitExceeded(heldFrom: open ? tape[tape.startIndex].position : nil)
    }

    /// Parses the next chunk of input.
    ///
    /// A chunk may end anywhere, even inside a token or a UTF-8 sequence.
    ///
    /// - Throws: ``JSONError`` at the first fault. The parser is spent afterwards.
    /// - Precondition: ``finish()`` has not been called.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) {
        if let failure = state.pointee.failure { throw failure }
        try checkHeldBytes()
        precondition(!finished, "JSONParser.parse(_:) called after finish()")
        guard !bytes.isEmpty else { return }
        if leadingBytes != nil {
            try parseStart(bytes)
            return
        }
        try parseChecked(bytes)
    }

    /// The UTF-8 byte order mark.
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Parses the first bytes of the input, skipping a byte order mark: bytes that may be the
    /// start of one are held until the mark is whole or ruled out, so that a chunk's end inside it
    /// changes nothing.
    private func parseStart(_ bytes: UnsafeRawBufferPointer) throws(JSONError) {
        let held = leadingBytes ?? []
        var candidate = held
        var taken = 0
        while candidate.count < 3, taken < bytes.count {
            candidate.append(bytes[taken])
            taken += 1
        }
        if candidate.elementsEqual(Self.byteOrderMark.prefix(candidate.count)) {
            guard candidate.count == 3 else {
                leadingBytes = candidate
                return
            }
            leadingBytes = nil
            // Skipped, not parsed: the next byte is the document's fourth, at column 1.
            state.pointee.chunkBase = 3
            state.pointee.scanOffset = 3
            state.pointee.lineStart = 3
            if taken < bytes.count { try parseChecked(UnsafeRawBufferPointer(rebasing: bytes[taken...])) }
            return
        }
        leadingBytes = nil
        if !held.isEmpty { try withBytes(held) { buffer throws(JSONError) in try parseChecked(buffer) } }
        try parseChecked(bytes)
    }

    private func parseChecked(_ bytes: UnsafeRawBufferPointer) throws(JSONError) {
        // Not below 0: a byte order mark already counts 3 bytes against a smaller limit.
        let allowed = max(0, state.pointee.limits.maxDocumentBytes - state.pointee.chunkBase)
        if bytes.count > allowed {
            try feed(UnsafeRawBufferPointer(rebasing: bytes[..<allowed]))
            throw state.pointee.documentLimitExceeded()
        }
        try feed(bytes)
        // Checked per chunk: a chunk adds at most a chunk's worth, and the reader releases
        // between chunks what it has read (see `heldOverLimit`).
        if state.pointee.limits.maxHeldBytes != .max, holdsOverLimit { heldOverLimit = true }
    }

    /// Parses the next chunk of input.
    public func parse(_ bytes: [UInt8]) throws(JSONError) {
        try withBytes(bytes) { buffer throws(JSONError) in try parse(buffer) }
    }

    /// Parses the next chunk of input.
    public func parse(_ data: Data) throws(JSONError) {
        try withBytes(data) { buffer throws(JSONError) in try parse(buffer) }
    }

    /// Tells the parser the input has ended, and checks that it held exactly one complete value.
    ///
    /// - Throws: ``JSONError`` of kind ``JSONError/Kind/unexpectedEndOfInput`` naming what was
    ///   left open, or any fault found in a token that only the end of input completes (such as a
    ///   top-level number).
    public func finish() throws(JSONError) {
        if let failure = state.pointee.failure { throw failure }
        try checkHeldBytes()
        precondition(!finished, "JSONParser.finish() called twice")
        if let held = leadingBytes, !held.isEmpty {
            // The start of a byte order mark and nothing after it: not a mark, but input.
            leadingBytes = nil
            try withBytes(held) { buffer throws(JSONError) in try parseChecked(buffer) }
        }
        leadingBytes = nil
        finished = true
        if state.pointee.handle == nil {
            // The tokenizer never leaves a token open: a complete value needs nothing more.
            if isComplete { return }
            startYajl()
        }
        state.pointee.hot.pointee.hand_back = false
        // yajl finishes by lexing one space, which completes a number at the very end. Positions
        // are computed over the same one-space buffer, placed just past the input.
        let handle = state.pointee.handle.unsafelyUnwrapped
        let space: [UInt8] = [UInt8(ascii: " ")]
        let status = space.withUnsafeBytes { buffer in
            state.pointee.beginChunk(buffer, isVirtual: true)
            return yajl_complete_parse(handle)
        }
        if let error = state.pointee.error(for: status) {
            state.pointee.failure = error
            throw error
        }
    }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(JSONError) {
        state.pointee.beginChunk(bytes, isVirtual: false)
        let hot = state.pointee.hot
        // Safe because `bytes` is non-empty here, so its base address is not nil.
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // Where in the chunk yajl starts reading: the chunk's start when yajl is still reading
        // from an earlier chunk (a token cut by its end), else where the tokenizer stopped.
        var from = 0
        while true {
            if state.pointee.handle == nil {
                if sluice_fast_tokenize(hot) != 0 { break }
                from = max(hot.pointee.scan_offset, hot.pointee.chunk_base) - hot.pointee.chunk_base
                startYajl()
            }
            hot.pointee.yajl_base = hot.pointee.chunk_base + from
            let status = yajl_parse(state.pointee.handle, base + from, bytes.count - from)
            if status == yajl_status_client_canceled && hot.pointee.handed_back {
                stopYajl()
                continue
            }
            if let error = state.pointee.error(for: status) {
                state.pointee.failure = error
                throw error
            }
            break
        }
        if let error = state.pointee.endChunk() {
            state.pointee.failure = error
            throw error
        }
    }
}

@available(*, unavailable, message: "A JSONParser holds mutable state; use one per document and task.")
extension JSONParser: Sendable {}

extension JSONParser {
    /// Parses a whole document held in memory and returns its tape.
    ///
    /// ```swift
    /// let tape = try JSONParser.parse(Array(#"[1, 2, 3]"#.utf8))
    /// ```
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .default) throws(JSONError) -> JSONTape {
        let parser = JSONParser(limits: limits)
        try parser.parse(bytes)
        try parser.finish()
        return parser.tape
    }

    /// Parses a whole document held in memory and returns its tape.
    public static func parse(_ data: Data, limits: JSONLimits = .default) throws(JSONError) -> JSONTape {
        let parser = JSONParser(limits: limits)
        try parser.parse(data)
        try parser.finish()
        return parser.tape
    }
}

/// Runs a typed-throwing body over the contiguous bytes of `bytes`, keeping the error type that
/// `withUnsafeBytes` (untyped `rethrows`) would otherwise erase.
func withBytes<Bytes: ContiguousBytes, R>(
    _ bytes: Bytes,
    _ body: (UnsafeRawBufferPointer) throws(JSONError) -> R
) throws(JSONError) -> R {
    let result: Result<R, JSONError> = bytes.withUnsafeBytes { buffer in
        do throws(JSONError) {
            return .success(try body(buffer))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
