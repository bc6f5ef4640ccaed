import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// What JSONAPIEncoder writes, read back by the `sluice` command.
@Suite("Encoded documents through the command")
struct EncodedDocumentTests {
    typealias Tool = ValidateCommandTests

    struct Author: Resource, Codable {
        static let resourceType = "authors"
        var id: String
        var name: String
        var rating: Double
    }

    struct Post: Resource, Codable {
        static let resourceType = "posts"
        var id: String
        var title: String
        var tags: [String]
        var author: ToOne<Author>
        var editor: ToOne<Author>
    }

    @Test("sluice flatten of an encoded collection gives back the models, and validate accepts it")
    func flattenEncoded() async throws {
        let authors = (0..<20).map { Author(id: "\($0)", name: "Author \($0) \u{e9}", rating: Double($0) / 4) }
        let posts = (0..<300).map { index in
            Post(
                id: "p\(index)",
                title: "Post \"\(index)\"",
                tags: index % 3 == 0 ? [] : ["t\(index % 5)"],
                author: ToOne(id: "\(index % 20)"),
                editor: index % 2 == 0 ? .null : ToOne(id: "\(index % 7)")
            )
        }
        let stream = AsyncStream<Post> { continuation in
            for post in posts { continuation.yield(post) }
            continuation.finish()
        }
        var document = Data()
        try await JSONAPIEncoder().encodeCollection(stream, included: authors, chunkSize: 4096) {
            document.append(contentsOf: $0)
        }
        let file = try Tool.temporaryFile(String(decoding: document, as: UTF8.self))

        let validate = try await Tool.run(["validate", file])
        #expect(validate.status == 0, "\(validate.standardError)")

        let run = try await Tool.run(["flatten", file])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == posts.count + authors.count)
        struct Line: Decodable {
            var type: String
            var id: String
            var attributes: JSONValue
            var relationships: JSONValue
        }
        let decoder = StreamingJSONDecoder()
        for (post, line) in zip(posts, lines) {
            let flat = try decoder.decode(Line.self, from: Data(line.utf8))
            #expect(flat.type == "posts" && flat.id == post.id)
            #expect(flat.attributes["title"]?.stringValue == post.title)
            #expect(flat.attributes["tags"] == .array(post.tags.map { .string($0) }))
            #expect(flat.relationships["author"]?["id"]?.stringValue == post.author.identifier?.id)
            if let editor = post.editor.identifier?.id {
                #expect(flat.relationships["editor"]?["id"]?.stringValue == editor)
            } else {
                #expect(flat.relationships["editor"] == .null)
            }
        }
        for (author, line) in zip(authors, lines.dropFirst(posts.count)) {
            let flat = try decoder.decode(Line.self, from: Data(line.utf8))
            #expect(flat.type == "authors" && flat.id == author.id)
            #expect(flat.attributes["name"]?.stringValue == author.name)
            #expect(flat.attributes["rating"]?.numberText.flatMap(Double.init) == author.rating)
        }
    }
}
