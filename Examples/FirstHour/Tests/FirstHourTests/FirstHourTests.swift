import Foundation
import SluiceJSONAPI
import Testing

@testable import FirstHour

/// SluiceJSONAPI's "Getting started" article, compiled and run as a user's app would: every block
/// between the markers is copied verbatim from it (`ReadmeTests` checks that it still is).
@Suite("A first hour with Sluice")
struct FirstHourTests {
    static let sample = #"""
        {"data":[{"type":"articles","id":"1",
          "attributes":{"title":"Streams","published-at":"2024-02-29T12:30:00Z"},
          "relationships":{"author":{"data":{"type":"people","id":"9"}},
                           "comments":{"data":[{"type":"comments","id":"5"}]},
                           "subject":{"data":{"type":"people","id":"9"}}}}],
         "included":[{"type":"people","id":"9","attributes":{"display-name":"Ada"}},
                     {"type":"comments","id":"5","attributes":{"body":"Nice"}}],
         "meta":{"total-pages":3}}
        """#

    @Test(
        "decode a kebab-case, date-carrying document, encode it back the same way, read a polymorphic relationship, a typed meta, and hand the document to a detached task"
    )
    func firstHour() async throws {
        let data = Data(Self.sample.utf8)
        // README: decode and round trip
        let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase  // "published-at" -> publishedAt
        decoder.dateDecodingStrategy = .iso8601  // the default reads seconds since 2001
        let document = try decoder.decode([Linked<Article>].self, from: data)
        let article = document.data[0]
        print(article.title, article.publishedAt, article.author?.displayName ?? "anonymous")
        print(article.comments.map(\.body))  // ToMany<Comment> -> [Linked<Comment>]

        let encoder = JSONAPIEncoder()
        encoder.keyEncodingStrategy = .convertToKebabCase  // the decoder's conventions, written back
        encoder.dateEncodingStrategy = .iso8601
        let people = document.included.compactMap { $0.as(Person.self) }
        let body = try encoder.encode(article.model, included: people)
        let again = try decoder.decode(Linked<Article>.self, from: body)  // the same article
        // README: end
        #expect(article.publishedAt == Date(timeIntervalSince1970: 1_709_209_800))
        #expect(article.author?.displayName == "Ada")
        #expect(article.comments.map(\.body) == ["Nice"])
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""published-at":"2024-02-29T12:30:00Z""#))
        #expect(text.contains(#""display-name":"Ada""#))
        #expect(again.data.model.publishedAt == article.publishedAt)
        #expect(again.data.author?.displayName == "Ada")

        // README: polymorphic relationship
        if let person = article.subject?.as(Person.self) {
            print("about", person.displayName)  // a Linked<Person>
        } else if let other = article.subject {
            print("about a resource of type", other.model.type, "id", other.model.id ?? "-")
        }
        // README: end
        #expect(article.subject?.as(Person.self)?.displayName == "Ada")
        #expect(article.subject?.as(Comment.self) == nil)

        // README: typed meta
        struct PageMeta: Decodable { var totalPages: Int }
        let metaDecoder = StreamingJSONDecoder()
        metaDecoder.keyDecodingStrategy = .convertFromKebabCase
        let pages = try document.meta(as: PageMeta.self, using: metaDecoder)?.totalPages  // 3
        let total = document.meta?["total-pages"]?.intValue  // 3, untyped
        // README: end
        #expect(pages == 3)
        #expect(total == 3)

        // README: detached task
        let configured = decoder  // JSONAPIDecoder is Sendable: one locked object shared by every copy
        let loaded = try await Task.detached {
            try configured.decode([Linked<Article>].self, from: data)
        }.value  // Document, Linked and models are Sendable
        print(loaded.data.count)
        // README: end
        #expect(loaded.data.first?.author?.displayName == "Ada")
    }

    @Test("stream a file: each resource with its section and pointer")
    func streaming() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("first-hour-\(UUID()).json").path
        try Data(Self.sample.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        decoder.dateDecodingStrategy = .iso8601
        var pointers: [String] = []
        for try await streamed in decoder.resources(fromFileAt: path) { pointers.append(streamed.pointer) }
        #expect(pointers == ["/data/0", "/included/0", "/included/1"])
        // README: streaming
        for try await streamed in decoder.resources(fromFileAt: path) {
            // streamed.section: .primary or .included; streamed.pointer: "/data/0", "/included/1"
            // streamed.resource: an AnyResource with type, id, and the model when its type is registered
            if let comment = streamed.resource.as(Comment.self) {
                print(streamed.pointer, comment.body)
            }
        }
        // README: end
    }

    @Test("every kind of error reads well through localizedDescription")
    func errors() throws {
        let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])
        var messages: [String] = []
        // README: errors
        do {
            _ = try decoder.decode([Linked<Article>].self, from: Data(#"{"data":[{"type":"articles","id":"2"}]}"#.utf8))
        } catch {
            print(error.localizedDescription)
            // line 1, column 10: /data/0 (Article.title): The resource has no attribute or relationship "title".
            //     {"type":"articles","id":"2"}
            //     ^
        }
        // README: end
        do {
            _ = try decoder.decode([Linked<Article>].self, from: Data(#"{"data":[{"type":"articles","id":"2"}]}"#.utf8))
        } catch {
            messages.append(error.localizedDescription)
        }
        do {
            _ = try decoder.decode([Linked<Article>].self, from: Data(#"{"data": [}"#.utf8))
        } catch {
            messages.append(error.localizedDescription)
        }
        do {
            _ = try decoder.decode(
                [Linked<Article>].self,
                from: Data(#"{"errors":[{"status":"404","title":"Not Found"}]}"#.utf8)
            )
        } catch {
            messages.append(error.localizedDescription)
        }
        #expect(
            messages == [
                """
                line 1, column 10: /data/0 (Article.title): The resource has no attribute or relationship "title".
                    {"type":"articles","id":"2"}
                    ^
                """,
                """
                line 1, column 11 (byte 10): Unexpected '}' where a value was expected.
                    {"data": [}
                              ^
                """,
                "The document reports 1 error: 404 Not Found",
            ]
        )
    }
}
