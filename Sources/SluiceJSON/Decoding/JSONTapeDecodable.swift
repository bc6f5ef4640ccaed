// Types that read themselves straight from a tape value.

import Foundation

/// A type that reads itself straight from a tape value, skipping Codable's containers when a
/// Sluice decoder decodes it. Its `init(from: Decoder)` still serves other decoders.
public protocol JSONTapeDecodable: Decodable {
    /// Reads the value. Throw `DecodingError`s with coding paths relative to `value`; the decoder
    /// prefixes its own path.
    init(from value: JSONTape.Value, context: TapeDecodingContext) throws
}

extension JSONValue: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        self = try value.jsonValue()
    }
}
