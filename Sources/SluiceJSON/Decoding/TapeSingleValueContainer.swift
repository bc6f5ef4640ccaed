// The tape decoder's single-value container, and the 128-bit integers it reads from the text.

import Foundation

struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TapeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type)
    }

    // 128-bit integers: the protocol's defaults refuse them; `Int128(from:)` lands here.
    func decode(_ type: Int128.Type) throws -> Int128 { try decoder.wideInteger(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.wideInteger(type) }
}

extension TapeDecoder {
    /// A 128-bit integer read from the number's text, with the decoder's error for a bad one.
    func wideInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        do {
            return try value.integer(as: T.self)
        } catch {
            throw convert(error, type: T.self)
        }
    }
}
