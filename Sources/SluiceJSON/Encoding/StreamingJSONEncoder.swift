// The encoder: Encodable values into JSON text through JSONWriter.
//
// Two paths. `@JSONModel` models (and arrays, optionals and dictionaries of them) are written by
// their generated writers straight into the output (JSONModelWriter.swift). Everything else takes
// the general path: Codable lets a model open several nested containers and fill them in any order,
// and sorted keys need an object's members before its first is written, so the encoder first
// records a light tree (reference boxes for objects and arrays, numbers already as text) and then
// writes it through the chunked JSONWriter. Scalars, arrays and dictionaries skip Codable's
// containers.

public import Foundation

/// Encodes `Encodable` values as JSON, with the surface of Foundation's `JSONEncoder`.
///
/// ```swift
/// let encoder = StreamingJSONEncoder()           // was: JSONEncoder()
/// encoder.outputFormatting = [.sortedKeys]
/// encoder.keyEncodingStrategy = .convertToSnakeCase
/// let data = try encoder.encode(user)
/// // or in chunks, to a file or a socket:
/// try encoder.encode(users) { chunk in try handle.write(contentsOf: chunk) }
/// ```
///
/// With `.sortedKeys`, compact output matches Foundation's byte for byte for the same values and
/// settings (slashes escaped unless `.withoutEscapingSlashes`, shortest round-trip doubles).
/// Pretty output is Foundation's layout byte for byte (two spaces a level, `"key" : value`, no
/// final newline), and control characters are escaped in lowercase (`\u001f`) as Foundation's
/// are. Snake-case keys are split into words as Foundation's splits them, whatever their
/// capitals, digits and underscores, and `OutputFormatting`'s raw values are Foundation's.
///
/// As with Foundation's, a name encoded twice in one container is written once, in its first
/// place, with the last value, and a nested container asked for twice under one name (or after an
/// object was encoded there) is the same container, so both fill one object: the output never
/// holds a name twice. Where Foundation's stops the process (a nested container under a name that
/// holds a scalar), the container replaces the scalar.
///
/// `@JSONModel` models are written by their generated writers, with the same bytes, when the
/// output is compact and the key strategy is a built-in one (see ``usesGeneratedWriters``).
public final class StreamingJSONEncoder: Sendable {
    private let settings = LockedSettings(Settings())

    /// The layout of the output.
    public struct OutputFormatting: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Newlines and indentation.
        public static let prettyPrinted = OutputFormatting(rawValue: 1 << 0)
        /// Members in the order of their names.
        public static let sortedKeys = OutputFormatting(rawValue: 1 << 1)
        /// `/` written as is, not as `\/`.
        public static let withoutEscapingSlashes = OutputFormatting(rawValue: 1 << 3)
    }

    /// How coding keys become member names.
    public enum KeyEncodingStrategy: Sendable {
        /// The key as it is.
        case useDefaultKeys
        /// `myURLValue` → `my_url_value` (as Foundation for camelCase keys).
        case convertToSnakeCase
        /// `myURLValue` → `my-url-value`.
        case convertToKebabCase
        /// The member name for the coding path ending with the key: the same closure shape as
        /// Foundation's `JSONEncoder` and as ``JSONKeyStrategy/custom(_:)`` on the decoders.
        case custom(@Sendable ([any CodingKey]) -> any CodingKey)
        /// The member name for a coding key's string value, the path aside: the counterpart of
        /// ``JSONKeyStrategy/memberName(_:)``, so one function serves both directions.
        case memberName(@Sendable (String) -> String)
    }

    /// How dates are written.
    public enum DateEncodingStrategy: Sendable {
        /// `Date`'s own `Encodable` conformance: seconds since 2001.
        case deferredToDate
        /// Seconds since 1970.
        case secondsSince1970
        /// Milliseconds since 1970.
        case millisecondsSince1970
        /// ISO 8601 in UTC without fractional seconds: `2024-02-29T12:00:00Z`.
        case iso8601
        /// ISO 8601 in UTC with milliseconds: `2024-02-29T12:00:00.125Z`.
        case iso8601WithFractionalSeconds
        /// A string made by a formatter.
        case formatted(DateFormatter)
        /// Written by a closure through the encoder.
        case custom(@Sendable (Date, any Encoder) throws -> Void)
        /// One of the formats the decoders read (see ``JSONDateFormat``), in UTC: `.iso8601`
        /// without a fraction, `.iso8601WithFractionalSeconds` with milliseconds, the HTTP date
        /// formats, epoch numbers, or a `DateFormatter` pattern in `en_US_POSIX`.
        case format(JSONDateFormat)
        /// A strategy per coding key (by its string value, as the model names the property), and
        /// `default` for other keys and for dates that are not object members: the counterpart of
        /// ``JSONDateDecodingStrategy/perKey(_:default:)``.
        indirect case perKey([String: DateEncodingStrategy], default: DateEncodingStrategy)
    }

    /// How `Data` is written.
    public enum DataEncodingStrategy: Sendable {
        /// `Data`'s own conformance: an array of bytes.
        case deferredToData
        /// A Base64 string.
        case base64
        /// Written by a closure through the encoder.
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// How infinities and NaN are written.
    public enum NonConformingFloatEncodingStrategy: Sendable, Hashable {
        /// They are errors.
        case `throw`
        /// As the strings given.
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    package struct Settings {
        package var outputFormatting: OutputFormatting = []
        package var keyStrategy = KeyEncodingStrategy.useDefaultKeys
        var dateStrategy = DateEncodingStrategy.deferredToDate
        var dataStrategy = DataEncodingStrategy.base64
        var floatStrategy = NonConformingFloatEncodingStrategy.throw
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
        var usesGeneratedWriters = true
    }

    /// Creates an encoder with Foundation's defaults.
    public init() {}

    /// The layout. Default: compact, members in encoding order, slashes escaped.
    public var outputFormatting: OutputFormatting {
        get { settings[\.outputFormatting] }
        set { settings[\.outputFormatting] = newValue }
    }
    /// How coding keys become member names. Default: as they are.
    public var keyEncodingStrategy: KeyEncodingStrategy {
        get { settings[\.keyStrategy] }
        set { settings[\.keyStrategy] = newValue }
    }
    /// How dates are written. Default: `Date`'s own conformance.
    public var dateEncodingStrategy: DateEncodingStrategy {
        get { settings[\.dateStrategy] }
        set { settings[\.dateStrategy] = newValue }
    }
    /// How `Data` is written. Default: Base64.
    public var dataEncodingStrategy: DataEncodingStrategy {
        get { settings[\.dataStrategy] }
        set { settings[\.dataStrategy] = newValue }
    }
    /// How infinities and NaN are written. Default: they are errors.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy {
        get { settings[\.floatStrategy] }
        set { settings[\.floatStrategy] = newValue }
    }
    /// Values models read through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { settings[\.userInfo] }
        set { settings[\.userInfo] = newValue }
    }

    /// Whether `@JSONModel` models are written by their generated writers (when the output is
    /// compact and the key strategy built in). Default: `true`. Set `false` to compare with the
    /// general path, which gives the same bytes.
    public var usesGeneratedWriters: Bool {
        get { settings[\.usesGeneratedWriters] }
        set { settings[\.usesGeneratedWriters] = newValue }
    }

    /// A snapshot of the settings, for encoders built on this one.
    package var settingsSnapshot: Settings { settings.snapshot }

    /// A tree recorder and writer options under the current settings, for encoders built on
    /// this one.
    ///
    /// - Parameter baseDepth: How many containers the recorded values will be written inside
    ///   (the JSON:API encoder writes a model's members three levels down), so that the depth
    ///   check counts them.
    package func makeTree(
        chunkSize: Int,
        baseDepth: Int = 0
    ) -> (tree: EncodingTree, writerOptions: JSONWriter.Options, sortsKeys: Bool) {
        let settings = self.settings.snapshot
        return (
            EncodingTree(settings: settings, baseDepth: baseDepth),
            JSONWriter.Options(
                prettyPrinted: settings.outputFormatting.contains(.prettyPrinted),
                escapesSlashes: !settings.outputFormatting.contains(.withoutEscapingSlashes),
                chunkSize: chunkSize
            ),
            settings.outputFormatting.contains(.sortedKeys)
        )
    }

    /// Encodes `value` as a JSON document.
    ///
    /// - Throws: `EncodingError.invalidValue` with the coding path for a value JSON cannot hold (an
    ///   infinite `Double` under the default strategy, a model that encodes nothing).
    ///
    /// A `@JSONModel` model (or an array, optional or dictionary of them) is written by its
    /// generated writer, straight into the output, when the output is compact and the key
    /// strategy is a built-in one; the result is byte for byte the general path's.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        var data = Data()
        if try encodeThroughGeneratedWriters(value, chunkSize: nil, sink: nil, finish: { data = $0.takeData() }) {
            return data
        }
        try encodeGenerally(value, chunkSize: 64 * 1024) { data.append(contentsOf: $0) }
        return data
    }

    /// Encodes `value` and hands the text to `sink` in chunks of `chunkSize` bytes.
    ///
    /// A `@JSONModel` model is written by its generated writer as in ``encode(_:)``. Should it
    /// fail after chunks have reached the sink, the error is the general path's for the same
    /// value (its coding path and message).
    public func encode<T: Encodable>(
        _ value: T,
        chunkSize: Int = 64 * 1024,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        precondition(chunkSize > 0, "chunkSize must be positive")
        if try encodeThroughGeneratedWriters(value, chunkSize: chunkSize, sink: sink, finish: { try $0.finish() }) {
            return
        }
        try encodeGenerally(value, chunkSize: chunkSize, to: sink)
    }

    /// Writes `value` through the generated writers when its type has them and the settings
    /// allow, then hands the output over with `finish`.
    ///
    /// - Returns: `false` when the general path is to write the value: the generated writers do
    ///   not apply, or they refused something before any text reached the sink (the general path
    ///   then gives its document or its exact error).
    /// - Throws: The sink's error; after text has reached the sink, the general path's error
    ///   for the value (it cannot start over, but it can say exactly what is wrong).
    private func encodeThroughGeneratedWriters<T: Encodable>(
        _ value: T,
        chunkSize: Int?,
        sink: ((UnsafeRawBufferPointer) throws -> Void)?,
        finish: (inout JSONModelWriterState) throws -> Void
    ) throws -> Bool {
        let settings = self.settings.snapshot
        guard writesThroughGeneratedWriters(T.self), JSONModelWriterState.accepts(settings) else { return false }
        let tree = EncodingTree(settings: settings)
        let state = JSONModelWriterState.make(tree: tree, chunkSize: chunkSize, sink: sink)
        defer { JSONModelWriterState.free(state) }
        do {
            guard try JSONModelWriter(state: state).writeIfConforming(value) else { return false }
            try finish(&state.pointee)
            return true
        } catch {
            if let failure = state.pointee.failedSink { throw failure }
            guard state.pointee.hasFlushed else { return false }
            _ = try tree.node(for: value, path: [])
            throw error
        }
    }

    /// The general path: the value recorded as a tree, then written through yajl's generator.
    private func encodeGenerally<T: Encodable>(
        _ value: T,
        chunkSize: Int,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var (tree, writerOptions, sortsKeys) = makeTree(chunkSize: chunkSize)
        let node = try tree.node(for: value, path: [])
        guard writerOptions.prettyPrinted else {
            let writer = JSONWriter(options: writerOptions, sink: sink)
            try node.write(to: writer, sortingKeys: sortsKeys)
            try writer.finish()
            return
        }
        // Pretty output in Foundation's layout: compact text from yajl, laid out on the way.
        writerOptions.prettyPrinted = false
        let layout = FoundationLayout(chunkSize: chunkSize)
        let writer = JSONWriter(options: writerOptions) { chunk in try layout.lay(chunk, to: sink) }
        try node.write(to: writer, sortingKeys: sortsKeys)
        try writer.finish()
        try layout.flush(to: sink)
    }
}

// MARK: The tree

/// A value recorded by the encoder. Objects and arrays are boxes, so that a nested container
/// handed out earlier fills its place in the parent later. Package API: the JSON:API encoder
/// records resources with the same machinery and rearranges their members.
package enum EncodedNode {
    case null
    case bool(Bool)
    case number(String)
    /// A finite double, formatted when written: the tree holds no String for it.
    case double(Double)
    case string(String)
    case object(EncodedObject)
    case array(EncodedArray)
    /// What a super encoder records, read when written (it may be filled after being placed).
    case slot(NodeSlot)
    /// A value of a type that tags itself (``JSONEncodingTagged``), for a consumer of the tree.
    indirect case tagged(String, EncodedNode)

    package func write(to writer: JSONWriter, sortingKeys: Bool) throws {
        switch self {
        case .null: try writer.null()
        case .bool(let value): try writer.bool(value)
        // Number text in the tree is valid: the tree makes it, or checks a JSONValue's.
        case .number(let text): try writer.number(validatedText: text)
        case .double(let value): try writer.number(value)
        case .string(let text): try writer.string(text)
        case .slot(let slot): try (slot.node ?? .object(EncodedObject())).write(to: writer, sortingKeys: sortingKeys)
        case .tagged(_, let node): try node.write(to: writer, sortingKeys: sortingKeys)
        case .array(let array):
            try writer.beginArray()
            for element in array.elements { try element.write(to: writer, sortingKeys: sortingKeys) }
            try writer.endArray()
        case .object(let object):
            try writer.beginObject()
            if sortingKeys {
                for index in object.keys.indices.sorted(by: { object.keys[$0] < object.keys[$1] }) {
                    try writer.key(object.keys[index])
                    try object.values[index].write(to: writer, sortingKeys: true)
                }
            } else {
                for index in object.keys.indices {
                    try writer.key(object.keys[index])
                    try object.values[index].write(to: writer, sortingKeys: false)
                }
            }
            try writer.endObject()
        }
    }
}

extension EncodedNode {
    /// The object this node records, itself or through a filled super encoder's slot.
    var containedObject: EncodedObject? {
        switch self {
        case .object(let object): object
        case .slot(let slot): slot.node?.containedObject
        default: nil
        }
    }

    /// The array this node records, itself or through a filled super encoder's slot.
    var containedArray: EncodedArray? {
        switch self {
        case .array(let array): array
        case .slot(let slot): slot.node?.containedArray
        default: nil
        }
    }

    /// The recorded value as a ``JSONValue``, members in recorded order (sorting, if any, is the
    /// writer's): for values carried inside other documents, such as atomic operations' data.
    package var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let text): .number(text)
        case .double(let value): .number(JSONNumberText.shortestText(value))
        case .string(let text): .string(text)
        case .slot(let slot): slot.node?.jsonValue ?? .object(JSONObject())
        case .tagged(_, let node): node.jsonValue
        case .array(let array): .array(array.elements.map(\.jsonValue))
        case .object(let object): .object(JSONObject(zip(object.keys, object.values.map(\.jsonValue)).map { ($0, $1) }))
        }
    }
}

package final class EncodedObject {
    /// The members' names and values, in the order their names were first given.
    package var keys: [String] = []
    package var values: [EncodedNode] = []
    /// Where each name stands, once the object has more members than are worth scanning: built
    /// lazily over `keys` up to `indexedCount`, so members appended to `keys` directly (a
    /// dictionary's, whose names are distinct) join at the next lookup.
    private var positions: [String: Int] = [:]
    private var indexedCount = 0
    /// Up to this many members, a scan of the names beats hashing the one looked for.
    private static let scanLimit = 12

    package init() {}

    /// The position of the member named `key`, if there is one.
    package func position(of key: String) -> Int? {
        if keys.count <= Self.scanLimit { return keys.firstIndex(of: key) }
        while indexedCount < keys.count {
            if positions[keys[indexedCount]] == nil { positions[keys[indexedCount]] = indexedCount }
            indexedCount += 1
        }
        return positions[key]
    }

    /// The value of the member named `key`, if there is one.
    package func member(_ key: String) -> EncodedNode? {
        position(of: key).map { values[$0] }
    }

    /// Sets the member named `key` to `value`. A name given twice in one container keeps its
    /// first place and takes the last value, as Foundation's encoder keeps the last: the output
    /// never holds a name twice, which a reader would resolve by dropping one of the values.
    package func append(_ key: String, _ value: EncodedNode) {
        if let existing = position(of: key) {
            values[existing] = value
            return
        }
        keys.append(key)
        values.append(value)
    }
}

package final class EncodedArray {
    package var elements: [EncodedNode] = []

    package init() {}
}

/// Records values into nodes under the encoder's settings. A class: every encoder and container
/// holds it, and copying one reference is cheaper than copying the settings' references.
package final class EncodingTree {
    let settings: StreamingJSONEncoder.Settings
    /// Containers the recorded values are written inside (see `makeTree`).
    let baseDepth: Int
    /// What is known about the types met in this encode: a short list in front of the
    /// process-wide cache, whose lock would otherwise be taken for every non-scalar value.
    private var knownKinds: [(type: ObjectIdentifier, kind: EncodingKind)] = []

    init(settings: StreamingJSONEncoder.Settings, baseDepth: Int = 0) {
        self.settings = settings
        self.baseDepth = baseDepth
    }

    private func kind<T>(of type: T.Type) -> EncodingKind {
        let identifier = ObjectIdentifier(type)
        for known in knownKinds where known.type == identifier { return known.kind }
        let kind = EncodingKind.of(type)
        if knownKinds.count < 32 { knownKinds.append((identifier, kind)) }
        return kind
    }

    /// Refuses a container at `path` that the writer could not nest: while recording, before
    /// any text reaches a sink, rather than halfway through the output. A container at `path`
    /// is the (count + 1 + baseDepth)th open one.
    /// (Generic, so that the value is boxed as `Any` only for the error.)
    func checkDepth<T>(_ value: T, _ path: [any CodingKey]) throws {
        guard path.count + baseDepth >= JSONWriter.maxDepth else { return }
        throw invalid(
            value,
            path,
            "\(T.self) would nest deeper than the \(JSONWriter.maxDepth) levels JSON is written with"
        )
    }

    /// This tree, or one like it without a key strategy, for ``JSONEncodingFixedKeys`` types.
    /// (Made on first use and kept apart from `self`: a stored reference to itself would leak.)
    private var defaultKeysTree: EncodingTree {
        if case .useDefaultKeys = settings.keyStrategy { return self }
        if let plainTree { return plainTree }
        var plain = settings
        plain.keyStrategy = .useDefaultKeys
        let made = EncodingTree(settings: plain, baseDepth: baseDepth)
        plainTree = made
        return made
    }
    private var plainTree: EncodingTree?

    /// The member name `key` is written as at the top level of a value: how an encoder built on
    /// the tree recognizes its own members among a model's renamed ones.
    package func topLevelMemberName(for key: String) -> String {
        memberName(for: AnyCodingKey(key), path: [])
    }

    /// The node for `value`: scalars directly, everything else through its `encode(to:)`.
    ///
    /// Types are told apart by metatype identity and a per-type cache, not by dynamic casts, which
    /// cost hundreds of instructions for every value (see the decoder's `TapeScalar`).
    package func node<T: Encodable>(for value: T, path: @autoclosure () -> [any CodingKey]) throws -> EncodedNode {
        if let scalar = TapeScalar(T.self) { return try scalarNode(scalar, value, path: path()) }
        if T.self == URL.self { return .string(_identityCast(value, to: URL.self).absoluteString) }
        if T.self == Date.self { return try date(_identityCast(value, to: Date.self), path: path()) }
        if T.self == Data.self { return try data(_identityCast(value, to: Data.self), path: path()) }
        let kind = kind(of: T.self)
        let path = path()
        try checkDepth(value, path)
        if let shortcut = kind.shortcut {
            return try Self.open(shortcut, value, tree: self, path: path)
        }
        let tree = kind.fixedKeys ? defaultKeysTree : self
        let encoder = TreeEncoder(tree: tree, path: path)
        try value.encode(to: encoder)
        guard let node = encoder.slot.node else {
            // As Foundation's encoder: a nested value that encodes nothing is an empty object;
            // at the top level there would be no document at all.
            if !path.isEmpty { return .object(EncodedObject()) }
            throw invalid(value, path, "\(T.self) encoded no value")
        }
        if let tag = kind.tag { return .tagged(tag, node) }
        return node
    }

    /// Calls a shortcut with the metatype opened; `value` is of that type (found by identity).
    private static func open<U: TreeEncodable, T>(
        _ type: U.Type,
        _ value: T,
        tree: EncodingTree,
        path: [any CodingKey]
    ) throws -> EncodedNode {
        try _identityCast(value, to: U.self).node(in: tree, path: path)
    }

    /// A scalar's node; `value` is of the scalar's type.
    @inline(__always)
    func scalarNode<T>(_ scalar: TapeScalar, _ value: T, path: @autoclosure () -> [any CodingKey]) throws -> EncodedNode
    {
        switch scalar {
        case .string: return .string(_identityCast(value, to: String.self))
        case .bool: return .bool(_identityCast(value, to: Bool.self))
        case .int: return .number(String(_identityCast(value, to: Int.self)))
        case .double: return try number(_identityCast(value, to: Double.self), path: path())
        case .float:
            let float = _identityCast(value, to: Float.self)
            // Float's own shortest text: 0.1 as a Float is not Double's 0.1.
            return try number(
                Double(float),
                path: path(),
                text: float.isFinite ? JSONNumberText.shortestText(float) : nil
            )
        case .int64: return .number(String(_identityCast(value, to: Int64.self)))
        case .int32: return .number(String(_identityCast(value, to: Int32.self)))
        case .int16: return .number(String(_identityCast(value, to: Int16.self)))
        case .int8: return .number(String(_identityCast(value, to: Int8.self)))
        case .uint: return .number(String(_identityCast(value, to: UInt.self)))
        case .uint64: return .number(String(_identityCast(value, to: UInt64.self)))
        case .uint32: return .number(String(_identityCast(value, to: UInt32.self)))
        case .uint16: return .number(String(_identityCast(value, to: UInt16.self)))
        case .uint8: return .number(String(_identityCast(value, to: UInt8.self)))
        case .decimal:
            let decimal = _identityCast(value, to: Decimal.self)
            guard !decimal.isNaN else { throw invalid(decimal, path(), "NaN has no JSON form") }
            return .number(decimal.description)
        }
    }

    private func number(_ value: Double, path: [any CodingKey], text: String? = nil) throws -> EncodedNode {
        guard value.isFinite else {
            guard case .convertToString(let positive, let negative, let nan) = settings.floatStrategy else {
                throw invalid(value, path, "\(value) is not a JSON number; set nonConformingFloatEncodingStrategy")
            }
            return .string(value.isNaN ? nan : value > 0 ? positive : negative)
        }
        guard let text else { return .double(value) }
        return .number(text)
    }

    private func date(_ date: Date, path: [any CodingKey]) throws -> EncodedNode {
        try self.date(date, path: path, strategy: settings.dateStrategy)
    }

    private func date(
        _ date: Date,
        path: [any CodingKey],
        strategy: StreamingJSONEncoder.DateEncodingStrategy
    ) throws -> EncodedNode {
        switch strategy {
        case .deferredToDate: return try number(date.timeIntervalSinceReferenceDate, path: path)
        case .secondsSince1970, .format(.secondsSince1970): return try number(date.timeIntervalSince1970, path: path)
        case .millisecondsSince1970, .format(.millisecondsSince1970):
            return try number(date.timeIntervalSince1970 * 1000, path: path)
        case .iso8601, .format(.iso8601):
            return .string(JSONDateText.iso8601String(try civilYears(date, path), fractionalDigits: 0))
        case .iso8601WithFractionalSeconds, .format(.iso8601WithFractionalSeconds):
            return .string(JSONDateText.iso8601String(try civilYears(date, path), fractionalDigits: 3))
        case .format(.rfc1123):
            return .string(JSONDateText.httpDateString(try civilYears(date, path), style: .rfc1123))
        case .format(.rfc850):
            return .string(JSONDateText.httpDateString(try civilYears(date, path), style: .rfc850))
        case .format(.asctime):
            return .string(JSONDateText.httpDateString(try civilYears(date, path), style: .asctime))
        case .format(.pattern(let pattern)): return .string(formatter(for: pattern).string(from: date))
        case .formatted(let formatter): return .string(formatter.string(from: date))
        case .custom(let write):
            let encoder = TreeEncoder(tree: self, path: path)
            try write(date, encoder)
            return encoder.slot.node ?? .object(EncodedObject())
        case .perKey(let strategies, let fallback):
            let chosen = path.last.flatMap { strategies[$0.stringValue] } ?? fallback
            return try self.date(date, path: path, strategy: chosen)
        }
    }

    /// `date` when it falls in the years 0001-9999 that the text formats are written for.
    private func civilYears(_ date: Date, _ path: [any CodingKey]) throws -> Date {
        guard date.timeIntervalSince1970 >= -62_135_596_800, date.timeIntervalSince1970 < 253_402_300_800 else {
            throw invalid(date, path, "\(date) is outside the years 0001-9999 that dates are written in as text")
        }
        return date
    }

    /// Formatters made for `.format(.pattern(_:))`, by pattern: one per pattern per encode, as
    /// the decoder does, since making one costs far more than formatting a date.
    private var formatters: [String: DateFormatter] = [:]

    private func formatter(for pattern: String) -> DateFormatter {
        if let formatter = formatters[pattern] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = pattern
        formatters[pattern] = formatter
        return formatter
    }

    private func data(_ data: Data, path: [any CodingKey]) throws -> EncodedNode {
        switch settings.dataStrategy {
        case .deferredToData:
            let array = EncodedArray()
            array.elements = data.map { .number(String($0)) }
            return .array(array)
        case .base64: return .string(data.base64EncodedString())
        case .custom(let write):
            let encoder = TreeEncoder(tree: self, path: path)
            try write(data, encoder)
            return encoder.slot.node ?? .object(EncodedObject())
        }
    }

    func invalid(_ value: Any, _ path: [any CodingKey], _ reason: String) -> EncodingError {
        .invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: reason + "."))
    }

    /// The member name for `key` at `path` under the key strategy.
    func memberName(for key: any CodingKey, path: [any CodingKey]) -> String {
        switch settings.keyStrategy {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return converted(key.stringValue, "_")
        case .convertToKebabCase: return converted(key.stringValue, "-")
        case .custom(let transform): return transform(path + [key]).stringValue
        case .memberName(let transform): return transform(key.stringValue)
        }
    }

    /// Converted key names, by key: a model's keys repeat for every instance, and converting one
    /// builds a String character by character. (One tree serves one encode, on one thread.)
    private var convertedNames: [String: String] = [:]

    private func converted(_ name: String, _ separator: Character) -> String {
        if let known = convertedNames[name] { return known }
        let result = KeyWords.separated(name, separator)
        // Bounded: dynamic keys (dictionaries with Int keys, free-form objects) would otherwise
        // grow it for as long as a stream lasts.
        if convertedNames.count >= 4096 { convertedNames.removeAll(keepingCapacity: true) }
        convertedNames[name] = result
        return result
    }
}

// MARK: Codable's side

/// Where an encoder puts the one value it encodes.
package final class NodeSlot {
    var node: EncodedNode?
}

struct TreeEncoder: Encoder {
    let tree: EncodingTree
    let codingPath: [any CodingKey]
    let slot = NodeSlot()

    init(tree: EncodingTree, path: [any CodingKey]) {
        self.tree = tree
        self.codingPath = path
    }

    var userInfo: [CodingUserInfoKey: Any] { tree.settings.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        if case .object(let existing) = slot.node {
            object = existing
        } else {
            object = EncodedObject()
            slot.node = .object(object)
        }
        return KeyedEncodingContainer(TreeKeyedContainer<Key>(tree: tree, object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = slot.node {
            array = existing
        } else {
            array = EncodedArray()
            slot.node = .array(array)
        }
        return TreeUnkeyedContainer(tree: tree, array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TreeSingleValueContainer(encoder: self)
    }
}

struct TreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let tree: EncodingTree
    let object: EncodedObject
    let codingPath: [any CodingKey]

    private func name(_ key: Key) -> String { tree.memberName(for: key, path: codingPath) }

    mutating func encodeNil(forKey key: Key) throws { object.append(name(key), .null) }

    // 128-bit integers: the protocols' own defaults refuse them, so they are written here.
    mutating func encode(_ value: Int128, forKey key: Key) throws { object.append(name(key), .number(String(value))) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { object.append(name(key), .number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.append(name(key), try tree.node(for: value, path: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        // Asked for twice (or after an object was encoded there), the container is the one
        // already there, so both fill one object, as with Foundation's encoder; anything else
        // under the name is replaced, where Foundation's stops the process.
        let memberName = name(key)
        let nested: EncodedObject
        if let existing = object.member(memberName)?.containedObject {
            nested = existing
        } else {
            nested = EncodedObject()
            object.append(memberName, .object(nested))
        }
        return KeyedEncodingContainer(
            TreeKeyedContainer<NestedKey>(tree: tree, object: nested, codingPath: codingPath + [key])
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        // As `nestedContainer(keyedBy:forKey:)`: an array already under the name is added to.
        let memberName = name(key)
        let nested: EncodedArray
        if let existing = object.member(memberName)?.containedArray {
            nested = existing
        } else {
            nested = EncodedArray()
            object.append(memberName, .array(nested))
        }
        return TreeUnkeyedContainer(tree: tree, array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forKey: AnyCodingKey("super"), name: "super")
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(forKey: key, name: name(key))
    }

    private func superEncoder(forKey key: any CodingKey, name: String) -> any Encoder {
        // Whatever the super encoder records lands here when written.
        let encoder = TreeEncoder(tree: tree, path: codingPath + [key])
        object.append(name, .slot(encoder.slot))
        return encoder
    }
}

struct TreeUnkeyedContainer: UnkeyedEncodingContainer {
    let tree: EncodingTree
    let array: EncodedArray
    let codingPath: [any CodingKey]
    var count: Int { array.elements.count }

    mutating func encodeNil() throws { array.elements.append(.null) }

    mutating func encode(_ value: Int128) throws { array.elements.append(.number(String(value))) }
    mutating func encode(_ value: UInt128) throws { array.elements.append(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.elements.append(try tree.node(for: value, path: codingPath + [ElementKey(count)]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        let path = codingPath + [ElementKey(count)]
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(TreeKeyedContainer<NestedKey>(tree: tree, object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let path = codingPath + [ElementKey(count)]
        array.elements.append(.array(nested))
        return TreeUnkeyedContainer(tree: tree, array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = TreeEncoder(tree: tree, path: codingPath + [ElementKey(count)])
        array.elements.append(.slot(encoder.slot))
        return encoder
    }
}

struct TreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.slot.node = .null }

    mutating func encode(_ value: Int128) throws { encoder.slot.node = .number(String(value)) }
    mutating func encode(_ value: UInt128) throws { encoder.slot.node = .number(String(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.slot.node = try encoder.tree.node(for: value, path: codingPath)
    }
}

/// A type whose recorded values carry a tag, so that an encoder built on the tree (the JSON:API
/// encoder) can tell them apart from other objects: relationships among a resource's fields.
package protocol JSONEncodingTagged {
    static var encodingTag: String { get }
}

/// A type whose member names belong to a wire format (JSON:API's relationship objects, resource
/// identifiers, links): they are written as the type encodes them, whatever the key strategy,
/// which only renames the caller's own properties.
package protocol JSONEncodingFixedKeys {}

/// What the tree needs to know about a type: its shortcut, if it records itself, and its tag.
struct EncodingKind {
    var shortcut: (any TreeEncodable.Type)?
    var tag: String?
    var fixedKeys: Bool

    /// Worked out once per type per process (see ``TypeFacts``); trees keep their own short
    /// list in front of it.
    static let shared = TypeFacts<EncodingKind>()

    static func of<T>(_ type: T.Type) -> EncodingKind {
        if let known = shared.fact(about: type) { return known }
        let found = EncodingKind(
            shortcut: type as? any TreeEncodable.Type,
            tag: (type as? any JSONEncodingTagged.Type)?.encodingTag,
            fixedKeys: type is any JSONEncodingFixedKeys.Type
        )
        shared.record(found, about: type)
        return found
    }
}

/// Arrays and `String`-keyed dictionaries, recorded without Codable's containers; dictionary keys
/// are written as they are (no key strategy), as Foundation's encoder writes them.
protocol TreeEncodable {
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode
}

extension Array: TreeEncodable where Element: Encodable {
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode {
        let array = EncodedArray()
        array.elements.reserveCapacity(count)
        // Each element's path is only built if something asks for it (an error, a custom encoder).
        // Indices rather than `enumerated()`: this runs unspecialized, where the enumerated
        // sequence's iterator and its tuple look their metadata up for every element.
        var index = 0
        if let scalar = TapeScalar(Element.self) {
            while index < count {
                array.elements.append(
                    try tree.scalarNode(scalar, self[index], path: path + [ElementKey(index)])
                )
                index += 1
            }
        } else {
            while index < count {
                array.elements.append(try tree.node(for: self[index], path: path + [ElementKey(index)]))
                index += 1
            }
        }
        return .array(array)
    }
}

extension Dictionary: TreeEncodable where Key == String, Value: Encodable {
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode {
        let object = EncodedObject()
        object.keys.reserveCapacity(count)
        object.values.reserveCapacity(count)
        for (key, value) in self {
            object.keys.append(key)
            object.values.append(try tree.node(for: value, path: path + [AnyCodingKey(key)]))
        }
        return .object(object)
    }
}

extension JSONValue: TreeEncodable {
    /// Written as it is: numbers with their text (no trip through Int or Double, so no digit is
    /// lost), member names unconverted by key strategies. Checked as the tree's own values are:
    /// number text against JSON's grammar, nesting against the writer's depth.
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode {
        do {
            return try node(in: tree, depth: path.count)
        } catch {
            // The fault's path, collected innermost first on the way out.
            throw tree.invalid(error.value, path + error.keys.reversed(), error.reason)
        }
    }

    /// A value the tree refuses, and the keys from it up to where the recursion started: no
    /// path is built for the values that are fine.
    private struct Fault: Error {
        let value: JSONValue
        let reason: String
        var keys: [any CodingKey] = []
    }

    private func node(in tree: EncodingTree, depth: Int) throws(Fault) -> EncodedNode {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let text):
            var checked = text
            guard checked.withUTF8({ JSONNumberText.isNumber(UnsafeRawBufferPointer($0)) }) else {
                throw Fault(value: self, reason: "\(String(reflecting: text)) is not a JSON number")
            }
            return .number(text)
        case .string(let text): return .string(text)
        case .array(let elements):
            try checkDepth(depth, in: tree)
            let array = EncodedArray()
            array.elements.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    array.elements.append(try element.node(in: tree, depth: depth + 1))
                } catch var fault {
                    fault.keys.append(ElementKey(index))
                    throw fault
                }
            }
            return .array(array)
        case .object(let object):
            try checkDepth(depth, in: tree)
            let encoded = EncodedObject()
            for (key, value) in zip(object.keys, object.values) {
                do {
                    encoded.append(key, try value.node(in: tree, depth: depth + 1))
                } catch var fault {
                    fault.keys.append(AnyCodingKey(key))
                    throw fault
                }
            }
            return .object(encoded)
        }
    }

    private func checkDepth(_ depth: Int, in tree: EncodingTree) throws(Fault) {
        guard depth + tree.baseDepth >= JSONWriter.maxDepth else { return }
        throw Fault(
            value: self,
            reason: "JSONValue would nest deeper than the \(JSONWriter.maxDepth) levels JSON is written with"
        )
    }
}
