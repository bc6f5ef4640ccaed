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
