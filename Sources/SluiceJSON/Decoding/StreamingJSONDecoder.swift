public import Foundation

/// Decodes `Decodable` values from JSON, with the surface of Foundation's `JSONDecoder`.
///
/// Switching is a one-word change: the same `decode(_:from:)`, the same strategy properties under
/// the same names, the same `DecodingError`s with the same coding paths. Underneath, yajl parses
/// the bytes into a tape of tokens and the models read straight from it: keys are compared as
/// UTF-8 bytes, no `String` is made for a key and no dictionary for an object.
///
/// ```swift
/// let decoder = StreamingJSONDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// decoder.dateDecodingStrategy = .iso8601
/// let user = try decoder.decode(User.self, from: data)
/// ```
///
/// Beyond Foundation's decoder it offers loose key matching and key paths
/// (``JSONKeyPathCodingKey``), more date formats, lenient conversions (``conversions``), converters,
/// member checks and ignored keys, updating a value from a partial payload, uniquing of reference
/// models and parent back-references (`Decoder.linkToParent`), streaming the elements of a huge
/// array one by one (``elements(of:at:from:)``), and decoding from Foundation containers.
///
/// Like Foundation's, it reads documents in UTF-8 (with or without a byte order mark), UTF-16 and
/// UTF-32; refuses a number too large for the type asked for or one that is not zero but would
/// round to zero; reads a `Decimal` of more than 38 significant digits rounded to 38; gives a
/// super decoder at `null` for an absent member; decodes a class through its base class's
/// metatype as the class the metatype names; and names array elements `Index 0`, `Index 1` in
/// coding paths.
///
/// Where it reads more than Foundation's: `.iso8601` also reads fractional seconds;
/// `.convertFromSnakeCase` also reads members spelled exactly as the key, and members that
/// snake-case the key (`myURL` ← `my_u_r_l`); integers also read from `1.0` and `1e3`; a UTF-32LE
/// document with its byte order mark (Foundation's takes the mark for UTF-16's); 128-bit integers
/// beyond 64 bits, exactly.
///
/// JSON5 (``allowsJSON5``) and brace-less top levels (``assumesTopLevelDictionary``) are read as
/// Foundation's reads them, by a reader of their own. Where that reader follows the JSON5
/// specification and Foundation's does not: a `\u` escape in an unquoted key stands for its
/// character (Foundation's keeps the six characters); a backslash before a line break continues
/// the line and stands for nothing (Foundation's keeps the line break); `\v`, and a backslash
/// before a character that has no escape of its own (`\a` for `a`), are read where Foundation's
/// refuses them; Unicode's space separators, the no-break space, U+2028, U+2029 and U+FEFF are
/// whitespace (Foundation's takes only ASCII's, form feed and vertical tab, and a lone byte 0xA0).
/// Its numbers are checked as they are read, so a malformed number (`0x2.`, a hexadecimal number
/// past 64 bits) is refused even in a member no model reads, where Foundation's finds it only when
/// a model reads it.
///
/// The readers Foundation's has no counterpart for read UTF-8 JSON only and refuse trailing
/// commas: those that stream (``elements(of:at:from:)``, ``values(of:format:from:)``) always, a
/// decode from an `AsyncSequence` of chunks unless JSON5 or a brace-less top level is allowed (it
/// then gathers the chunks and reads them whole). The decodes from memory and from a file read
/// everything Foundation's does.
///
/// Thread-safe: settings may be changed while other threads decode; each decode uses the settings
/// in force when it starts.
public final class StreamingJSONDecoder: TapeDecodingConfigurable {
    private struct Settings {
        var options = TapeDecodingOptions()
        var limits = JSONLimits.default
        var parallel = ParallelOptions()
        var syntax = JSON5Reader.Syntax()
        var onUndecodable: (@Sendable (JSONSkippedValue) -> Void)?
    }

    private let settings = LockedSettings(Settings())

    /// Foundation's name for ``JSONKeyStrategy``: the same cases as Foundation's
    /// (`useDefaultKeys`, `convertFromSnakeCase`, `custom` over coding paths), and Sluice's own
    /// (`convertFromKebabCase`, `loose`, `memberName`). `JSONAPIDecoder` takes the same type.
    public typealias KeyDecodingStrategy = JSONKeyStrategy
    /// Foundation's name for ``JSONDateDecodingStrategy``.
    public typealias DateDecodingStrategy = JSONDateDecodingStrategy
    /// Foundation's name for ``JSONDataDecodingStrategy``.
    public typealias DataDecodingStrategy = JSONDataDecodingStrategy
    /// Foundation's name for ``JSONNonConformingFloatStrategy``.
    public typealias NonConformingFloatDecodingStrategy = JSONNonConformingFloatStrategy

    /// Creates a decoder with Foundation's defaults.
    public init() {}

    /// The settings in force now, for one decode.
    func snapshot() -> (options: TapeDecodingOptions, limits: JSONLimits, parallel: ParallelOptions) {
        let snapshot = settings.snapshot
        return (snapshot.options, snapshot.limits, snapshot.parallel)
    }

    /// The settings a whole-document decode reads with, at once.
    func wholeDocumentSnapshot() -> (options: TapeDecodingOptions, limits: JSONLimits, syntax: JSON5Reader.Syntax) {
        let snapshot = settings.snapshot
        return (snapshot.options, snapshot.limits, snapshot.syntax)
    }

    /// Whether documents may be written in JSON5: comments, unquoted keys, single quotes,
    /// hexadecimal numbers, `Infinity` and `NaN`, and more (see <https://spec.json5.org>), as
    /// Foundation's `allowsJSON5` reads them. Default: `false`.
    ///
    /// A JSON5 document is read whole by a reader of its own; errors give its line and column.
    /// `Infinity` and `NaN` decode as `Double` and `Float` without a
    /// ``nonConformingFloatDecodingStrategy``; hexadecimal numbers decode as integers of up to 64
    /// bits, and as floating point. The readers that stream (``elements(of:at:from:)``,
    /// ``values(of:format:from:)``) read JSON only, whatever this says.
    public var allowsJSON5: Bool {
        get { settings[\.syntax.json5] }
        set { settings[\.syntax.json5] = newValue }
    }

    /// Whether the top level of a document is an object whose braces may be left out:
    /// `"a": 1, "b": 2` (or `a: 1, b: 2` with ``allowsJSON5``) decodes as `{"a": 1, "b": 2}`, and
    /// an empty document as `{}`. A document that does start with `{` reads as usual. Default:
    /// `false`, as Foundation's.
    public var assumesTopLevelDictionary: Bool {
        get { settings[\.syntax.assumesTopLevelDictionary] }
        set { settings[\.syntax.assumesTopLevelDictionary] = newValue }
    }

    /// For the readers that stream (``elements(of:at:from:)``, ``values(of:format:from:)`` and
    /// their `forEach` forms): called with each element or value that fails to decode, which is
    /// then passed over instead of ending the stream. Default: `nil`, the first such failure
    /// ends the stream, as it ends a whole decode.
    ///
    /// In a JSON Lines input or a JSON text sequence, a record that is not JSON is passed over
    /// too (each record stands alone between separators); in the array of
    /// ``elements(of:at:from:)``, a syntax fault still ends the stream, since nothing after it
    /// can be trusted.
    ///
    /// ```swift
    /// decoder.onUndecodableValue = { skipped in log.warning("\(skipped)") }
    /// for try await event in decoder.values(of: Event.self, fromFileAt: "events.ndjson") { ... }
    /// ```
    public var onUndecodableValue: (@Sendable (JSONSkippedValue) -> Void)? {
        get { settings[\.onUndecodable] }
        set { settings[\.onUndecodable] = newValue }
    }

    /// How many threads stream the elements of one document (``elements(of:at:from:)`` and
    /// ``forEachElement(of:at:inFileAt:_:)``). Default: ``Parallelism/automatic``.
    ///
    /// The elements, their order and every error are the same for any setting; streams whose
    /// elements share a decoding context (``uniquing``, ``identityStore``) and paths that go
    /// through an array index read on one thread.
    public var parallelism: Parallelism {
        get { settings[\.parallel.threads] }
        set { settings[\.parallel.threads] = newValue }
    }

    /// The size batches are cut to on the parallel path; tests make it small to cut many.
    var batchBytes: Int {
        get { settings[\.parallel.batchBytes] }
        set { settings[\.parallel.batchBytes] = newValue }
    }

    /// Reference model types uniqued by an identity member within each decode.
    public var uniquing: JSONUniquing {
        get { settings[\.options.uniquing] }
        set { settings[\.options.uniquing] = newValue }
    }

    /// A store keeping uniqued instances across decodes. Default: `nil`, one map per decode.
    public var identityStore: JSONIdentityStore? {
        get { settings[\.options.identityStore] }
        set { settings[\.options.identityStore] = newValue }
    }

    /// Whether `@JSONModel` types are read by their generated readers. Default: on; see
    /// ``TapeDecodingOptions/usesGeneratedReaders``.
    public var usesGeneratedReaders: Bool {
        get { settings[\.options.usesGeneratedReaders] }
        set { settings[\.options.usesGeneratedReaders] = newValue }
    }

    /// The parser's limits: depth, string and document sizes.
    public var limits: JSONLimits {
        get { settings[\.limits] }
        set { settings[\.limits] = newValue }
    }

    /// All the decoding options at once, as ``TapeDecoder`` takes them.
    public var options: TapeDecodingOptions {
        get { settings[\.options] }
        set { settings[\.options] = newValue }
    }

    /// Changes ``options`` in one step under the decoder's lock.
    public func updateOptions(_ change: (inout TapeDecodingOptions) -> Void) {
        settings.update { change(&$0.options) }
    }

    // MARK: Decoding

    /// Decodes a value of `type` from a JSON document.
    ///
    /// - Throws: `DecodingError.dataCorrupted` with the ``JSONError`` (position and excerpt) as its
    ///   underlying error when the bytes are not valid JSON; otherwise the `DecodingError` the
    ///   model's decoding raised, with its coding path and the position in its description.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes a value of `type` from a JSON document.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes a value of `type` from a JSON document in memory.
    ///
    /// As Foundation's decoder does, it reads UTF-8 (with or without a byte order mark), UTF-16 and
    /// UTF-32 (either byte order, with or without a mark), told from the first four bytes, and
    /// accepts a comma before a closing `]` or `}`. A document in UTF-16 or UTF-32 is transcoded
    /// to UTF-8 first, and positions in its errors count the bytes of that UTF-8.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let (options, limits, syntax) = wholeDocumentSnapshot()
        let tape = try Self.parseAsFoundation(bytes, limits: limits, syntax: syntax)
        return try Self.decode(type, from: tape, options: options)
    }

    /// A whole document in memory parsed as Foundation's decoder reads one: in any of the
    /// encodings ``JSONTextEncoding`` tells, with trailing commas (see ``TrailingCommas``), and in
    /// the JSON5 or brace-less form `syntax` allows.
    static func parseAsFoundation(
        _ bytes: UnsafeRawBufferPointer,
        limits: JSONLimits,
        syntax: JSON5Reader.Syntax
    ) throws -> JSONTape {
        let (encoding, markLength) = JSONTextEncoding.detect(bytes)
        guard encoding != .utf8 else { return try parseUTF8AsFoundation(bytes, limits: limits, syntax: syntax) }
        var utf8: [UInt8] = []
        try parsing {
            utf8 = try encoding.transcoded(UnsafeRawBufferPointer(rebasing: bytes[markLength...]), base: markLength)
        }
        return try utf8.withUnsafeBytes { try parseUTF8AsFoundation($0, limits: limits, syntax: syntax) }
    }

    /// `parseAsFoundation(_:limits:syntax:)` for UTF-8: JSON5 and brace-less documents by
    /// ``JSON5Reader``; JSON strictly first, and again with trailing commas blanked when a closing
    /// bracket after a comma is what stopped the strict parse.
    private static func parseUTF8AsFoundation(
        _ bytes: UnsafeRawBufferPointer,
        limits: JSONLimits,
        syntax: JSON5Reader.Syntax
    ) throws -> JSONTape {
        if syntax.isExtended {
            var tape = JSONTape()
            try parsing { tape = try JSON5Reader.read(bytes, syntax: syntax, limits: limits) }
            return tape
        }
        do {
            return try parseWhole(limits: limits, inputBytes: bytes.count) { try $0.parse(bytes) }
        } catch {
            guard let fault = parseFault(error), TrailingCommas.explains(fault, in: bytes) else { throw error }
            let blanked = TrailingCommas.blanked(bytes)
            return try blanked.withUnsafeBytes { blankedBytes in
                try parseWhole(limits: limits, inputBytes: blankedBytes.count) { try $0.parse(blankedBytes) }
            }
        }
    }

    /// The parser's fault inside the `DecodingError` that `parsing` made of it, if `error` is one.
    private static func parseFault(_ error: any Error) -> JSONError? {
        guard case DecodingError.dataCorrupted(let context)? = error as? DecodingError else { return nil }
        return context.underlyingError as? JSONError
    }

    /// Thrown to leave a file's chunk-by-chunk parse for a whole read (see `decode(_:fromFileAt:)`).
    private struct ReadWhole: Error {}

    /// Decodes a value of `type` from the JSON file at `path` (`-` for standard input), read in
    /// chunks.
    ///
    /// Read as ``decode(_:from:)-(_,UnsafeRawBufferPointer)`` reads: UTF-8, the rule, is parsed
    /// chunk by chunk as it is read; a file whose first bytes show UTF-16 or UTF-32 is gathered
    /// whole and transcoded, and one whose parse stopped at a trailing comma is read again whole
    /// (standard input, which cannot be read again, keeps the strict parse's error).
    ///
    /// - Throws: ``FileChunkReader/Failure`` when the file cannot be read, else as
    ///   ``decode(_:from:)-(_,Data)``.
    public func decode<T: Decodable>(_ type: T.Type, fromFileAt path: String) throws -> T {
        let (options, limits, syntax) = wholeDocumentSnapshot()
        let reader = try FileChunkReader(path: path)
        if syntax.isExtended {
            var whole: [UInt8] = []
            try reader.forEachChunk { whole += $0 }
            let tape = try whole.withUnsafeBytes { try Self.parseAsFoundation($0, limits: limits, syntax: syntax) }
            return try Self.decode(type, from: tape, options: options)
        }
        var gathered: [UInt8]?
        let tape: JSONTape
        do {
            tape = try Self.parseWhole(limits: limits, inputBytes: reader.size) { parser in
                var first = true
                try reader.forEachChunk { chunk in
                    if first {
                        first = false
                        if JSONTextEncoding.detect(chunk).encoding != .utf8 { gathered = [] }
                    }
                    if gathered != nil { gathered! += chunk } else { try parser.parse(chunk) }
                }
                if gathered != nil { throw ReadWhole() }
            }
        } catch {
            if error is ReadWhole, let gathered {
                let whole = try gathered.withUnsafeBytes {
                    try Self.parseAsFoundation($0, limits: limits, syntax: syntax)
                }
                return try Self.decode(type, from: whole, options: options)
            }
            // A fault at a closing bracket may be a trailing comma: the file read whole decides.
            guard path != "-", let fault = Self.parseFault(error), fault.kind == .syntax else { throw error }
            var bytes: [UInt8] = []
            try FileChunkReader(path: path).forEachChunk { bytes += $0 }
            guard bytes.withUnsafeBytes({ TrailingCommas.explains(fault, in: $0) }) else { throw error }
            let whole = try bytes.withUnsafeBytes { try Self.parseAsFoundation($0, limits: limits, syntax: syntax) }
            return try Self.decode(type, from: whole, options: options)
        }
        return try Self.decode(type, from: tape, options: options)
    }

    /// Decodes a value of `type` from chunks of a JSON document as they arrive (an HTTP body, a
    /// file read asynchronously), parsing each chunk as it comes.
    public func decode<T: Decodable, Chunks: AsyncSequence>(
        _ type: T.Type,
        from chunks: Chunks
    ) async throws -> T where Chunks.Element: ContiguousBytes {
        let (options, limits, syntax) = wholeDocumentSnapshot()
        if syntax.isExtended {
            // JSON5 and brace-less documents are read whole.
            var whole: [UInt8] = []
            for try await chunk in chunks { chunk.withUnsafeBytes { whole += $0 } }
            let tape = try whole.withUnsafeBytes { try Self.parseAsFoundation($0, limits: limits, syntax: syntax) }
            return try Self.decode(type, from: tape, options: options)
        }
        let parser = JSONParser(limits: limits)
        for try await chunk in chunks {
            try Self.parsing { try withBytes(chunk) { buffer throws(JSONError) in try parser.parse(buffer) } }
        }
        try Self.parsing { try parser.finish() }
        return try Self.decode(type, from: parser.tape, options: options)
    }

    /// Decodes from a parsed tape, starting a decode context of its own.
    static func decode<T: Decodable>(_ type: T.Type, from tape: JSONTape, options: TapeDecodingOptions) throws -> T {
        let root = try tape.value(at: tape.startIndex)
        return try publicErrors { try TapeDecoder(value: root, options: options).decodeValue(type) }
    }

    /// Runs `body`, handing on its `DecodingError`s as the public API throws them: with no final
    /// period in the debug description, since `DecodingError`'s own description adds one (the
    /// JSON:API layer, which reads the same messages as sentences, keeps it).
    static func publicErrors<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as DecodingError {
            throw error.mappingContext { context in
                guard context.debugDescription.hasSuffix(".") else { return context }
                return DecodingError.Context(
                    codingPath: context.codingPath,
                    debugDescription: String(context.debugDescription.dropLast()),
                    underlyingError: context.underlyingError
                )
            }
        }
    }

    /// A whole document parsed by `feed` (which hands the parser its input) and checked complete,
    /// with parse errors as `parsing` reports them. `inputBytes`, the document's size when known,
    /// sizes the tape up front: the whole document stays on it, and grown from empty it was
    /// copied at every doubling (a tenth of twitter.json's decode went to those copies).
    static func parseWhole(
        limits: JSONLimits,
        inputBytes: Int? = nil,
        _ feed: (JSONParser) throws -> Void
    ) throws -> JSONTape {
        let parser = JSONParser(limits: limits)
        // Up to 64 MiB of input: past that the doublings are a small share of the parse, and a
        // guess from a huge size would ask for address space the document may never use.
        if let inputBytes, inputBytes > 0 { parser.reserveTape(forInputBytes: min(inputBytes, 64 << 20)) }
        try parsing {
            try feed(parser)
            try parser.finish()
        }
        return parser.tape
    }

    /// Runs parser calls, turning a ``JSONError`` into the `DecodingError` Foundation throws for
    /// invalid JSON, with the same error as its underlying error.
    static func parsing(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as JSONError {
            throw invalidJSON(error)
        }
    }

    /// A parser's fault as the `DecodingError` Foundation throws for invalid JSON.
    static func invalidJSON(_ error: JSONError) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [],
                debugDescription:
                    "The given data was not valid JSON at \(error.position): \(error.message.dropLast(error.message.hasSuffix(".") ? 1 : 0))",
                underlyingError: error
            )
        )
    }
}
