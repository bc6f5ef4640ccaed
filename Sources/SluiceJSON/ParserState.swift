internal import CSluiceTape
internal import CYajl

/// Everything a parser's callbacks change, in one struct on the heap that yajl's context pointer
/// names (see the essay at the top of JSONParser.swift).
struct ParserState {
    var tape = JSONTape()
    /// The tape's buffer while yajl calls back; set by `beginChunk` after making the tape's storage
    /// unique, so callbacks append without checks.
    var buffer: UnsafeMutablePointer<TapeBuffer>
    let limits: JSONLimits
    /// `limits.maxStringBytes` clamped so that a token's length always fits the tape's `UInt32`.
    var maxTokenBytes: Int { hot.pointee.max_token_bytes }
    /// Set by a callback that found a fault, or by `parse` after any fault; rethrown from then on.
    var failure: JSONError?

    /// The fields every token reads or writes, shared with the C fast path (CSluiceTape), which
    /// builds the common tokens itself and calls the callbacks here for everything else. On the
    /// heap, so that its address stays put for yajl's context pointer.
    let hot: UnsafeMutablePointer<sluice_parser_hot>

    // The chunk yajl is reading. Valid only during a parse call.
    var chunk: UnsafeRawBufferPointer {
        get { UnsafeRawBufferPointer(start: hot.pointee.chunk, count: hot.pointee.chunk_count) }
        set {
            hot.pointee.chunk = newValue.baseAddress?.assumingMemoryBound(to: UInt8.self)
            hot.pointee.chunk_count = newValue.count
        }
    }
    /// The absolute offset of `chunk`'s first byte: the number of bytes parsed before it.
    var chunkBase: Int {
        get { hot.pointee.chunk_base }
        set { hot.pointee.chunk_base = newValue }
    }
    /// Whether `chunk` is the one space yajl lexes to finish, not input.
    var chunkIsVirtual: Bool {
        get { hot.pointee.chunk_is_virtual }
        set { hot.pointee.chunk_is_virtual = newValue }
    }
    /// The yajl handle while yajl reads; `nil` while the tokenizer does (see JSONParser.swift).
    var handle: OpaquePointer? {
        get { hot.pointee.handle }
        set { hot.pointee.handle = newValue }
    }
    /// The absolute offset just past what yajl has read: it counts the bytes it consumed of the
    /// buffer it was handed, which starts at `yajl_base`, not always at the chunk's start.
    var yajlRead: Int {
        hot.pointee.yajl_base + yajl_get_bytes_consumed(handle.unsafelyUnwrapped)
    }
    /// Up to `recentCapacity` bytes of input just before `chunk`, for excerpts and error messages
    /// about a token that began in an earlier chunk.
    var recent: [UInt8] = []
    static let recentCapacity = 32

    // Positions.
    /// Bytes before this absolute offset have been stepped over (line feeds counted).
    var scanOffset: Int {
        get { hot.pointee.scan_offset }
        set { hot.pointee.scan_offset = newValue }
    }
    var line: Int {
        get { hot.pointee.line }
        set { hot.pointee.line = newValue }
    }
    /// The absolute offset of the first byte of `line`.
    var lineStart: Int {
        get { hot.pointee.line_start }
        set { hot.pointee.line_start = newValue }
    }
    /// The absolute offset of a token that began in an earlier chunk and has not completed, or -1.
    var pendingStart: Int {
        get { hot.pointee.pending_start }
        set { hot.pointee.pending_start = newValue }
    }
    /// The first byte of that token, which tells a string from a number or a literal.
    var pendingFirstByte: UInt8 = 0
    /// The raw bytes, opening quote included, of a string that began in an earlier chunk: yajl
    /// hands over strings unescaped, and the UTF-8 and surrogate checks need them as written.
    var carry: [UInt8] = []
    /// The absolute offset of `carry`'s first byte. The copy stays after its token completes (it
    /// is replaced by the next string cut by a chunk's end), so a message about a byte of it can
    /// still name the byte.
    var carryStart = 0
    /// Up to `tokenWindowBefore` bytes before a token cut by a chunk's end and `tokenWindowAfter`
    /// of the token itself, from `tokenWindowStart`: what a message about the token names (its first
    /// byte) and what its excerpt shows, however far back it began when yajl reports it.
    var tokenWindow: [UInt8] = []
    var tokenWindowStart = 0
    static let tokenWindowBefore = 24
    static let tokenWindowAfter = 16

    // Structure.
    var containers: ContainerStack
    var lastTokenWasKey: Bool {
        get { hot.pointee.last_token_was_key }
        set { hot.pointee.last_token_was_key = newValue }
    }
    /// Whether the last token ended a value (a scalar or a closing bracket), after which a ','
    /// may follow inside a container.
    var lastTokenEndedValue: Bool {
        get { hot.pointee.last_token_ended_value }
        set { hot.pointee.last_token_ended_value = newValue }
    }
    /// Whether the gap after the last token, as far as scanned, held a ',' or ':'.
    var gapHadSeparator: Bool {
        get { hot.pointee.gap_had_separator }
        set { hot.pointee.gap_had_separator = newValue }
    }
    var sawToken: Bool {
        get { hot.pointee.saw_token }
        set { hot.pointee.saw_token = newValue }
    }

    init(limits: JSONLimits) {
        precondition(Self.tokenLayoutMatches, "JSONToken's layout differs from CSluiceTape's sluice_token")
        hot = .allocate(capacity: 1)
        hot.initialize(to: sluice_parser_hot())
        hot.pointee.line = 1
        hot.pointee.pending_start = -1
        containers = ContainerStack(sharing: hot)
        buffer = tape.uncheckedBuffer
        // The properties are public vars, so the initializer's checks may have been bypassed:
        // clamp rather than trust them.
        var limits = limits
        limits.maxDepth = max(limits.maxDepth, 1)
        limits.maxStringBytes = max(limits.maxStringBytes, 0)
        limits.maxDocumentBytes = max(limits.maxDocumentBytes, 0)
        self.limits = limits
        hot.pointee.max_token_bytes = min(limits.maxStringBytes, Int(UInt32.max))
        hot.pointee.max_depth = limits.maxDepth
    }

    /// Frees what the state allocated; called once, when the parser goes away.
    func deallocate() {
        containers.deallocate()
        hot.deinitialize(count: 1)
        hot.deallocate()
    }

    /// Whether `JSONToken` is laid out as the C fast path writes tokens (`sluice_token`). Swift
    /// lays a struct's stored properties out in order, but does not promise to: checked, not
    /// assumed.
    static let tokenLayoutMatches: Bool = {
        MemoryLayout<JSONToken>.size == MemoryLayout<sluice_token>.size
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.kind) == MemoryLayout<sluice_token>.offset(of: \.kind)
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.isASCII)
                == MemoryLayout<sluice_token>.offset(of: \.is_ascii)
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.length) == MemoryLayout<sluice_token>.offset(of: \.length)
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.columnStorage)
                == MemoryLayout<sluice_token>.offset(of: \.column)
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.lineStorage)
                == MemoryLayout<sluice_token>.offset(of: \.line)
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.payload)
                == MemoryLayout<sluice_token>.offset(of: \.payload)
            && MemoryLayout<JSONToken>.offset(of: \JSONToken.byteOffset)
                == MemoryLayout<sluice_token>.offset(of: \.byte_offset)
            && JSONToken.Kind.key.rawValue == 4 && JSONToken.Kind.null.rawValue == 9
    }()

    /// Points the C fast path at the tape's buffer, whose address changes when the tape's storage
    /// is copied (see `beginChunk`).
    private mutating func shareBuffer() {
        let base = UnsafeMutableRawPointer(buffer)
        func field<T>(_ path: PartialKeyPath<TapeBuffer>, as type: T.Type) -> UnsafeMutablePointer<T> {
            // Safe because the key paths name stored properties of TapeBuffer, whose storage is
            // the tape's, alive as long as the tape.
            (base + MemoryLayout<TapeBuffer>.offset(of: path)!).assumingMemoryBound(to: T.self)
        }
        hot.pointee.tokens = UnsafeMutableRawPointer(
            field(\TapeBuffer.tokens, as: UnsafeMutablePointer<JSONToken>.self)
        )
        .assumingMemoryBound(to: UnsafeMutablePointer<sluice_token>?.self)
        hot.pointee.token_count = field(\TapeBuffer.tokenCount, as: Int.self)
        hot.pointee.token_capacity = field(\TapeBuffer.tokenCapacity, as: Int.self)
        hot.pointee.bytes = UnsafeMutableRawPointer(field(\TapeBuffer.bytes, as: UnsafeMutablePointer<UInt8>.self))
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        hot.pointee.byte_count = field(\TapeBuffer.byteCount, as: Int.self)
        hot.pointee.byte_capacity = field(\TapeBuffer.byteCapacity, as: Int.self)
        hot.pointee.arena_base = field(\TapeBuffer.arenaBase, as: Int.self)
        hot.pointee.first_index = field(\TapeBuffer.firstIndex, as: Int.self)
    }

    /// Reaches the state from yajl's context pointer: the one way every callback gets to it.
    @inline(__always)
    static func from(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<ParserState> {
        // Safe because JSONParser.init passes its ParserState pointer as the context, and yajl
        // calls back only during yajl_parse / yajl_complete_parse, while the parser is alive.
        context.unsafelyUnwrapped.assumingMemoryBound(to: ParserState.self)
    }

    /// Hands the C fast path the callbacks it leaves the uncommon cases to. Non-capturing
    /// closures, so each converts to a C function pointer; each gets this state as its context.
    /// `yajl_number` is set, so yajl hands over every number as its text and never converts one.
    static func installCallbacks(
        in hot: UnsafeMutablePointer<sluice_parser_hot>,
        state: UnsafeMutablePointer<ParserState>
    ) {
        hot.pointee.swift_state = UnsafeMutableRawPointer(state)
        hot.pointee.slow_null = { ParserState.from($0).pointee.didReceiveLiteral(.null) }
        hot.pointee.slow_boolean = { ParserState.from($0).pointee.didReceiveLiteral($1 != 0 ? .true : .false) }
        hot.pointee.slow_number = { context, text, length in
            ParserState.from(context).pointee.didReceiveNumber(UnsafeRawBufferPointer(start: text, count: length))
        }
        hot.pointee.slow_string = { context, text, length in
            ParserState.from(context).pointee.didReceiveString(
                UnsafeRawBufferPointer(start: text, count: length),
                isKey: false
            )
        }
        hot.pointee.slow_key = { context, text, length in
            ParserState.from(context).pointee.didReceiveString(
                UnsafeRawBufferPointer(start: text, count: length),
                isKey: true
            )
        }
        hot.pointee.start_map = { ParserState.from($0).pointee.didStartContainer(isObject: true) }
        hot.pointee.end_map = { ParserState.from($0).pointee.didEndContainer() }
        hot.pointee.start_array = { ParserState.from($0).pointee.didStartContainer(isObject: false) }
        hot.pointee.end_array = { ParserState.from($0).pointee.didEndContainer() }
    }
}

/// The arrays and objects open at the current point, innermost last.
///
/// A manually grown buffer rather than an `Array`, so that counting a child, pushing and popping
/// cost no uniqueness check: they run once per token. The innermost container's child count lives
/// in `topChildCount`, outside the buffer, so counting one is a plain increment.
struct ContainerStack {
    /// The stack lives in the state shared with the C fast path, which pushes and pops the
    /// common containers itself; this grows it and serves the Swift callbacks and messages.
    private let hot: UnsafeMutablePointer<sluice_parser_hot>

    /// The children of the innermost container so far (at the top level: the top-level values).
    var topChildCount: Int {
        get { hot.pointee.top_child_count }
        nonmutating set { hot.pointee.top_child_count = newValue }
    }

    init(sharing hot: UnsafeMutablePointer<sluice_parser_hot>) {
        self.hot = hot
        hot.pointee.container_capacity = 16
        hot.pointee.containers = .allocate(capacity: 16)
    }

    /// Frees the buffer; called once, when the parser goes away.
    func deallocate() {
        hot.pointee.containers.deallocate()
    }

    var count: Int { hot.pointee.container_count }

    var isEmpty: Bool { count == 0 }

    /// The innermost container, if any (its `child_count` is not kept up to date).
    var last: sluice_open_container? { count == 0 ? nil : hot.pointee.containers[count - 1] }

    func push(_ container: sluice_open_container) {
        var storage = hot.pointee.containers.unsafelyUnwrapped
        if count > 0 { storage[count - 1].child_count = topChildCount }
        let capacity = hot.pointee.container_capacity
        if count == capacity {
            let newStorage = UnsafeMutablePointer<sluice_open_container>.allocate(capacity: capacity * 2)
            newStorage.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = newStorage
            hot.pointee.containers = newStorage
            hot.pointee.container_capacity = capacity * 2
        }
        // Safe because count < capacity after growing.
        (storage + count).initialize(to: container)
        hot.pointee.container_count += 1
        topChildCount = 0
    }

    func pop() -> sluice_open_container? {
        guard count > 0 else { return nil }
        hot.pointee.container_count -= 1
        let storage = hot.pointee.containers.unsafelyUnwrapped
        var container = storage[count]
        container.child_count = topChildCount
        topChildCount = count > 0 ? storage[count - 1].child_count : 0
        return container
    }
}

/// One array or object that has opened and not yet closed: its start token's absolute index, its
/// children so far, where its bracket stands and whether it is an object. A C struct, because the
/// C fast path pushes and pops most of them.
extension sluice_open_container {
    /// Where the container's bracket stands.
    var position: JSONPosition { JSONPosition(byteOffset: byte_offset, line: line, column: column) }
}

// MARK: - Callbacks

extension ParserState {
    /// yajl's "go on" and "stop" answers.
    private static let proceed: Int32 = 1
    private static let stop: Int32 = 0

    /// The absolute offset just past the token yajl has lexed (yajl counts bytes consumed of the
    /// current chunk while it calls back).
    @inline(__always)
    private var tokenEnd: Int {
        // Safe because callbacks run only inside yajl calls on a parser whose handle is set.
        yajlRead
    }

    mutating func didReceiveLiteral(_ kind: JSONToken.Kind) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        appendMarker(kind, payload: 0, at: start)
        endValue(at: tokenEnd)
        return Self.proceed
    }

    mutating func didReceiveNumber(_ text: UnsafeRawBufferPointer) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        guard text.count <= maxTokenBytes else {
            return fail(tokenTooLong(at: start, description: "number"))
        }
        appendText(.number, text, at: start)
        endValue(at: tokenEnd)
        return Self.proceed
    }

    mutating func didReceiveString(_ text: UnsafeRawBufferPointer, isKey: Bool) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        let end = tokenEnd
        let rawLength = end - start - 2
        guard rawLength <= maxTokenBytes else {
            return fail(tokenTooLong(at: start, description: isKey ? "key" : "string"))
        }
        if text.count == rawLength {
            // No escapes: the decoded bytes are the raw bytes, so check them where they are.
            if let index = UTF8Validation.firstInvalidSequence(in: text) {
                return fail(invalidUTF8(at: start + 1 + index))
            }
            if start < chunkBase { carry.removeAll(keepingCapacity: true) }
        } else if let fault = checkRawString(from: start, to: end) {
            return fail(fault)
        }
        appendText(isKey ? .key : .string, text, at: start)
        if isKey {
            scanOffset = end
            lastTokenWasKey = true
            lastTokenEndedValue = false
        } else {
            endValue(at: end)
        }
        return Self.proceed
    }

    mutating func didStartContainer(isObject: Bool) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        guard containers.count < limits.maxDepth else {
            return fail(
                error(
                    .depthLimitExceeded,
                    "Arrays and objects are nested more than \(limits.maxDepth) levels deep, the limit.",
                    at: start
                )
            )
        }
        containers.topChildCount += 1
        let position = position(ofTokenAt: start)
        containers.push(
            sluice_open_container(
                token_index: tapeEndIndex,
                child_count: 0,
                byte_offset: position.byteOffset,
                line: position.line,
                column: position.column,
                is_object: isObject
            )
        )
        appendMarker(isObject ? .objectStart : .arrayStart, payload: -1, at: start)
        scanOffset = tokenEnd
        lastTokenWasKey = false
        lastTokenEndedValue = false
        sawToken = true
        return Self.proceed
    }

    mutating func didEndContainer() -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        guard let open = containers.pop() else {
            preconditionFailure("Internal inconsistency: yajl closed a container that never opened")
        }
        let endIndex = tapeEndIndex
        appendMarker(open.is_object ? .objectEnd : .arrayEnd, payload: open.token_index, at: start)
        // Record on the start token where its container ends, unless a consumer has released it.
        let startPosition = open.token_index - buffer.pointee.firstIndex
        if startPosition >= 0 {
            buffer.pointee.tokens[startPosition].payload = endIndex
            buffer.pointee.tokens[startPosition].length = UInt32(clamping: open.child_count)
        }
        scanOffset = tokenEnd
        lastTokenWasKey = false
        lastTokenEndedValue = true
        return Self.proceed
    }

    /// The absolute index the next token will have.
    @inline(__always)
    private var tapeEndIndex: Int { buffer.pointee.firstIndex + buffer.pointee.tokenCount }

    @inline(__always)
    private mutating func appendMarker(_ kind: JSONToken.Kind, payload: Int, at start: Int) {
        buffer.pointee.append(
            JSONToken(
                kind: kind,
                length: 0,
                payload: payload,
                byteOffset: start,
                line: line,
                column: start - lineStart + 1
            )
        )
    }

    @inline(__always)
    private mutating func appendText(_ kind: JSONToken.Kind, _ text: UnsafeRawBufferPointer, at start: Int) {
        let offset = buffer.pointee.appendText(text)
        // Safe because every token is at most maxTokenBytes long, which is clamped to UInt32.max.
        buffer.pointee.append(
            JSONToken(
                kind: kind,
                length: UInt32(truncatingIfNeeded: text.count),
                payload: offset,
                byteOffset: start,
                line: line,
                column: start - lineStart + 1,
                isASCII: kind == .number || UTF8Validation.isASCII(text)
            )
        )
    }

    /// Bookkeeping after a scalar value: it counts as a child of the open container, if any.
    @inline(__always)
    private mutating func endValue(at end: Int) {
        containers.topChildCount += 1
        scanOffset = end
        lastTokenWasKey = false
        lastTokenEndedValue = true
        sawToken = true
    }

    private mutating func fail(_ error: JSONError) -> Int32 {
        failure = error
        return Self.stop
    }
}

// MARK: - Positions

extension ParserState {
    private static let lineFeed = UInt8(ascii: "\n")
    private static let quote = UInt8(ascii: "\"")

    /// Whether `byte` is JSON whitespace.
    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Vertical tab and form feed: yajl skips them as whitespace, but JSON does not allow them.
    @inline(__always)
    private static func isForbiddenWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x0B || byte == 0x0C
    }

    /// Whether a token starting with `byte` is a number: the tokens, with strings, that can be
    /// long, and so meet the string limit.
    private static func startsNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The absolute offset of the token yajl is calling back for: either the token left pending at
    /// an earlier chunk's end, or the first byte after the whitespace and separators that follow
    /// the previous token. Counts the line feeds stepped over. Returns `nil`, with `failure` set,
    /// when the gap holds whitespace that JSON does not allow.
    @inline(__always)
    mutating func beginToken() -> Int? {
        // The separator seen before this token belongs to it; the gap after it starts empty.
        defer { gapHadSeparator = false }
        if pendingStart >= 0 {
            let start = pendingStart
            pendingStart = -1
            return start
        }
        let start = skipGap(until: chunkBase + chunk.count) ?? scanOffset
        guard !Self.isForbiddenWhitespace(chunk[start - chunkBase]) else {
            failure = forbiddenWhitespace(at: start)
            return nil
        }
        return start
    }

    /// Steps from `scanOffset` over gap bytes of the current chunk, up to `limit`. Returns the
    /// offset of the first other byte, or `nil` if only gap bytes came before `limit`.
    ///
    /// This runs over every byte between tokens, so it is written for speed: one comparison
    /// rejects most token bytes, and indentation after a line feed is skipped eight spaces at a time.
    @inline(__always)
    private mutating func skipGap(until limit: Int) -> Int? {
        var index = max(scanOffset, chunkBase) - chunkBase
        let end = limit - chunkBase
        guard index < end, let base = chunk.baseAddress else {
            scanOffset = limit
            return nil
        }
        scan: while index < end {
            // Safe because 0 <= index < end <= chunk.count.
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            switch byte {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = chunkBase + index
                // Safe because index + 8 <= end keeps the load inside the chunk.
                while index + 8 <= end, base.loadUnaligned(fromByteOffset: index, as: UInt64.self) == Self.eightSpaces {
                    index += 8
                }
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                index += 1
                gapHadSeparator = true
            default:
                break scan
            }
        }
        scanOffset = chunkBase + index
        return index < end ? scanOffset : nil
    }

    private static let eightSpaces: UInt64 = 0x2020_2020_2020_2020

    /// The position of a token whose start is known; the line counter has already reached it.
    @inline(__always)
    func position(ofTokenAt start: Int) -> JSONPosition {
        JSONPosition(byteOffset: start, line: line, column: start - lineStart + 1)
    }

    /// The position of any offset at or after the last token, counting the line feeds between.
    mutating func position(of offset: Int) -> JSONPosition {
        if offset > scanOffset {
            let end = min(offset, chunkBase + (chunkIsVirtual ? 0 : chunk.count))
            var index = max(scanOffset, chunkBase)
            while index < end {
                if chunk[index - chunkBase] == Self.lineFeed {
                    line += 1
                    lineStart = index + 1
                }
                index += 1
            }
            scanOffset = offset
        }
        return JSONPosition(byteOffset: offset, line: line, column: max(offset - lineStart, 0) + 1)
    }

    /// The input byte at an absolute offset, if it is still at hand.
    func byte(at offset: Int) -> UInt8? {
        if offset >= chunkBase {
            let index = offset - chunkBase
            return !chunkIsVirtual && index < chunk.count ? chunk[index] : nil
        }
        let index = recent.count - (chunkBase - offset)
        if index >= 0 { return recent[index] }
        // Bytes of earlier chunks kept for a token that spanned them: still the input's bytes.
        if offset >= carryStart, offset - carryStart < carry.count { return carry[offset - carryStart] }
        if offset >= tokenWindowStart, offset - tokenWindowStart < tokenWindow.count {
            return tokenWindow[offset - tokenWindowStart]
        }
        return nil
    }

    /// Keeps the bytes around the start of a token that the chunk's end cut: from up to
    /// `tokenWindowBefore` bytes before it (still at hand: they are in this chunk or in `recent`)
    /// to as much of the token as this chunk holds.
    private mutating func rememberTokenStart(_ start: Int) {
        tokenWindow.removeAll(keepingCapacity: true)
        tokenWindowStart = max(start - Self.tokenWindowBefore, 0)
        var offset = tokenWindowStart
        while offset < start + Self.tokenWindowAfter, let byte = byte(at: offset) {
            tokenWindow.append(byte)
            offset += 1
        }
    }

    /// Adds what this chunk holds of the first `tokenWindowAfter` bytes of the pending token.
    private mutating func extendTokenWindow() {
        let end = min(pendingStart + Self.tokenWindowAfter, chunkBase + chunk.count)
        var offset = tokenWindowStart + tokenWindow.count
        while offset < end, offset >= chunkBase {
            tokenWindow.append(chunk[offset - chunkBase])
            offset += 1
        }
    }

    /// Starts a parse call over `bytes`.
    mutating func beginChunk(_ bytes: UnsafeRawBufferPointer, isVirtual: Bool) {
        tape.makeUnique()
        buffer = tape.uncheckedBuffer
        shareBuffer()
        chunk = bytes
        chunkIsVirtual = isVirtual
        hot.pointee.yajl_base = chunkBase
    }

    /// Ends a successful parse call: remembers a token cut by the chunk's end, checks it against
    /// the limits, and keeps the chunk's last bytes for excerpts.
    mutating func endChunk() -> JSONError? {
        let chunkEnd = chunkBase + chunk.count
        if pendingStart < 0, let start = skipGap(until: chunkEnd) {
            pendingStart = start
            pendingFirstByte = chunk[start - chunkBase]
            rememberTokenStart(start)
            if pendingFirstByte == Self.quote {
                carry.removeAll(keepingCapacity: true)
                carryStart = start
                carry.append(contentsOf: chunk[(start - chunkBase)...])
            }
        } else if pendingStart >= 0 {
            extendTokenWindow()
            if pendingFirstByte == Self.quote { carry.append(contentsOf: chunk) }
        }
        scanOffset = chunkEnd
        var fault: JSONError?
        if pendingStart >= 0, Self.isForbiddenWhitespace(pendingFirstByte) {
            fault = forbiddenWhitespace(at: pendingStart)
        } else if pendingStart >= 0, pendingFirstByte == Self.quote || Self.startsNumber(pendingFirstByte) {
            // A string or number cut by the chunk's end is buffered inside yajl; refusing it once
            // it is too long is what keeps that buffer bounded. (A literal is at most five bytes.)
            let isString = pendingFirstByte == Self.quote
            let length = chunkEnd - pendingStart - (isString ? 1 : 0)
            if length > maxTokenBytes {
                // A token that cannot stand where it starts is a grammar fault, which yajl reports
                // once it has read the token whole: report that, so that the error is the same
                // whether or not a chunk's end fell inside the token.
                if let misplaced = misplacedTokenError(at: pendingStart, isString: isString, separated: gapHadSeparator)
                {
                    fault = misplaced
                } else {
                    let isKey = isString && containers.last?.is_object == true && !lastTokenWasKey
                    let description = isString ? (isKey ? "key" : "string") : "number"
                    fault = tokenTooLong(at: pendingStart, description: description)
                }
            }
        }
        if fault == nil {
            rememberRecentBytes()
            chunkBase = chunkEnd
        }
        chunk = UnsafeRawBufferPointer(start: nil, count: 0)
        return fault
    }

    private mutating func rememberRecentBytes() {
        let keep = Self.recentCapacity
        if chunk.count >= keep {
            recent.removeAll(keepingCapacity: true)
            recent.append(contentsOf: chunk[(chunk.count - keep)...])
        } else {
            let overflow = recent.count + chunk.count - keep
            if overflow > 0 { recent.removeFirst(overflow) }
            recent.append(contentsOf: chunk)
        }
    }

    /// Calls `body` with a token's bytes as written in the input, from `start` to `end`; a token
    /// that began in an earlier chunk is put together from `carry` and the current chunk.
    private mutating func withRawToken<R>(from start: Int, to end: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let endInChunk = min(end - chunkBase, chunkIsVirtual ? 0 : chunk.count)
        if start >= chunkBase {
            return body(UnsafeRawBufferPointer(rebasing: chunk[(start - chunkBase)..<endInChunk]))
        }
        if endInChunk > 0 { carry.append(contentsOf: chunk[..<endInChunk]) }
        // Kept, not cleared: a fault found in it is described from it (`byte(at:)`).
        return carry.withUnsafeBytes(body)
    }

    /// Runs the checks yajl does not do on the raw bytes of a string that has escapes.
    private mutating func checkRawString(from start: Int, to end: Int) -> JSONError? {
        let contentStart = start + 1
        let fault: (offset: Int, isSurrogate: Bool)? = withRawToken(from: start, to: end) { raw in
            let content = UnsafeRawBufferPointer(rebasing: raw[1..<(raw.count - 1)])
            if let index = UTF8Validation.firstInvalidSequence(in: content) {
                return (contentStart + index, false)
            }
            if let index = UTF8Validation.firstUnpairedSurrogate(in: content) {
                return (contentStart + index, true)
            }
            return nil
        }
        guard let fault else { return nil }
        if fault.isSurrogate {
            return error(
                .unpairedSurrogate,
                "A \\u escape names half of a UTF-16 surrogate pair without the other half.",
                at: fault.offset
            )
        }
        return invalidUTF8(at: fault.offset)
    }
}

// MARK: - Errors

extension ParserState {
    /// Describes a byte for a message: `'x'` for printable ASCII, `byte 0xFF` otherwise.
    private func describeByte(at offset: Int) -> String {
        guard let byte = byte(at: offset) else { return "the end of the input" }
        if byte >= 0x21 && byte <= 0x7E { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == 0x20 { return "a space" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true).leftPadded(to: 2))"
    }

    /// Builds an error at an absolute offset, with its position and an excerpt.
    mutating func error(_ kind: JSONError.Kind, _ message: String, at offset: Int) -> JSONError {
        let position = position(of: offset)
        let (excerpt, column) = excerpt(around: offset, lineStart: lineStart)
        return JSONError(kind: kind, message: message, position: position, excerpt: excerpt, excerptColumn: column)
    }

    /// The fault's line, from at most 24 bytes before it up to the fault itself; and the fault's
    /// index in it, in characters.
    ///
    /// Why it ends at the fault: the bytes after it are at hand only when the chunk that brought
    /// the fault happens to hold them, and an excerpt, like the message, must not depend on where
    /// the input was cut. The bytes before it are: the chunk, `recent`, the string being read and
    /// the window kept around a token cut by a chunk's end hold them.
    private func excerpt(around offset: Int, lineStart: Int) -> (String, Int) {
        var from = offset
        let lowest = max(offset - 24, lineStart, 0)
        while from > lowest, byte(at: from - 1) != nil { from -= 1 }
        // Start on a character boundary: skip UTF-8 continuation bytes.
        while from < offset, let byte = byte(at: from), byte & 0xC0 == 0x80 { from += 1 }
        var bytes: [UInt8] = []
        var to = from
        while to <= offset, let byte = byte(at: to) {
            if to == offset && (byte == 0x0A || byte == 0x0D) { break }
            bytes.append(byte)
            to += 1
        }
        func render(_ slice: ArraySlice<UInt8>) -> String {
            let text = String(decoding: slice, as: UTF8.self)
            return String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        }
        let before = render(bytes[..<min(max(offset - from, 0), bytes.count)])
        return (render(bytes[...]), before.count)
    }

    mutating func invalidUTF8(at offset: Int) -> JSONError {
        error(
            .invalidUTF8,
            "Invalid UTF-8 in a string: the sequence starting with \(describeByte(at: offset)) is ill-formed.",
            at: offset
        )
    }

    /// The grammar fault yajl reports for a string or number starting at `start` once it has read
    /// the whole token, when such a token cannot stand there; `nil` when it can. yajl has accepted
    /// every separator in the gap before it, so only a missing one, or a number where a key must be,
    /// is left to find.
    private mutating func misplacedTokenError(at start: Int, isString: Bool, separated: Bool) -> JSONError? {
        guard let innermost = containers.last else {
            return sawToken ? trailingGarbage(at: start) : nil
        }
        if innermost.is_object {
            if lastTokenWasKey { return separated ? nil : expectedColon(at: start) }
            if lastTokenEndedValue && !separated { return expectedMemberSeparator(at: start) }
            return isString ? nil : expectedKey(at: start)
        }
        return lastTokenEndedValue && !separated ? expectedElementSeparator(at: start) : nil
    }

    private mutating func trailingGarbage(at start: Int) -> JSONError {
        error(.syntax, "Unexpected \(describeByte(at: start)) after the end of the JSON value.", at: start)
    }

    private mutating func expectedKey(at start: Int) -> JSONError {
        error(.syntax, "Expected a string as the object key, found \(describeByte(at: start)).", at: start)
    }

    private mutating func expectedColon(at start: Int) -> JSONError {
        error(.syntax, "Expected ':' after the object key, found \(describeByte(at: start)).", at: start)
    }

    private mutating func expectedMemberSeparator(at start: Int) -> JSONError {
        error(.syntax, "Expected ',' or '}' after the object member, found \(describeByte(at: start)).", at: start)
    }

    private mutating func expectedElementSeparator(at start: Int) -> JSONError {
        error(.syntax, "Expected ',' or ']' after the array element, found \(describeByte(at: start)).", at: start)
    }

    /// The message leaves out the token's length: a token cut by a chunk's end is refused before
    /// its length is known, and the error must not depend on where chunks end.
    private mutating func tokenTooLong(at start: Int, description: String) -> JSONError {
        error(
            .stringLimitExceeded,
            "A \(description) is longer than the limit of \(limits.maxStringBytes) bytes.",
            at: start
        )
    }

    /// The limit error to report instead of a syntax fault at `fault` when the fault lies past the
    /// limit inside a long string or number: cut into small chunks, the same input would have
    /// tripped the limit before yajl reached the fault.
    private mutating func limitErrorInstead(ofFaultAt fault: Int, tokenStart start: Int) -> JSONError? {
        guard start < fault, let first = byte(at: start) else { return nil }
        if first == Self.quote, fault - start - 1 > maxTokenBytes {
            let isKey = containers.last?.is_object == true && !lastTokenWasKey
            return tokenTooLong(at: start, description: isKey ? "key" : "string")
        }
        if Self.startsNumber(first), fault - start > maxTokenBytes {
            return tokenTooLong(at: start, description: "number")
        }
        return nil
    }

    mutating func documentLimitExceeded() -> JSONError {
        let error = error(
            .documentLimitExceeded,
            "The document is longer than the limit of \(limits.maxDocumentBytes) bytes.",
            at: limits.maxDocumentBytes
        )
        failure = error
        return error
    }

    /// Turns the status of a yajl call into the error to throw, or `nil` to go on. The one place
    /// where yajl's statuses and messages become Sluice's errors.
    mutating func error(for status: yajl_status) -> JSONError? {
        switch status {
        case yajl_status_ok:
            return nil
        case yajl_status_client_canceled:
            guard let failure else {
                preconditionFailure("Internal inconsistency: yajl stopped without a recorded error")
            }
            return failure
        case yajl_status_error:
            return syntaxError()
        default:
            preconditionFailure("Internal inconsistency: unknown yajl status \(status.rawValue)")
        }
    }

    /// Reads yajl's error message and turns it into a sentence at the fault's position, unless a
    /// limit was crossed before the fault.
    private mutating func syntaxError() -> JSONError {
        let (start, separated) = offendingToken()
        if let byte = byte(at: start), Self.isForbiddenWhitespace(byte) {
            return forbiddenWhitespace(at: start)
        }
        let fault = describeYajlError(offendingTokenStart: start)
        guard fault.kind != .unexpectedEndOfInput else { return fault }
        // A string or number that cannot stand where it starts (a number where a key belongs, a
        // missing separator) is reported as such, whatever yajl found inside it while reading it:
        // cut into small chunks, the token would have been refused at a chunk's end for its place
        // (see `endChunk`) before its inside was read.
        if let first = byte(at: start), first == Self.quote || Self.startsNumber(first),
            let misplaced = misplacedTokenError(
                at: start,
                isString: first == Self.quote,
                separated: separated
            )
        {
            return misplaced
        }
        guard fault.byteOffset > start else { return fault }
        // Some faults are reported where they start but decided by a later byte: an ill-formed
        // UTF-8 sequence by the byte that breaks it (the last one yajl read), a bad escape by the
        // byte after its backslash. Cut into small chunks, the input crosses the limit before
        // that byte is seen whenever it lies past the limit, so that byte is what counts.
        let decisive: Int
        if fault.kind == .invalidUTF8 {
            decisive = max(fault.byteOffset, yajlRead - 1)
        } else if byte(at: fault.byteOffset) == UInt8(ascii: "\\") {
            decisive = fault.byteOffset + 1
        } else {
            decisive = fault.byteOffset
        }
        return limitErrorInstead(ofFaultAt: decisive, tokenStart: start) ?? fault
    }

    private mutating func forbiddenWhitespace(at offset: Int) -> JSONError {
        let name = byte(at: offset) == 0x0B ? "vertical tab (0x0B)" : "form feed (0x0C)"
        return error(
            .syntax,
            "Unexpected \(name); JSON allows only space, tab, line feed and carriage return between tokens.",
            at: offset
        )
    }

    /// yajl's error message as a sentence at the fault's position. yajl's own offset is not used
    /// for faults in the grammar: it moves it back over the offending token when it can, and
    /// cannot when the token was cut by a chunk's end. Sluice finds the token itself.
    private mutating func describeYajlError(offendingTokenStart start: Int) -> JSONError {
        let handle = handle.unsafelyUnwrapped
        var reason = ""
        if let text = yajl_get_error(handle, 0, nil, 0) {
            reason = String(cString: text)
            yajl_free_error(handle, text)
        }
        // yajl writes "lexical error: <why>\n" or "parse error: <why>\n".
        if let colon = reason.firstIndex(of: ":") {
            reason = String(reason[reason.index(after: colon)...])
        }
        reason = reason.trimmingWhitespace()
        // yajl reports how far it read. For most faults it has read the offending byte (`read - 1`);
        // for some it steps back first, leaving the offending byte next (`read`).
        let read = yajlRead
        let last = max(read - 1, 0)
        switch YajlFault(rawValue: reason) {
        case .prematureEnd:
            return unexpectedEnd()
        case .trailingGarbage:
            return trailingGarbage(at: start)
        case .unallowedToken:
            return error(.syntax, "Unexpected \(describeByte(at: start)) where a value was expected.", at: start)
        case .invalidKey:
            return expectedKey(at: start)
        case .missingColon:
            return expectedColon(at: start)
        case .missingMemberSeparator:
            return expectedMemberSeparator(at: start)
        case .missingElementSeparator:
            return expectedElementSeparator(at: start)
        case .invalidUTF8:
            return invalidUTF8(at: firstInvalidByte(inTokenAt: start, before: last))
        case .invalidEscape:
            // yajl stops on the backslash; the character after it is the fault.
            return error(.syntax, "Invalid escape sequence: '\\' followed by \(describeByte(at: read)).", at: last)
        case .controlCharacter:
            return error(
                .syntax,
                "Unescaped control character \(describeByte(at: read)) in a string; write it as an escape.",
                at: read
            )
        case .invalidUnicodeEscape:
            return error(
                .syntax,
                "Invalid \\u escape: expected four hexadecimal digits, found \(describeByte(at: read)).",
                at: read
            )
        case .invalidCharacter where last == 0 && byte(at: 0) == 0xEF:
            return error(
                .syntax,
                "Unexpected byte 0xEF at the start of the input; JSON text may not begin with a byte order mark.",
                at: 0
            )
        case .invalidCharacter:
            return error(.syntax, "Unexpected \(describeByte(at: last)) where a value was expected.", at: last)
        case .invalidLiteral:
            // A literal that starts like true, false or null and then goes wrong.
            let name =
                byte(at: start) == UInt8(ascii: "t") ? "true" : byte(at: start) == UInt8(ascii: "f") ? "false" : "null"
            return error(.syntax, "Invalid literal: expected '\(name)', found \(describeByte(at: read)).", at: read)
        case .missingExponentDigit:
            return error(
                .syntax,
                "Malformed number: a digit must follow the exponent, found \(describeByte(at: read)).",
                at: read
            )
        case .missingFractionDigit:
            return error(
                .syntax,
                "Malformed number: a digit must follow the decimal point, found \(describeByte(at: read)).",
                at: read
            )
        case .missingIntegerDigit:
            return error(
                .syntax,
                "Malformed number: a digit must follow the minus sign, found \(describeByte(at: read)).",
                at: read
            )
        case .comment:
            return error(.syntax, "Comments are not allowed in JSON.", at: read)
        case nil:
            return error(.syntax, "Invalid JSON (yajl: \(reason)).", at: last)
        }
    }

    /// The start of the token yajl was lexing when it stopped: the token left pending at a chunk's
    /// end, or the first byte after the previous token that is neither whitespace nor the one
    /// separator the grammar allows there (':' after a key, ',' after a value in a container);
    /// the end of the input when there is no such byte. With it, whether that separator stands
    /// before it, which decides whether a string or number there is in its place.
    private func offendingToken() -> (start: Int, separated: Bool) {
        if pendingStart >= 0 { return (pendingStart, gapHadSeparator) }
        let expected: UInt8? =
            lastTokenWasKey
            ? UInt8(ascii: ":") : (lastTokenEndedValue && !containers.isEmpty ? UInt8(ascii: ",") : nil)
        var separatorSeen = gapHadSeparator
        var offset = max(scanOffset, chunkBase)
        let end = chunkBase + (chunkIsVirtual ? 0 : chunk.count)
        while offset < end {
            let byte = chunk[offset - chunkBase]
            if Self.isWhitespace(byte) {
                offset += 1
            } else if byte == expected && !separatorSeen {
                separatorSeen = true
                offset += 1
            } else {
                break
            }
        }
        return (offset, separatorSeen)
    }

    /// The first byte of the ill-formed UTF-8 sequence that yajl stopped in, found by Sluice's own
    /// check so that the offset is the same whichever of the two checks finds a fault.
    private mutating func firstInvalidByte(inTokenAt start: Int, before stop: Int) -> Int {
        guard start < stop else { return stop }
        let found = withRawToken(from: start, to: stop + 1) { raw -> Int? in
            UTF8Validation.firstInvalidSequence(in: UnsafeRawBufferPointer(rebasing: raw[1...]))
        }
        return found.map { start + 1 + $0 } ?? stop
    }

    /// The error for input that ended too soon, naming what was left open.
    private mutating func unexpectedEnd() -> JSONError {
        let end = chunkBase
        if pendingStart >= 0 && pendingFirstByte == Self.quote {
            let where_ = position(of: pendingStart)
            return error(
                .unexpectedEndOfInput,
                "The input ended inside a string that starts at line \(where_.line), column \(where_.column).",
                at: end
            )
        }
        guard let innermost = containers.last else {
            return error(
                .unexpectedEndOfInput,
                "The input holds no JSON value; it is empty or only whitespace.",
                at: end
            )
        }
        let kind = innermost.is_object ? "an object" : "an array"
        let place = "line \(innermost.position.line), column \(innermost.position.column)"
        let what = lastTokenWasKey ? "before the value of a member, in" : "inside"
        let more = containers.count > 1 ? " (\(containers.count) arrays and objects were left open)" : ""
        return error(.unexpectedEndOfInput, "The input ended \(what) \(kind) that opened at \(place)\(more).", at: end)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

/// The faults yajl reports, by its message (the part after "lexical error:" or "parse error:"):
/// the one table that turns yajl's English into Sluice's messages. A test makes the linked yajl
/// report each of them and checks its wording is here, so a yajl whose wording differs fails
/// that test instead of degrading messages to "Invalid JSON (yajl: ...)".
package enum YajlFault: String, CaseIterable, Sendable {
    case prematureEnd = "premature EOF"
    case trailingGarbage = "trailing garbage"
    case unallowedToken = "unallowed token at this point in JSON text"
    case invalidKey = "invalid object key (must be a string)"
    case missingColon = "object key and value must be separated by a colon (':')"
    case missingMemberSeparator = "after key and value, inside map, I expect ',' or '}'"
    case missingElementSeparator = "after array element, I expect ',' or ']'"
    case invalidUTF8 = "invalid bytes in UTF8 string."
    case invalidEscape = "inside a string, '\\' occurs before a character which it may not."
    case controlCharacter = "invalid character inside string."
    case invalidUnicodeEscape = "invalid (non-hex) character occurs after '\\u' inside string."
    case invalidCharacter = "invalid char in json text."
    case invalidLiteral = "invalid string in json text."
    case missingExponentDigit = "malformed number, a digit is required after the exponent."
    case missingFractionDigit = "malformed number, a digit is required after the decimal point."
    case missingIntegerDigit = "malformed number, a digit is required after the minus sign."
    case comment = "probable comment found in input text, comments are not enabled."
}
