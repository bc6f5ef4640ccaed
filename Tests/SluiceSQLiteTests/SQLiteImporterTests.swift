import Foundation
import GRDB
import SluiceJSON
import SluiceJSONAPI
import SluiceSQLite
import Testing

/// `SQLiteImporter` through its library API.
@Suite("SQLite importer")
struct SQLiteImporterTests {
    static func file(_ bytes: [UInt8], in directory: URL, named name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func document(articles: Int, seed: UInt64, idPrefix: String) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles, seed: seed).write { bytes.append(contentsOf: $0) }
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.replacingOccurrences(of: #""id":""#, with: #""id":"\#(idPrefix)"#).utf8)
    }

    static func count(_ database: String, _ sql: String) throws -> Int {
        try DatabaseQueue(path: database).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("a document imports, and importing it again changes nothing")
    func importsAndReimports() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = try Self.file(Self.document(articles: 100, seed: 1, idPrefix: ""), in: directory, named: "a.json")
        let database = directory.appendingPathComponent("a.sqlite").path
        let importer = try SQLiteImporter(path: database)
        let first = try importer.importDocument(from: try FileChunkReader(path: path), source: "a.json")
        #expect(first.resources > 300)
        #expect(first.primaryCount == 100)
        let counts = try ["articles", "people", "comments", "relationships"].map {
            try Self.count(database, "SELECT COUNT(*) FROM \($0)")
        }
        let again = try importer.importDocument(from: try FileChunkReader(path: path), source: "a.json")
        #expect(again.resources == first.resources)
        #expect(
            try ["articles", "people", "comments", "relationships"].map {
                try Self.count(database, "SELECT COUNT(*) FROM \($0)")
            } == counts
        )
        #expect(try Self.count(database, "SELECT COUNT(*) FROM documents WHERE status = 'complete'") == 1)
    }

    @Test("an import job takes SQLite's documents one after another, each with its row")
    func jobIsSequential() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sources = try (0..<3).map { index in
            ImportSource(
                path: try Self.file(
                    Self.document(articles: 30, seed: UInt64(index + 1), idPrefix: "d\(index)-"),
                    in: directory,
                    named: "\(index).json"
                )
            )
        }
        #expect(!SQLiteImporter.allowsConcurrentDocuments)
        let database = directory.appendingPathComponent("job.sqlite").path
        let opened = OpenCount()
        let job = ImportJob(sources: sources, concurrentDocuments: 3) {
            opened.add()
            return try SQLiteImporter(path: database)
        }
        let outcomes = try await job.run()
        #expect(opened.value == 1)
        let resources = outcomes.map { (try? $0.result.get().resources) ?? -1 }
        #expect(resources.allSatisfy { $0 > 0 })
        #expect(try Self.count(database, "SELECT COUNT(*) FROM articles") == 90)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM documents WHERE status = 'complete'") == 3)
    }
}

/// How many destinations a job opened.
final class OpenCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
