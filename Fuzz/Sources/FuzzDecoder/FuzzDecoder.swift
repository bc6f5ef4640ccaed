// StreamingJSONDecoder into a few models that cover its value paths: scalars of every width,
// optionals, nested containers, dictionaries, enums, dates and data under their strategies, and
// JSONValue. Any outcome but a crash, a leak or a hang is fine; a value decoded must survive a
// round trip through the encoder and decode to the same value.

import Foundation
import FuzzSupport
import SluiceJSON

struct Scalars: Codable, Equatable {
    var int: Int?
    var int8: Int8?
    var uint16: UInt16?
    var int64: Int64?
    var uint: UInt?
    var double: Double?
    var float: Float?
    var bool: Bool?
    var string: String?
    var decimal: Decimal?
}

enum Kind: String, Codable, Equatable {
    case article, person, comment
}

struct Nested: Codable, Equatable {
    var name: String
    var kind: Kind?
    var tags: [String]?
    var scores: [Int: Double]?
    var children: [Nested]?
    var attributes: [String: JSONValue]?
    var scalars: Scalars?
}

struct Stamped: Codable, Equatable {
    var at: Date?
    var blob: Data?
    var url: URL?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var random = InputRandom(bytes)
    let decoder = StreamingJSONDecoder()
    decoder.limits = fuzzLimits(&random)
    decoder.parallelism = .workers(1)
    let snakeCase = random.next() % 3 == 0
    if snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
    switch random.next() % 3 {
    case 0: decoder.dataDecodingStrategy = .base64
    case 1: decoder.dateDecodingStrategy = .iso8601
    default: decoder.dateDecodingStrategy = .secondsSince1970
    }
    roundTrip(Scalars.self, bytes, decoder, snakeCase)
    roundTrip(Nested.self, bytes, decoder, snakeCase)
    roundTrip([Nested].self, bytes, decoder, snakeCase)
    _ = try? decoder.decode(Stamped.self, from: bytes)
    _ = try? decoder.decode([String: [Int]].self, from: bytes)
    return 0
}

private func roundTrip<T: Codable & Equatable>(
    _ type: T.Type,
    _ bytes: UnsafeRawBufferPointer,
    _ decoder: StreamingJSONDecoder,
    _ snakeCase: Bool
) {
    guard let value = try? decoder.decode(type, from: bytes) else { return }
    let encoder = StreamingJSONEncoder()
    if snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
    guard let encoded = try? encoder.encode(value) else { return }
    let plain = StreamingJSONDecoder()
    if snakeCase { plain.keyDecodingStrategy = .convertFromSnakeCase }
    do {
        let again = try plain.decode(type, from: encoded)
        // NaN never equals itself; compare the texts then.
        if again != value, (try? encoder.encode(again)) != encoded {
            fuzzFailure("\(type) changed in a round trip: \(value) became \(again)")
        }
    } catch {
        fuzzFailure("\(type) encoded as \(String(decoding: encoded, as: UTF8.self)) does not decode: \(error)")
    }
}
