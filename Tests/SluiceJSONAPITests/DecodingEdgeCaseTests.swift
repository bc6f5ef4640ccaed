import Foundation
import SluiceJSONAPI
import Testing

@testable import SluiceJSON

/// Edges of the decoders and the validator: members cut by chunk ends, huge exponents, super
/// decoders, large dictionaries, lossy arrays, links beside an attribute named `links`, a fault in
/// an async stream.
@Suite("Decoding edge cases")
struct DecodingEdgeCaseTests {
    @Test("the validator reads members cut by chunk ends, whatever the chunk size", arguments: [1, 3, 7, 64])
    func validatorAcrossChunks(chunkSize: Int) throws {
        let json = #"""
            {"meta": {"a": {"b": [1, 2]}}, "jsonapi": {"version": 1}, "links": {"next": 3},
             "data": [{"type": "people", "id": 1}], "errors": [{"status": "500"}], "x.y": {"deep": true}}
            """#
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(UUID().uuidString).json")
            .path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try JSONAPIValidator().validate(Data(json.utf8))
        let chunked = try JSONAPIValidator().validate(FileChunkReader(path: path, chunkSize: chunkSize))
        #expect(chunked == whole)
        #expect(whole.map(\.pointer) == ["/jsonapi/version", "/links/next", "/data/0/id", "/x.y", "/data"])
        #expect(whole.last?.position == JSONPosition(byteOffset: 89, line: 2, column: 10), "data's own position")
    }

    @Test("a huge exponent with a long fraction never yields a wrong integer")
    func longFractionHugeExponent() throws {
        let text = "0." + String(repeating: "0", count: 999_990) + "5e2000000"
        let tape = try JSONParser.parse(Array(text.utf8))
        let value = try tape.value(at: tape.startIndex)
        let error = try #require(throws: JSONError.self) { try value.integer(as: Int.self) }
        #expect(error.kind == .numberOutOfRange)
        let tiny = "5" + String(repeating: "0", count: 1_000_009) + "e-2000000"
        let tinyTape = try JSONParser.parse(Array(tiny.utf8))
        #expect(throws: JSONError.self) { try tinyTape.value(at: tinyTape.startIndex).integer(as: Int.self) }
    }

    class Base: Decodable {
        let name: String
        private enum CodingKeys: String, CodingKey { case name }
        required init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        }
    }

    final class Derived: Base {
        let level: Int
        private enum CodingKeys: String, CodingKey { case level }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            level = try container.decode(Int.self, forKey: .level)
            try super.init(from: container.superDecoder())
        }
    }

    @Test("superDecoder works with any coding keys")
    func superDecoder() throws {
        let tape = try JSONParser.parse(Array(#"{"level": 3, "super": {"name": "root"}}"#.utf8))
        let derived = try tape.value(at: tape.startIndex).decode(Derived.self)
        #expect(derived.level == 3 && derived.name == "root")
    }

    @Test("a dictionary of many members decodes, and allKeys follows the key strategy")
    func dictionaries() throws {
        let members = (0..<2000).map { "\"key_\($0)\": \($0)" }.joined(separator: ", ")
        let tape = try JSONParser.parse(Array("{\(members)}".utf8))
        let dictionary = try tape.value(at: tape.startIndex).decode([String: Int].self)
        #expect(dictionary.count == 2000)
        #expect(dictionary["key_1999"] == 1999)

        struct Flexible: Decodable {
            var keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
            }
        }
        var options = TapeDecodingOptions()
        options.keyStrategy = .convertFromSnakeCase
        let object = try JSONParser.parse(Array(#"{"first_name": 1, "plain": 2}"#.utf8))
        #expect(try object.value(at: 0).decode(Flexible.self, options: options).keys == ["firstName", "plain"])
    }

    @Test("a failed element decode does not skip the element (lossy arrays)")
    func lossyArrays() throws {
        struct Lossy: Decodable {
            var numbers: [Int] = []
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                while !container.isAtEnd {
                    if let number = try? container.decode(Int.self) {
                        numbers.append(number)
                    } else {
                        _ = try container.decode(JSONValue.self)
                    }
                }
            }
        }
        let tape = try JSONParser.parse(Array(#"[1, "x", 2, null, 3]"#.utf8))
        #expect(try tape.value(at: 0).decode(Lossy.self).numbers == [1, 2, 3])
    }

    @Test("a resource's own links do not hide an attribute named links")
    func linksAttribute() throws {
        struct Page: Resource {
            static let resourceType = "pages"
            var id: String
            var links: [String]
        }
        let json =
            #"{"data": {"type": "pages", "id": "1", "attributes": {"links": ["a", "b"]}, "links": {"self": "x"}}}"#
        let page = try JSONAPIDecoder().decode(Linked<Page>.self, from: Data(json.utf8)).data
        #expect(page.links == ["a", "b"])
    }

    @Test("an async stream hands over the resources before a fault, then the fault")
    func streamThenFault() async throws {
        let bytes = Array(#"{"data": [{"type": "a", "id": "1"}, {"type": "a", "id": "2"}, {"id": "3"}]}"#.utf8)
        var seen: [String] = []
        do {
            for try await streamed in JSONAPIDecoder().resources(from: ChunkSequence(bytes: bytes, size: 4096)) {
                seen.append(streamed.resource.identity?.key ?? "?")
            }
            Issue.record("no error thrown")
        } catch let error as JSONAPIDecodingError {
            #expect(error.pointer == "/data/2")
        }
        #expect(seen == ["1", "2"])
    }
}
