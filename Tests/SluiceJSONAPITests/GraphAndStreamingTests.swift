import Foundation
import SluiceJSON
import SluiceJSONAPI
import Synchronization
import Testing

/// Counts live instances of the reference models below.
let liveAuthors = Atomic<Int>(0)
let liveBooks = Atomic<Int>(0)

final class Author: Resource {
    static let resourceType = "authors"
    let id: String
    let name: String
    let books: ToMany<Book>

    enum CodingKeys: String, CodingKey { case id, name, books }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        books = try container.decode(ToMany<Book>.self, forKey: .books)
        liveAuthors.add(1, ordering: .relaxed)
    }

    deinit { liveAuthors.subtract(1, ordering: .relaxed) }
}

final class Book: Resource {
    static let resourceType = "books"
    let id: String
    let title: String
    let author: ToOne<Author>

    enum CodingKeys: String, CodingKey { case id, title, author }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        author = try container.decode(ToOne<Author>.self, forKey: .author)
        liveBooks.add(1, ordering: .relaxed)
    }

    deinit { liveBooks.subtract(1, ordering: .relaxed) }
}

@Suite("Graph and streaming", .serialized)
struct GraphAndStreamingTests {
    static let cycle = #"""
        {"data": [{"type": "books", "id": "b1", "attributes": {"title": "One"}, "relationships": {"author": {"data": {"type": "authors", "id": "a1"}}}},
                  {"type": "books", "id": "b2", "attributes": {"title": "Two"}, "relationships": {"author": {"data": {"type": "authors", "id": "a1"}}}}],
         "included": [{"type": "authors", "id": "a1", "attributes": {"name": "Ann"},
                       "relationships": {"books": {"data": [{"type": "books", "id": "b1"}, {"type": "books", "id": "b2"}]}}}]}
        """#

    @Test("cycles navigate without recursion and release every model (deinit counts)")
    func cyclesDoNotLeak() throws {
        do {
            let document = try JSONAPIDecoder(registry: [Author.self]).decode(
                [Linked<Book>].self,
                from: Data(Self.cycle.utf8)
            )
            #expect(liveBooks.load(ordering: .relaxed) == 2)
            #expect(liveAuthors.load(ordering: .relaxed) == 1)
            // book → author → books → author → ... as deep as one likes.
            var book = try #require(document.data.first)
            for _ in 0..<1000 {
                let author = try #require(book.author)
                book = try #require(author.books.last)
            }
            #expect(book.title == "Two")
            #expect(book.author?.model === document.data[0].author?.model, "one instance per identity")
        }
        #expect(liveBooks.load(ordering: .relaxed) == 0)
        #expect(liveAuthors.load(ordering: .relaxed) == 0)
    }

    /// A document's observable content, for comparing decodes.
    static func summary(of document: Document<[Linked<Article>]>) -> [String] {
        document.data.map { article in
            "\(article.id) \(article.title) by \(article.author?.firstName ?? "?") with \(article.comments.map(\.body))"
        } + document.included.map { "\($0.type)/\($0.identity?.key ?? "")" }
    }

    @Test("documents decode the same whatever the chunk size", arguments: [1, 2, 7, 64, 1000])
    func chunkIndependence(chunkSize: Int) throws {
        let data = try Fixtures.data("compound.json")
        let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])
        let whole = try decoder.decode([Linked<Article>].self, from: data)
        decoder.chunkSize = chunkSize
        let chunked = try decoder.decode([Linked<Article>].self, from: data)
        #expect(Self.summary(of: chunked) == Self.summary(of: whole))
    }

    @Test("a file streams resource by resource: primary first, then included, in document order")
    func streamFile() throws {
        let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self])
        var seen: [String] = []
        let summary = try decoder.forEachResource(
            in: FileChunkReader(path: Fixtures.path("compound.json"), chunkSize: 16)
        ) {
            seen.append("\($0.pointer) \($0.resource.type) \($0.resource.model == nil ? "raw" : "model")")
        }
        #expect(
            seen == [
                "/data/0 articles model", "/included/0 people model", "/included/1 comments model",
                "/included/2 comments model",
            ]
        )
        #expect(summary.primaryCount == 1)
        #expect(summary.includedCount == 3)
    }

    @Test("an async sequence of chunks streams resources as they close", arguments: [1, 5, 4096])
    func streamAsync(chunkSize: Int) async throws {
        let bytes = Array(try Fixtures.data("compound-included-first.json"))
        let decoder = JSONAPIDecoder(registry: [Article.self, Person.self])
        var seen: [String] = []
        for try await streamed in decoder.resources(from: ChunkSequence(bytes: bytes, size: chunkSize)) {
            seen.append(streamed.pointer + " " + streamed.resource.type)
        }
        #expect(seen == ["/included/0 people", "/included/1 comments", "/included/2 comments", "/data/0 articles"])
    }

    @Test("an error document ends an async stream with the typed error")
    func streamErrorDocument() async throws {
        let bytes = Array(#"{"errors": [{"status": "500", "title": "Boom"}]}"#.utf8)
        await #expect(throws: JSONAPIErrorDocument.self) {
            for try await _ in JSONAPIDecoder().resources(from: ChunkSequence(bytes: bytes, size: 3)) {}
        }
    }
}

/// `AnyResource.as` compares the model's type first and casts only where a class hierarchy needs it.
@Suite("AnyResource.as")
struct AnyResourceCastTests {
    class Base: Resource, @unchecked Sendable {
        class var resourceType: String { "bases" }
        let id: String
        init(id: String) { self.id = id }
    }

    final class Derived: Base, @unchecked Sendable {
        override class var resourceType: String { "deriveds" }
    }

    @Test("exact types, subclasses as their superclass, and nothing else")
    func casts() throws {
        let person = AnyResource(
            type: "people",
            identity: nil,
            model: Person(id: "1", firstName: "A", lastName: "B"),
            raw: nil
        )
        #expect(person.as(Person.self)?.firstName == "A")
        #expect(person.as(Comment.self) == nil)
        #expect(person.as(Base.self) == nil)
        #expect(person.as(AnyResource.self)?.type == "people")
        let derived = AnyResource(type: "deriveds", identity: nil, model: Derived(id: "7"), raw: nil)
        #expect(derived.as(Derived.self)?.id == "7")
        #expect(derived.as(Base.self)?.id == "7")
        #expect(derived.as(Person.self) == nil)
        let base = AnyResource(type: "bases", identity: nil, model: Base(id: "8"), raw: nil)
        #expect(base.as(Derived.self) == nil)
        #expect(base.as(Base.self)?.id == "8")
        #expect(AnyResource(type: "x", identity: nil, model: nil, raw: nil).as(Person.self) == nil)
    }

    struct Shelf: Resource {
        static let resourceType = "shelves"
        var id: String
        var top: ToOne<Base>
        var all: ToMany<Base>
        var stray: ToOne<Base>
        var any: ToOne<AnyResource>
    }

    @Test("relationships resolve to their exact type, a subclass as its superclass, and nothing else")
    func linkedCasts() throws {
        let json = #"""
            {"data": {"type": "shelves", "id": "1", "relationships": {
                "top": {"data": {"type": "deriveds", "id": "7"}},
                "all": {"data": [{"type": "deriveds", "id": "7"}, {"type": "people", "id": "3"},
                                 {"type": "bases", "id": "8"}, {"type": "bases", "id": "9"}]},
                "stray": {"data": {"type": "people", "id": "3"}},
                "any": {"data": {"type": "people", "id": "3"}}}},
             "included": [{"type": "deriveds", "id": "7"}, {"type": "bases", "id": "8"},
                          {"type": "people", "id": "3", "attributes": {"firstName": "A", "lastName": "B"}}]}
            """#
        let decoder = JSONAPIDecoder(registry: [Shelf.self, Base.self, Derived.self, Person.self])
        let shelf = try decoder.decode(Linked<Shelf>.self, from: Data(json.utf8)).data
        #expect(shelf.top?.id == "7")
        #expect(shelf.top?.model is Derived)
        // The person is left out as another type; bases 9 is not in the document.
        #expect(shelf.all.map(\.id) == ["7", "8"])
        #expect(shelf.stray == nil)
        #expect(shelf.any?.type == "people")
        #expect(shelf.any?.as(Person.self)?.firstName == "A")
    }
}
