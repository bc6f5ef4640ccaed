import Foundation
import SluiceHTTP
import SluiceJSONAPI
import Testing

@testable import FirstHour

// The HTTP documentation's examples (the README's client block and SluiceHTTP's articles), each
// marked `<!-- compiled in Examples/FirstHour -->` there and written here as they read, so that
// they compile against the client as it is (ReadmeTests checks they are here). They are compiled,
// not run: there is no server at api.example.com.

/// What the examples take as given: a token, and somewhere to save what was read.
private let token = "secret"
private func save<R: Resource>(_ resource: R) async throws {}

/// The README's client block, with the app's models.
private func readmeClient() async throws {
    var client = JSONAPIClient(
        baseURL: URL(string: "https://api.example.com/v1")!,
        registry: [Article.self, Person.self, Comment.self]
    )
    client.headers[.authorization] = "Bearer \(token)"  // sent with every request, never printed
    let one = try await client.fetch(Article.self, id: "1", query: JSONAPIQuery().including("author"))
    for try await article in try client.all(Article.self) { try await save(article) }
    _ = one
}

/// SluiceHTTP's articles, with the models they show.
private enum HTTPArticles {
    struct Article: Resource, Codable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var author: ToOne<Person>
    }

    struct Person: Resource, Codable {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    struct Comment: Resource, Codable {
        static let resourceType = "comments"
        var id: String
        var body: String
    }

    struct ArticlePatch: Resource, Codable {
        static let resourceType = "articles"
        var id: String
        var title: Field<String> = .absent
        var summary: Field<String> = .absent
    }

    /// The overview's example.
    static func overview() async throws {
        let client = JSONAPIClient(baseURL: URL(string: "https://api.example.com/v1")!, registry: [Person.self])
        let response = try await client.fetch(Article.self, id: "1", query: JSONAPIQuery().including("author"))
        print(response.document.data.title)
    }

    /// "Getting started", section by section.
    static func gettingStarted() async throws {
        var client = JSONAPIClient(
            baseURL: URL(string: "https://api.example.com/v1")!,
            registry: [Article.self, Person.self, Comment.self]
        )
        client.headers[.authorization] = "Bearer \(token)"  // sent with every request, never printed
        client.decoder.keyDecodingStrategy = .convertFromKebabCase  // how responses are read
        client.encoder.keyEncodingStrategy = .convertToKebabCase  // how request bodies are written

        let one = try await client.fetch(Article.self, id: "1", query: JSONAPIQuery().including("author"))
        print(one.document.data.title, one.document.data.author?.name ?? "")

        let page = try await client.fetchCollection(
            Article.self,
            query: JSONAPIQuery().including("author").sorted(by: "-created").page(["size": "50"])
        )

        let created = try await client.create(Article(id: UUID().uuidString, title: "Hello", author: ToOne(id: "9")))
        try await client.delete(Article.self, id: "1")

        for try await article in try client.all(Article.self) {
            try await save(article)
        }
        _ = (page, created)
    }

    /// "The client in depth".
    static func inDepth(url: URL) async throws {
        let client = JSONAPIClient(baseURL: url, registry: [Article.self, Person.self, Comment.self])
        // Read: a page of a collection with a query, and relationship linkage.
        let page = try await client.fetchCollection(
            Article.self,
            query: JSONAPIQuery()
                .including("author", "comments.author")
                .fields("articles", ["title", "author"])
                .filter(["author", "name"], ["Dan"])  // filter[author][name]=Dan
                .sorted(by: "-created", "title")
                .page(["size": "50"])
        )
        let linkage = try await client.fetchRelationship(
            [ResourceIdentifier].self,
            type: "articles",
            id: "1",
            relationship: "comments"
        )

        // Write: update (absent versus null) and relationships.
        try await client.update(ArticlePatch(id: "1", title: .value("Renamed"), summary: .null))
        try await client.addToRelationship(
            type: "articles",
            id: "1",
            relationship: "tags",
            [ResourceIdentifier(type: "tags", id: "swift")]
        )

        // Pages: next / previous / first / last / reload, appending, or everything as a stream.
        var all = page
        while try await client.appendNextPage(to: &all) {}  // data and included merged, identity kept
        // Primary and included, raw or modelled:
        for try await streamed in client.resources(at: url) { print(streamed.resource.type) }
        _ = linkage
    }
}

@Suite("HTTP documentation examples")
struct HTTPDocsTests {
    @Test("the examples' queries are the parameters the documentation says")
    func queries() throws {
        let query = JSONAPIQuery().including("author").sorted(by: "-created").page(["size": "50"])
        let items = query.parameters.map { "\($0.name)=\($0.value)" }
        #expect(items.contains("include=author") && items.contains("sort=-created") && items.contains("page[size]=50"))
        let filtered = JSONAPIQuery().filter(["author", "name"], ["Dan"])
        #expect(filtered.parameters.map(\.name).contains("filter[author][name]"), "\(filtered.parameters)")
    }
}
