// The writers' round trip: a document parsed into JSONValue, written back by StreamingJSONEncoder,
// by JSONWriter event by event and by JSONValue.jsonText, must parse to the same value each time.

import Foundation
import FuzzSupport
import SluiceJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    // The writers nest at most 127 levels (yajl's generator), and say so with an error: read
    // no deeper than they write.
    let reader = StreamingJSONDecoder()
    reader.limits = JSONLimits(maxDepth: 127)
    guard let value = try? reader.decode(JSONValue.self, from: bytes) else { return 0 }

    let encoder = StreamingJSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    check(value, written: Result { try encoder.encode(value) }, by: "StreamingJSONEncoder")
    check(value, written: .success(Data(value.jsonText.utf8)), by: "JSONValue.jsonText")
    check(value, written: Result { try writeEvents(value) }, by: "JSONWriter")
    return 0
}

private func check(_ value: JSONValue, written: Result<Data, any Error>, by writer: String) {
    let text: Data
    switch written {
    case .success(let data): text = data
    case .failure(let error): fuzzFailure("\(writer) cannot write a value the parser read: \(error)")
    }
    do {
        let again = try StreamingJSONDecoder().decode(JSONValue.self, from: text)
        // Keys are sorted by the encoder, so compare as sets of members.
        if !sameValue(again, value) {
            fuzzFailure("\(writer) wrote \(String(decoding: text, as: UTF8.self)), which reads back differently")
        }
    } catch {
        fuzzFailure("\(writer) wrote \(String(decoding: text, as: UTF8.self)), which does not parse: \(error)")
    }
}

/// Equality with objects compared member by member in any order (a sorted writer reorders them);
/// a duplicated key keeps its last value, as StreamingJSONEncoder (like Foundation's) keeps the
/// last value encoded for a key, where the other writers write both members.
private func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.object(let x), .object(let y)):
        let xs = Dictionary(x.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        let ys = Dictionary(y.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        guard xs.count == ys.count else { return false }
        return xs.allSatisfy { key, value in ys[key].map { sameValue(value, $0) } ?? false }
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
    default:
        return a == b
    }
}

/// The value written with JSONWriter's calls, one per token.
private func writeEvents(_ value: JSONValue) throws -> Data {
    var output = Data()
    let writer = JSONWriter { output.append(contentsOf: $0) }
    func write(_ value: JSONValue) throws {
        switch value {
        case .object(let object):
            try writer.beginObject()
            for (key, member) in object {
                try writer.key(key)
                try write(member)
            }
            try writer.endObject()
        case .array(let elements):
            try writer.beginArray()
            for element in elements { try write(element) }
            try writer.endArray()
        case .string(let text): try writer.string(text)
        case .number(let text): try writer.number(text: text)
        case .bool(let flag): try writer.bool(flag)
        case .null: try writer.null()
        }
    }
    try write(value)
    try writer.finish()
    return output
}
