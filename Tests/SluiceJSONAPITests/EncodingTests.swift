import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

@Suite("JSON:API encoding")
struct EncodingTests {
    static let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test("round trip: decode the compound fixtures, encode, decode again: the same models and links")
    func roundTrip() throws {
        for fixture in ["compound.json", "compound-included-first.json"] {
            let document = try Self.decoder.decode([Linked<Article>].self, from: try Fixtures.data(fixture))
            let included = document.included.compactMap { resource -> (any Resource & Encodable)? in
                if let person = resource.as(Person.self) { return person }
                if let comment = resource.as(Comment.self) { return comment }
                return nil
            }
            let encoded = try JSONAPIEncoder().encode(
                document.data.map(\.model),
                included: included,
                meta: document.meta,
                links: document.links
            )
            let again = try Self.decoder.decode([Linked<Article>].self, from: encoded)
            let article = try #require(again.data.first)
            #expect(article.title == document.data[0].title)
            #expect(article.author?.firstName == "Dan")
            #expect(article.comments.map(\.body) == ["First!", "I like XML better"])
            #expect(article.comments[1].author?.lastName == "Gebhardt")
            #expect(article.model.author.links?.related?.href == "http://example.com/articles/1/author")
            #expect(article.links?.selfLink?.href == "http://example.com/articles/1")
            #expect(again.included.map(\.type) == document.included.map(\.type))
            #expect(again.links == document.links)
        }
    }

    @Test("a small document is written exactly: type, id, attributes, relationships, links, meta")
    func exactOutput() throws {
        let article = Article(
            id: "1",
            title: "Rails is Omakase",
            author: ToOne(id: "9"),
            comments: ToMany(ids: ["5", "12"]),
            links: Links([("self", .url("/articles/1"))])
        )
        let encoder = JSONAPIEncoder()
        encoder.valueEncoder.outputFormatting = .withoutEscapingSlashes
        encoder.jsonapi = JSONAPIObject(version: "1.1")
        let text = Self.text(try encoder.encode(article, meta: .object(JSONObject([("count", .number("1"))]))))
        #expect(
            text
                == #"{"data":{"type":"articles","id":"1","attributes":{"title":"Rails is Omakase"},"relationships":{"author":{"data":{"type":"people","id":"9"}},"comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}]}},"links":{"self":"/articles/1"}},"meta":{"count":1},"jsonapi":{"version":"1.1"}}"#
        )
    }

    struct ArticlePatch: Resource, Codable {
        static let resourceType = "articles"
        var id: String?
        var lid: String?
        var title: Field<String> = .absent
        var summary: Field<String> = .absent
        var author: ToOne<Person> = .unchanged
        var editor: ToOne<Person> = .unchanged
    }

    struct Profile: Resource, Codable {
        static let resourceType = "profiles"
        var id: String
        var displayName: String
        var homePage: ToOne<Person>
        var links: Links?
    }

    @Test("key strategies rename the model's properties, never the specification's own members")
    func keyStrategies() throws {
        let profile = Profile(
            id: "3",
            displayName: "Ann",
            homePage: ToOne(
                identifier: ResourceIdentifier(type: "people", id: "9"),
                links: Links([("related", .url("/p/9"))])
            ),
            links: Links([("self", .url("/profiles/3"))])
        )
        let snake = JSONAPIEncoder()
        snake.valueEncoder.keyEncodingStrategy = .convertToSnakeCase
        snake.valueEncoder.outputFormatting = .withoutEscapingSlashes
        #expect(
            Self.text(try snake.encode(profile))
                == #"{"data":{"type":"profiles","id":"3","attributes":{"display_name":"Ann"},"relationships":{"home_page":{"data":{"type":"people","id":"9"},"links":{"related":"/p/9"}}},"links":{"self":"/profiles/3"}}}"#
        )
        // A custom strategy that shouts every name: `id`, `links`, the relationship object's
        // `data`/`links` and the identifier's `type`/`id` keep their names.
        let shouting = JSONAPIEncoder()
        shouting.valueEncoder.keyEncodingStrategy = .custom { path in AnyCodingKey(path.last!.stringValue.uppercased())
        }
        shouting.valueEncoder.outputFormatting = .withoutEscapingSlashes
        #expect(
            Self.text(try shouting.encode(profile))
                == #"{"data":{"type":"profiles","id":"3","attributes":{"DISPLAYNAME":"Ann"},"relationships":{"HOMEPAGE":{"data":{"type":"people","id":"9"},"links":{"related":"/p/9"}}},"links":{"self":"/profiles/3"}}}"#
        )
    }

    @Test("sorted keys reach every object of the document, top-level meta included")
    func sortedKeysEverywhere() throws {
        let encoder = JSONAPIEncoder()
        encoder.valueEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let meta = JSONValue.object(JSONObject([("z", .number("1")), ("a", .number("2"))]))
        let text = Self.text(try encoder.encode(ArticlePatch(id: "1", title: .value("T")), meta: meta))
        #expect(text == #"{"data":{"attributes":{"title":"T"},"id":"1","type":"articles"},"meta":{"a":2,"z":1}}"#)
    }

    @Test("null versus absent for attributes and to-one relationships, and lid for new resources")
    func nullVersusAbsent() throws {
        let patch = ArticlePatch(id: "1", title: .value("New"), summary: .null, author: .null, editor: .unchanged)
        let text = Self.text(try JSONAPIEncoder().encode(patch))
        #expect(
            text
                == #"{"data":{"type":"articles","id":"1","attributes":{"title":"New","summary":null},"relationships":{"author":{"data":null}}}}"#
        )
        let untouched = Self.text(try JSONAPIEncoder().encode(ArticlePatch(id: "1")))
        #expect(untouched == #"{"data":{"type":"articles","id":"1"}}"#)
        let created = Self.text(
            try JSONAPIEncoder().encode(ArticlePatch(lid: "tmp-1", title: .value("Draft"), author: ToOne(lid: "p-1")))
        )
        #expect(
            created
                == #"{"data":{"type":"articles","lid":"tmp-1","attributes":{"title":"Draft"},"relationships":{"author":{"data":{"type":"people","lid":"p-1"}}}}}"#
        )
        // Field decodes back the same way: absent, null, value.
        struct Fields: Codable {
            var title: Field<String>
            var summary: Field<String>
        }
        for decode in [
            { (data: Data) in try JSONDecoder().decode(Fields.self, from: data) },
            { (data: Data) in try StreamingJSONDecoder().decode(Fields.self, from: data) },
        ] {
            let decoded = try decode(Data(#"{"summary": null, "title": "x"}"#.utf8))
            #expect(decoded.title == .value("x") && decoded.summary == .null)
            let sparse = try decode(Data("{}".utf8))
            #expect(sparse.title == .absent && sparse.summary == .absent)
        }
        #expect(
            Self.text(try StreamingJSONEncoder().encode(Fields(title: .absent, summary: .null))) == #"{"summary":null}"#
        )
    }

    @Test("included resources are deduplicated by type and id, and never repeat primary data")
    func includedDeduplicated() throws {
        let dan = Person(id: "9", firstName: "Dan", lastName: "Gebhardt", twitter: nil)
        let comment = Comment(id: "5", body: "First!", author: ToOne(id: "9"))
        let article = Article(id: "1", title: "t", author: ToOne(id: "9"), comments: ToMany(ids: ["5"]), links: nil)
        let data = try JSONAPIEncoder().encode([article], included: [dan, comment, dan, article, comment])
        let document = try Self.decoder.decode([Linked<Article>].self, from: data)
        #expect(document.included.map(\.type) == ["people", "comments"])
        #expect(document.data[0].comments[0].author?.firstName == "Dan")
    }

    @Test("a custom relationship payload is written as given, under relationships")
    func customPayload() throws {
        struct Order: Resource, Codable {
            static let resourceType = "orders"
            var id: String
            var total: Int
            var shipping: CustomRelationship
        }
        let payload: JSONValue = .object(
            JSONObject([
                ("data", .object(JSONObject([("type", .string("carriers")), ("id", .string("ups"))]))),
                ("speed", .string("fast")),
            ])
        )
        let order = Order(id: "7", total: 12, shipping: CustomRelationship(payload))
        #expect(
            Self.text(try JSONAPIEncoder().encode(order))
                == #"{"data":{"type":"orders","id":"7","attributes":{"total":12},"relationships":{"shipping":{"data":{"type":"carriers","id":"ups"},"speed":"fast"}}}}"#
        )
    }

    @Test("sparse fieldsets write only the fields named per type")
    func sparseFieldsets() throws {
        let encoder = JSONAPIEncoder()
        encoder.fields = ["people": ["lastName"]]
        let person = Person(id: "9", firstName: "Dan", lastName: "Gebhardt", twitter: "dgeb")
        #expect(
            Self.text(try encoder.encode(person))
                == #"{"data":{"type":"people","id":"9","attributes":{"lastName":"Gebhardt"}}}"#
        )
    }

    @Test("a collection streamed from an AsyncSequence equals the one-shot document, chunk by chunk")
    func streamedCollection() async throws {
        let people = (0..<500).map {
            Person(id: "\($0)", firstName: "F\($0)", lastName: "L\($0)", twitter: $0 % 2 == 0 ? "t\($0)" : nil)
        }
        let encoder = JSONAPIEncoder()
        let whole = try encoder.encode(people, meta: .object(JSONObject([("total", .number("500"))])))
        let stream = AsyncStream<Person> { continuation in
            for person in people { continuation.yield(person) }
            continuation.finish()
        }
        var joined = Data()
        var chunks = 0
        try await encoder.encodeCollection(
            stream,
            meta: .object(JSONObject([("total", .number("500"))])),
            chunkSize: 1024
        ) { chunk in
            joined.append(contentsOf: chunk)
            chunks += 1
        }
        #expect(joined == whole)
        #expect(chunks > 10)
        let decoded = try Self.decoder.decode([Linked<Person>].self, from: joined)
        #expect(decoded.data.count == 500 && decoded.data[499].lastName == "L499")
    }
}
