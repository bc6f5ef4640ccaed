public import Foundation

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
