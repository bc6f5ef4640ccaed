import Foundation
import GRDB
import SluiceJSON
import SluiceJSONAPI
import SluicePostgres
import SluiceSQLite
import SluiceTestServer
import SluiceTools
import Testing

/// The import pipe's two sides at work, for Thread Sanitizer to watch: the reading thread (and
/// the parallel path's workers behind it) handing blocks to a writer that is the caller's thread
/// (SQLite) or an async task (PostgreSQL), a reader's fault, a writer's fault with the reader
/// still filling the pipe, a cancelled import, and `sluice import` of a URL, which feeds an HTTP
/// body into the pipe. Each test also checks the outcome against one reading thread.
@Suite("Import pipe under Thread Sanitizer", .timeLimit(.minutes(10)))
struct ImportRaceTests {
    /// A generated document of `articles` articles in a temporary file, with `plant` applied.
    static func document(articles: Int, plant: ((inout [UInt8]) -> Void)? = nil) throws -> String {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles).write { bytes.append(contentsOf: $0) }
        plant?(&bytes)
        let path = temporaryPath("json")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tsan-\(UUID().uuidString).\(suffix)").path
    }

    /// Comment 4000's id turned into a number: a fault deep in `included`, after many blocks.
    static func plantBadIdentifier(_ bytes: inout [UInt8]) {
        let target = Array(#"{"type":"comments","id":"4000","attributes""#.utf8)
        let range = bytes.firstRange(of: target)!
        bytes.replaceSubrange(range, with: Array(#"{"type":"comments","id":4000,"attributes""#.utf8))
    }

    /// A SQLite database and the files beside it that WAL mode makes.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// How an import ended, as a line to compare across runs.
    static func outcome(_ summary: ImportSummary) -> String {
        "imported \(summary.resources) (\(summary.primaryCount) primary), \(summary.relationshipRows) links"
    }

    static func outcome(_ failure: ImportFailure) -> String {
        "failed after \(failure.committedResources): \(failure.underlying)"
    }

    static func options(threads: Int, batchSize: Int = 300) -> ImportOptions {
        var options = ImportOptions()
        options.parallelism = .workers(threads)
        options.batchSize = batchSize
        return options
    }

    /// What an import left in SQLite, as lines: the rows per table, every relationship row.
    static func contents(of path: String) throws -> [String] {
        let database = try DatabaseQueue(path: path)
        return try database.read { db in
            var lines: [String] = []
            for (type, table) in try Row.fetchAll(db, sql: "SELECT type, table_name FROM sluice_tables ORDER BY type")
                .map({ ($0[0] as String, $0[1] as String) })
            {
                // Ids in text order, whether the table keeps them as integers or as text.
                let ids = try String.fetchAll(
                    db,
                    sql: "SELECT CAST(id AS TEXT) FROM \"\(table)\" ORDER BY CAST(id AS TEXT)"
                )
                lines.append("\(type): \(ids.count) rows, ids \(ids.joined(separator: ","))")
                // To-one linkage: the target columns recorded under a `/relationships/NAME/data/...` key
                // (not meta: PostgreSQL's jsonb text has spaces where SQLite's has none).
                for column in try String.fetchAll(
                    db,
                    sql: """
                        SELECT column_name FROM sluice_columns
                        WHERE type = ? AND attribute LIKE '/relationships/%/data/%' ORDER BY column_name
                        """,
                    arguments: [type]
                ) {
                    lines += try String.fetchAll(
                        db,
                        sql: """
                            SELECT '\(column) ' || id || ' ' || COALESCE("\(column)", '-') FROM "\(table)"
                            ORDER BY CAST(id AS TEXT)
                            """
                    )
                }
            }
            lines += try String.fetchAll(
                db,
                sql: """
                    SELECT source_type || ' ' || source_id || ' ' || name || ' ' || position || ' '
                        || target_type || ' ' || target_id
                    FROM relationships ORDER BY source_type, CAST(source_id AS TEXT), name, position
                    """
            )
            return lines
        }
    }

    /// Imports `path` into a fresh SQLite database; the summary or the failure, and the contents.
    static func importSQLite(
        _ path: String,
        threads: Int,
        prepare: ((DatabaseQueue) throws -> Void)? = nil
    ) throws -> (outcome: String, contents: [String], progressCalls: Int) {
        let database = temporaryPath("sqlite")
        defer {
            removeDatabase(database)
        }
        let importer = try SQLiteImporter(path: database, options: options(threads: threads))
        try prepare?(importer.database)
        var progressCalls = 0
        var lastRead = 0
        let outcome: String
        do {
            let summary = try importer.importDocument(from: try FileChunkReader(path: path), source: "doc") {
                progress in
                // Called on this thread: no lock needed, and TSan would say so if it were not.
                precondition(progress.bytesRead >= lastRead, "progress went backwards")
                lastRead = progress.bytesRead
                progressCalls += 1
            }
            outcome = Self.outcome(summary)
        } catch let failure as ImportFailure {
            outcome = Self.outcome(failure)
        }
        return (outcome, try contents(of: database), progressCalls)
    }

    @Test("SQLite: 1 reading thread against 2 and 4, blocks handed to the caller's thread")
    func sqlite() throws {
        let path = try Self.document(articles: 1500)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = try Self.importSQLite(path, threads: 1)
        #expect(reference.outcome.hasPrefix("imported "), "\(reference.outcome)")
        #expect(reference.contents.count > 4000)
        #expect(reference.progressCalls > 10)
        for threads in [2, 4] {
            let run = try Self.importSQLite(path, threads: threads)
            #expect(run.outcome == reference.outcome, "\(threads) threads")
            #expect(run.contents == reference.contents, "\(threads) threads")
        }
    }

    @Test("SQLite: JSON Lines on 1 reading thread against 2 and 4, whole and with a bad line deep in")
    func sqliteLines() throws {
        for bad in [false, true] {
            var lines = (0..<40000).map { "{\"name\": \"r\($0)\", \"n\": \($0), \"tags\": [\"a\", \"b\"]}" }
            if bad { lines[31234] = "{\"name\": \"r31234\", \"n\": }" }
            let path = Self.temporaryPath("ndjson")
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let reference = try Self.importSQLite(path, threads: 1)
            #expect(
                reference.outcome.hasPrefix(bad ? "failed after 31234: " : "imported 40000"),
                "\(reference.outcome)"
            )
            for threads in [2, 4] {
                let run = try Self.importSQLite(path, threads: threads)
                #expect(run.outcome == reference.outcome, "\(threads) threads")
                #expect(run.contents == reference.contents, "\(threads) threads")
            }
        }
    }

    @Test("SQLite: a fault deep in the document stops the writer after the blocks before it")
    func sqliteReaderFault() throws {
        let path = try Self.document(articles: 1500, plant: Self.plantBadIdentifier)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = try Self.importSQLite(path, threads: 1)
        #expect(reference.outcome.hasPrefix("failed after "), "\(reference.outcome)")
        #expect(reference.outcome.contains("/included/"), "\(reference.outcome)")
        #expect(!reference.contents.isEmpty)
        let parallel = try Self.importSQLite(path, threads: 4)
        #expect(parallel.outcome == reference.outcome)
        #expect(parallel.contents == reference.contents)
    }

    @Test("SQLite: the writer fails while the reader is still filling the pipe")
    func sqliteWriterFault() throws {
        let path = try Self.document(articles: 3000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A trigger on the comments table (made by a first, small import) refuses one comment:
        // the writer throws at it while the reader, far ahead, waits on a full pipe.
        let small = try Self.document(articles: 2)
        defer { try? FileManager.default.removeItem(atPath: small) }
        func prepare(_ database: DatabaseQueue) throws {
            let importer = try SQLiteImporter(path: database.path, options: Self.options(threads: 1))
            try importer.importDocument(from: try FileChunkReader(path: small), source: "small")
            try database.write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER refuse BEFORE INSERT ON comments WHEN NEW.id = '600'
                        BEGIN SELECT RAISE(ABORT, 'comment 600 refused'); END
                        """
                )
            }
        }
        let reference = try Self.importSQLite(path, threads: 1, prepare: prepare)
        #expect(reference.outcome.hasPrefix("failed after "), "\(reference.outcome)")
        #expect(reference.outcome.contains("comment 600 refused"), "\(reference.outcome)")
        for threads in [2, 4] {
            let run = try Self.importSQLite(path, threads: threads, prepare: prepare)
            #expect(run.outcome == reference.outcome, "\(threads) threads")
            #expect(run.contents == reference.contents, "\(threads) threads")
        }
    }
}

/// The same against the PostgreSQL server `scripts/with-postgres.sh` starts: the writer is an
/// async task that waits on the pipe through a continuation.
@Suite(
    "Import pipe under Thread Sanitizer: PostgreSQL",
    .enabled(if: Postgres.url != nil, Postgres.skipReason),
    .timeLimit(.minutes(10))
)
struct PostgresRaceTests {
    /// A fresh database's URL.
    static func database() async throws -> String {
        let name = "sluice_tsan_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await PostgresImporter.connect(to: try PostgresTarget(url: Postgres.url(database: "postgres")))
        _ = try await admin.rows("CREATE DATABASE \(name)")
        try await admin.close()
        return Postgres.url(database: name)
    }

    static func contents(_ importer: PostgresImporter) async throws -> [String] {
        var lines: [String] = []
        for row in try await importer.rows("SELECT type, table_name FROM sluice_tables ORDER BY type") {
            let ids = try await importer.rows("SELECT id FROM \"\(row[1]!)\" ORDER BY id COLLATE \"C\"").map { $0[0]! }
            lines.append("\(row[0]!): \(ids.count) rows, ids \(ids.joined(separator: ","))")
            // To-one linkage: the target columns recorded under a `/relationships/NAME/data/...` key
            // (not meta: PostgreSQL's jsonb text has spaces where SQLite's has none).
            let type = row[0]!.replacingOccurrences(of: "'", with: "''")
            for column in try await importer.rows(
                """
                SELECT column_name FROM sluice_columns
                WHERE type = '\(type)' AND attribute LIKE '/relationships/%/data/%' ORDER BY column_name
                """
            ) {
                let name = column[0]!
                lines += try await importer.rows(
                    """
                    SELECT '\(name) ' || id || ' ' || COALESCE("\(name)"::text, '-') FROM "\(row[1]!)"
                    ORDER BY id COLLATE "C"
                    """
                ).map { $0[0]! }
            }
        }
        lines += try await importer.rows(
            """
            SELECT source_type || ' ' || source_id || ' ' || name || ' ' || position || ' ' || target_type || ' ' || target_id
            FROM relationships ORDER BY source_type, source_id, name, position
            """
        ).map { $0[0]! }
        return lines
    }

    static func importPostgres(_ path: String, threads: Int) async throws -> (outcome: String, contents: [String]) {
        let importer = try await PostgresImporter.connect(
            to: try PostgresTarget(url: try await database()),
            options: ImportRaceTests.options(threads: threads)
        )
        let outcome: String
        do {
            let summary = try await importer.importDocument(from: try FileChunkReader(path: path), source: "doc")
            outcome = ImportRaceTests.outcome(summary)
        } catch let failure as ImportFailure {
            outcome = ImportRaceTests.outcome(failure)
        }
        let contents = try await contents(importer)
        try await importer.close()
        return (outcome, contents)
    }

    @Test("PostgreSQL: 1 reading thread against 4, and a fault deep in the document")
    func postgres() async throws {
        let path = try ImportRaceTests.document(articles: 1500)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = try await Self.importPostgres(path, threads: 1)
        #expect(reference.outcome.hasPrefix("imported "), "\(reference.outcome)")
        let parallel = try await Self.importPostgres(path, threads: 4)
        #expect(parallel.outcome == reference.outcome)
        #expect(parallel.contents == reference.contents)
        // The same resources and links as SQLite's import of the same document.
        let sqlite = try ImportRaceTests.importSQLite(path, threads: 4)
        #expect(sqlite.outcome == reference.outcome)
        #expect(sqlite.contents == reference.contents)

        let bad = try ImportRaceTests.document(articles: 1500, plant: ImportRaceTests.plantBadIdentifier)
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let failedReference = try await Self.importPostgres(bad, threads: 1)
        #expect(failedReference.outcome.hasPrefix("failed after "), "\(failedReference.outcome)")
        let failed = try await Self.importPostgres(bad, threads: 4)
        #expect(failed.outcome == failedReference.outcome)
        #expect(failed.contents == failedReference.contents)
    }

    @Test("PostgreSQL: an import whose task is cancelled mid-way stops, and its reader with it")
    func cancelled() async throws {
        let path = try ImportRaceTests.document(articles: 4000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = try await Self.database()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        // The importer lives in the task: it is not Sendable, and the task is where it runs.
        let task = Task { () async throws -> String in
            let importer = try await PostgresImporter.connect(
                to: try PostgresTarget(url: url),
                options: ImportRaceTests.options(threads: 4, batchSize: 200)
            )
            defer { startedContinuation.finish() }
            do {
                let summary = try await importer.importDocument(from: try FileChunkReader(path: path), source: "doc") {
                    progress in
                    if progress.committedResources > 0 { startedContinuation.yield() }
                }
                return "imported \(summary.resources)"
            } catch let failure as ImportFailure {
                return "failed after \(failure.committedResources): \(failure.underlying)"
            }
            // The importer is released here without close(): its deinit closes the connection.
        }
        for await _ in started { break }
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.hasPrefix("failed after "), "\(outcome)")
        #expect(outcome.hasSuffix(": \(CancellationError())"), "\(outcome)")
        // Stopped within a few batches of 200 of the cancellation, not at the document's end
        // (some 16 000 resources).
        let committed = Int(outcome.dropFirst("failed after ".count).prefix(while: \.isNumber)) ?? -1
        #expect(committed >= 0 && committed < 4000, "\(outcome)")
        // What the cancelled import left must not hold the next one: its lock is free (once the
        // released importer's connection has closed), and the documents row says it failed.
        let other = try await PostgresImporter.connect(to: try PostgresTarget(url: url))
        var lockFree: [[String?]] = []
        for _ in 0..<100 {
            lockFree = try await other.rows("SELECT pg_try_advisory_lock(\(0x5_1c1e))")
            if lockFree == [["true"]] { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(lockFree == [["true"]])
        let status = try await other.rows("SELECT status FROM documents")
        try await other.close()
        #expect(status == [["failed"]])
    }
}

/// `sluice import` of a URL: the CLI, built instrumented, feeds the HTTP body (AsyncHTTPClient on
/// NIO's threads) into a pipe that the importer reads on a thread of its own.
@Suite("sluice import URL under Thread Sanitizer", .timeLimit(.minutes(10)))
struct ImportCommandRaceTests {
    /// The `sluice` SwiftPM built beside this test bundle.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("sluice")

    /// Runs the instrumented CLI; its standard error goes to a file, so no pipe can fill.
    static func run(_ arguments: [String]) async throws -> (status: Int32, standardError: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        let errorPath = ImportRaceTests.temporaryPath("stderr")
                        defer { try? FileManager.default.removeItem(atPath: errorPath) }
                        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
                        let process = Process()
                        process.executableURL = executable
                        process.arguments = arguments
                        process.standardOutput = FileHandle.nullDevice
                        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
                        try process.run()
                        process.waitUntilExit()
                        let standardError = try String(contentsOfFile: errorPath, encoding: .utf8)
                        return (process.terminationStatus, standardError)
                    }
                )
            }.start()
        }
    }

    @Test("pages of a URL into SQLite and PostgreSQL, 1 and 4 reading threads")
    func importURL() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable.path), "\(Self.executable.path)")
        try await JSONAPITestServer.with(total: 400, chunkSize: 173) { server in
            let pages = server.url("/offset/articles?page%5Blimit%5D=50").absoluteString
            var references: [[String]] = []
            for jobs in ["1", "4"] {
                let database = ImportRaceTests.temporaryPath("sqlite")
                defer {
                    ImportRaceTests.removeDatabase(database)
                }
                let run = try await Self.run([
                    // All of TSan's suites share 2 cores: a page's head may take more than the default 30 s.
                    "import", pages, "--sqlite", database, "--batch-size", "30", "--jobs", jobs, "--timeout", "120",
                ])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(!run.standardError.contains("ThreadSanitizer"), "\(run.standardError)")
                let contents = try ImportRaceTests.contents(of: database)
                #expect(
                    contents.first
                        == "articles: 400 rows, ids \((1...400).map(String.init).sorted().joined(separator: ","))"
                )
                references.append(contents)
            }
            #expect(references[0] == references[1])
            if Postgres.url != nil {
                let database = try await PostgresRaceTests.database()
                let run = try await Self.run([
                    "import", pages, "--postgres", database, "--batch-size", "30", "--jobs", "4", "--timeout", "120",
                ])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(!run.standardError.contains("ThreadSanitizer"), "\(run.standardError)")
                let importer = try await PostgresImporter.connect(to: try PostgresTarget(url: database))
                #expect(try await PostgresRaceTests.contents(importer) == references[0])
                try await importer.close()
            }
            // A body cut off mid-way: the feeding side fails while the importer reads.
            let database = ImportRaceTests.temporaryPath("sqlite")
            defer {
                ImportRaceTests.removeDatabase(database)
            }
            let truncated = try await Self.run([
                "import", server.url("/truncated").absoluteString, "--sqlite", database,
            ])
            #expect(truncated.status == 2, "\(truncated.standardError)")
            #expect(truncated.standardError.contains("the request failed"), "\(truncated.standardError)")
            #expect(!truncated.standardError.contains("ThreadSanitizer"), "\(truncated.standardError)")
        }
    }
}

/// The PostgreSQL server `scripts/with-postgres.sh` starts, or the reason there is none.
enum Postgres {
    static let url = ProcessInfo.processInfo.environment["SLUICE_POSTGRES_URL"]
    static let password = ProcessInfo.processInfo.environment["SLUICE_POSTGRES_PASSWORD"]
    static var skipReason: Comment {
        Comment(
            rawValue: ProcessInfo.processInfo.environment["SLUICE_POSTGRES_SKIP_REASON"]
                ?? "no PostgreSQL server: run through scripts/with-postgres.sh (make test-tsan does)"
        )
    }

    /// The server's URL for `database`, with the password.
    static func url(database: String) -> String {
        var components = URLComponents(string: url!)!
        components.password = password
        components.path = "/\(database)"
        return components.string!
    }
}
