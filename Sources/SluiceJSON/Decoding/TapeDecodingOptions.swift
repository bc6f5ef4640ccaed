public import Foundation

/// Options of a ``TapeDecoder``: how members are found, how dates, data and special numbers are
/// read, which conversions are allowed, and the hooks a caller adds.
///
/// ``StreamingJSONDecoder`` exposes the same settings under Foundation's names; this is the value
/// it hands to the decoders it creates.
public struct TapeDecodingOptions: Sendable {
    /// How members are found for coding keys.
    public var keyStrategy: JSONKeyStrategy = .useDefaultKeys
    /// Values models can read through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// How `Date` values are read. Default: as `Date`'s own `Decodable` conformance reads them
    /// (seconds since 2001), as Foundation's `JSONDecoder` does.
    public var dateStrategy: JSONDateDecodingStrategy = .deferredToDate
    /// How `Data` values are read. Default: Base64 strings.
    public var dataStrategy: JSONDataDecodingStrategy = .base64
    /// How `Double` and `Float` read strings that stand for infinities and NaN, which JSON numbers
    /// cannot express. Default: they are type mismatches.
    public var nonConformingFloatStrategy: JSONNonConformingFloatStrategy = .throw
    /// Conversions between JSON types that are off unless named here. Default: none, as Foundation.
    public var conversions: JSONConversions = []
    /// Readers for types that need more than their `Decodable` conformance (see ``JSONConverters``).
    public var converters = JSONConverters()
    /// Called for every member a keyed container finds for a key: return `false` to treat the
    /// member as absent, throw to reject the payload (see ``JSONMemberCheck``). Default: none.
    public var memberCheck: (@Sendable (JSONMemberCheck) throws -> Bool)?
    /// Coding keys (by their string value) whose members are treated as absent wherever they
    /// appear, so a decode leaves those properties to their defaults and an update leaves them as
    /// they were.
    public var ignoredKeys: Set<String> = []
    /// Reference models to unique within one decode (see ``JSONUniquing``).
    public var uniquing = JSONUniquing()
    /// A store that keeps uniqued instances across decodes. Default: `nil`, one map per decode.
    public var identityStore: JSONIdentityStore?

    /// Whether `@JSONModel` types may be read by their generated readers (when the other options
    /// allow it). Default: on. Off, every model goes through its Codable conformance: to compare
    /// the two paths (the differential tests and benchmarks do), or to rule the generated one out
    /// while tracking a problem down. Results and errors are the same either way.
    public var usesGeneratedReaders = true

    /// Creates default options.
    public init() {}
}

/// What ``TapeDecodingOptions/memberCheck`` is asked about: one member found for a coding key.
public struct JSONMemberCheck {
    /// The coding path of the object holding the member.
    public let codingPath: [any CodingKey]
    /// The coding key the model asked for.
    public let key: any CodingKey
    /// The member's value, still unconverted.
    public let value: JSONTape.Value
}

/// Conversions between JSON types that a strict decoder refuses; each is off by default.
public struct JSONConversions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Numbers (integers, `Double`, `Float`, `Decimal`) read from strings holding a JSON number,
    /// such as `"42"` or `"-1.5e3"`. Surrounding whitespace is refused.
    public static let numberFromString = JSONConversions(rawValue: 1 << 0)
    /// `String` read from a number, as its text in the input (`1.50` stays `"1.50"`), or from
    /// `true`/`false`.
    public static let stringFromNumber = JSONConversions(rawValue: 1 << 1)
    /// `Bool` read from the numbers `0` and `1`.
    public static let boolFromNumber = JSONConversions(rawValue: 1 << 2)
    /// `Bool` read from the strings `"true"`, `"false"`, `"1"`, `"0"` (any letter case for the
    /// words).
    public static let boolFromString = JSONConversions(rawValue: 1 << 3)
    /// Every conversion above.
    public static let all: JSONConversions = [.numberFromString, .stringFromNumber, .boolFromNumber, .boolFromString]
}

/// Readers for particular types, consulted before their `Decodable` conformance.
///
/// ```swift
/// var converters = JSONConverters()
/// converters.register(Money.self) { value in
///     try Money(cents: value.integer(as: Int.self))
/// }
/// ```
public struct JSONConverters: Sendable {
    /// Type-erased readers by the type they produce.
    fileprivate(set) var readers: [ObjectIdentifier: @Sendable (JSONTape.Value, TapeDecoder) throws -> Any] = [:]

    /// Creates an empty set of converters.
    public init() {}

    /// Reads `type` with `read` wherever a model asks for it, instead of its `Decodable`
    /// conformance. Errors `read` throws are reported with the coding path of the value; a
    /// ``JSONError`` from the value's accessors becomes the matching `DecodingError`.
    public mutating func register<T>(_ type: T.Type, _ read: @escaping @Sendable (JSONTape.Value) throws -> T) {
        readers[ObjectIdentifier(type)] = { value, _ in try read(value) }
    }

    /// Reads `type` with `read`, which gets the whole decoder (coding path, options, containers).
    /// (A name of its own rather than an overload of ``register(_:_:)``: with two closure types, a
    /// trailing closure whose parameter has no type written would be ambiguous.)
    public mutating func registerDecoding<T>(_ type: T.Type, _ read: @escaping @Sendable (TapeDecoder) throws -> T) {
        readers[ObjectIdentifier(type)] = { _, decoder in try read(decoder) }
    }

    /// Whether no converter is registered.
    public var isEmpty: Bool { readers.isEmpty }
}

/// How `Date` values are read.
///
/// The cases Foundation's `JSONDecoder.DateDecodingStrategy` has keep its behaviour, except that
/// ``iso8601`` also accepts fractional seconds. The others name the formats APIs use in practice;
/// ``anyOf(_:)`` and ``perKey(_:default:)`` serve payloads that mix formats.
public enum JSONDateDecodingStrategy: Sendable {
    /// `Date`'s own `Decodable` conformance: a number of seconds since 2001-01-01.
    case deferredToDate
    /// A number of seconds since 1970.
    case secondsSince1970
    /// A number of milliseconds since 1970.
    case millisecondsSince1970
    /// An ISO 8601 / RFC 3339 date-time string, with or without fractional seconds.
    case iso8601
    /// A string read by a `DateFormatter`. The formatter must not be changed while decoding.
    case formatted(DateFormatter)
    /// A date read by a closure from the value's decoder.
    case custom(@Sendable (any Decoder) throws -> Date)
    /// One format (see ``JSONDateFormat``).
    case format(JSONDateFormat)
    /// The first of several formats that reads the value.
    case anyOf([JSONDateFormat])
    /// A format per coding key (by its string value, as the model names the property), and
    /// `default` for other keys and for dates that are not object members.
    indirect case perKey([String: JSONDateDecodingStrategy], default: JSONDateDecodingStrategy)
}

/// How `Data` values are read.
public enum JSONDataDecodingStrategy: Sendable {
    /// `Data`'s own `Decodable` conformance: an array of byte values.
    case deferredToData
    /// A Base64 string.
    case base64
    /// Data read by a closure from the value's decoder.
    case custom(@Sendable (any Decoder) throws -> Data)
}

/// How `Double` and `Float` read the strings that stand for values JSON numbers cannot express.
public enum JSONNonConformingFloatStrategy: Sendable, Hashable {
    /// Such strings are type mismatches.
    case `throw`
    /// The three strings given stand for positive infinity, negative infinity and NaN.
    case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
}

/// The state one decode shares among all its nested decoders: the options, and what the decode
/// accumulates (uniqued instances, children awaiting their parent, date formatters).
///
/// Why a class: every nested decoder holds it, and copying one reference is cheaper than copying
/// a struct of many references (each a retain) for every value decoded. Why per decode: uniquing
/// "within a decode" and parent links must not leak from one decode into the next.
public final class TapeDecodingContext: @unchecked Sendable {
    // @unchecked Sendable: the mutable state below is touched only by the decode that owns the
    // context, on one thread; the type is Sendable only so values holding it can cross isolation
    // boundaries once that decode is over.

    /// The options in force.
    public let options: TapeDecodingOptions
    /// Whether any option needs a look at scalars beyond the strict fast path.
    let readsScalarsLeniently: Bool
    /// Whether decodeValue must consult converters or uniquing for composite types (parent links
    /// are handled either way).
    @usableFromInline let hasTypeHooks: Bool
    /// Whether keyed containers must consult the member check or the ignored keys.
    package let checksMembers: Bool
    /// Whether the options leave `@JSONModel`'s generated readers free to read objects: a key
    /// strategy they have tables for, and no member check, ignored keys or update fallback.
    /// Every other option (dates, data, conversions, converters, uniquing) they honour, since
    /// they read values through the same functions as the general path.
    package var allowsGeneratedReaders: Bool {
        generatedKeyMode != nil && !checksMembers && fallback == nil && options.usesGeneratedReaders
    }
    /// How generated readers match member names under the key strategy in force; `nil` for a
    /// strategy they have no tables for (`.custom`, `.memberName`).
    package let generatedKeyMode: GeneratedKeyMode?
    /// What the decode accumulates, shared with ``withDefaultKeys``.
    let state: DecodeState
    /// When updating a value, its current state encoded, and the context that reads it: members
    /// a payload lacks are read from there (see `StreamingJSONDecoder.update`).
    var fallback: (root: JSONTape.Value, context: TapeDecodingContext)?
    /// The same options with default keys, for objects whose member names are fixed by a
    /// specification, sharing this decode's state.
    package var withDefaultKeys: TapeDecodingContext {
        if case .useDefaultKeys = options.keyStrategy { return self }
        if let defaultKeysContext { return defaultKeysContext }
        var options = self.options
        options.keyStrategy = .useDefaultKeys
        let context = TapeDecodingContext(options: options, sharing: state)
        defaultKeysContext = context
        return context
    }
    private var defaultKeysContext: TapeDecodingContext?

    /// Creates the context of one decode.
    public convenience init(options: TapeDecodingOptions) {
        self.init(options: options, sharing: DecodeState(store: options.identityStore))
    }

    private init(options: TapeDecodingOptions, sharing state: DecodeState) {
        self.options = options
        self.state = state
        readsScalarsLeniently = !options.conversions.isEmpty || options.nonConformingFloatStrategy != .throw
        hasTypeHooks = !options.converters.isEmpty || !options.uniquing.isEmpty
        checksMembers = options.memberCheck != nil || !options.ignoredKeys.isEmpty
        generatedKeyMode = GeneratedKeyMode(options.keyStrategy)
    }
}

/// How a composite type decodes (see `DecodeState.compositeKind(of:)`).
enum CompositeKind {
    case shortcut(any TapeContainerShortcut.Type)
    case tapeDecodable(any JSONTapeDecodable.Type)
    case codable
}

/// The mutable state of one decode (see ``TapeDecodingContext``).
final class DecodeState {
    /// Where uniqued instances go: the caller's store, or one made for this decode.
    let identities: JSONIdentityStore
    /// Children that asked for a back-reference to a parent not yet complete (see
    /// `Decoder.linkToParent`), oldest first.
    ///
    /// This and `nesting`: unchecked exclusivity, as for the slot tables below; every object a
    /// generated reader reads touches both.
    @exclusivity(unchecked) var pendingChildren: [PendingChild] = []
    /// How many composite values are being decoded, one inside the other, right now.
    @exclusivity(unchecked) var nesting = 0
    /// The longer strings generated readers made last, for the next that repeats one. Unchecked
    /// exclusivity as below: every such string read touches it.
    @exclusivity(unchecked) var repeatedStrings = RepeatedStrings()
    /// Date formatters made for ``JSONDateFormat/pattern(_:)``, by pattern.
    private var patternFormatters = PatternDateFormatters()
    /// The slot tables of the generated readers open right now, one block per reader in the
    /// order they opened; blocks are kept and reused by later readers (see `JSONModelReader`).
    /// Unchecked exclusivity: every object a generated reader reads opens and closes a table, and
    /// the run-time check of each access cost more than the access; one decode runs on one
    /// thread and no access overlaps another.
    @exclusivity(unchecked) private var slotBlocks: [UnsafeMutablePointer<Int32>] = []
    @exclusivity(unchecked) private var openSlotBlocks = 0

    /// How the composite types met so far decode (see `compositeKind(of:)`).
    private var compositeKinds: [(type: ObjectIdentifier, kind: CompositeKind)] = []

    init(store: JSONIdentityStore?) {
        identities = store ?? JSONIdentityStore()
    }

    deinit {
        for block in slotBlocks { block.deallocate() }
    }

    /// A slot table for a reader that opens now, `count` slots set to -1. Readers close in the
    /// reverse order (each is a local of the decode that opened it), so the tables form a stack
    /// and a block's address never changes while its reader is open.
    ///
    /// Inline, and filled eight slots a store: every object a generated reader reads opens one,
    /// and the call and `update(repeating:count:)`'s call to `memset` cost more than the filling
    /// (some 50 instructions an object, a twentieth of citm_catalog.json's decode).
    @inline(__always)
    func openSlots(count: Int) -> UnsafeMutablePointer<Int32> {
        if openSlotBlocks == slotBlocks.count { addSlotBlock() }
        let block = slotBlocks.withUnsafeBufferPointer { $0[openSlotBlocks] }
        openSlotBlocks += 1
        // Whole stores of eight may pass `count`: a block holds `maximumProperties`, a multiple
        // of eight, and slots past `count` are never read.
        let raw = UnsafeMutableRawPointer(block)
        var offset = 0
        let end = min(count, JSONModelReader.maximumProperties) * MemoryLayout<Int32>.stride
        while offset < end {
            raw.storeBytes(of: SIMD8<Int32>(repeating: -1), toByteOffset: offset, as: SIMD8<Int32>.self)
            offset += MemoryLayout<SIMD8<Int32>>.stride
        }
        return block
    }

    @inline(never)
    private func addSlotBlock() {
        slotBlocks.append(.allocate(capacity: JSONModelReader.maximumProperties))
    }

    /// Closes the table that opened last.
    func closeSlots() {
        openSlotBlocks -= 1
    }

    /// How a type that is not a scalar decodes: through a shortcut, reading the tape itself, or
    /// through Codable.
    ///
    /// Why a cache: finding out takes two dynamic casts to protocol metatypes, and a failed cast
    /// walks the runtime's conformance tables (hundreds of instructions) for every object decoded.
    /// A model uses a few dozen types at most, so a short list searched linearly is cheaper than
    /// the casts, and cheaper than hashing.
    func compositeKind<T>(of type: T.Type) -> CompositeKind {
        let id = ObjectIdentifier(type)
        for entry in compositeKinds where entry.type == id { return entry.kind }
        let kind: CompositeKind
        if let known = Self.sharedKinds.fact(about: type) {
            kind = known
        } else {
            if let shortcut = type as? any TapeContainerShortcut.Type {
                kind = .shortcut(shortcut)
            } else if let tapeType = type as? any JSONTapeDecodable.Type {
                kind = .tapeDecodable(tapeType)
            } else {
                kind = .codable
            }
            Self.sharedKinds.record(kind, about: type)
        }
        if compositeKinds.count < 64 { compositeKinds.append((id, kind)) }
        return kind
    }

    /// The process-wide second level of `compositeKind(of:)`. Why: the runtime's first answer to
    /// "does this type conform" for a type scans every conformance record of the process (tens of
    /// thousands of instructions), and a decode meets a few dozen types; each is asked once per
    /// process, then found here under a lock, once per decode.
    private static let sharedKinds = TypeFacts<CompositeKind>()

    /// A formatter for `pattern`, made once per decode.
    func formatter(for pattern: String) -> DateFormatter { patternFormatters.formatter(for: pattern) }
}
