import Foundation
import GRDB
import SluiceTestServer
import Testing

/// `sluice fetch` and `sluice import URL`, run as the built binary against a JSON:API server on
/// loopback.
@Suite("sluice fetch")
struct FetchCommandTests {
    typealias Command = ValidateCommandTests

    @Test("--all-pages prints every resource of every page as NDJSON, like flatten")
    func fetchesAllPages() async throws {
        try await JSONAPITestServer.with(chunkSize: 97) { server in
            let url = server.url("/page/articles?page%5Bsize%5D=10").absoluteString
            let all = try await Command.run([
                "fetch", url, "--all-pages", "--include", "author", "-H", "Authorization: Bearer s3cret", "--verbose",
            ])
            #expect(all.status == 0, "\(all.standardError)")
            let lines = all.standardOutput.split(separator: "\n")
            let articles = lines.filter { $0.hasPrefix(#"{"type":"articles""#) }
            #expect(articles.count == 25)
            #expect(
                articles[0]
                    == #"{"type":"articles","id":"1","attributes":{"title":"Article 1","words":10},"relationships":{"author":{"type":"people","id":"2"}}}"#
            )
            #expect(lines.contains(#"{"type":"people","id":"2","attributes":{"name":"Person 2"},"relationships":{}}"#))
            #expect(all.standardError.contains("from 3 pages"))
            #expect(!all.standardError.contains("s3cret"))
            let requests = server.log.requests
            #expect(requests.count == 3)
            #expect(requests[0].rawQuery == "page%5Bsize%5D=10&include=author")
            #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer s3cret" })
            #expect(requests.allSatisfy { $0.headers["accept"] == "application/vnd.api+json" })

            let first = try await Command.run(["fetch", url])
            #expect(first.status == 0)
            #expect(
                first.standardOutput.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"articles""#) }.count == 10
            )
        }
    }

    @Test("a URL with raw brackets and escapes is sent with its escapes as written, not encoded twice")
    func bracketsAndEscapes() async throws {
        try await JSONAPITestServer.with(chunkSize: 97) { server in
            let url =
                server.url("/").absoluteString
                + "page/articles?filter[author.name]=Author%200013&page[size]=5&x=%26&y=%C3%A9"
            let directory = try ImportCommandTests.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appendingPathComponent("brackets.sqlite").path
            for command in [["fetch", url], ["import", url, "--sqlite", database, "--max-pages", "1"]] {
                let run = try await Command.run(command)
                #expect(run.status == 0, "\(command[0]): \(run.standardError)")
            }
            let requests = server.log.requests
            #expect(requests.count == 2)
            for request in requests {
                #expect(request.rawQuery == "filter%5Bauthor.name%5D=Author%200013&page%5Bsize%5D=5&x=%26&y=%C3%A9")
            }
        }
    }

    @Test("pages that end before the last link's page are reported, by fetch and by import; --verbose gives statuses")
    func unreachedLastPage() async throws {
        try await JSONAPITestServer.with(total: 45) { server in
            let url = server.url("/dropnext/articles?page%5Bsize%5D=10").absoluteString
            let fetched = try await Command.run(["fetch", url, "--all-pages", "--verbose"])
            #expect(fetched.status == 0, "\(fetched.standardError)")
            #expect(fetched.standardError.contains("page 2 has no next link, but its last link names another page"))
            #expect(fetched.standardError.contains("page%5Bnumber%5D=5"))
            #expect(fetched.standardError.contains(": 200 (page 1)"))
            #expect(
                fetched.standardOutput.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"articles""#) }.count
                    == 20
            )
            let directory = try ImportCommandTests.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appendingPathComponent("dropnext.sqlite").path
            let imported = try await Command.run(["import", url, "--sqlite", database])
            #expect(imported.status == 0, "\(imported.standardError)")
            #expect(imported.standardError.contains("page 2 has no next link, but its last link names another page"))
            #expect(imported.standardOutput.contains("warning: page 2 has no next link"))
            // The pages' links are kept as the server wrote them, slashes unescaped.
            let links = try ImportCommandTests.read(database) { db in
                try String.fetchAll(db, sql: "SELECT links FROM documents ORDER BY source")
            }
            #expect(links.count == 2)
            #expect(
                links.allSatisfy { $0.contains(#""last":"/dropnext/articles?"#) && !$0.contains(#"\/"#) },
                "\(links)"
            )
            // A server that gives next to the end draws no warning.
            let whole = try await Command.run(["fetch", server.url("/page/articles").absoluteString, "--all-pages"])
            #expect(whole.status == 0)
            #expect(!whole.standardError.contains("warning"))
        }
    }

    @Test("a server that answers 503 and then the page is asked again; --retries 0 reports the 503")
    func retries() async throws {
        try await JSONAPITestServer.with { server in
            let url = server.url("/flaky/articles").absoluteString
            let patient = try await Command.run(["fetch", url])
            #expect(patient.status == 0, "\(patient.standardError)")
            #expect(patient.standardOutput.hasPrefix(#"{"type":"articles","id":"1""#))
            let impatient = try await Command.run(["fetch", url, "--retries", "0"])
            #expect(impatient.status == 1)
            #expect(impatient.standardError.contains("503"))
        }
    }

    @Test("import URL --resume goes on at the first page not complete, following the links it recorded")
    func resumesPages() async throws {
        let directory = try ImportCommandTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("resume.sqlite").path
        try await JSONAPITestServer.with(total: 45) { server in
            let url = server.url("/page/articles?page%5Bsize%5D=10").absoluteString
            let first = try await Command.run(["import", url, "--sqlite", database, "--max-pages", "2"])
            #expect(first.status == 0, "\(first.standardError)")
            let before = server.log.requests.count
            let resumed = try await Command.run(["import", url, "--sqlite", database, "--resume"])
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardOutput.contains("Resuming at page 3"), "\(resumed.standardOutput)")
            // Pages 1 and 2 were not asked for again.
            let asked = server.log.requests[before...].map(\.rawQuery)
            #expect(asked.first == "page%5Bnumber%5D=3&page%5Bsize%5D=10", "\(asked)")
            #expect(asked.count == 3)
            let counts = try ImportCommandTests.read(database) { db in
                [
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM articles"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE status = 'complete'"),
                ]
            }
            #expect(counts == [45, 5])
            let again = try await Command.run(["import", url, "--sqlite", database, "--resume"])
            #expect(again.status == 0)
            #expect(again.standardOutput.contains("All 5 pages"), "\(again.standardOutput)")
            #expect(server.log.requests.count == before + 3)
        }
    }

    @Test("a relationship endpoint prints its linkage: identifiers, not empty resources")
    func relationshipEndpoint() async throws {
        try await JSONAPITestServer.with { server in
            let run = try await Command.run(["fetch", server.url("/articles/3/relationships/author").absoluteString])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput == #"{"type":"people","id":"4"}"# + "\n")
        }
    }

    @Test("error documents, invalid answers and unreachable servers exit 3, 1 and 2 with a clear message")
    func failures() async throws {
        try await JSONAPITestServer.with { server in
            let missing = try await Command.run(["fetch", server.url("/articles/999").absoluteString])
            #expect(missing.status == 3)
            #expect(
                missing.standardError.contains(
                    "the server answered 404 Not Found with 1 error: 404 [not_found] Not Found - No article has id 999."
                )
            )
            let malformed = try await Command.run(["fetch", server.url("/malformed/articles").absoluteString])
            #expect(malformed.status == 1)
            #expect(malformed.standardError.contains("/malformed/articles:2:"))
            #expect(malformed.standardError.contains("/data/1/id"))
            // The resource before the fault was printed.
            #expect(malformed.standardOutput.split(separator: "\n").count == 1)
            let login = try await Command.run(["fetch", server.url("/login").absoluteString])
            #expect(login.status == 1)
            #expect(login.standardError.contains("expected a JSON:API document, but the body is text/html"))
            // import URL follows the same rule.
            let directory = try ImportCommandTests.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appendingPathComponent("errors.sqlite").path
            let importMissing = try await Command.run([
                "import", server.url("/articles/999").absoluteString, "--sqlite", database,
            ])
            #expect(importMissing.status == 3, "\(importMissing.standardError)")
            #expect(importMissing.standardError.contains("No article has id 999."))
            let importLogin = try await Command.run([
                "import", server.url("/login").absoluteString, "--sqlite", database,
            ])
            #expect(importLogin.status == 1, "\(importLogin.standardError)")
        }
        let refused = try await Command.run([
            "fetch", "http://127.0.0.1:9/articles", "--timeout", "2", "--retries", "0",
        ])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("GET http://127.0.0.1:9/articles: "))
        #expect(refused.standardError.contains("could not connect: Connection refused (errno 111)"))
        #expect(!refused.standardError.contains("connection reset"))
        let usage = try await Command.run(["fetch", "ftp://example.com/x"])
        #expect(usage.status == 2)
    }

    @Test("import URL follows next links into SQLite, one documents row per page")
    func importsPages() async throws {
        let directory = try ImportCommandTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("pages.sqlite").path
        try await JSONAPITestServer.with(total: 95, chunkSize: 300) { server in
            let url = server.url("/offset/articles?page%5Blimit%5D=20").absoluteString
            let run = try await Command.run(["import", url, "--sqlite", database])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("from 5 pages"))
            let counts = try ImportCommandTests.read(database) { db throws -> [Int?] in
                [
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM articles"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM people"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE status = 'complete'"),
                    try String.fetchOne(
                        db,
                        sql: "SELECT author_id FROM articles WHERE id = '95'"
                    ).flatMap { Int($0) },
                ]
            }
            #expect(counts == [95, 7, 5, 5])
            let failing = try await Command.run([
                "import", server.url("/malformed/articles").absoluteString, "--sqlite", database, "--quiet",
            ])
            #expect(failing.status == 1)
            #expect(failing.standardError.contains("/data/1/id"))
            // A body cut off mid-way: the network's failure is reported, not a truncated document.
            let truncated = try await Command.run([
                "import", server.url("/truncated").absoluteString, "--sqlite", database, "--quiet",
            ])
            #expect(truncated.status == 2)
            #expect(truncated.standardError.contains("GET http://127.0.0.1:"))
            #expect(truncated.standardError.contains("/truncated: the request failed"))
            #expect(truncated.standardError.contains("imported before the fault"))
            // A next link back to a page already imported stops with exit 1, the page kept.
            let loop = try await Command.run([
                "import", server.url("/loop/articles").absoluteString, "--sqlite", database, "--quiet",
            ])
            #expect(loop.status == 1)
            #expect(loop.standardError.contains("/loop/articles: the next link leads back to a page already imported"))
            let limited = try await Command.run(["import", url, "--sqlite", database, "--max-pages", "2"])
            #expect(limited.status == 0, "\(limited.standardError)")
            #expect(limited.standardOutput.contains("from 2 pages"))
            // A body that falls silent for 8 s fails after --read-timeout's 1 s, with what it read.
            let clock = ContinuousClock()
            let started = clock.now
            let stalled = try await Command.run([
                "import", server.url("/stall").absoluteString, "--sqlite", database, "--quiet", "--read-timeout", "1",
            ])
            #expect(clock.now - started < .seconds(6))
            #expect(stalled.status == 2)
            #expect(
                stalled.standardError.contains("/stall: timed out after 9 bytes of the body"),
                "\(stalled.standardError)"
            )
            let zero = try await Command.run(["import", url, "--sqlite", database, "--timeout", "0"])
            #expect(zero.status == 2)
            #expect(zero.standardError.contains("Timeouts must be positive."))
        }
    }

    @Test(
        "--all-pages streams a large collection in memory that does not grow with it",
        .disabled(
            if: sanitized,
            "under a sanitizer, whose quarantine keeps freed memory: peaks grow with all allocated"
        )
    )
    func memoryStaysFlat() async throws {
        func peak(_ run: Command.Run) throws -> Double {
            let line = try #require(
                run.standardError.split(separator: "\n").last { $0.contains("peak memory") },
                "\(run.status): \(run.standardError.suffix(500))"
            )
            let number = line.split(separator: " ").reversed().dropFirst().first.flatMap { Double($0) }
            return try #require(number)
        }
        let small = try await JSONAPITestServer.with(total: 2_000, chunkSize: 4096) { server in
            try await Command.run([
                "fetch", server.url("/page/articles?page%5Bsize%5D=100").absoluteString, "--all-pages", "--verbose",
            ])
        }
        let large = try await JSONAPITestServer.with(total: 40_000, chunkSize: 4096) { server in
            try await Command.run([
                "fetch", server.url("/page/articles?page%5Bsize%5D=100").absoluteString, "--all-pages", "--verbose",
            ])
        }
        #expect(small.status == 0 && large.status == 0)
        #expect(large.standardOutput.utf8.count > 19 * small.standardOutput.utf8.count)
        #expect(large.standardError.contains("from 400 pages"))
        // 20 times the pages and bytes; the peak stays within a few MB of the small run's.
        #expect(try peak(large) < peak(small) + 8, "\(small.standardError)\n\(large.standardError)")
    }
}
