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

/// The member names a `@JSONModel` type reads, in the order of its properties: the table the
/// generated reader matches keys against. Made once per type (a `static let` the macro writes).
///
/// Lookup is by length first, then the first byte, then the remaining bytes: most keys are
/// told apart by their length and first byte without a comparison of the rest.
///
/// Besides the names as written, the table holds every spelling the built-in key strategies
/// accept (snake_case, kebab-case, loose), so that a decode under those strategies keeps the
/// generated reader: each member is matched once, against a table made once per type, instead
/// of every property running the strategy's matcher over every member.
///
/// A class, so that a reader holds it with one reference: as a struct, its seven arrays cost a
/// retain and a release each for every object read.
@_documentation(visibility: internal)
public final class JSONModelMembers: Sendable {
    /// The names, by property index.
    public let names: [String]
    /// The names as coding keys, boxed once: a nested decoder's path needs a key, and boxing an
    /// `AnyCodingKey` (too big for an existential's inline buffer) allocated once per property
    /// read.
    let keys: [any CodingKey]
    /// The names as written.
    private let exact: SpellingTable
    /// `firstName` as `first_name` and as `first-name` (the spelling `convertFromSnakeCase`'s
    /// matcher accepts besides the name itself and Foundation's conversion).
    private let snake: SpellingTable
    private let kebab: SpellingTable
    /// The names lowercased, without `_` and `-`.
    private let loose: SpellingTable
    /// Per key mode, whether two properties share a spelling that mode accepts: then which
    /// property a member stands for depends on the order the general path asks, so objects of
    /// this type take the general path under that mode.
    private let ambiguous: [Bool]

    /// A table of the member names of a model's properties, in property order.
    public init(_ names: [String]) {
        self.names = names
        keys = names.map { AnyCodingKey($0) }
        let exactNames = names.map { Array($0.utf8) }
        let snakeNames = exactNames.map { JSONKeyStrategy.separatedSpelling(of: $0, separator: UInt8(ascii: "_")) }
        let kebabNames = exactNames.map { JSONKeyStrategy.separatedSpelling(of: $0, separator: UInt8(ascii: "-")) }
        let looseNames = exactNames.map { JSONKeyStrategy.looseSpelling(of: $0) }
        exact = SpellingTable(exactNames)
        snake = SpellingTable(snakeNames)
        kebab = SpellingTable(kebabNames)
        loose = SpellingTable(looseNames)
        /// Whether some spelling in `spellings` (each property's accepted spellings) belongs to
        /// two properties.
        func overlaps(_ spellings: [[[UInt8]]]) -> Bool {
            var owner: [[UInt8]: Int] = [:]
            for (index, forms) in spellings.enumerated() {
                for form in forms {
                    if let other = owner[form], other != index { return true }
                    owner[form] = index
                }
            }
            return false
        }
        let indices = exactNames.indices
        let exactIndex = Dictionary(exactNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        /// Whether a name in the tables (a property's own name or its separated spelling) turns,
        /// by Foundation's camel-case conversion, into another property's name. Checked here, so
        /// that a member found in the tables needs no conversion when it is read.
        func convertsElsewhere(_ spellings: [[UInt8]], separator: UInt8) -> Bool {
            for (index, spelling) in spellings.enumerated() {
                let other = spelling.withUnsafeBytes { name in
                    JSONKeyStrategy.withCamelCaseConversion(of: name, separator: separator) { converted in
                        converted.flatMap { exactIndex[Array($0)] }
                    }
                }
                if let other, other != index { return true }
            }
            return false
        }
        let underscore = UInt8(ascii: "_")
        let hyphen = UInt8(ascii: "-")
        ambiguous = [
            false,
            overlaps(indices.map { [exactNames[$0], snakeNames[$0]] })
                || convertsElsewhere(exactNames, separator: underscore)
                || convertsElsewhere(snakeNames, separator: underscore),
            overlaps(indices.map { [exactNames[$0], kebabNames[$0]] })
                || convertsElsewhere(exactNames, separator: hyphen)
                || convertsElsewhere(kebabNames, separator: hyphen),
            overlaps(indices.map { [looseNames[$0]] }),
        ]
    }

    /// The table of a generic model, made once per specialization and shared: a generic type can
    /// have no stored static property, so its `jsonModelMembers` (a computed property the macro
    /// writes) asks here rather than building the table for every object it reads.
    public static func shared(by type: Any.Type, names: @autoclosure () -> [String]) -> JSONModelMembers {
        if let table = genericTables.fact(about: type) { return table }
        // The first table recorded wins, so every reader of the type shares one.
        return genericTables.recordIfAbsent(JSONModelMembers(names()), about: type)
    }

    private static let genericTables = TypeFacts<JSONModelMembers>()

    /// The property index of the member named `name` (UTF-8 bytes), as written.
    @inline(__always)
    func index(of name: UnsafeRawBufferPointer) -> Int { exact.index(of: name) }

    /// The property index of the member named `name` under `mode`; -1 for none, and
    /// ``ambiguousMember`` when the name could stand for more than one property (the general
    /// path decides then).
    @inline(__always)
    package func index(of name: UnsafeRawBufferPointer, mode: GeneratedKeyMode) -> Int {
        if mode == .exact { return exact.index(of: name) }
        return strategyIndex(of: name, mode: mode)
    }

    /// ``index(of:mode:)``, trying `guess` first under the exact mode: members mostly come in
    /// the order of the properties, or in the same order object after object, so the property
    /// after the last member's is checked with one comparison before the table is searched.
    ///
    /// Under the snake and kebab modes the guess is checked against the property's separated
    /// spelling too (`created_at` for `createdAt`), when no spelling belongs to two properties
    /// (`ambiguous`): then a member spelled either way stands for that property alone, as the
    /// table search would find. Without it every member of a snake_case document (twitter.json)
    /// missed the exact table and searched two tables.
    @inline(__always)
    package func index(of name: UnsafeRawBufferPointer, mode: GeneratedKeyMode, guess: Int) -> Int {
        switch mode {
        case .exact:
            if exact.isSpelling(of: guess, name) { return guess }
        case .snake:
            if !ambiguous[1], snake.isSpelling(of: guess, name) || exact.isSpelling(of: guess, name) { return guess }
        case .kebab:
            if !ambiguous[2], kebab.isSpelling(of: guess, name) || exact.isSpelling(of: guess, name) { return guess }
        case .loose:
            break
        }
        return index(of: name, mode: mode)
    }

    /// What ``index(of:mode:)`` answers for a member that stands for more than one property.
    /// (Computed: a stored static is read through a once-guard on every use.)
    package static var ambiguousMember: Int { -2 }

    private func strategyIndex(of name: UnsafeRawBufferPointer, mode: GeneratedKeyMode) -> Int {
        if ambiguous[Int(mode.rawValue)] { return Self.ambiguousMember }
        switch mode {
        case .exact:
            return exact.index(of: name)
        case .loose:
            return JSONKeyStrategy.withLooseSpelling(of: name) { loose.index(of: $0) }
        case .snake, .kebab:
            let separator = mode == .snake ? UInt8(ascii: "_") : UInt8(ascii: "-")
            // The strategy's matcher accepts three spellings: the name itself, the separated
            // spelling of the key, and Foundation's conversion of the name to camel case. A name
            // found in the tables stands for that property only: `ambiguous` has checked once
            // that no two properties share a spelling, and that no spelling in the tables
            // converts to another property's name. Only other names are converted.
            let found = exact.index(of: name)
            if found >= 0 { return found }
            let separated = (mode == .snake ? snake : kebab).index(of: name)
            if separated >= 0 { return separated }
            guard name.contains(separator) else { return -1 }
            return JSONKeyStrategy.withCamelCaseConversion(of: name, separator: separator) { converted in
                converted.map { exact.index(of: $0) } ?? -1
            }
        }
    }
}

/// How a generated reader matches member names: the key strategies it has tables for.
package enum GeneratedKeyMode: UInt8, Sendable {
    case exact, snake, kebab, loose

    /// The mode for `strategy`, or `nil` for a strategy only the general path applies (custom
    /// functions, whose names are known only per key asked).
    init?(_ strategy: JSONKeyStrategy) {
        switch strategy {
        case .useDefaultKeys: self = .exact
        case .convertFromSnakeCase: self = .snake
        case .convertFromKebabCase: self = .kebab
        case .loose: self = .loose
        case .custom, .memberName: return nil
        }
    }
}

/// Byte spellings by length, then first byte (see `JSONModelMembers`).
///
/// Why raw storage owned by a class: the lookup runs for every member of every object read, and
/// a table of nested arrays cost a retain and a release for each array it touched (about 200
/// instructions a key on twitter.json); pointers into storage that lives as long as the table
/// cost none. Immutable after `init`.
private final class SpellingTable: @unchecked Sendable {
    // @unchecked Sendable: the storage is written only in `init` and freed in `deinit`.

    private struct Entry {
        /// The spelling's first byte (0 for the empty spelling).
        var first: UInt8
        /// The property it stands for.
        var index: Int32
        /// Where its bytes start in `bytes`.
        var offset: Int32
    }

    /// The longest spelling's length.
    private let longest: Int
    /// The entries of spellings `length` bytes long are `starts[length]..<starts[length + 1]`.
    private let starts: UnsafeMutablePointer<Int32>
    private let entries: UnsafeMutablePointer<Entry>
    private let entryCount: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    private let byteCount: Int
    /// Where each property's own spelling lies in `bytes` and how long it is, by property index
    /// (length -1 for a spelling another property kept): for checking a guess in one comparison.
    private let own: UnsafeMutablePointer<(offset: Int32, length: Int32)>
    private let propertyCount: Int

    init(_ spellings: [[UInt8]]) {
        // A spelling given twice keeps its first property: the macro refuses two properties
        // under one name, and `ambiguous` sends other overlaps to the general path.
        var kept: [(index: Int, bytes: [UInt8])] = []
        for (index, spelling) in spellings.enumerated() where !kept.contains(where: { $0.bytes == spelling }) {
            kept.append((index, spelling))
        }
        kept.sort { $0.bytes.count == $1.bytes.count ? $0.index < $1.index : $0.bytes.count < $1.bytes.count }
        longest = kept.last?.bytes.count ?? 0
        starts = .allocate(capacity: longest + 2)
        starts.initialize(repeating: 0, count: longest + 2)
        entryCount = kept.count
        entries = .allocate(capacity: max(entryCount, 1))
        byteCount = kept.reduce(0) { $0 + $1.bytes.count }
        bytes = .allocate(capacity: max(byteCount, 1))
        var offset = 0
        for (position, spelling) in kept.enumerated() {
            (entries + position).initialize(
                to: Entry(
                    first: spelling.bytes.first ?? 0,
                    index: Int32(spelling.index),
                    offset: Int32(offset)
                )
            )
            for byte in spelling.bytes {
                (bytes + offset).initialize(to: byte)
                offset += 1
            }
            starts[spelling.bytes.count + 1] += 1
        }
        // Counts per length into start positions.
        for length in 0...longest { starts[length + 1] += starts[length] }
        propertyCount = spellings.count
        own = .allocate(capacity: max(spellings.count, 1))
        own.initialize(repeating: (0, -1), count: max(spellings.count, 1))
        for position in 0..<entryCount {
            let entry = entries[position]
            own[Int(entry.index)] = (entry.offset, Int32(spellings[Int(entry.index)].count))
        }
    }

    deinit {
        starts.deallocate()
        entries.deallocate()
        bytes.deallocate()
        own.deallocate()
    }

    /// Whether `name` is property `property`'s own spelling.
    @inline(__always)
    func isSpelling(of property: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        guard property < propertyCount else { return false }
        let spelling = own[property]
        guard Int(spelling.length) == name.count else { return false }
        guard let base = name.baseAddress, name.count > 0 else { return true }
        let count = name.count
        let known = UnsafeRawPointer(bytes + Int(spelling.offset))
        // Names of 8 to 16 bytes (most of them) as two words that meet or overlap, without a
        // call: the guess is right for nearly every member, so this comparison is the filing.
        if count >= 8 && count <= 16 {
            return known.loadUnaligned(as: UInt64.self) == base.loadUnaligned(as: UInt64.self)
                && known.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        return memcmp(known, base, count) == 0
    }

    /// The property index of the spelling `name`, or -1.
    @inline(__always)
    func index(of name: UnsafeRawBufferPointer) -> Int {
        let count = name.count
        guard count <= longest else { return -1 }
        var position = Int(starts[count])
        let end = Int(starts[count + 1])
        guard position < end else { return -1 }
        guard count > 0, let base = name.baseAddress else { return Int(entries[position].index) }
        let first = base.load(as: UInt8.self)
        while position < end {
            let entry = entries[position]
            if entry.first == first && memcmp(bytes + Int(entry.offset), base, count) == 0 {
                return Int(entry.index)
            }
            position += 1
        }
        return -1
    }
}

/// A model whose objects Sluice's decoders read with a generated reader: what `@JSONModel`
/// (SluiceMacros) conforms a type to. Not for conforming by hand: the macro writes both
/// requirements from the model's declaration, so that they agree with its Codable conformance.
public protocol JSONModelDecodable: JSONTapeDecodable {
    /// The member names the properties read, in property order.
    static var jsonModelMembers: JSONModelMembers { get }
    /// Reads every property from the members `reader` has filed: one line per property.
    init(jsonModelReader reader: borrowing JSONModelReader) throws
}

extension JSONModelDecodable {
    /// Files the object's members and reads the properties, or hands the object to the general
    /// path when an option or the object needs it.
    ///
    /// Inlinable, so that each model's conformance holds its own copy, specialized.
    ///
    /// The reader counts no references to the tape, the context or the table: their lifetimes are
    /// fixed here past its last use, so that an optimizer that inlines this cannot end them
    /// sooner (an argument's lifetime otherwise ends at its last use once inlined).
    @inlinable
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        let members = Self.jsonModelMembers
        self = try withExtendedLifetime((value, context, members)) {
            let reader = try JSONModelReader(value, context: context, members: members)
            if reader.needsGeneralPath { return try reader.decodeGenerally(Self.self) }
            return try Self(jsonModelReader: reader)
        }
    }
}

/// One object being read by a `@JSONModel` type's generated initializer. Not for use by hand: the
/// macro writes the calls.
///
/// ```swift
/// init(jsonModelReader: borrowing JSONModelReader) throws {
///     self.id = try jsonModelReader.decode(at: 0)
///     self.note = try jsonModelReader.decodeIfPresent(at: 1)
///     jsonModelReader.finish(self)
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
    /// Whether this object is read by the general path: an option needs it, or a key repeats.
    public private(set) var needsGeneralPath: Bool
    /// For an object filed by another library's reader (a JSON:API resource object, whose
    /// properties come from several objects): the error for a property without a member, as
    /// that library's general path words it. Such an object is not counted as a parent.
    private let missingMemberError: (@Sendable (String, JSONTape.Value) -> DecodingError)?

    /// Starts reading `value` as a model whose members `members` names: checks it is an object and
    /// files each member under its property. The reader holds none of its arguments: `value`'s
    /// tape, `context` and `members` must outlive it, as the generated initializer's do.
    ///
    /// - Throws: The `DecodingError` the general path throws for a value that is not an object.
    public init(_ value: JSONTape.Value, context: TapeDecodingContext, members: JSONModelMembers) throws {
        let generalOnly = !context.allowsGeneratedReaders || members.names.count > Self.maximumProperties
        // Checked before the slots open: a reader whose init throws never closes them.
        guard generalOnly || value.kind == .objectStart else {
            throw TapeDecoder(value: value, context: context).mismatch(expected: "an object", type: [String: Any].self)
        }
        tapeStorage = Unmanaged.passUnretained(value.tape.storage)
        objectIndex = value.index
        objectEnd = value.endIndex
        contextReference = Unmanaged.passUnretained(context)
        membersReference = Unmanaged.passUnretained(members)
        stateReference = Unmanaged.passUnretained(context.state)
        buffer = value.tape.storage.buffer
        hasTypeHooks = context.hasTypeHooks
        slots = context.state.openSlots(count: members.names.count)
        pendingMark = context.state.pendingChildren.count
        missingMemberError = nil
        needsGeneralPath = generalOnly
        if generalOnly { return }
        let tape = value.tape
        var position = value.index + 1
        let end = value.endIndex - 1
        let mode = context.generatedKeyMode ?? .exact
        var guess = 0
        while position < end {
            let valueIndex = position + 1
            let field = tape.withUnsafeText(of: tape[position]) { members.index(of: $0, mode: mode, guess: guess) }
            if field >= 0 {
                guess = field + 1
                // A repeated key: the general path decides which copy each property gets.
                guard slots[field] < 0, let offset = Int32(exactly: valueIndex - value.index) else {
                    needsGeneralPath = true
                    return
                }
                slots[field] = offset
            } else if field == JSONModelMembers.ambiguousMember {
                needsGeneralPath = true
                return
            }
            position = tape.endOfValue(at: valueIndex) ?? end
        }
        // Nested values may ask for this one as their parent, as they do under the general path.
        context.state.nesting += 1
    }

    /// Starts reading an object whose members the caller files (``file(_:at:)``): a JSON:API
    /// resource, whose properties come from the resource object, its attributes and its
    /// relationships. `missingMember` words the error for a property without a member, given the
    /// property's name and `value`.
    package init(
        filing value: JSONTape.Value,
        context: TapeDecodingContext,
        members: JSONModelMembers,
        missingMember: @escaping @Sendable (String, JSONTape.Value) -> DecodingError
    ) {
        tapeStorage = Unmanaged.passUnretained(value.tape.storage)
        objectIndex = value.index
        objectEnd = value.endIndex
        contextReference = Unmanaged.passUnretained(context)
        membersReference = Unmanaged.passUnretained(members)
        stateReference = Unmanaged.passUnretained(context.state)
        buffer = value.tape.storage.buffer
        hasTypeHooks = context.hasTypeHooks
        slots = context.state.openSlots(count: members.names.count)
        pendingMark = context.state.pendingChildren.count
        missingMemberError = missingMember
        needsGeneralPath = !context.allowsGeneratedReaders || members.names.count > Self.maximumProperties
    }

    deinit {
        stateReference._withUnsafeGuaranteedRef { $0.closeSlots() }
    }

    /// The property index of the member named `name` under the decode's key strategy: -1 for
    /// none, `JSONModelMembers/ambiguousMember` for a name the general path must place.
    package func field(named name: UnsafeRawBufferPointer) -> Int {
        members.index(of: name, mode: context.generatedKeyMode ?? .exact)
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
    /// knows (JSON:API relationships); `nil` when there is none, or when converters or uniquing
    /// are in force, which such readers leave to ``decodeGenerically(_:at:)``.
    @usableFromInline
    package func plainMember(_ field: Int) -> JSONTape.Value? {
        hasTypeHooks ? nil : member(field)
    }

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
        let tape = tape
        return JSONTape.Value(tape, from: index, to: tape.endOfValue(at: index) ?? index + 1)
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
        guard let member = member(field), !member.isNull else { return nil }
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
        return try scalar(.string, at: field)
    }
    /// Reads the optional `String` property `field`.
    public func decodeIfPresent(_ type: String.Type = String.self, at field: Int) throws -> String? {
        if let token = plainToken(field) {
            if token.kind == .string { return text(of: token) }
            if token.kind == .null { return nil }
        }
        return try scalarIfPresent(.string, at: field)
    }
    /// Reads the required `Int` property `field`.
    public func decode(_ type: Int.Type = Int.self, at field: Int) throws -> Int {
        if let token = plainToken(field), let integer = plainInteger(token, as: Int.self) { return integer }
        return try scalar(.int, at: field)
    }
    /// Reads the optional `Int` property `field`.
    public func decodeIfPresent(_ type: Int.Type = Int.self, at field: Int) throws -> Int? {
        if let token = plainToken(field) {
            if let integer = plainInteger(token, as: Int.self) { return integer }
            if token.kind == .null { return nil }
        }
        return try scalarIfPresent(.int, at: field)
    }
    /// Reads the required `Double` property `field`.
    public func decode(_ type: Double.Type = Double.self, at field: Int) throws -> Double {
        if let token = plainToken(field), let number = plainDouble(token) { return number }
        return try scalar(.double, at: field)
    }
    /// Reads the optional `Double` property `field`.
    public func decodeIfPresent(_ type: Double.Type = Double.self, at field: Int) throws -> Double? {
        if let token = plainToken(field) {
            if let number = plainDouble(token) { return number }
            if token.kind == .null { return nil }
        }
        return try scalarIfPresent(.double, at: field)
    }
    /// Reads the required `Bool` property `field`.
    public func decode(_ type: Bool.Type = Bool.self, at field: Int) throws -> Bool {
        if let token = plainToken(field), token.kind == .true || token.kind == .false { return token.kind == .true }
        return try scalar(.bool, at: field)
    }
    /// Reads the optional `Bool` property `field`.
    public func decodeIfPresent(_ type: Bool.Type = Bool.self, at field: Int) throws -> Bool? {
        if let token = plainToken(field) {
            if token.kind == .true || token.kind == .false { return token.kind == .true }
            if token.kind == .null { return nil }
        }
        return try scalarIfPresent(.bool, at: field)
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

    /// A string token's text as a `String`.
    @inline(__always)
    private func text(of token: JSONToken) -> String {
        withText(of: token) { UTF8Validation.string(ofChecked: $0, isASCII: token.isASCII) }
    }

    /// A number token read as `T` exactly, or `nil` for anything else.
    @inline(__always)
    private func plainInteger<T: FixedWidthInteger>(_ token: JSONToken, as type: T.Type) -> T? {
        guard token.kind == .number else { return nil }
        return withText(of: token) { text in try? JSONNumberText.integer(tokenText: text, as: T.self) }
    }

    /// A number token read as the nearest `Double`, or `nil` for anything else.
    @inline(__always)
    private func plainDouble(_ token: JSONToken) -> Double? {
        guard token.kind == .number else { return nil }
        return withText(of: token) { text in try? JSONNumberText.double(tokenText: text) }
    }

    /// Reads the required `Int64` property `field`.
    public func decode(_ type: Int64.Type = Int64.self, at field: Int) throws -> Int64 {
        try scalar(.int64, at: field)
    }
    /// Reads the optional `Int64` property `field`.
    public func decodeIfPresent(_ type: Int64.Type = Int64.self, at field: Int) throws -> Int64? {
        try scalarIfPresent(.int64, at: field)
    }
    /// Reads the required `UInt64` property `field`.
    public func decode(_ type: UInt64.Type = UInt64.self, at field: Int) throws -> UInt64 {
        try scalar(.uint64, at: field)
    }
    /// Reads the optional `UInt64` property `field`.
    public func decodeIfPresent(_ type: UInt64.Type = UInt64.self, at field: Int) throws -> UInt64? {
        try scalarIfPresent(.uint64, at: field)
    }

    // MARK: Nested models and arrays
    //
    // Overloads for the composite types models hold most: nested `@JSONModel` types, arrays of
    // them and arrays of the common scalars. Through the generic read, each such value costs a
    // type switch and a look-up of the type's kind in the decode's cache, and each element of an
    // array a nested decoder and the same again: thousands of instructions per article in the
    // JSON:API benchmark. Here the type is known at the call. Errors are those of the general
    // path, built the way it builds them (`TapeDecoder`'s shortcuts and `readDirectly`).

    /// Reads the required property `field`, a nested `@JSONModel` type.
    @inlinable
    public func decode<T: JSONModelDecodable>(_ type: T.Type = T.self, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        return try readModel(type, from: member, field: field)
    }

    /// Reads the optional property `field`, a nested `@JSONModel` type.
    @inlinable
    public func decodeIfPresent<T: JSONModelDecodable>(_ type: T.Type = T.self, at field: Int) throws -> T? {
        guard let member = member(field), !member.isNull else { return nil }
        return try readModel(type, from: member, field: field)
    }

    /// Reads the required property `field`, an array of a `@JSONModel` type.
    @inlinable
    public func decode<T: JSONModelDecodable>(_ type: [T].Type = [T].self, at field: Int) throws -> [T] {
        guard let member = member(field) else { throw missing(field) }
        return try readModels(T.self, from: member, field: field)
    }

    /// Reads the optional property `field`, an array of a `@JSONModel` type.
    @inlinable
    public func decodeIfPresent<T: JSONModelDecodable>(_ type: [T].Type = [T].self, at field: Int) throws -> [T]? {
        guard let member = member(field), !member.isNull else { return nil }
        return try readModels(T.self, from: member, field: field)
    }

    /// Reads the required `[String]` property `field`.
    public func decode(_ type: [String].Type = [String].self, at field: Int) throws -> [String] {
        try scalars(at: field)
    }
    /// Reads the optional `[String]` property `field`.
    public func decodeIfPresent(_ type: [String].Type = [String].self, at field: Int) throws -> [String]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Int]` property `field`.
    public func decode(_ type: [Int].Type = [Int].self, at field: Int) throws -> [Int] { try scalars(at: field) }
    /// Reads the optional `[Int]` property `field`.
    public func decodeIfPresent(_ type: [Int].Type = [Int].self, at field: Int) throws -> [Int]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Double]` property `field`.
    public func decode(_ type: [Double].Type = [Double].self, at field: Int) throws -> [Double] {
        try scalars(at: field)
    }
    /// Reads the optional `[Double]` property `field`.
    public func decodeIfPresent(_ type: [Double].Type = [Double].self, at field: Int) throws -> [Double]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Bool]` property `field`.
    public func decode(_ type: [Bool].Type = [Bool].self, at field: Int) throws -> [Bool] { try scalars(at: field) }
    /// Reads the optional `[Bool]` property `field`.
    public func decodeIfPresent(_ type: [Bool].Type = [Bool].self, at field: Int) throws -> [Bool]? {
        try scalarsIfPresent(at: field)
    }

    /// Reads the required `[String?]` property `field`.
    public func decode(_ type: [String?].Type = [String?].self, at field: Int) throws -> [String?] {
        try scalars(at: field)
    }
    /// Reads the optional `[String?]` property `field`.
    public func decodeIfPresent(_ type: [String?].Type = [String?].self, at field: Int) throws -> [String?]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Int?]` property `field`.
    public func decode(_ type: [Int?].Type = [Int?].self, at field: Int) throws -> [Int?] {
        try scalars(at: field)
    }
    /// Reads the optional `[Int?]` property `field`.
    public func decodeIfPresent(_ type: [Int?].Type = [Int?].self, at field: Int) throws -> [Int?]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Double?]` property `field`.
    public func decode(_ type: [Double?].Type = [Double?].self, at field: Int) throws -> [Double?] {
        try scalars(at: field)
    }
    /// Reads the optional `[Double?]` property `field`.
    public func decodeIfPresent(_ type: [Double?].Type = [Double?].self, at field: Int) throws -> [Double?]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Bool?]` property `field`.
    public func decode(_ type: [Bool?].Type = [Bool?].self, at field: Int) throws -> [Bool?] {
        try scalars(at: field)
    }
    /// Reads the optional `[Bool?]` property `field`.
    public func decodeIfPresent(_ type: [Bool?].Type = [Bool?].self, at field: Int) throws -> [Bool?]? {
        try scalarsIfPresent(at: field)
    }

    /// A nested model read as `readDirectly` reads it for the general path: its errors, relative to
    /// the member, get the member's key in front. Inlinable, as ``readModels(_:from:field:)`` is:
    /// each initializer calls its nested models' readers directly.
    @inlinable
    func readModel<T: JSONModelDecodable>(_ type: T.Type, from member: JSONTape.Value, field: Int) throws -> T {
        if hasTypeHooks { return try read(type, from: member, field: field) }
        do {
            return try contextReference._withUnsafeGuaranteedRef { try T(from: member, context: $0) }
        } catch {
            abandon()
            throw memberFailure(error, in: member, field: field, type: type)
        }
    }

    /// An array of nested models read as the general path's array shortcut reads it: a mismatch
    /// for anything but an array, then each element with its index in the path.
    ///
    /// Inlinable, so that each model's initializer gets a copy for its element type: out of line,
    /// the array was built by generic code that looked up `[T]`'s metadata in the runtime's
    /// caches and called each element's reader through its witness, for every array read.
    @inlinable
    func readModels<T: JSONModelDecodable>(
        _ type: T.Type,
        from member: JSONTape.Value,
        field: Int
    ) throws -> [T] {
        if hasTypeHooks || member.kind != .arrayStart {
            return try readModelsGenerally(type, from: member, field: field)
        }
        let context = contextReference
        do {
            return try member.mapElements { element, index in
                do {
                    return try context._withUnsafeGuaranteedRef { try T(from: element, context: $0) }
                } catch {
                    throw memberFailure(error, in: member, field: field, element: (element, index), type: T.self)
                }
            }
        } catch {
            abandon()
            throw error
        }
    }

    /// ``readModels(_:from:field:)`` for what its inlined part leaves: converters in force (the
    /// general read), or a member that is not an array (the general path's mismatch).
    @usableFromInline
    func readModelsGenerally<T: JSONModelDecodable>(
        _ type: T.Type,
        from member: JSONTape.Value,
        field: Int
    ) throws -> [T] {
        if hasTypeHooks { return try read([T].self, from: member, field: field) }
        abandon()
        throw TapeDecoder(value: member, context: context, parentPath: [], key: members.keys[field])
            .mismatch(expected: "an array", type: [Any].self)
    }

    /// The error for the value of property `field` (`member`, or its element `element.index`)
    /// whose nested model failed with `error`, as the general path gives it: a `DecodingError`
    /// with the member's key (and the element's index) in front of its path, a tape fault worded
    /// by `TapeDecoder`.
    @usableFromInline
    func memberFailure(
        _ error: any Error,
        in member: JSONTape.Value,
        field: Int,
        element: (value: JSONTape.Value, index: Int)? = nil,
        type: Any.Type
    ) -> any Error {
        let key = members.keys[field]
        switch error {
        case let error as DecodingError:
            return error.prefixingCodingPath(element.map { [key, ElementKey($0.index)] } ?? [key])
        case let error as JSONError:
            let decoder = TapeDecoder(value: member, context: context, parentPath: [], key: key)
            guard let element else { return decoder.convert(error, type: type) }
            return decoder.elementError(error, element: element.value, index: element.index, type: type)
        default:
            return error
        }
    }

    /// An array of scalars or optional scalars, read by the general path's own array shortcut,
    /// specialized here.
    @inline(__always)
    private func scalars<S: Decodable>(at field: Int) throws -> [S] {
        guard let member = member(field) else { throw missing(field) }
        return try readScalarArray(from: member, field: field)
    }

    @inline(__always)
    private func scalarsIfPresent<S: Decodable>(at field: Int) throws -> [S]? {
        guard let member = member(field), !member.isNull else { return nil }
        return try readScalarArray(from: member, field: field) as [S]
    }

    @inline(__always)
    private func readScalarArray<S: Decodable>(from member: JSONTape.Value, field: Int) throws -> [S] {
        if hasTypeHooks { return try read([S].self, from: member, field: field) }
        if let plain = plainScalarArray(member, as: S.self) { return plain }
        do {
            return try [S].read(
                from: TapeDecoder(value: member, context: context, parentPath: [], key: members.keys[field])
            )
        } catch {
            abandon()
            throw error
        }
    }

    /// The array `member` read straight from the tape, when `S` is a scalar or an optional scalar
    /// and every element reads without a fault; `nil` for the general path to read, which gives
    /// the same value or the error. Why: the general path's array read is generic code that
    /// works out the element type at run time and makes a decoder for the array, over a
    /// thousand instructions for `["a", "b"]`; here the type is known where the call is
    /// specialized, and the comparisons of `S` fold away.
    @inline(__always)
    private func plainScalarArray<S>(_ member: JSONTape.Value, as type: S.Type) -> [S]? {
        guard member.kind == .arrayStart else { return nil }
        let context = self.context
        // The casts back to `[S]` are no-ops: each is reached only where `[E]` or `[E?]` is `[S]`.
        func read<E>(_ scalar: TapeScalar, _ element: E.Type) -> [S]? {
            let array = try? member.mapElementsSpecialized { element, _ throws(JSONError) -> E in
                try TapeDecoder.readScalar(scalar, from: element, context: context, as: E.self)
            }
            return array.map { unsafeBitCast($0, to: [S].self) }
        }
        func readOptional<E>(_ scalar: TapeScalar, _ element: E.Type) -> [S]? {
            let array = try? member.mapElementsSpecialized { element, _ throws(JSONError) -> E? in
                element.isNull ? nil : try TapeDecoder.readScalar(scalar, from: element, context: context, as: E.self)
            }
            return array.map { unsafeBitCast($0, to: [S].self) }
        }
        if S.self == String.self { return read(.string, String.self) }
        if S.self == Int.self { return read(.int, Int.self) }
        if S.self == Double.self { return read(.double, Double.self) }
        if S.self == Bool.self { return read(.bool, Bool.self) }
        if S.self == String?.self { return readOptional(.string, String.self) }
        if S.self == Int?.self { return readOptional(.int, Int.self) }
        if S.self == Double?.self { return readOptional(.double, Double.self) }
        if S.self == Bool?.self { return readOptional(.bool, Bool.self) }
        return nil
    }

    @inline(__always)
    private func scalar<T: Decodable>(_ scalar: TapeScalar, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        return try readScalar(scalar, from: member, field: field)
    }

    @inline(__always)
    private func scalarIfPresent<T: Decodable>(_ scalar: TapeScalar, at field: Int) throws -> T? {
        guard let member = member(field), !member.isNull else { return nil }
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

    /// Ends the object: hands `model` to the values decoded inside it that asked for their parent.
    ///
    /// Inlinable, with the model touched only when a child waits: called out of line, the generic
    /// function took the model indirectly from every initializer, 0.3 M instructions more per
    /// decode of the benchmark's 2 000-article document.
    @inlinable
    public func finish<T>(_ model: T) {
        if endObject() { attachWaitingChildren(to: model) }
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
    func attachWaitingChildren<T>(to model: T) {
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
