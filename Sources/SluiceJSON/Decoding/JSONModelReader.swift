// What `@JSONModel` (SluiceMacros) generates code against: a reader that walks an object's members
// once, files each under the property it stands for, and reads the properties in declaration order.
//
// Why this shape: the general path (a synthesized `init(from:)` over TapeDecoder's keyed container)
// pays for Codable's boxes, a key lookup per property and a class per object. The generated reader
// matches each member's key once against a table made from the model's own names, then reads each
// property straight from its member. It reads values with the very functions the general path uses
// (scalars, strategies, nested decoders), so the two give the same values and the same errors, with
// the same coding paths. Where the general path's result depends on more than one member (a
// repeated key: which copy a property gets depends on the order the properties are asked for), or
// an option needs it (key strategies, member checks, ignored keys, updates), the reader hands the
// whole object to the general path instead.

import Foundation

/// One object being read by a `@JSONModel` type's generated reader. Not for use by hand: the
/// macro writes the calls.
///
/// ```swift
/// static func readJSONModel(_ jsonModelReader: borrowing JSONModelReader) throws -> Self {
///     let model = try Self(
///         id: jsonModelReader.decode(at: 0),
///         note: jsonModelReader.decodeIfPresent(at: 1)
///     )
///     jsonModelReader.finish()
///     return model
/// }
/// ```
///
/// Its table of slots lives in the decode's state, a block reused by every reader at the same
/// depth: held inline (an `InlineArray` of 256 bytes), each read of a slot from a borrowed reader
/// copied the whole table to the stack first (15 copies per JSON:API resource). Not copyable, so
/// that readers close their tables in the reverse order they opened them (`deinit`).
@_documentation(visibility: internal)
public struct JSONModelReader: ~Copyable {
    /// The most properties a generated reader files members for; every object of a model with
    /// more is read by the general path (same results, without the generated reader's speed).
    public static let maximumProperties = 64

    // The tape, the decode's context and the member table are held without reference counts:
    // counted, they cost an atomic retain and release each for every object read, a large part
    // of reading a small object, while each outlives the reader anyway: the tape and the context are the arguments of the generated initializer that
    // makes the reader, and the table is its type's `static let`.
    @usableFromInline let tapeStorage: Unmanaged<TapeStorage>
    /// The object's first token (absolute) and one past its last.
    @usableFromInline let objectIndex: Int
    @usableFromInline let objectEnd: Int
    @usableFromInline let contextReference: Unmanaged<TapeDecodingContext>
    @usableFromInline let membersReference: Unmanaged<JSONModelMembers>
    private let stateReference: Unmanaged<DecodeState>
    /// The tape's memory, for reading tokens and text without making a `JSONTape`.
    @usableFromInline let buffer: UnsafeMutablePointer<TapeBuffer>
    /// The context's `hasTypeHooks`, read for every property.
    @usableFromInline let hasTypeHooks: Bool

    /// The object being read (a counted reference again: for the slower paths that keep it).
    @usableFromInline var value: JSONTape.Value {
        JSONTape.Value(tape, from: objectIndex, to: objectEnd)
    }
    @inlinable var tape: JSONTape { JSONTape(storage: tapeStorage.takeUnretainedValue()) }
    @usableFromInline var context: TapeDecodingContext { contextReference.takeUnretainedValue() }
    package var members: JSONModelMembers { membersReference.takeUnretainedValue() }
    /// For each property, where its member's value stands, counted in tokens from the object's
    /// start, or -1 when the object has none. Relative, because tape indices are absolute and
    /// keep growing over a long stream (past 2^31 tokens, some 15 GB of input), while an
    /// object's own extent fits 32 bits (an object that does not takes the general path).
    @usableFromInline let slots: UnsafeMutablePointer<Int32>
    /// Where pending parent links stood when this object began (see `Decoder.linkToParent`).
    private let pendingMark: Int
    /// The property the next member filed is guessed to stand for: the one after the last
    /// filed. Kept from one filed object to the next, so that a JSON:API resource's first
    /// relationship is guessed from its last attribute (a miss searches the tables: some 80
    /// instructions under a key strategy, twice a resource).
    private var nextGuess = 0
    /// Whether this object is read by the general path: an option needs it, or a key repeats.
    public private(set) var needsGeneralPath: Bool
    /// For an object filed by another library's reader (a JSON:API resource object, whose
    /// properties come from several objects): the error for a property without a member, as
    /// that library's general path words it. Such an object is not counted as a parent.
    private let missingMemberError: (@Sendable (String, JSONTape.Value) -> DecodingError)?

    /// Starts reading `value` as a model whose members `members` names: checks it is an object and
    /// files each member under its property. The reader holds none of its arguments: `value`'s
    /// tape, `context` and `members` must outlive it, as the generated initializer's do. It borrows
    /// them, so that a call costs no retain and release of each (an initializer otherwise takes
    /// its arguments owned).
    ///
    /// - Throws: The `DecodingError` the general path throws for a value that is not an object.
    public init(
        _ value: borrowing JSONTape.Value,
        context: borrowing TapeDecodingContext,
        members: borrowing JSONModelMembers
    ) throws {
        let generalOnly = Self.readsGenerally(context: context, members: members)
        // Checked before the slots open: a reader whose init throws never closes them.
        guard generalOnly || value.kind == .objectStart else {
            throw TapeDecoder(value: copy value, context: copy context).mismatch(
                expected: "an object",
                type: [String: Any].self
            )
        }
        self.init(opening: value, context: context, members: members, generalOnly: generalOnly, missingMember: nil)
        if generalOnly { return }
        needsGeneralPath = !Self.fileMembers(
            of: buffer,
            from: objectIndex,
            to: objectEnd,
            base: objectIndex,
            skipping: (-1, -1, -1),
            into: slots,
            members: membersReference,
            mode: context.generatedKeyMode ?? .exact,
            guess: &nextGuess
        )
        if needsGeneralPath { return }
        // Nested values may ask for this one as their parent, as they do under the general path.
        stateReference._withUnsafeGuaranteedRef { $0.nesting += 1 }
    }

    /// Files each member of the object at tokens `start..<end` under its property: `slots[field]`
    /// becomes the member value's offset from `base` (the object the reader reads, which is
    /// `start` itself or, for a JSON:API resource, holds the object). Properties in `skipping`
    /// are left unfiled. False when the object needs the general path: a property is met twice
    /// (or was filed before), a name could stand for two properties, or the object is too long
    /// for 32-bit offsets. `guess` is the property the first member is guessed to stand for, and
    /// is left at the one after the last member filed.
    ///
    /// Why raw pointers: this runs for every member of every object read, and going through
    /// `JSONTape` (its subscript, `withUnsafeText`, `endOfValue`) cost a closure call, a counted
    /// reference and a bounds check per member, over a hundred instructions of what is a name
    /// comparison. One check here keeps every token read inside the buffer; a live token's text
    /// is always in the arena.
    @inline(__always)
    private static func fileMembers(
        of buffer: UnsafeMutablePointer<TapeBuffer>,
        from start: Int,
        to end: Int,
        base: Int,
        skipping skipped: (Int, Int, Int),
        into slots: UnsafeMutablePointer<Int32>,
        members: Unmanaged<JSONModelMembers>,
        mode: GeneratedKeyMode,
        guess: inout Int
    ) -> Bool {
        // The table through its unmanaged reference, each use borrowed: passed as a reference,
        // it was retained and released around every object filed.
        // Taken once per object rather than for every member's guess.
        let guesses = members._withUnsafeGuaranteedRef { $0.guesses(under: mode) }
        let first = start - buffer.pointee.firstIndex
        precondition(
            first >= 0 && start >= base && end - buffer.pointee.firstIndex <= buffer.pointee.tokenCount,
            "JSONTape index out of range"
        )
        let count = end - start
        let offset = start - base
        guard count + offset <= Int(Int32.max) else { return false }
        let tokens = UnsafePointer(buffer.pointee.tokens + first)
        let bytes = UnsafePointer(buffer.pointee.bytes)
        let arenaBase = buffer.pointee.arenaBase
        var position = 1
        let last = count - 1
        while position < last {
            let key = tokens[position]
            let name = UnsafeRawBufferPointer(start: bytes + (key.payload - arenaBase), count: Int(key.length))
            let field = members._withUnsafeGuaranteedRef {
                $0.index(of: name, mode: mode, guess: guess, guesses: guesses)
            }
            let valuePosition = position + 1
            if field >= 0 {
                guess = field + 1
                if field != skipped.0 && field != skipped.1 && field != skipped.2 {
                    // A repeated key: the general path decides which copy each property gets.
                    guard slots[field] < 0 else { return false }
                    slots[field] = Int32(truncatingIfNeeded: valuePosition + offset)
                }
            } else if field == JSONModelMembers.ambiguousMember {
                return false
            }
            // The next key: after a container's end token (its start holds the end's index), or
            // after a scalar.
            let valueToken = tokens[valuePosition]
            switch valueToken.kind {
            case .objectStart, .arrayStart:
                position = valueToken.payload < 0 ? last : valueToken.payload - start + 1
            default:
                position = valuePosition + 1
            }
        }
        return true
    }

    /// Starts reading an object whose members the caller files (``file(_:at:)``): a JSON:API
    /// resource, whose properties come from the resource object, its attributes and its
    /// relationships. `missingMember` words the error for a property without a member, given the
    /// property's name and `value`.
    package init(
        filing value: borrowing JSONTape.Value,
        context: borrowing TapeDecodingContext,
        members: borrowing JSONModelMembers,
        missingMember: @escaping @Sendable (String, JSONTape.Value) -> DecodingError
    ) {
        self.init(
            opening: value,
            context: context,
            members: members,
            generalOnly: Self.readsGenerally(context: context, members: members),
            missingMember: missingMember
        )
    }

    /// What both initializers set up: the references, held unmanaged, and the slot table, opened;
    /// `generalOnly` is ``readsGenerally(context:members:)``, which the caller has asked.
    /// Every argument is borrowed and the body is inlined into each initializer: taken owned, or
    /// called out of line, the arguments cost a retain and a release each per object.
    @inline(__always)
    private init(
        opening value: borrowing JSONTape.Value,
        context: borrowing TapeDecodingContext,
        members: borrowing JSONModelMembers,
        generalOnly: Bool,
        missingMember: (@Sendable (String, JSONTape.Value) -> DecodingError)?
    ) {
        // The tape's storage and the decode state reached through `Unmanaged` too: bound to
        // locals, each cost a retain and a release per object.
        tapeStorage = Unmanaged.passUnretained(value.tape.storage)
        objectIndex = value.index
        objectEnd = value.endIndex
        contextReference = Unmanaged.passUnretained(context)
        membersReference = Unmanaged.passUnretained(members)
        stateReference = Unmanaged.passUnretained(context.state)
        buffer = tapeStorage._withUnsafeGuaranteedRef { $0.buffer }
        hasTypeHooks = context.hasTypeHooks
        let propertyCount = members.propertyCount
        slots = stateReference._withUnsafeGuaranteedRef { $0.openSlots(count: propertyCount) }
        pendingMark = stateReference._withUnsafeGuaranteedRef { $0.pendingChildren.count }
        missingMemberError = missingMember
        needsGeneralPath = generalOnly
    }

    /// Whether every object of a model goes to the general path under `context`: generated
    /// readers are off, or the model has more properties than a slot table holds.
    @inline(__always)
    private static func readsGenerally(
        context: borrowing TapeDecodingContext,
        members: borrowing JSONModelMembers
    ) -> Bool {
        !context.allowsGeneratedReaders || members.propertyCount > maximumProperties
    }

    deinit {
        stateReference._withUnsafeGuaranteedRef { $0.closeSlots() }
    }

    /// Files the members of the object at tape index `index`, which lies inside the object this
    /// reader reads (a JSON:API resource's `attributes` or `relationships`), as the plain
    /// initializer files its own: on raw token pointers, the property after the last one tried
    /// first. Members standing for a property in `skipping` are left out (a resource's own `type`,
    /// `id` and `lid`, which its general path never looks for there); a value at `index` that is
    /// no object files nothing. False, with the object sent to the general path, when a property
    /// is met twice (here or filed before) or a name could stand for two.
    package mutating func fileMembers(ofObjectAt index: Int, skipping: (Int, Int, Int)) -> Bool {
        let first = index - buffer.pointee.firstIndex
        precondition(first >= 0 && first < buffer.pointee.tokenCount, "JSONTape index out of range")
        let token = buffer.pointee.tokens[first]
        guard token.kind == .objectStart else { return true }
        guard token.payload >= 0,
            Self.fileMembers(
                of: buffer,
                from: index,
                to: token.payload + 1,
                base: objectIndex,
                skipping: skipping,
                into: slots,
                members: membersReference,
                mode: context.generatedKeyMode ?? .exact,
                guess: &nextGuess
            )
        else {
            needGeneralPath()
            return false
        }
        return true
    }

    /// Whether property `field` has a member filed.
    @inlinable
    package func hasMember(_ field: Int) -> Bool { slots[field] >= 0 }

    /// Files the value at tape index `valueIndex` under property `field`. (Inlinable: another
    /// library's reader files every member of every object through it.)
    @inlinable
    package mutating func file(_ field: Int, at valueIndex: Int) {
        guard let offset = Int32(exactly: valueIndex - objectIndex), offset > 0 else {
            needGeneralPath()
            return
        }
        slots[field] = offset
    }

    /// Sends the object to the general path (a member repeats, or a name is ambiguous).
    @usableFromInline
    package mutating func needGeneralPath() { needsGeneralPath = true }

    /// The member value filed for property `field`, for another library's reader of a type it
    /// knows (a JSON:API relationship's `meta` and `links`); `nil` when there is none, or when
    /// converters or uniquing are in force, which such readers leave to
    /// ``decodeGenerically(_:at:)``.
    @usableFromInline
    package func plainMember(_ field: Int) -> JSONTape.Value? {
        hasTypeHooks ? nil : member(field)
    }

    /// The tape index of the member value filed for property `field`, for such readers that read
    /// the tokens themselves (``plainTokens``); `nil` as for ``plainMember(_:)``. Cheaper than
    /// ``plainMember(_:)`` by a retain and a release of the tape and a walk to the value's end,
    /// for every relationship read.
    @inlinable
    package func plainMemberIndex(_ field: Int) -> Int? {
        guard !hasTypeHooks else { return nil }
        let offset = Int(slots[field])
        return offset >= 0 ? objectIndex + offset : nil
    }

    /// The tape's tokens and text as plain pointers, valid while this reader is: whoever made the
    /// reader holds the tape for the read.
    @inlinable
    package var plainTokens: TapeTokens { TapeTokens(UnsafePointer(buffer)) }

    /// The decode's context, for such readers' nested values.
    @usableFromInline
    package var decodingContext: TapeDecodingContext { context }

    /// ``decode(_:at:)`` under another name, for overloads in other modules to fall back on
    /// (calling `decode` there would choose the overload again).
    @usableFromInline
    package func decodeGenerically<T: Decodable>(_ type: T.Type, at field: Int) throws -> T {
        try decode(type, at: field)
    }

    /// ``decodeIfPresent(_:at:)`` under another name (see ``decodeGenerically(_:at:)``).
    @usableFromInline
    package func decodeIfPresentGenerically<T: Decodable>(_ type: T.Type, at field: Int) throws -> T? {
        try decodeIfPresent(type, at: field)
    }

    /// The whole object decoded by the general path: the model's own `init(from:)` over
    /// `TapeDecoder`, with the same results and errors as a model without the macro.
    public func decodeGenerally<T: Decodable>(_ type: T.Type) throws -> T {
        try TapeDecoder(value: value, context: context).decodeGenerally(type)
    }

    /// The member value filed for property `field`, if there is one. (Inlinable: the model
    /// readers below are, so that each initializer gets them specialized.)
    @inlinable
    func member(_ field: Int) -> JSONTape.Value? {
        let offset = Int(slots[field])
        guard offset >= 0 else { return nil }
        let index = objectIndex + offset
        // The end from the token read here: `JSONTape.endOfValue(at:)` was left a call, a bounds
        // check and a read of the same token again, for every nested value read.
        let tokens = plainTokens
        let end = tokens.end(ofValue: tokens[index], at: index) ?? index + 1
        return JSONTape.Value(tape, from: index, to: end)
    }

    /// The member value filed for property `field`, unless there is none or it is `null`: what
    /// an optional property reads. The kind is read from the token first, so that an absent or
    /// `null` member (twitter.json's `geo`, `place`, `contributors`, in every status) costs no
    /// value made, no walk to its end and no retain and release of the tape.
    @inlinable
    func presentMember(_ field: Int) -> JSONTape.Value? {
        let offset = Int(slots[field])
        guard offset >= 0, plainTokens[objectIndex + offset].kind != .null else { return nil }
        return member(field)
    }

    /// Reads the required property `field` as `T`.
    ///
    /// - Throws: `keyNotFound` when the object has no member for it, else what reading it throws:
    ///   the general path's errors, with the same coding path and message.
    ///
    /// The type is the property's, inferred from the assignment: the generated code names no
    /// type, so that a property's type resolves where the property declares it.
    public func decode<T: Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        return try read(type, from: member, field: field)
    }

    /// Reads the optional property `field`: `nil` when the object has no member for it or the
    /// member is `null`.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T? {
        guard let member = presentMember(field) else { return nil }
        return try read(type, from: member, field: field)
    }

    /// A member's value read as `T`: scalars straight from the tape, anything else through a
    /// nested decoder, exactly as the general path's keyed container reads them.
    @usableFromInline
    func read<T: Decodable>(_ type: T.Type, from member: JSONTape.Value, field: Int) throws -> T {
        do {
            return try TapeDecoder.readMember(
                type,
                from: member,
                key: members.keys[field],
                context: context
            )
        } catch {
            abandon()
            throw error
        }
    }

    // MARK: Scalars
    //
    // Overloads for the scalar types models hold most: chosen by the compiler from the property's
    // type, they skip the generic dispatch (a type switch on metadata, per property) that the
    // generic reads pay when called from another module. Same values and errors: the same
    // scalar readers, the same conversion of their errors.

    // Each first reads the member's token alone and converts it when it has the expected kind:
    // no value made (a retain and release of the tape) and no dispatch on the scalar's type.
    // Anything else (a value of another kind, a number out of range, registered converters)
    // goes the general way, which reads it or words the error.

    /// Reads the required `String` property `field`.
    public func decode(_ type: String.Type = String.self, at field: Int) throws -> String {
        if let token = plainToken(field), token.kind == .string { return text(of: token) }
        return try readScalar(String.self, at: field)
    }
    /// Reads the optional `String` property `field`.
    public func decodeIfPresent(_ type: String.Type = String.self, at field: Int) throws -> String? {
        if let token = plainToken(field) {
            if token.kind == .string { return text(of: token) }
            if token.kind == .null { return nil }
        }
        return try readScalarIfPresent(String.self, at: field)
    }
    /// Reads the required `Int` property `field`.
    public func decode(_ type: Int.Type = Int.self, at field: Int) throws -> Int {
        if let token = plainToken(field), let integer = plainInteger(token, as: Int.self) { return integer }
        return try readScalar(Int.self, at: field)
    }
    /// Reads the optional `Int` property `field`.
    public func decodeIfPresent(_ type: Int.Type = Int.self, at field: Int) throws -> Int? {
        if let token = plainToken(field) {
            if let integer = plainInteger(token, as: Int.self) { return integer }
            if token.kind == .null { return nil }
        }
        return try readScalarIfPresent(Int.self, at: field)
    }
    /// Reads the required `Double` property `field`.
    public func decode(_ type: Double.Type = Double.self, at field: Int) throws -> Double {
        if let token = plainToken(field), let number = plainDouble(token) { return number }
        return try readScalar(Double.self, at: field)
    }
    /// Reads the optional `Double` property `field`.
    public func decodeIfPresent(_ type: Double.Type = Double.self, at field: Int) throws -> Double? {
        if let token = plainToken(field) {
            if let number = plainDouble(token) { return number }
            if token.kind == .null { return nil }
        }
        return try readScalarIfPresent(Double.self, at: field)
    }
    /// Reads the required `Bool` property `field`.
    public func decode(_ type: Bool.Type = Bool.self, at field: Int) throws -> Bool {
        if let token = plainToken(field), token.kind == .true || token.kind == .false { return token.kind == .true }
        return try readScalar(Bool.self, at: field)
    }
    /// Reads the optional `Bool` property `field`.
    public func decodeIfPresent(_ type: Bool.Type = Bool.self, at field: Int) throws -> Bool? {
        if let token = plainToken(field) {
            if token.kind == .true || token.kind == .false { return token.kind == .true }
            if token.kind == .null { return nil }
        }
        return try readScalarIfPresent(Bool.self, at: field)
    }

    // The slow paths, out of line: the general read of a scalar property, which converts it
    // through a registered converter, reads it in another form or words the error. In line, its
    // frame and saved registers were paid by every read: 13 of the 40 instructions a `Bool`
    // took. (The generated initializers are too large for the optimizer to inline these reads
    // into them, even when marked so.) One per type rather than one generic function: the
    // generic one, specialized, left citm_catalog's decode 74 000 instructions longer.

    @inline(never) private func readScalar(_: String.Type, at field: Int) throws -> String {
        try scalar(.string, at: field)
    }
    @inline(never) private func readScalarIfPresent(_: String.Type, at field: Int) throws -> String? {
        try scalarIfPresent(.string, at: field)
    }
    @inline(never) private func readScalar(_: Int.Type, at field: Int) throws -> Int { try scalar(.int, at: field) }
    @inline(never) private func readScalarIfPresent(_: Int.Type, at field: Int) throws -> Int? {
        try scalarIfPresent(.int, at: field)
    }
    @inline(never) private func readScalar(_: Int64.Type, at field: Int) throws -> Int64 {
        try scalar(.int64, at: field)
    }
    @inline(never) private func readScalarIfPresent(_: Int64.Type, at field: Int) throws -> Int64? {
        try scalarIfPresent(.int64, at: field)
    }
    @inline(never) private func readScalar(_: UInt64.Type, at field: Int) throws -> UInt64 {
        try scalar(.uint64, at: field)
    }
    @inline(never) private func readScalarIfPresent(_: UInt64.Type, at field: Int) throws -> UInt64? {
        try scalarIfPresent(.uint64, at: field)
    }
    @inline(never) private func readScalar(_: Double.Type, at field: Int) throws -> Double {
        try scalar(.double, at: field)
    }
    @inline(never) private func readScalarIfPresent(_: Double.Type, at field: Int) throws -> Double? {
        try scalarIfPresent(.double, at: field)
    }
    @inline(never) private func readScalar(_: Bool.Type, at field: Int) throws -> Bool { try scalar(.bool, at: field) }
    @inline(never) private func readScalarIfPresent(_: Bool.Type, at field: Int) throws -> Bool? {
        try scalarIfPresent(.bool, at: field)
    }

    /// The first token of property `field`'s member, when it has one and no converter may claim it.
    @inline(__always)
    private func plainToken(_ field: Int) -> JSONToken? {
        let offset = Int(slots[field])
        guard offset >= 0, !hasTypeHooks else { return nil }
        return token(at: objectIndex + offset)
    }

    /// The token at absolute index `index`, read through ``buffer`` (as `JSONTape`'s subscript).
    @inline(__always)
    private func token(at index: Int) -> JSONToken {
        let position = index - buffer.pointee.firstIndex
        precondition(position >= 0 && position < buffer.pointee.tokenCount, "JSONTape index out of range")
        return buffer.pointee.tokens[position]
    }

    /// Calls `body` with a string's or number's text, read through ``buffer`` (as `JSONTape`'s
    /// `withUnsafeText(of:_:)`).
    @inline(__always)
    private func withText<R>(of token: JSONToken, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = token.payload - buffer.pointee.arenaBase
        precondition(
            start >= 0 && start + Int(token.length) <= buffer.pointee.byteCount,
            "withUnsafeText(of:) on a released token"
        )
        return body(UnsafeRawBufferPointer(start: buffer.pointee.bytes + start, count: Int(token.length)))
    }

    /// A string token's text as a `String`: a longer one shared with an equal one made before
    /// in this decode where there is one (see `RepeatedStrings`).
    @inline(__always)
    func text(of token: JSONToken) -> String {
        withText(of: token) { text in
            // A small string goes straight to its two words, without touching the decode's state.
            if text.count < RepeatedStrings.shortestBytes {
                return UTF8Validation.string(ofChecked: text, isASCII: token.isASCII)
            }
            return stateReference._withUnsafeGuaranteedRef {
                $0.repeatedStrings.string(ofChecked: text, isASCII: token.isASCII)
            }
        }
    }

    /// A number token read as `T` exactly, or `nil` for anything else.
    @inline(__always)
    func plainInteger<T: FixedWidthInteger>(_ token: JSONToken, as type: T.Type) -> T? {
        guard token.kind == .number else { return nil }
        return withText(of: token) { text in try? JSONNumberText.integer(tokenText: text, as: T.self) }
    }

    /// A number token read as the nearest `Double`, or `nil` for anything else.
    @inline(__always)
    func plainDouble(_ token: JSONToken) -> Double? {
        guard token.kind == .number else { return nil }
        return withText(of: token) { text in try? JSONNumberText.double(tokenText: text) }
    }

    /// Reads the required `Int64` property `field`.
    public func decode(_ type: Int64.Type = Int64.self, at field: Int) throws -> Int64 {
        if let token = plainToken(field), let integer = plainInteger(token, as: Int64.self) { return integer }
        return try readScalar(Int64.self, at: field)
    }
    /// Reads the optional `Int64` property `field`.
    public func decodeIfPresent(_ type: Int64.Type = Int64.self, at field: Int) throws -> Int64? {
        if let token = plainToken(field) {
            if let integer = plainInteger(token, as: Int64.self) { return integer }
            if token.kind == .null { return nil }
        }
        return try readScalarIfPresent(Int64.self, at: field)
    }
    /// Reads the required `UInt64` property `field`.
    public func decode(_ type: UInt64.Type = UInt64.self, at field: Int) throws -> UInt64 {
        if let token = plainToken(field), let integer = plainInteger(token, as: UInt64.self) { return integer }
        return try readScalar(UInt64.self, at: field)
    }
    /// Reads the optional `UInt64` property `field`.
    public func decodeIfPresent(_ type: UInt64.Type = UInt64.self, at field: Int) throws -> UInt64? {
        if let token = plainToken(field) {
            if let integer = plainInteger(token, as: UInt64.self) { return integer }
            if token.kind == .null { return nil }
        }
        return try readScalarIfPresent(UInt64.self, at: field)
    }

    @inline(__always)
    private func scalar<T: Decodable>(_ scalar: TapeScalar, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        return try readScalar(scalar, from: member, field: field)
    }

    @inline(__always)
    private func scalarIfPresent<T: Decodable>(_ scalar: TapeScalar, at field: Int) throws -> T? {
        guard let member = presentMember(field) else { return nil }
        return try readScalar(scalar, from: member, field: field) as T
    }

    /// A scalar member read as the keyed container reads it (converters, when any are registered,
    /// go first there too).
    @inline(__always)
    private func readScalar<T: Decodable>(_ scalar: TapeScalar, from member: JSONTape.Value, field: Int) throws -> T {
        if hasTypeHooks { return try read(T.self, from: member, field: field) }
        do {
            return try TapeDecoder.readScalar(scalar, from: member, context: context, as: T.self)
        } catch {
            abandon()
            throw TapeDecoder(value: member, context: context, parentPath: [], key: members.keys[field])
                .convert(error, type: T.self)
        }
    }

    /// The error for required property `field` without a member, after undoing what `init` began.
    @usableFromInline
    func missing(_ field: Int) -> DecodingError {
        abandon()
        if let missingMemberError { return missingMemberError(members.names[field], value) }
        return TapeDecoder(value: value, context: context).missingMember(members.names[field])
    }

    /// Ends the object of a class: hands `model` to the values decoded inside it that asked for
    /// their parent. Only a class can be a parent (`Decoder.linkToParent`); a struct's reader ends
    /// its object with ``finish()``.
    ///
    /// Inlinable, with the model touched only when a child waits.
    @inlinable
    public func finish<T: AnyObject>(_ model: T) {
        if endObject() { attachWaitingChildren(to: model) }
    }

    /// Ends the object of a struct, which no child can wait for: ``finish(_:)`` without the model.
    /// Why a function of its own: handed to a generic function, a struct is built in a temporary
    /// and copied out, with every model nested in it.
    @inlinable
    public func finish() {
        _ = endObject()
    }

    /// The part of ``finish(_:)`` that needs no model: closes the object's nesting, and tells
    /// whether a child decoded inside it waits for it as its parent.
    @usableFromInline
    func endObject() -> Bool {
        guard !needsGeneralPath, missingMemberError == nil else { return false }
        return stateReference._withUnsafeGuaranteedRef { state in
            state.nesting -= 1
            return state.pendingChildren.count > pendingMark
        }
    }

    /// Hands `model` to the children waiting for it (after ``endObject()`` said some do).
    @usableFromInline
    func attachWaitingChildren<T: AnyObject>(to model: T) {
        let state = stateReference.takeUnretainedValue()
        state.attachChildren(since: pendingMark, to: model, depth: state.nesting + 1)
    }

    /// Undoes what `init` began, for an object whose reading failed.
    @usableFromInline
    func abandon() {
        guard !needsGeneralPath, missingMemberError == nil else { return }
        let state = stateReference.takeUnretainedValue()
        state.nesting -= 1
        // Children of a value that failed never get their parent.
        if state.pendingChildren.count > pendingMark { state.pendingChildren.removeSubrange(pendingMark...) }
    }
}

extension TapeDecoder {
    /// The general path for a model: its `init(from:)` over this decoder, with parent links
    /// attached as for any Codable value.
    ///
    /// A child decoded inside this value may wait for it as its parent (`linkToParent`). Nesting
    /// counts these calls, not coding path length: a decode started by a tape reader restarts its
    /// path but not this count.
    func decodeGenerally<T: Decodable>(_ type: T.Type) throws -> T {
        let state = context.state
        let mark = state.pendingChildren.count
        state.nesting += 1
        defer { state.nesting -= 1 }
        let decoded: T
        do {
            // `type`, not `T`: the dynamic class when a subclass comes through a base metatype.
            decoded = try type.init(from: self)
        } catch {
            // Children of a value that failed never get their parent.
            if state.pendingChildren.count > mark { state.pendingChildren.removeSubrange(mark...) }
            if let error = error as? JSONError { throw convert(error, type: type) }
            throw error
        }
        if state.pendingChildren.count > mark {
            state.attachChildren(since: mark, to: decoded, depth: state.nesting)
        }
        return decoded
    }

    /// The keyed container's `keyNotFound` for a member this object lacks.
    func missingMember(_ name: String) -> DecodingError {
        KeyedLookup(decoder: self).missing(AnyCodingKey(name))
    }
}
