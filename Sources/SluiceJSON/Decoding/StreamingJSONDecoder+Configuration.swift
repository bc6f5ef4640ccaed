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

extension StreamingJSONEncoder {
    /// Encodes a value of a type whose encoding takes a configuration (`EncodableWithConfiguration`),
    /// as Foundation's encoder does: `value.encode(to:configuration:)`, written as ``encode(_:)``
    /// writes.
    public func encode<T: EncodableWithConfiguration>(_ value: T, configuration: T.EncodingConfiguration) throws -> Data
    {
        try encode(Configured(value: value, configuration: configuration))
    }

    /// ``encode(_:configuration:)-(_,T.EncodingConfiguration)`` with the configuration a provider
    /// type gives.
    public func encode<T: EncodableWithConfiguration, C: EncodingConfigurationProviding>(
        _ value: T,
        configuration: C.Type
    ) throws -> Data where T.EncodingConfiguration == C.EncodingConfiguration {
        try encode(value, configuration: C.encodingConfiguration)
    }
}

/// A value and the configuration its encoding takes, as one `Encodable` for the encoder's paths.
private struct Configured<T: EncodableWithConfiguration>: Encodable {
    let value: T
    let configuration: T.EncodingConfiguration

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder, configuration: configuration)
    }
}
