import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTestServer
import Testing

@testable import SluiceHTTP

struct Person: Resource, Codable, Hashable {
    static let resourceType = "people"
    var id: String
    var name: String
}

struct Article: Resource, Codable {
    static let resourceType = "articles"
    var id: String?
    var lid: String?
    var title: String
    var words: Int?
    var author: ToOne<Person>
}

struct ArticlePatch: Resource, Codable {
    static let resourceType = "articles"
    var id: String
    var title: Field<String> = .absent
    var words: Field<Int> = .absent
    var author: ToOne<Person> = .unchanged
}

/// Runs `body` against a fresh server, with a client for it.
func withServer<T>(
    total: Int = 25,
    chunkSize: Int = 512,
    chunkDelay: Duration = .zero,
    _ body: (JSONAPITestServer, JSONAPIClient) async throws -> T
) async throws -> T {
    try await JSONAPITestServer.with(total: total, chunkSize: chunkSize, chunkDelay: chunkDelay) { server in
        try await body(server, JSONAPIClient(baseURL: server.baseURL, registry: [Article.self, Person.self]))
    }
}

@Suite struct JSONAPIClientTests {
    @Test func fetchesOneResourceParsedFromManySmallDelayedChunks() async throws {
        try await withServer(chunkSize: 7, chunkDelay: .milliseconds(1)) { server, client in
            let response = try await client.fetch(Article.self, id: "3", query: JSONAPIQuery().including("author"))
            #expect(response.status == 200)
            #expect(response.document.data.title == "Article 3")
            #expect(response.document.data.author?.name == "Person 4")
            #expect(response.document.links?.selfLink?.href == "/articles/3")
            #expect(response.bytesRead > 100)
            let request = try #require(server.log.requests.last)
            #expect(request.path == "/articles/3")
            #expect(request.rawQuery == "include=author")
            #expect(request.headers["accept"] == "application/vnd.api+json")
            #expect(request.headers["content-type"] == nil)
        }
    }

    @Test func queryNamesAreBracketEncodedAndListsKeepTheirCommas() async throws {
        let query = JSONAPIQuery()
            .including("author", "comments.author")
            .fields("people", ["name"])
            .fields("articles", ["title", "author"])
            .filter(["author", "name"], ["Dan Gebhardt"])
            .filter("tag", "a,b&c")
            .sorted(by: "-created", "title")
            .page(["size": "2", "number": "3"])
            .parameter("q", "x y+z")
        #expect(
            query.percentEncoded
                == "include=author,comments.author&fields%5Barticles%5D=title,author&fields%5Bpeople%5D=name"
                + "&filter%5Bauthor%5D%5Bname%5D=Dan%20Gebhardt&filter%5Btag%5D=a%2Cb%26c&sort=-created,title"
                + "&page%5Bnumber%5D=3&page%5Bsize%5D=2&q=x%20y%2Bz"
        )
        // And the server reads back exactly these names and values.
        try await withServer { server, client in
            let page = try await client.fetchCollection(
                Article.self,
                query: JSONAPIQuery().including("author").page(["size": "2", "number": "3"])
            )
            #expect(page.document.data.map(\.id) == ["5", "6"])
            #expect(server.log.requests.last?.rawQuery == "include=author&page%5Bnumber%5D=3&page%5Bsize%5D=2")
        }
    }

    @Test func pathTemplatesAndRoutersMakeTheURLs() throws {
        var client = JSONAPIClient(baseURL: URL(string: "https://api.example.com/v1/")!)
        #expect(
            try client.url(for: .resource(type: "articles", id: "a/b c")).absoluteString
                == "https://api.example.com/v1/articles/a%2Fb%20c"
        )
        #expect(
            try client.url(for: .relationship(type: "articles", id: "1", name: "author")).absoluteString
                == "https://api.example.com/v1/articles/1/relationships/author"
        )
        client.router = PathTemplateRouter(
            byType: ["people": .init(collection: "users", resource: "users/show/<id>")]
        )
        #expect(try client.url(for: .collection(type: "people")).absoluteString == "https://api.example.com/v1/users")
        // An id of ".." must not climb out of the collection.
        #expect(try client.url(for: .resource(type: "articles", id: "..")).absoluteString.hasSuffix("/articles/%2E%2E"))
        // Credentials set on the client go only to its own origin.
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        #expect(JSONAPIClient.sameOrigin(try #require(URL(string: "https://API.example.com:443/x")), base))
        #expect(!JSONAPIClient.sameOrigin(try #require(URL(string: "https://cdn.example.com/x")), base))
        #expect(!JSONAPIClient.sameOrigin(try #require(URL(string: "http://api.example.com/x")), base))
        #expect(
            try client.url(for: .resource(type: "people", id: "9")).absoluteString
                == "https://api.example.com/v1/users/show/9"
        )
        #expect(
            try client.url(for: .related(type: "people", id: "9", name: "articles")).absoluteString
                == "https://api.example.com/v1/people/9/articles"
        )
        struct Legacy: JSONAPIRouter {
            func path(for route: JSONAPIRoute) -> String {
                if case .collection(let type) = route { return "api/\(type).json" }
                return "other"
            }
        }
        client.router = Legacy()
        #expect(
            try client.url(for: .collection(type: "articles"), query: JSONAPIQuery().including("author")).absoluteString
                == "https://api.example.com/v1/api/articles.json?include=author"
        )
    }

    @Test func createsWithALidAndReadsTheAssignedId() async throws {
        try await withServer { server, client in
            let draft = Article(id: nil, lid: "draft-1", title: "Fresh", words: 3, author: ToOne(id: "2"))
            let result = try await client.create(draft)
            #expect(result.status == 201)
            #expect(result.headers[.location] == "/articles/101")
            let created = try #require(result.document?.data)
            #expect(created.id == "101")
            #expect(created.lid == "draft-1")
            #expect(created.title == "Fresh")
            let request = try #require(server.log.requests.last)
            #expect(request.method == "POST")
            #expect(request.path == "/articles")
            #expect(request.headers["content-type"] == "application/vnd.api+json")
            #expect(request.body.contains(#""lid":"draft-1""#))
            #expect(!request.body.contains(#""type":"articles","id""#))
        }
    }

    @Test func updateSendsOnlyWhatChangedAndNullClears() async throws {
        try await withServer { server, client in
            let patch = ArticlePatch(id: "7", title: .value("Renamed"), words: .null)
            let result = try await client.update(patch)
            #expect(result.status == 200)
            let request = try #require(server.log.requests.last)
            #expect(request.method == "PATCH")
            #expect(request.path == "/articles/7")
            #expect(request.body.contains(#""title":"Renamed""#))
            #expect(request.body.contains(#""words":null"#))
            // The author was left unchanged: no relationships member at all.
            #expect(!request.body.contains("author"))
            #expect(result.document?.data.title == .value("Renamed"))
            // A 200 with only meta: applied, no resource returned.
            var metaOnly = client
            metaOnly.router = PathTemplateRouter(.init(resource: "meta-only/<type>/<id>"))
            let applied = try await metaOnly.update(patch)
            #expect(applied.status == 200)
            #expect(applied.document == nil)
            #expect(server.log.requests.last?.path == "/meta-only/articles/7")
            // A model without an id has nothing to route a PATCH by: refused before sending.
            let before = server.log.requests.count
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.update(Article(id: nil, lid: "x", title: "T", words: nil, author: .null))
            }
            #expect(error?.kind == .invalidURL)
            #expect(error?.description.contains("the model wrote none") == true)
            #expect(server.log.requests.count == before)
        }
    }

    @Test func deleteAndRelationshipEndpoints() async throws {
        try await withServer { server, client in
            let deleted = try await client.delete(Article.self, id: "4")
            #expect(deleted.status == 204)
            #expect(deleted.document == nil)

            let author = try await client.fetchRelationship(
                ResourceIdentifier?.self,
                type: "articles",
                id: "3",
                relationship: "author"
            )
            #expect(author.document.data == ResourceIdentifier(type: "people", id: "4"))
            let comments = try await client.fetchRelationship(
                [ResourceIdentifier].self,
                type: "articles",
                id: "3",
                relationship: "comments"
            )
            #expect(comments.document.data.map(\.id) == ["5", "12"])
            let related = try await client.fetchRelated(
                Linked<Person>.self,
                type: "articles",
                id: "3",
                relationship: "author"
            )
            #expect(related.document.data.name == "Person 4")

            try await client.replaceRelationship(type: "articles", id: "3", relationship: "author", with: nil)
            try await client.replaceRelationship(
                type: "articles",
                id: "3",
                relationship: "comments",
                with: [ResourceIdentifier(type: "comments", id: "1")]
            )
            try await client.addToRelationship(
                type: "articles",
                id: "3",
                relationship: "comments",
                [ResourceIdentifier(type: "comments", id: "2")]
            )
            try await client.removeFromRelationship(
                type: "articles",
                id: "3",
                relationship: "comments",
                [ResourceIdentifier(type: "comments", id: "5")]
            )
            let writes = server.log.requests.suffix(4)
            #expect(writes.map(\.method) == ["PATCH", "PATCH", "POST", "DELETE"])
            #expect(
                writes.map(\.body) == [
                    #"{"data":null}"#,
                    #"{"data":[{"type":"comments","id":"1"}]}"#,
                    #"{"data":[{"type":"comments","id":"2"}]}"#,
                    #"{"data":[{"type":"comments","id":"5"}]}"#,
                ]
            )
            #expect(
                writes.allSatisfy {
                    $0.path == "/articles/3/relationships/" + ($0.body.contains("null") ? "author" : "comments")
                }
            )
        }
    }
}
