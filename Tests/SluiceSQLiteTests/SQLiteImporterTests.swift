import Foundation
import GRDB
import SluiceJSON
import SluiceJSONAPI
import SluiceSQLite
import SluiceTestServer
import Testing

/// `SQLiteImporter` through its library API.
@Suite("SQLite importer")
struct SQLiteImporterTests {
    static func file(_ bytes: [UInt8], in directory: URL, named name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func count(_ database: String, _ sql: String) throws -> Int {
        try DatabaseQueue(path: database).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("a document imports, and importing it again changes nothing")
    func importsAndReimports() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = try Self.file(sampleDocument(articles: 100, seed: 1, idPrefix: ""), in: directory, named: "a.json")
        let database = directory.appendingPathComponent("a.sqlite").path
        let importer = try SQLiteImporter(path: database)
        let first = try importer.importDocument(from: try FileChunkReader(path: path), source: "a.json")
        #expect(first.resources > 300)
        #expect(first.primaryCount == 100)
        let questions =
            ["articles", "people", "comments", "relationships"].map { "SELECT COUNT(*) FROM \($0)" } + [
                "SELECT COUNT(author_id) FROM articles", "SELECT COUNT(DISTINCT author_id) FROM comments",
            ]
        let counts = try questions.map { try Self.count(database, $0) }
        #expect(counts[4] == 100)
        let again = try importer.importDocument(from: try FileChunkReader(path: path), source: "a.json")
        #expect(again.resources == first.resources)
        #expect(try questions.map { try Self.count(database, $0) } == counts)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM documents WHERE status = 'complete'") == 1)
    }

    @Test("rows go in many to a statement and in order: a resource given again is upserted over its first")
    func queuedRowsKeepOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // 100 resources (several full statements of rows and of relationship rows, and a rest),
        // then "5" again with fewer attributes (another set of columns) and "7" twice more with
        // the same ones (both in one statement's rows).
        let things = (0..<100).map { index in
            """
            {"type":"things","id":"\(index)","attributes":{"a":\(index),"b":"b-\(index)"},
             "relationships":{"parts":{"data":[{"type":"parts","id":"\(index)-1"},{"type":"parts","id":"\(index)-2"}]}}}
            """
        }
        let again = [
            #"{"type":"things","id":"5","attributes":{"a":500}}"#,
            #"{"type":"things","id":"7","attributes":{"a":700,"b":"x"}}"#,
            #"{"type":"things","id":"7","attributes":{"a":701,"b":"y"}}"#,
        ]
        let document =
            #"{"data":["# + things.joined(separator: ",") + #"],"included":["# + again.joined(separator: ",") + "]}"
        let path = try Self.file(Array(document.utf8), in: directory, named: "things.json")
        let database = directory.appendingPathComponent("things.sqlite").path
        var options = ImportOptions()
        options.batchSize = 40
        let summary = try SQLiteImporter(path: database, options: options)
            .importDocument(from: try FileChunkReader(path: path), source: "things.json")
        #expect(summary.resources == 103)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM things") == 100)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM relationships") == 200)
        let rows = try DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: "SELECT id, a, b FROM things WHERE id IN ('5', '7', '99') ORDER BY id")
                .map { "\($0["id"] as String) \($0["a"] as Int) \($0["b"] as String)" }
        }
        #expect(rows == ["5 500 b-5", "7 701 y", "99 99 b-99"])
    }

    @Test("a database fault mid-batch rolls the batch back, its queued rows too, and keeps the batches before")
    func databaseFaultRollsBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func document(_ ids: Range<Int>) -> [UInt8] {
            let things = ids.map { #"{"type":"things","id":"\#($0)","attributes":{"a":\#($0)}}"# }
            return Array((#"{"data":["# + things.joined(separator: ",") + "]}").utf8)
        }
        let database = directory.appendingPathComponent("fault.sqlite").path
        var options = ImportOptions()
        options.batchSize = 50
        let importer = try SQLiteImporter(path: database, options: options)
        let first = try Self.file(document(0..<10), in: directory, named: "first.json")
        _ = try importer.importDocument(from: try FileChunkReader(path: first), source: "first.json")
        // The database refuses one row of the second document's second batch.
        try importer.database.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse BEFORE INSERT ON things WHEN NEW.id = '170'
                    BEGIN SELECT RAISE(ABORT, 'thing 170 refused'); END
                    """
            )
        }
        let second = try Self.file(document(100..<400), in: directory, named: "second.json")
        #expect {
            try importer.importDocument(from: try FileChunkReader(path: second), source: "second.json")
        } throws: { error in
            guard let failure = error as? ImportFailure else { return false }
            return failure.committedResources == 50 && "\(failure.underlying)".contains("thing 170 refused")
        }
        #expect(try Self.count(database, "SELECT COUNT(*) FROM things") == 60)
        #expect(try Self.count(database, "SELECT MAX(CAST(id AS INTEGER)) FROM things") == 149)
        let row = try DatabaseQueue(path: database).read { db in
            try Row.fetchOne(db, sql: "SELECT status, resources, error FROM documents WHERE source = 'second.json'")
        }
        #expect(row?["status"] == "failed")
        #expect(row?["resources"] == 50)
        #expect((row?["error"] as String?)?.contains("thing 170 refused") == true)
    }

    @Test("to-one linkage is columns that later linkage replaces or clears, and absent linkage keeps")
    func toOneColumnsChangeShape() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("shapes.sqlite").path
        let importer = try SQLiteImporter(path: database)
        for (index, document) in ToOneShapes.documents.enumerated() {
            let path = try Self.file(Array(document.utf8), in: directory, named: "\(index).json")
            _ = try importer.importDocument(from: try FileChunkReader(path: path), source: "\(index).json")
            let answer = try DatabaseQueue(path: database).read { db in
                try String.fetchOne(db, sql: ToOneShapes.question)
            }
            #expect(answer == ToOneShapes.answers[index], "after document \(index)")
        }
        let row = try DatabaseQueue(path: database).read { db in try String.fetchOne(db, sql: ToOneShapes.rowQuestion) }
        #expect(row == ToOneShapes.row)
    }

    @Test("an import job takes SQLite's documents one after another, each with its row")
    func jobIsSequential() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sources = try (0..<3).map { index in
            ImportSource(
                path: try Self.file(
                    sampleDocument(articles: 30, seed: UInt64(index + 1), idPrefix: "d\(index)-"),
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

    @Test("a job reads asynchronous sequences of chunks beside files; a failing one stops alone")
    func jobReadsChunkSequences() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = ImportSource(
            path: try Self.file(sampleDocument(articles: 20, seed: 1, idPrefix: "f-"), in: directory, named: "f.json")
        )
        // Cut at an odd size, so that tokens straddle chunks.
        let streamed = sampleDocument(articles: 25, seed: 2, idPrefix: "s-")
        let chunks = stride(from: 0, to: streamed.count, by: 997).map {
            Array(streamed[$0..<min($0 + 997, streamed.count)])
        }
        let stream = ImportSource(name: "https://example.com/page/1", size: streamed.count, chunks: Chunks(chunks))
        // A body whose connection is lost after its first chunks.
        struct ConnectionLost: Error {}
        let lost = ImportSource(name: "lost", chunks: Chunks(Array(chunks.prefix(3)), failing: ConnectionLost()))
        // A body that is not JSON:API after a few chunks: the import stops at the fault and lets
        // the producer go (the sequence has many more chunks than the feed holds).
        var broken = Array(chunks.prefix(2))
        broken.append(Array("]]]".utf8))
        broken += Array(repeating: Array(" ".utf8), count: 100)
        let bad = ImportSource(name: "bad", chunks: Chunks(broken))
        #expect(stream == stream && stream != ImportSource(name: stream.name, chunks: Chunks(chunks)))
        #expect(stream.name == "https://example.com/page/1")
        #expect(stream.path == nil && file.path != nil)

        let database = directory.appendingPathComponent("streams.sqlite").path
        let job = ImportJob(sources: [file, lost, stream, bad]) { try SQLiteImporter(path: database) }
        let outcomes = try await job.run()
        #expect(outcomes.map(\.source.name) == [file.name, "lost", stream.name, "bad"])
        #expect((try? outcomes[0].result.get().primaryCount) == 20)
        #expect((try? outcomes[2].result.get().primaryCount) == 25)
        guard case .failure(let failure) = outcomes[1].result else {
            Issue.record("a lost connection imported")
            return
        }
        #expect(failure.underlying is ConnectionLost)
        guard case .failure(let fault) = outcomes[3].result else {
            Issue.record("a broken body imported")
            return
        }
        #expect("\(fault)".contains("line 1"))
        #expect(try Self.count(database, "SELECT COUNT(*) FROM articles WHERE id LIKE 's-%'") == 25)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM articles WHERE id LIKE 'f-%'") == 20)
        #expect(
            try Self.count(database, "SELECT COUNT(*) FROM documents WHERE source = 'https://example.com/page/1'")
                == 1
        )
        #expect(try Self.count(database, "SELECT COUNT(*) FROM documents WHERE status = 'failed'") == 2)
    }
}

/// Byte chunks as an asynchronous sequence, ending with `failing` if given: an HTTP body.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    var failing: (any Error & Sendable)?

    init(_ chunks: [[UInt8]], failing: (any Error & Sendable)? = nil) {
        self.chunks = chunks
        self.failing = failing
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<[UInt8]>
        var failing: (any Error & Sendable)?

        mutating func next() async throws -> [UInt8]? {
            if let chunk = rest.popFirst() { return chunk }
            if let failing {
                self.failing = nil
                throw failing
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...], failing: failing) }
}

/// How many destinations a job opened.
final class OpenCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
