import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluicePostgres
import Testing

/// The server `scripts/with-postgres.sh` starts for `make test`, if any.
enum Server {
    static let url = ProcessInfo.processInfo.environment["SLUICE_POSTGRES_URL"]
    static let password = ProcessInfo.processInfo.environment["SLUICE_POSTGRES_PASSWORD"]
    static var available: Bool { url != nil && password != nil }
    static var skipReason: Comment {
        Comment(
            rawValue: ProcessInfo.processInfo.environment["SLUICE_POSTGRES_SKIP_REASON"]
                ?? "no PostgreSQL server: run the tests through scripts/with-postgres.sh (make test does)"
        )
    }

    /// A fresh database's URL, the password in it.
    static func database() async throws -> String {
        let name = "sluice_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await PostgresImporter.connect(to: try PostgresTarget(url: url(database: "postgres")))
        _ = try await admin.rows("CREATE DATABASE \(name)")
        try await admin.close()
        return url(database: name)
    }

    static func url(database: String) -> String {
        var components = URLComponents(string: url!)!
        components.password = password
        components.path = "/\(database)"
        return components.string!
    }
}

/// `PostgresImporter` and `ImportJob` through their library API.
@Suite("PostgreSQL import job", .enabled(if: Server.available, Server.skipReason))
struct PostgresImportJobTests {
    static func document(articles: Int, seed: UInt64, idPrefix: String) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles, seed: seed).write { bytes.append(contentsOf: $0) }
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.replacingOccurrences(of: #""id":""#, with: #""id":"\#(idPrefix)"#).utf8)
    }

    @Test("a job imports three documents at once, each on its own connection, with every row")
    func threeAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var sources: [ImportSource] = []
        for index in 0..<3 {
            let url = directory.appendingPathComponent("\(index).json")
            try Data(Self.document(articles: 120, seed: UInt64(index + 1), idPrefix: "d\(index)-")).write(to: url)
            sources.append(ImportSource(path: url.path))
        }
        let database = try await Server.database()
        let target = try PostgresTarget(url: database)
        var options = ImportOptions()
        options.batchSize = 100
        options.parallelism = .workers(1)
        let settings = options
        let job = ImportJob(sources: sources, concurrentDocuments: 3) {
            try await PostgresImporter.connect(to: target, options: settings)
        }
        let outcomes = try await job.run()
        let summaries = outcomes.compactMap { try? $0.result.get() }
        #expect(summaries.count == 3)
        let watcher = try await PostgresImporter.connect(to: target)
        let articles = try await watcher.rows("SELECT COUNT(*) FROM articles")
        #expect(articles.first?.first == "360")
        let resources = try await watcher.rows(
            "SELECT (SELECT COUNT(*) FROM articles) + (SELECT COUNT(*) FROM people) + (SELECT COUNT(*) FROM comments)"
        )
        #expect(resources.first?.first == String(summaries.map(\.resources).reduce(0, +)))
        let links = try await watcher.rows("SELECT COUNT(*) FROM relationships")
        #expect(links.first?.first == String(summaries.map(\.relationshipRows).reduce(0, +)))
        let complete = try await watcher.rows("SELECT COUNT(*) FROM documents WHERE status = 'complete'")
        #expect(complete.first?.first == "3")
        try await watcher.close()
    }

    @Test("a document fed from async code imports as the same file does")
    func fedDocument() async throws {
        let bytes = Self.document(articles: 80, seed: 4, idPrefix: "")
        let database = try await Server.database()
        let importer = try await PostgresImporter.connect(to: try PostgresTarget(url: database))
        let feed = ImportFeed(capacity: 2)
        async let imported = importer.importDocument(reading: feed, source: "fed", progress: nil)
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            try await feed.send(Array(bytes[start..<min(start + 4096, bytes.count)]))
        }
        feed.finish()
        let summary = try await imported
        #expect(summary.bytes == bytes.count)
        #expect(summary.primaryCount == 80)
        let watcher = try await PostgresImporter.connect(to: try PostgresTarget(url: database))
        let articles = try await watcher.rows("SELECT COUNT(*) FROM articles")
        #expect(articles.first?.first == "80")
        try await watcher.close()
    }
}
