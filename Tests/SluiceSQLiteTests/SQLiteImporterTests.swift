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
    /// A fresh directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func file(_ bytes: [UInt8], in directory: URL, named name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func count(_ database: String, _ sql: String) throws -> Int {
        try DatabaseQueue(path: database).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("decimal ids are integer keys until another id turns the column into text, every id kept as read")
    func integerKeysTurnIntoText() throws {
        let directory = try Self.directory()
        func article(_ id: String, author: String?, comments: [String]) -> String {
            let linkage = author.map { #"{"type": "people", "id": "\#($0)"}"# } ?? "null"
            let list = comments.map { #"{"type": "comments", "id": "\#($0)"}"# }.joined(separator: ", ")
            return #"""
                {"type": "articles", "id": "\#(id)", "attributes": {"title": "t\#(id)"},
                 "relationships": {"author": {"data": \#(linkage)}, "comments": {"data": [\#(list)]}}}
                """#
        }
        let decimal =
            #"{"data": ["# + article("1", author: "9", comments: ["5"]) + ", "
            + article("2", author: "10", comments: [])
            + #"], "included": [{"type": "people", "id": "9"}, {"type": "people", "id": "10"}]}"#
        // An id with a leading zero, one with letters, and a target that is not a number.
        let mixed =
            #"{"data": ["# + article("3", author: "007", comments: ["c-6"]) + ", "
            + article("a4", author: "9", comments: []) + #"], "included": [{"type": "people", "id": "007"}]}"#
        let database = directory.appendingPathComponent("keys.sqlite").path
        let importer = try SQLiteImporter(path: database)
        try importer.importDocument(
            from: try FileChunkReader(path: try Self.file(Array(decimal.utf8), in: directory, named: "d.json")),
            source: "d"
        )
        func typeOf(_ sql: String) throws -> [String] {
            try DatabaseQueue(path: database).read { db in try String.fetchAll(db, sql: sql) }
        }
        #expect(try typeOf("SELECT DISTINCT typeof(id) FROM articles") == ["integer"])
        #expect(try typeOf("SELECT DISTINCT typeof(author_id) FROM articles") == ["integer"])
        #expect(
            try typeOf("SELECT DISTINCT typeof(source_id) || typeof(target_id) FROM relationships") == [
                "integerinteger"
            ]
        )
        #expect(try Self.count(database, "SELECT COUNT(*) FROM articles WHERE id = '2'") == 1)

        for _ in 0..<2 {
            try importer.importDocument(
                from: try FileChunkReader(path: try Self.file(Array(mixed.utf8), in: directory, named: "m.json")),
                source: "m"
            )
        }
        #expect(try typeOf("SELECT id FROM articles ORDER BY id") == ["1", "2", "3", "a4"])
        #expect(try typeOf("SELECT DISTINCT typeof(id) FROM articles") == ["text"])
        #expect(try typeOf("SELECT author_id FROM articles ORDER BY id") == ["9", "10", "007", "9"])
        #expect(try typeOf("SELECT id FROM people ORDER BY id") == ["007", "10", "9"])
        #expect(
            try typeOf("SELECT source_id || '>' || target_id FROM relationships ORDER BY source_id") == [
                "1>5", "3>c-6",
            ]
        )
        #expect(
            try typeOf("SELECT declared_type FROM sluice_columns WHERE type = 'articles' AND column_name = 'author_id'")
                == ["TEXT"]
        )
        // Joins read the same, and the indexes were made again with the table.
        #expect(
            try Self.count(database, "SELECT COUNT(*) FROM articles JOIN people ON people.id = articles.author_id") == 4
        )
        #expect(
            try typeOf("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
                == ["articles_author_id_index", "relationships_target"]
        )
        #expect(try Self.count(database, "SELECT COUNT(*) FROM articles") == 4)
    }

    @Test("a document imports, and importing it again changes nothing")
    func importsAndReimports() throws {
        let directory = try Self.directory()
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

    @Test("a new database syncs once per document, an existing one at each checkpoint, with the same rows")
    func syncingFollowsTheDatabase() throws {
        let directory = try Self.directory()
        let path = try Self.file(sampleDocument(articles: 60, seed: 2, idPrefix: ""), in: directory, named: "a.json")
        let database = directory.appendingPathComponent("a.sqlite").path
        func synchronous(_ importer: SQLiteImporter) throws -> Int? {
            try importer.database.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        }
        /// The size of the database file itself (not its log).
        func fileSize() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? -1
        }

        let fresh = try SQLiteImporter(path: database)
        #expect(!fresh.syncsAtCheckpoints)
        #expect(try synchronous(fresh) == 0, "OFF while a new database fills")
        let before = try fileSize()
        let first = try fresh.importDocument(from: try FileChunkReader(path: path), source: "a.json")
        // The document's end synced the log and copied it into the file (far too few pages for
        // SQLite's own checkpoint, which waits for a thousand): the rows are in the file itself.
        #expect(try fileSize() >= before + 8 * 16384, "the log was checkpointed at the document's end")
        #expect(try synchronous(fresh) == 0, "still OFF for the next document")
        let counts = try ["articles", "people", "comments", "relationships"].map {
            try Self.count(database, "SELECT COUNT(*) FROM \($0)")
        }

        let existing = try SQLiteImporter(path: database)
        #expect(existing.syncsAtCheckpoints)
        #expect(try synchronous(existing) == 1, "NORMAL for a database that was there before")
        let again = try existing.importDocument(from: try FileChunkReader(path: path), source: "a.json")
        #expect(again.resources == first.resources)
        #expect(
            try ["articles", "people", "comments", "relationships"].map {
                try Self.count(database, "SELECT COUNT(*) FROM \($0)")
            } == counts
        )
    }

    @Test("rows go in many to a statement and in order: a resource given again is upserted over its first")
    func queuedRowsKeepOrder() throws {
        let directory = try Self.directory()
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
                // Decimal ids are the table's integer keys; a text id finds them all the same.
                .map { "\($0["id"] as Int64) \($0["a"] as Int) \($0["b"] as String)" }
        }
        #expect(rows == ["5 500 b-5", "7 701 y", "99 99 b-99"])
    }

    @Test("records that set other columns, in no order, keep their own queues; a key met again still wins")
    func interleavedColumnSets() throws {
        let directory = try Self.directory()
        // Three sets of columns taking turns (as events of several kinds do), 200 records, and
        // keys given again with another set while the first is still queued.
        var lines = (0..<200).map { index in
            switch index % 3 {
            case 0: #"{"id": \#(index), "kind": "push", "size": \#(index)}"#
            case 1: #"{"id": \#(index), "kind": "issue", "title": "t\#(index)"}"#
            default: #"{"id": \#(index), "kind": "watch"}"#
            }
        }
        lines += [
            #"{"id": 3, "kind": "issue", "title": "again"}"#,
            #"{"id": 4, "kind": "push", "size": -4}"#,
            #"{"id": 3, "kind": "push", "size": 33}"#,
        ]
        let path = try Self.file(Array(lines.joined(separator: "\n").utf8), in: directory, named: "events.jsonl")
        let database = directory.appendingPathComponent("events.sqlite").path
        var options = ImportOptions()
        options.batchSize = 1000
        options.records.primaryKey = ["id"]
        let summary = try SQLiteImporter(path: database, options: options)
            .importDocument(from: try FileChunkReader(path: path), source: "events.jsonl")
        #expect(summary.primaryCount == 203)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM events") == 200)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM events WHERE kind = 'push'") == 68)
        #expect(try Self.count(database, "SELECT SUM(size) FROM events WHERE id % 3 = 0 AND id <> 3") == 6630)
        let rows = try DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: "SELECT id, kind, size, title FROM events WHERE id IN (3, 4, 5) ORDER BY id")
                .map { row in
                    let size = (row["size"] as Int?).map(String.init) ?? "-"
                    return "\(row["id"] as Int64) \(row["kind"] as String) \(size) \(row["title"] as String? ?? "-")"
                }
        }
        // 3 took "again" as its title, then the push's size (its title stays); 4 became a push.
        #expect(rows == ["3 push 33 again", "4 push -4 t4", "5 watch - -"])
    }

    @Test("a database fault mid-batch rolls the batch back, its queued rows too, and keeps the batches before")
    func databaseFaultRollsBack() throws {
        let directory = try Self.directory()
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
        let directory = try Self.directory()
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
        let directory = try Self.directory()
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

    @Test("a job none of whose files can be opened reports each and makes no database")
    func unopenableSources() async throws {
        let directory = try Self.directory()
        let database = directory.appendingPathComponent("never.sqlite").path
        let missing = [
            directory.appendingPathComponent("nope.json").path, directory.appendingPathComponent("x.jsonl.gz").path,
        ]
        let outcomes = try await ImportJob(sources: missing.map(ImportSource.init(path:))) {
            try SQLiteImporter(path: database)
        }.run()
        #expect(outcomes.map(\.source.name) == missing)
        for outcome in outcomes {
            guard case .failure(let failure) = outcome.result else {
                Issue.record("\(outcome.source.name) was imported")
                continue
            }
            #expect(failure.underlying is FileChunkReader.Failure, "\(failure.underlying)")
            #expect(failure.committedResources == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: database), "a database was made for files that cannot be read")
    }

    @Test("a job reads asynchronous sequences of chunks beside files; a failing one stops alone")
    func jobReadsChunkSequences() async throws {
        let directory = try Self.directory()
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
