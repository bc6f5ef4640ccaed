import Foundation
import SluiceHTTP
import SluiceJSONAPI
import SluiceTestServer
import Testing

struct Person: Resource, Codable, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
}

struct Article: Resource, Codable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var words: Int?
    var author: ToOne<Person>
}

/// `JSONAPIClient` on AsyncHTTPClient and NIO's event loop threads, for Thread Sanitizer to
/// watch: one client shared by many tasks, page streams read side by side, consumers that stop
/// early, cancelled tasks and timeouts that fire while chunks arrive. Each test also checks what
/// arrived against a serial run.
@Suite("JSONAPIClient under Thread Sanitizer", .timeLimit(.minutes(10)))
struct HTTPRaceTests {
    static func client(_ server: JSONAPITestServer) -> JSONAPIClient {
        JSONAPIClient(baseURL: server.baseURL, registry: [Article.self, Person.self])
    }

    /// An article's title and its author's name, as one line.
    static func line(_ client: JSONAPIClient, id: Int) async throws -> String {
        let response = try await client.fetch(Article.self, id: String(id), query: JSONAPIQuery().including("author"))
        let article = response.document.data
        return "\(article.id) \(article.title) by \(article.author?.name ?? "-")"
    }

    /// The identities a page stream yields, in order.
    static func identities(_ client: JSONAPIClient, _ url: URL) async throws -> [String] {
        var identities: [String] = []
        for try await streamed in client.resources(at: url) {
            identities.append("\(streamed.resource.type) \(streamed.resource.id ?? "-")")
        }
        return identities
    }

    @Test("one client shared by 24 concurrent fetches and 4 page streams")
    func sharedClient() async throws {
        try await JSONAPITestServer.with(total: 60, chunkSize: 61) { server in
            let client = Self.client(server)
            var reference: [Int: String] = [:]
            for id in 1...24 { reference[id] = try await Self.line(client, id: id) }
            let pagesURL = server.url("/page/articles?page%5Bsize%5D=7")
            let pages = try await Self.identities(client, pagesURL)
            #expect(pages.filter { $0.hasPrefix("articles ") }.count == 60)

            let lines = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for id in 1...24 { group.addTask { (id, try await Self.line(client, id: id)) } }
                var lines: [Int: String] = [:]
                for try await (id, line) in group { lines[id] = line }
                return lines
            }
            #expect(lines == reference)
            let streams = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 { group.addTask { try await Self.identities(client, pagesURL) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(streams.count == 4)
            #expect(streams.allSatisfy { $0 == pages })
        }
    }

    @Test("a consumer that stops early, and a task cancelled in an endless body")
    func stopsAndCancels() async throws {
        try await JSONAPITestServer.with(total: 60, chunkSize: 29) { server in
            let client = Self.client(server)
            var first: [String] = []
            for try await streamed in client.resources(at: server.url("/page/articles?page%5Bsize%5D=10")) {
                first.append(streamed.resource.id ?? "-")
                if first.count == 13 { break }
            }
            #expect(first.count == 13)

            let (arrived, arrivedContinuation) = AsyncStream.makeStream(of: Int.self)
            let task = Task {
                var count = 0
                for try await _ in client.resources(at: server.url("/endless")) {
                    count += 1
                    arrivedContinuation.yield(count)
                }
                return count
            }
            for await count in arrived where count >= 20 { break }
            task.cancel()
            switch await task.result {
            case .success(let count): Issue.record("an endless body ended after \(count) resources")
            case .failure(let error): #expect(error is CancellationError, "\(error)")
            }
            // The server sees the client leave (its writer fails), on a thread of its own.
            let deadline = ContinuousClock.now + .seconds(30)
            while server.log.abandonedBodies == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(server.log.abandonedBodies == 1)
            // The client goes on serving after both.
            #expect(try await Self.line(client, id: 5) == "5 Article 5 by Person 6")
        }
    }

    @Test("the body timeout fires while chunks keep arriving, in several tasks at once")
    func bodyTimeouts() async throws {
        try await JSONAPITestServer.with { server in
            let client = {
                var client = Self.client(server)
                client.bodyTimeout = .seconds(1)
                return client
            }()
            // Each task's error kind; nil for a body that ended, which a trickle never does.
            let kinds = try await withThrowingTaskGroup(of: JSONAPIClientError.Kind?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            _ = try await client.fetch([Linked<Article>].self, at: server.url("/trickle"))
                            return nil
                        } catch let error as JSONAPIClientError {
                            return error.kind
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(kinds == Array(repeating: .timedOut, count: 4))
        }
    }
}
