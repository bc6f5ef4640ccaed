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

    /// Puts the state back as a new parser's, with its buffers kept and the next byte at `offset`
    /// on `line` (whose first byte is at `lineStart`); the caller has freed any yajl handle.
    mutating func reset(startingAt offset: Int, line: Int, lineStart: Int) {
        failure = nil
        tape.removeAll()
        recent.removeAll(keepingCapacity: true)
        pendingFirstByte = 0
        carry.removeAll(keepingCapacity: true)
        carryStart = 0
        tokenWindow.removeAll(keepingCapacity: true)
        tokenWindowStart = 0
        let hot = self.hot
        hot.pointee.chunk = nil
        hot.pointee.chunk_count = 0
        hot.pointee.chunk_base = offset
        hot.pointee.chunk_is_virtual = false
        hot.pointee.gap_had_separator = false
        hot.pointee.last_token_was_key = false
        hot.pointee.last_token_ended_value = false
        hot.pointee.saw_token = false
        hot.pointee.scan_offset = offset
        hot.pointee.line = line
        hot.pointee.line_start = lineStart
        hot.pointee.pending_start = -1
        hot.pointee.top_child_count = 0
        hot.pointee.handle = nil
        hot.pointee.yajl_base = 0
        hot.pointee.muted = false
        hot.pointee.hand_back = false
        hot.pointee.handed_back = false
        hot.pointee.container_count = 0
    }

    /// Frees what the state allocated; called once, when the parser goes away.
    func deallocate() {
        containers.deallocate()
        hot.deinitialize(count: 1)
        hot.deallocate()
    }

    /// Whether `JSONToken` is laid out as the C fast path writes tokens (`sluice_token`), and the
    /// number trailer's flags are the C trailer's. Swift lays a struct's stored properties out
    /// in order, but does not promise to: checked, not assumed.
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
            && JSONNumberText.Digits.exactFlag == SLUICE_NUMBER_EXACT
            && JSONNumberText.Digits.negativeFlag == SLUICE_NUMBER_NEGATIVE
            && JSONNumberText.Digits.integerFlag == SLUICE_NUMBER_INTEGER
            && JSONNumberText.Digits.convertedFlag == SLUICE_NUMBER_CONVERTED
            && JSONNumberText.Digits.hexadecimalFlag == SLUICE_NUMBER_HEXADECIMAL
    }()

    /// Points the C fast path at the tape's buffer, whose address changes when the tape's storage
    /// is copied (see `beginChunk`).
    mutating func shareBuffer() {
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
