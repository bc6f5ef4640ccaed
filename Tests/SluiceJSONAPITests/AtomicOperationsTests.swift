import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

@Suite("Atomic operations")
struct AtomicOperationsTests {
    struct NewArticle: Resource, Codable {
        static let resourceType = "articles"
        var lid: String
        var title: String
        var author: ToOne<Person>
    }

    static let author = AtomicOperation.Reference(type: "articles", lid: "a1", relationship: "author")

    @Test("an operations document round-trips, announces the extension and keeps null apart from absent")
    func roundTrip() throws {
        let document = AtomicDocument(operations: [
            try .add(NewArticle(lid: "a1", title: "Draft", author: ToOne(id: "9"))),
            .updateRelationship(Self.author, linkage: .null),
            .addToRelationship(
                AtomicOperation.Reference(type: "articles", id: "1", relationship: "tags"),
                [ResourceIdentifier(type: "tags", id: "2")]
            ),
            .remove(AtomicOperation.Reference(type: "comments", id: "5")),
        ])
        let data = try document.encoded()
        let text = String(decoding: data, as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"atomic:operations":[{"op":"add","data":{"type":"articles","lid":"a1","attributes":{"title":"Draft"}"#
            )
        )
        #expect(
            text.contains(#"{"op":"update","ref":{"type":"articles","lid":"a1","relationship":"author"},"data":null}"#)
        )
        #expect(text.contains(#""jsonapi":{"version":"1.1","ext":["https:\/\/jsonapi.org\/ext\/atomic"]}"#))
        let decoded = try AtomicDocument(from: data)
        #expect(decoded.operations == document.operations)
        #expect(decoded.operations[1].data == .null)
        #expect(decoded.operations[3].data == nil)
    }

    @Test("the specification's removal example reads")
    func specificationExample() throws {
        let json = #"""
            {"atomic:operations": [{"op": "remove", "ref": {"type": "articles", "id": "13"}}]}
            """#
        let document = try AtomicDocument(from: Data(json.utf8))
        #expect(document.operations == [.remove(AtomicOperation.Reference(type: "articles", id: "13"))])
    }

    @Test("relationship operations that target through href are accepted")
    func hrefRelationships() throws {
        let json = #"""
            {"atomic:operations": [
              {"op": "remove", "href": "/articles/1/relationships/comments", "data": [{"type": "comments", "id": "12"}]},
              {"op": "update", "href": "/articles/13/relationships/author", "data": null},
              {"op": "add", "href": "/articles/1/relationships/tags", "data": [{"type": "tags", "id": "2"}]}
            ]}
            """#
        #expect(try AtomicDocument(from: Data(json.utf8)).operations.count == 3)
    }

    @Test("a results document round-trips")
    func results() throws {
        let document = AtomicDocument(results: [
            AtomicResult(data: .object(JSONObject([("type", .string("articles")), ("id", .string("1"))]))),
            AtomicResult(),
        ])
        let decoded = try AtomicDocument(from: try document.encoded())
        #expect(decoded.results == document.results)
        #expect(decoded.operations.isEmpty)
    }

    @Test(
        "documents that break the extension's rules are refused with a pointer",
        arguments: [
            (
                #"{"atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1"}, "href": "/a/1"}]}"#,
                "/atomic:operations/0: An operation may target through ref or href, not both."
            ),
            (
                #"{"atomic:operations": [{"op": "remove"}]}"#,
                "/atomic:operations/0: A remove operation must target a resource or relationship through ref or href."
            ),
            (
                #"{"atomic:operations": [{"op": "add", "data": {"id": "1"}}]}"#,
                "/atomic:operations/0/data: An add operation's data must be a resource object with a type."
            ),
            (
                #"{"atomic:operations": [{"op": "update"}]}"#,
                "/atomic:operations/0: An update operation must have data."
            ),
            (
                #"{"atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1", "lid": "x"}}]}"#,
                "/atomic:operations/0/ref: A ref must have exactly one of id and lid, besides type."
            ),
            (
                #"{"atomic:operations": [{"op": "add", "ref": {"type": "a", "id": "1", "relationship": "tags"}, "data": {"type": "t", "id": "2"}}]}"#,
                "/atomic:operations/0/data: Adding to a relationship takes an array of resource identifiers."
            ),
            (
                #"{"atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1"}}], "atomic:results": [{}]}"#,
                "(root): A document may hold atomic:operations or atomic:results, not both."
            ),
            (#"{"atomic:operations": [], "meta": {}}"#, "(root): A document needs at least one operation or result."),
            (
                #"{"atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1"}}], "data": {"type": "a"}}"#,
                "/data: An atomic document must not have data or included."
            ),
            (
                #"{"atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1"}}], "data": null}"#,
                "/data: An atomic document must not have data or included."
            ),
        ]
    )
    func violations(json: String, message: String) {
        do {
            _ = try AtomicDocument(from: Data(json.utf8))
            Issue.record("no error")
        } catch let violation as AtomicDocument.RuleViolation {
            #expect(violation.description == message)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("an unknown op code is a decoding error at its path")
    func unknownOp() {
        #expect(throws: DecodingError.self) {
            try AtomicDocument(from: Data(#"{"atomic:operations": [{"op": "upsert"}]}"#.utf8))
        }
    }
}
