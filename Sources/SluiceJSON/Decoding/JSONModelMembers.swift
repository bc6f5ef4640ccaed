// The table of a `@JSONModel` type's member names that its generated reader matches keys
// against, with the spellings the built-in key strategies accept.

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
    /// How many there are (read for every object: `names.count` would retain the array).
    package let propertyCount: Int
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
        propertyCount = names.count
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

    /// ``index(of:mode:)``, trying `guess` first: members mostly come in the order of the
    /// properties, or in the same order object after object, so the property after the last
    /// member's is checked with one comparison before the table is searched. `guesses` is
    /// ``guesses(under:)`` for `mode`, taken once per object by a caller that files many members.
    @inline(__always)
    package func index(
        of name: UnsafeRawBufferPointer,
        mode: GeneratedKeyMode,
        guess: Int,
        guesses: MemberGuesses
    )
        -> Int
    {
        if guesses.match(guess, name) { return guess }
        return index(of: name, mode: mode)
    }

    /// What checking a guess reads under `mode`.
    ///
    /// Under the snake and kebab modes the guess is checked against the property's separated
    /// spelling too (`created_at` for `createdAt`), when no spelling belongs to two properties
    /// (`ambiguous`): then a member spelled either way stands for that property alone, as the
    /// table search would find. Without it every member of a snake_case document (twitter.json)
    /// missed the exact table and searched two tables. Under the loose mode, or an ambiguous
    /// one, nothing is guessed.
    ///
    /// Inline: every object a generated reader files asks, and the call cost more than the answer.
    @inline(__always)
    package func guesses(under mode: GeneratedKeyMode) -> MemberGuesses {
        switch mode {
        case .exact:
            MemberGuesses(first: exact.ownSpellings, second: nil)
        case .snake where !ambiguous[1]:
            MemberGuesses(first: snake.ownSpellings, second: exact.ownSpellings)
        case .kebab where !ambiguous[2]:
            MemberGuesses(first: kebab.ownSpellings, second: exact.ownSpellings)
        case .snake, .kebab, .loose:
            MemberGuesses(first: nil, second: nil)
        }
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

    /// Each property's own spelling, as pointers into this table (which must outlive the view).
    var ownSpellings: OwnSpellings {
        OwnSpellings(own: UnsafePointer(own), bytes: UnsafePointer(bytes), propertyCount: propertyCount)
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

/// Each property's own spelling in a ``SpellingTable``, held as plain pointers: what checking a
/// guess reads, taken once per object into locals, since read through the table in the filing
/// loop each pointer was loaded again for every member (the loop's stores to the slots might,
/// for all the compiler knows, have changed them).
struct OwnSpellings {
    /// Where each property's spelling lies in `bytes` and how long it is (length -1 for none).
    let own: UnsafePointer<(offset: Int32, length: Int32)>
    let bytes: UnsafePointer<UInt8>
    let propertyCount: Int

    /// Whether `name` is property `property`'s own spelling.
    @inline(__always)
    func isSpelling(of property: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        guard property < propertyCount else { return false }
        let spelling = own[property]
        guard Int(spelling.length) == name.count else { return false }
        guard let base = name.baseAddress, name.count > 0 else { return true }
        let count = name.count
        let known = UnsafeRawPointer(bytes + Int(spelling.offset))
        // Names up to 32 bytes (nearly all of them) as loads that meet or overlap, without a
        // call: the guess is right for nearly every member, so this comparison is the filing.
        // Every load stays inside both names.
        switch count {
        case 8...16: return Self.sameEnds(known, base, count, as: UInt64.self)
        // Up to 32 (twitter's `in_reply_to_status_id_str`) as the first and the last sixteen.
        case 17...32:
            return Self.sameEnds(known, base, 16, as: UInt64.self)
                && Self.sameEnds(known + (count - 16), base + (count - 16), 16, as: UInt64.self)
        case 4..<8: return Self.sameEnds(known, base, count, as: UInt32.self)
        case 2..<4: return Self.sameEnds(known, base, count, as: UInt16.self)
        case 1: return known.load(as: UInt8.self) == base.load(as: UInt8.self)
        default: return memcmp(known, base, count) == 0
        }
    }

    /// Whether `count` bytes at `a` and `b` are equal, compared as a word at each end (`count`
    /// between one and two words).
    @inline(__always)
    private static func sameEnds<Word: FixedWidthInteger>(
        _ a: UnsafeRawPointer,
        _ b: UnsafeRawPointer,
        _ count: Int,
        as word: Word.Type
    ) -> Bool {
        let tail = count - MemoryLayout<Word>.size
        return a.loadUnaligned(as: Word.self) == b.loadUnaligned(as: Word.self)
            && a.loadUnaligned(fromByteOffset: tail, as: Word.self)
                == b.loadUnaligned(fromByteOffset: tail, as: Word.self)
    }
}

/// The spellings a guessed property is checked against under one key mode (see
/// ``JSONModelMembers/guesses(under:)``): held as plain pointers, valid while the member table is.
package struct MemberGuesses {
    let first: OwnSpellings?
    let second: OwnSpellings?

    /// Whether `name` is one of those spellings of property `property`.
    @inline(__always)
    func match(_ property: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        if let first, first.isSpelling(of: property, name) { return true }
        if let second, second.isSpelling(of: property, name) { return true }
        return false
    }
}
