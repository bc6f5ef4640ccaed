import Foundation
import GRDB
import SluiceImport
import SluiceJSON
import SluiceJSONAPI
import SluiceSQLite
import SluiceTools
import Testing

/// A document fed to an import from async code, and several documents in one job.
@Suite("Import feed and job")
struct ImportFeedTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func document(articles: Int, seed: UInt64 = 1) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles, seed: seed).write { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func count(_ database: String, _ sql: String) throws -> Int {
        try DatabaseQueue(path: database).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("a document fed in small chunks imports as the same file does")
    func feedImportsLikeAFile() async throws {
        let directory = try Self.directory()
        let bytes = Self.document(articles: 300)
        let file = directory.appendingPathComponent("doc.json")
        try Data(bytes).write(to: file)
        let fromFile = directory.appendingPathComponent("file.sqlite").path
        _ = try SQLiteImporter(path: fromFile).importDocument(from: try FileChunkReader(path: file.path), source: "doc")

        let fromFeed = directory.appendingPathComponent("feed.sqlite").path
        let importer = try SQLiteImporter(path: fromFeed)
        let feed = ImportFeed(capacity: 2, size: bytes.count)
        async let summary = importer.importDocument(reading: feed, source: "doc", progress: nil)
        for start in stride(from: 0, to: bytes.count, by: 997) {
            try await feed.send(Array(bytes[start..<min(start + 997, bytes.count)]))
        }
        feed.finish()
        #expect(try await summary.bytes == bytes.count)
        #expect(feed.bytesRead == bytes.count)
        for sql in [
            "SELECT COUNT(*) FROM articles", "SELECT COUNT(*) FROM comments", "SELECT COUNT(*) FROM relationships",
        ] {
            #expect(try Self.count(fromFeed, sql) == (try Self.count(fromFile, sql)))
        }
    }

    @Test("send waits while the feed is full, and goes on once the import reads")
    func backpressure() async throws {
        let feed = ImportFeed(capacity: 2)
        try await feed.send([1])
        try await feed.send([2])
        let third = Task { try await feed.send([3]) }
        try await Task.sleep(for: .milliseconds(200))
        // Nothing has been read: the third chunk is still waiting for room.
        #expect(feed.bytesRead == 0)
        let reader = Thread {
            var seen: [UInt8] = []
            try? feed.forEachChunk { seen.append(contentsOf: $0) }
        }
        reader.start()
        try await third.value
        feed.finish()
        let deadline = ContinuousClock.now + .seconds(10)
        while feed.bytesRead < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(feed.bytesRead == 3)
    }

    @Test("an import that stops at a fault closes the feed: the producer's next send throws")
    func closedAfterFault() async throws {
        let directory = try Self.directory()
        let importer = try SQLiteImporter(path: directory.appendingPathComponent("bad.sqlite").path)
        let feed = ImportFeed(capacity: 1)
        async let result: ImportSummary = importer.importDocument(reading: feed, source: "bad", progress: nil)
        try await feed.send(Array(#"{"data": [{"type": "a", "id": "1"}, {"type": "a", "id": ]}"#.utf8))
        var closed = false
        for _ in 0..<1000 where !closed {
            do {
                try await feed.send(Array(#" "#.utf8))
            } catch is ImportFeedClosed {
                closed = true
            }
        }
        #expect(closed)
        do {
            _ = try await result
            Issue.record("a broken document imported")
        } catch let failure as ImportFailure {
            #expect(failure.underlying is JSONError)
        }
    }

    @Test("a producer's own fault is what the import reports")
    func producerFault() async throws {
        struct LostConnection: Error {}
        let directory = try Self.directory()
        let importer = try SQLiteImporter(path: directory.appendingPathComponent("cut.sqlite").path)
        let feed = ImportFeed()
        async let result: ImportSummary = importer.importDocument(reading: feed, source: "cut", progress: nil)
        try await feed.send(Array(Self.document(articles: 5).prefix(500)))
        feed.finish(throwing: LostConnection())
        do {
            _ = try await result
            Issue.record("a document cut by the producer's fault imported")
        } catch let failure as ImportFailure {
            #expect(failure.underlying is LostConnection)
        }
    }

    @Test("a directory stands for its .json and .json.gz files, sorted; a job imports each with its own row")
    func jobOverADirectory() async throws {
        let directory = try Self.directory()
        let exports = directory.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
        try Data(Self.document(articles: 20, seed: 1)).write(to: exports.appendingPathComponent("b.json"))
        try Data(#"{"data": [{"type": "notes", "id": "n1", "attributes": {"text": "x"}}]}"#.utf8)
            .write(to: exports.appendingPathComponent("a.json"))
        try Data("{".utf8).write(to: exports.appendingPathComponent("c.json"))
        try Data("ignored".utf8).write(to: exports.appendingPathComponent("readme.md"))
        let sources = try ImportSource.expanding([exports.path, "-"])
        #expect(
            sources.map(\.path) == ["a.json", "b.json", "c.json"].map {
                exports.appendingPathComponent($0).path as String?
            } + [
                "-"
            ]
        )
        #expect(sources.last?.name == "<stdin>")
        // A file named again (another spelling, a link, inside a directory named too) goes once,
        // under its first name; a file that is not there stays, to fail as itself.
        let link = directory.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(
            at: link,
            withDestinationURL: exports.appendingPathComponent("b.json")
        )
        let again = try ImportSource.expanding([
            exports.appendingPathComponent("b.json").path, exports.path, exports.path + "/./a.json", link.path, "-",
            "-",
            "missing.json",
        ])
        #expect(
            again.map(\.path) == [
                exports.appendingPathComponent("b.json").path, exports.appendingPathComponent("a.json").path,
                exports.appendingPathComponent("c.json").path, "-", "missing.json",
            ]
        )

        let database = directory.appendingPathComponent("job.sqlite").path
        let job = ImportJob(sources: Array(sources.dropLast()), concurrentDocuments: 4) {
            try SQLiteImporter(path: database)
        }
        let outcomes = try await job.run()
        #expect(outcomes.map(\.source) == Array(sources.dropLast()))
        let succeeded = outcomes.map { if case .success = $0.result { true } else { false } }
        #expect(succeeded == [true, true, false])
        #expect(try Self.count(database, "SELECT COUNT(*) FROM notes") == 1)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM articles") == 20)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM documents WHERE status = 'complete'") == 2)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM documents WHERE status = 'failed'") == 1)
    }
}
