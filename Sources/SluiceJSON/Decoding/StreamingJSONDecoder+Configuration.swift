public import Foundation

extension StreamingJSONDecoder {
    /// Decodes a value of a type whose decoding takes a configuration (`DecodableWithConfiguration`,
    /// such as `AttributedString`), as Foundation's decoder does: read as
    /// ``decode(_:from:)-(_,UnsafeRawBufferPointer)`` reads, then `T.init(from:configuration:)`.
    public func decode<T: DecodableWithConfiguration>(
        _ type: T.Type,
        from data: Data,
        configuration: T.DecodingConfiguration
    ) throws -> T {
        let (options, limits, syntax) = wholeDocumentSnapshot()
        let tape = try data.withUnsafeBytes { try Self.parseAsFoundation($0, limits: limits, syntax: syntax) }
        let root = try tape.value(at: tape.startIndex)
        return try Self.publicErrors {
            try type.init(from: TapeDecoder(value: root, options: options), configuration: configuration)
        }
    }

    /// ``decode(_:from:configuration:)-(_,_,T.DecodingConfiguration)`` with the configuration a
    /// provider type gives.
    public func decode<T: DecodableWithConfiguration, C: DecodingConfigurationProviding>(
        _ type: T.Type,
        from data: Data,
        configuration: C.Type
    ) throws -> T where T.DecodingConfiguration == C.DecodingConfiguration {
        try decode(type, from: data, configuration: C.decodingConfiguration)
    }
}
