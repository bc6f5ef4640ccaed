import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// The fast decode path (generated readers, linking by index) under key strategies: errors name
/// members as written, `allKeys` follows the strategy, spec objects keep their own keys, and
/// identifiers and error excerpts stay what the general path gives.
@Suite("Key strategies on the fast path")
struct KeyStrategyFastPathTests {
    struct Gauge: Resource {
        static let resourceType = "gauges"
        struct Metadata: Decodable { var wordCount: Int }
        var id: String
        var metadata: Metadata
    }

    @Test("an error below the first level names the member as written under the key strategy")
    func nestedPointerUnderStrategy() throws {
        let json = #"{"data": [{"type": "gauges", "id": "1", "attributes": {"metadata": {"word-count": "many"}}}]}"#
        let decoder = JSONAPIDecoder(registry: [Gauge.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        let error = try #require(throws: JSONAPIDecodingError.self) {
            try decoder.decode([Linked<Gauge>].self, from: Data(json.utf8))
        }
        #expect(error.pointer == "/data/0/attributes/metadata/word-count")
        #expect(error.position?.column == 83)
    }

    struct Tag: Resource {
        static let resourceType = "tags"
        var id: String
        var title: String
    }

    @Test("a custom key strategy applies to model properties, not to links, jsonapi or error objects")
    func customStrategyLeavesSpecObjectsAlone() throws {
        let decoder = JSONAPIDecoder(registry: [Tag.self])
        decoder.keyDecodingStrategy = .memberName { "x_" + $0 }
        let json = #"""
            {"links": {"self": {"href": "https://example.com/tags/1"}}, "jsonapi": {"version": "1.1"},
             "data": {"type": "tags", "id": "1", "attributes": {"x_title": "T"},
                      "links": {"self": {"href": "https://example.com/t/1"}}}}
            """#
        let document = try decoder.decode(Linked<Tag>.self, from: Data(json.utf8))
        #expect(document.data.title == "T")
        #expect(document.links?.selfLink?.href == "https://example.com/tags/1")
        #expect(document.jsonapi?.version == "1.1")
        let errors = #"{"errors": [{"status": "404", "title": "Not found"}]}"#
        let thrown = try #require(throws: JSONAPIErrorDocument.self) {
            try decoder.decode(Linked<Tag>.self, from: Data(errors.utf8))
        }
        #expect(thrown.errors.first?.status == "404")
    }

    struct KeyLister: Resource {
        static let resourceType = "listers"
        var names: [String]
        init(from decoder: any Decoder) throws {
            names = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue).sorted()
        }
    }

    @Test("a resource's allKeys gives property names under the strategy, and its meta")
    func resourceAllKeys() throws {
        let json = #"""
            {"data": {"type": "listers", "id": "1", "attributes": {"first-name": "A"},
                      "relationships": {"best-friend": {"data": null}}, "meta": {"m": 1}}}
            """#
        let decoder = JSONAPIDecoder(registry: [KeyLister.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        let lister = try decoder.decode(Linked<KeyLister>.self, from: Data(json.utf8)).data
        #expect(lister.names == ["bestFriend", "firstName", "id", "meta", "type"])
    }

    @Test("snake_case allKeys names members as Foundation converts them, and the lookup finds them")
    func snakeCaseAllKeysRoundTrip() throws {
        let tape = try JSONParser.parse(Array(#"{"user_2fa": 1, "first_name": 2}"#.utf8))
        var options = TapeDecodingOptions()
        options.keyStrategy = .convertFromSnakeCase
        struct KeyNames: Decodable {
            var names: [String]
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyCodingKey.self)
                names = container.allKeys.map(\.stringValue)
                // Each listed name finds its member again.
                for key in container.allKeys { _ = try container.decode(Int.self, forKey: key) }
            }
        }
        let decoded = try tape.value(at: tape.startIndex).decode(KeyNames.self, options: options)
        #expect(decoded.names == ["user2Fa", "firstName"])
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        #expect(
            try foundation.decode(KeyNames.self, from: Data(#"{"user_2fa": 1, "first_name": 2}"#.utf8)).names.sorted()
                == decoded.names.sorted()
        )
        // A [String: T] keeps its keys as written, as Foundation's JSONDecoder does.
        let dictionary = try tape.value(at: tape.startIndex).decode([String: Int].self, options: options)
        #expect(dictionary == ["user_2fa": 1, "first_name": 2])
    }

    struct Single: Decodable { var a: Int }

    @Test("a custom strategy finds the same member in small and large objects", arguments: [2, 40])
    func customStrategyWhateverTheSize(members: Int) throws {
        var object = #"{"a": 1, "x_a": 2"#
        for index in 0..<members { object += #", "filler\#(index)": 0"# }
        object += "}"
        let tape = try JSONParser.parse(Array(object.utf8))
        var options = TapeDecodingOptions()
        options.keyStrategy = .memberName { "x_" + $0 }
        #expect(try tape.value(at: tape.startIndex).decode(Single.self, options: options).a == 2)
    }

    @Test("an identifier made from a model-backed resource keeps its id")
    func identifierFromModel() throws {
        let resource = AnyResource(
            type: "tags",
            identity: ResourceIdentity(type: "tags", id: "7"),
            model: Tag(id: "7", title: "T"),
            raw: nil
        )
        let identifier = try ResourceIdentifier.make(item: .resource(resource), store: ResourceStore()).get()
        #expect(identifier.type == "tags")
        #expect(identifier.id == "7")
        #expect(identifier.lid == nil)
    }

    @Test("a number error's excerpt is a few dozen characters, however long the number")
    func shortExcerpt() throws {
        let digits = String(repeating: "9", count: 500)
        let tape = try JSONParser.parse(Array(digits.utf8))
        let error = try #require(throws: JSONError.self) { try tape.value(at: tape.startIndex).integer(as: Int8.self) }
        #expect(error.excerpt == String(repeating: "9", count: 40) + "…")
        #expect(error.message == "The number \(error.excerpt) does not fit in Int8.")
    }
}
