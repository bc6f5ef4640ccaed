import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// Errors read well wherever a user meets them: `localizedDescription`, `print(error)`, the
/// position said once, the Swift side named, and a hint when a key strategy is missing.
@Suite("Error messages")
struct ErrorMessageTests {
    struct Post: Resource, Codable {
        static let resourceType = "posts"
        var id: String
        var publishedAt: Date
        var tags: [String] = []
    }

    struct Plain: Codable {
        var a: Int
        var b: [Int]
    }

    static func jsonAPIError(
        _ json: String,
        _ configure: (JSONAPIDecoder) -> Void = { _ in }
    ) throws
        -> JSONAPIDecodingError
    {
        let decoder = JSONAPIDecoder()
        configure(decoder)
        return try #require(throws: JSONAPIDecodingError.self) {
            try decoder.decode(Linked<Post>.self, from: Data(json.utf8))
        }
    }

    @Test("an ISO 8601 date without a date strategy names the strategy to set, the Swift property and the value")
    func dateWithoutStrategy() throws {
        let error = try Self.jsonAPIError(
            #"{"data":{"type":"posts","id":"1","attributes":{"publishedAt":"2024-02-29T12:30:00Z"}}}"#
        )
        #expect(error.pointer == "/data/attributes/publishedAt")
        #expect(error.property == "Post.publishedAt: Date")
        #expect(
            error.message
                == "Expected a number of seconds since 2001 (dateDecodingStrategy is .deferredToDate; set .iso8601 or another strategy to read dates written as text) but found a string."
        )
        #expect(
            error.description == """
                line 1, column 62: /data/attributes/publishedAt (Post.publishedAt: Date): \(error.message)
                    "publishedAt": "2024-02-29T12:30:00Z"
                                   ^
                """
        )
        // The position is said once, first.
        #expect(error.description.components(separatedBy: "line 1, column 62").count == 2)
        #expect(error.localizedDescription == error.description)
    }

    @Test(
        "a member spelled another way is pointed out with the strategy that reads it",
        arguments: [
            ("published-at", ".convertFromKebabCase"),
            ("published_at", ".convertFromSnakeCase"),
            ("PublishedAt", ".loose"),
        ]
    )
    func spellingHint(written: String, strategy: String) throws {
        let error = try Self.jsonAPIError(
            #"{"data":{"type":"posts","id":"1","attributes":{"\#(written)":"2024-02-29T12:30:00Z"}}}"#
        ) { $0.dateDecodingStrategy = .iso8601 }
        #expect(error.pointer == "/data")
        #expect(error.property == "Post.publishedAt")
        #expect(
            error.message
                == #"The resource has no attribute or relationship "publishedAt". "\#(written)" is present: set keyDecodingStrategy = \#(strategy)."#
        )
    }

    @Test("an element of an array attribute is named with its index on both sides")
    func arrayElement() throws {
        let error = try Self.jsonAPIError(
            #"{"data":{"type":"posts","id":"1","attributes":{"publishedAt":0,"tags":["a",2]}}}"#
        )
        #expect(error.pointer == "/data/attributes/tags/1")
        #expect(error.property == "Post.tags[1]: String")
        #expect(error.description.hasSuffix("\n    2\n    ^"))
    }

    @Test("localizedDescription carries the message for every error kind")
    func localizedDescriptions() throws {
        let syntax = try #require(throws: JSONError.self) { try JSONParser.parse(Data(#"{"a": tru}"#.utf8)) }
        #expect(syntax.localizedDescription == syntax.description)
        #expect(syntax.localizedDescription.contains("line 1, column"))

        let document = try #require(throws: JSONAPIErrorDocument.self) {
            try JSONAPIDecoder().decode(
                Linked<Post>.self,
                from: Data(#"{"errors":[{"status":"422","title":"Invalid Attribute","detail":"title is empty"}]}"#.utf8)
            )
        }
        #expect(document.localizedDescription == "The document reports 1 error: 422 Invalid Attribute (title is empty)")

        let missing = try #require(throws: FileChunkReader.Failure.self) {
            try FileChunkReader(path: "/nonexistent/sluice-test.json")
        }
        #expect(missing.localizedDescription == "/nonexistent/sluice-test.json: cannot read: No such file or directory")

        let decoding = try Self.jsonAPIError(#"{"data":{"type":"posts","id":7}}"#)
        #expect(decoding.localizedDescription == decoding.description)
        #expect(!decoding.localizedDescription.contains("could not be completed"))
    }

    @Test(
        "the plain decoder's messages have no doubled periods",
        arguments: [
            #"{"a":"x","b":[]}"#, #"{"b":[]}"#, #"{"a":1,"b":[1,"2"]}"#, #"{"a":1,"b":[1,2"#, #"{"a":1.5,"b":[]}"#,
            "[]",
        ]
    )
    func noDoubledPeriods(json: String) throws {
        let error = try #require(throws: DecodingError.self) {
            try StreamingJSONDecoder().decode(Plain.self, from: Data(json.utf8))
        }
        let text = "\(error)"
        #expect(!text.contains(".."), "\(text)")
    }

    @Test("a typed meta decodes, and says where it does not fit")
    func typedMeta() throws {
        struct PageMeta: Decodable { var totalPages: Int }
        let json = #"{"data":[],"meta":{"totalPages":12,"copyright":"x"}}"#
        let document = try JSONAPIDecoder().decode([Linked<Post>].self, from: Data(json.utf8))
        #expect(try document.meta(as: PageMeta.self)?.totalPages == 12)
        #expect(document.meta?["totalPages"]?.intValue == 12)
        #expect(document.meta?["copyright"]?.stringValue == "x")
        #expect(document.meta?["totalPages"]?.doubleValue == 12)
        #expect(document.meta?.objectValue?.count == 2)
        let bare = try JSONAPIDecoder().decode([Linked<Post>].self, from: Data(#"{"data":[]}"#.utf8))
        #expect(try bare.meta(as: PageMeta.self) == nil)
        let wrong = try JSONAPIDecoder().decode(
            [Linked<Post>].self,
            from: Data(#"{"data":[],"meta":{"totalPages":"many"}}"#.utf8)
        )
        #expect(throws: DecodingError.self) { try wrong.meta(as: PageMeta.self) }
    }
}
