public import Foundation

extension StreamingJSONDecoder {
    /// Updates `value` from a partial payload: members the payload has replace the current
    /// values, members it lacks (or that ``ignoredKeys`` and ``memberCheck`` set aside) keep them.
    ///
    /// ```swift
    /// var user = User(name: "Ada", email: "ada@example.com", age: 36)
    /// try decoder.update(&user, from: Data(#"{"age": 37}"#.utf8))
    /// // user.name and user.email are unchanged; user.age is 37.
    /// ```
    ///
    /// Nested objects merge the same way, member by member; arrays in the payload replace the
    /// current arrays whole. The current value is encoded first (with ``StreamingJSONEncoder`` on
    /// default settings) and read back for the members the payload lacks, so the type's
    /// `encode(to:)` must write the keys its `init(from:)` reads, as synthesized conformances do.
    /// For a class, `value` is replaced by a new instance.
    ///
    /// - Throws: `EncodingError` if the current value cannot be encoded, else as
    ///   ``decode(_:from:)-(_,Data)``.
    public func update<T: Codable>(_ value: inout T, from data: Data) throws {
        let (options, limits, syntax) = wholeDocumentSnapshot()
        // Non-finite numbers have no JSON form; these markers carry them through the round trip.
        let encoder = StreamingJSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity",
            negativeInfinity: "-Infinity",
            nan: "NaN"
        )
        // The same userInfo both ways: a model whose coding reads it writes what it reads back.
        encoder.userInfo = options.userInfo
        let current = try JSONParser.parse(encoder.encode(value))
        var fallbackOptions = TapeDecodingOptions()
        fallbackOptions.nonConformingFloatStrategy = .convertFromString(
            positiveInfinity: "+Infinity",
            negativeInfinity: "-Infinity",
            nan: "NaN"
        )
        fallbackOptions.userInfo = options.userInfo
        let fallbackContext = TapeDecodingContext(options: fallbackOptions)

        let tape = try data.withUnsafeBytes { try Self.parseAsFoundation($0, limits: limits, syntax: syntax) }
        let context = TapeDecodingContext(options: options)
        context.fallback = (try current.value(at: current.startIndex), fallbackContext)
        let root = try tape.value(at: tape.startIndex)
        value = try Self.publicErrors { try TapeDecoder(value: root, context: context).decodeValue(T.self) }
    }
}
