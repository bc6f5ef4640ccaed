import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

@Suite("Whole-document decoding")
struct DocumentDecodingTests {
    let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])

    @Test(
        "the specification's compound document decodes and links, included before or after data",
        arguments: ["compound.json", "compound-included-first.json"]
    )
    func compoundDocument(fixture: String) throws {
        let document = try decoder.decode([Linked<Article>].self, from: try Fixtures.data(fixture))
        #expect(document.data.count == 1)
        let article = try #require(document.data.first)
        #expect(article.title == "JSON:API paints my bikeshed!")
        #expect(article.author?.firstName == "Dan")
        #expect(article.author?.twitter == "dgeb")
        #expect(article.comments.map(\.body) == ["First!", "I like XML better"])
        // Comment 12's author is person 9, included; comment 5's is person 2, not included.
        #expect(article.comments[1].author?.lastName == "Gebhardt")
        #expect(article.comments[0].author == nil)
        #expect(article.comments[0].model.author?.identifier == ResourceIdentifier(type: "people", id: "2"))
        // Relationship-level and resource-level links.
        #expect(article.model.author.links?.related?.href == "http://example.com/articles/1/author")
        #expect(article.links?.selfLink?.href == "http://example.com/articles/1")
        #expect(document.included.map(\.type) == ["people", "comments", "comments"])
        #expect(document.store.count == 4)
    }

    @Test("a single resource, null, an empty collection, identifiers")
    func primaryShapes() throws {
        let single = try decoder.decode(
            Linked<Person>.self,
            from: Data(
                #"{"data": {"type": "people", "id": "1", "attributes": {"firstName": "A", "lastName": "B"}}}"#.utf8
            )
        )
        #expect(single.data.firstName == "A")
        let null = try decoder.decode(Linked<Person>?.self, from: Data(#"{"data": null, "meta": {"n": 0}}"#.utf8))
        #expect(null.data == nil)
        #expect(null.meta?["n"]?.numberText == "0")
        let empty = try decoder.decode([Linked<Person>].self, from: Data(#"{"data": []}"#.utf8))
        #expect(empty.data.isEmpty)
        let identifiers = try decoder.decode(
            [ResourceIdentifier].self,
            from: Data(
                #"{"data": [{"type": "tags", "id": "2"}, {"type": "tags", "id": "3", "meta": {"x": true}}]}"#.utf8
            )
        )
        #expect(identifiers.data.map(\.id) == ["2", "3"])
        #expect(identifiers.data[1].meta?["x"] == .bool(true))
        let one = try decoder.decode(ResourceIdentifier?.self, from: Data(#"{"data": null}"#.utf8))
        #expect(one.data == nil)
    }

    @Test("a shape mismatch names what was expected and found")
    func shapeMismatch() throws {
        let error = try #require(throws: JSONAPIDecodingError.self) {
            try decoder.decode(Linked<Person>.self, from: Data(#"{"data": []}"#.utf8))
        }
        #expect(error.pointer == "/data")
        #expect(error.message == "Expected a single resource, found an array.")
        let typeError = try #require(throws: JSONAPIDecodingError.self) {
            try decoder.decode(
                [Linked<Person>].self,
                from: Data(#"{"data": [{"type": "comments", "id": "1", "attributes": {"body": "x"}}]}"#.utf8)
            )
        }
        #expect(typeError.pointer == "/data/0")
        #expect(typeError.message == "Expected a resource of type \"people\", found type \"comments\".")
    }

    @Test("top-level meta, links and jsonapi")
    func topLevelMembers() throws {
        let json = #"""
            {"links": {"self": "http://x/articles?page=2", "next": {"href": "http://x/articles?page=3", "meta": {"count": 10}}, "prev": null},
             "jsonapi": {"version": "1.1", "ext": ["https://jsonapi.org/ext/atomic"], "profile": ["http://x/profile"], "meta": {"a": 1}},
             "meta": {"total": 1234567890123456789012, "ratio": 0.5},
             "data": []}
            """#
        let document = try decoder.decode([Linked<Person>].self, from: Data(json.utf8))
        #expect(document.links?.selfLink == .url("http://x/articles?page=2"))
        #expect(document.links?.next?.href == "http://x/articles?page=3")
        if case .object(let next)? = document.links?.next {
            #expect(next.meta?["count"]?.numberText == "10")
        } else {
            Issue.record("next is not a link object")
        }
        #expect(document.links?.prev == .null)
        #expect(
            document.jsonapi
                == JSONAPIObject(
                    version: "1.1",
                    ext: ["https://jsonapi.org/ext/atomic"],
                    profile: ["http://x/profile"],
                    meta: ["a": 1]
                )
        )
        #expect(document.meta?["total"]?.numberText == "1234567890123456789012", "big numbers keep their digits")
    }
}
