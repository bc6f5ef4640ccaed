import Foundation
import SluicePostgres
import SluiceTestServer
import Testing

/// Several `sluice import --postgres` processes writing one database at once.
@Suite(
    "concurrent imports into one PostgreSQL database",
    .enabled(if: TestPostgres.available, Comment(rawValue: TestPostgres.skipReason))
)
struct ConcurrentPostgresImportTests {
    typealias Command = ValidateCommandTests

    /// Four documents: two of disjoint resources (their ids made distinct), and one document
    /// under two names, so that two imports write the same keys at the same time.
    static func documents(in directory: URL) async throws -> [String] {
        var paths: [String] = []
        // b.json is the longest: the test that stops an import between two batches stops it.
        for (name, seed, prefix, articles) in [
            ("a.json", 1, "", 400), ("b.json", 2, "b", 2000), ("c.json", 3, "c", 400),
        ] {
            let path = directory.appendingPathComponent(name).path
            let run = try await Command.run([
                "generate", "--articles", String(articles), "--seed", String(seed), "-o", path,
            ])
            #expect(run.status == 0, "\(run.standardError)")
            if !prefix.isEmpty {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                try text.replacingOccurrences(of: #""id":""#, with: #""id":"\#(prefix)"#)
                    .write(toFile: path, atomically: true, encoding: .utf8)
            }
            paths.append(path)
        }
        let copy = directory.appendingPathComponent("a-again.json").path
        try FileManager.default.copyItem(atPath: paths[0], toPath: copy)
        return [paths[0], copy, paths[1], paths[2]]
    }

    /// Everything an import leaves, as answers that do not depend on the order columns were
    /// added in or on when rows were written: each column's values by id, every relationship
    /// row, the catalog, and each document's outcome.
    static func contents(of url: String) async throws -> [[String?]] {
        var answers: [[String?]] = []
        let columns = try await TestPostgres.query(
            url,
            """
            SELECT c.type, t.table_name, c.attribute, c.column_name, c.declared_type FROM sluice_columns c
            JOIN sluice_tables t ON t.type = c.type ORDER BY c.type, c.attribute
            """
        )
        answers += columns
        for column in columns {
            let table = "\"\(column[1]!)\""
            let name = "\"\(column[3]!)\""
            answers += try await TestPostgres.query(
                url,
                """
                SELECT COUNT(*), md5(string_agg(id || '=' || COALESCE(\(name)::text, '-'), ',' ORDER BY id))
                FROM \(table)
                """
            )
        }
        answers += try await TestPostgres.query(
            url,
            """
            SELECT COUNT(*), md5(string_agg(concat_ws('/', source_type, source_id, name, position, target_type,
                target_id, meta::text), ',' ORDER BY source_type, source_id, name, position))
            FROM relationships
            """
        )
        answers += try await TestPostgres.query(
            url,
            "SELECT source, status, resources, relationship_rows, primary_count, included_count FROM documents ORDER BY source"
        )
        return answers
    }

    /// Starts an import of `document` into `url`.
    /// A fresh database into which `documents` were imported one after another: the rows that
    /// imports run side by side must give.
    static func importedOneByOne(_ documents: [String]) async throws -> String {
        let database = try await TestPostgres.database()
        for document in documents {
            let run = try await Command.run([
                "import", document, "--postgres", database, "--batch-size", "150", "--quiet",
            ])
            #expect(run.status == 0, "\(run.standardError)")
        }
        return database
    }

    static func start(_ document: String, into url: String) throws -> Process {
        let process = Process()
        process.executableURL = Command.executable
        process.arguments = ["import", document, "--postgres", url, "--batch-size", "150", "--quiet", "--jobs", "1"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test("four imports at once, of different and of the same resources, give the rows of the same imports one by one")
    func concurrentEqualsSequential() async throws {
        let directory = try ImportCommandTests.directory()
        let documents = try await Self.documents(in: directory)
        let sequential = try await Self.importedOneByOne(documents)
        let expected = try await Self.contents(of: sequential)
        #expect(expected.count > 20)

        let concurrent = try await TestPostgres.database()
        let processes = try documents.map { try Self.start($0, into: concurrent) }
        for process in processes {
            await Command.waitForExit(of: process)
            #expect(process.terminationStatus == 0)
        }
        #expect(try await Self.contents(of: concurrent) == expected)
    }

    @Test(
        "imports finish while another stands still between batches; killed and resumed, it still gives the sequential rows"
    )
    func stalledKilledAndResumed() async throws {
        let directory = try ImportCommandTests.directory()
        let documents = try await Self.documents(in: directory)
        let sequential = try await Self.importedOneByOne(documents)
        let expected = try await Self.contents(of: sequential)

        let concurrent = try await TestPostgres.database()
        let victim = try Self.start(documents[2], into: concurrent)
        kill(victim.processIdentifier, SIGSTOP)
        // Run it in slices until it has committed a few batches and stands between two (no
        // transaction open): stopped there, it holds nothing another import could wait for. Short
        // slices: a fast import commits several batches in a long one, and can finish before a
        // slice happens to end between two.
        let watcher = try await PostgresImporter.connect(to: try PostgresTarget(url: concurrent))
        /// Whether no other session of the database is inside a statement or a transaction.
        func othersIdle() async -> Bool {
            let open = try? await watcher.rows(
                """
                SELECT COUNT(*) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'
                """
            )
            return open?.first?.first == "0"
        }
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, victim.isRunning {
            ImportCommandTests.runSlice(of: victim, microseconds: 4_000)
            let committed = try? await watcher.rows(
                "SELECT COALESCE(MAX(resources), 0) FROM documents WHERE source LIKE '%/b.json'"
            )
            guard (committed?.first?.first.flatMap { $0.flatMap(Int.init) } ?? 0) >= 300, await othersIdle() else {
                continue
            }
            // Asked again a moment later: a statement the import wrote just before it stopped may
            // still wait in its socket, and the server runs it (taking its locks) while the
            // import stands still. Seen idle once, such a stop left the others waiting.
            try await Task.sleep(for: .milliseconds(200))
            if await othersIdle() { break }
        }
        try await watcher.close()
        #expect(victim.isRunning, "the import finished before it could be stopped")

        // The others run to the end while it stands still.
        let others = try [documents[0], documents[1], documents[3]].map { try Self.start($0, into: concurrent) }
        let othersDeadline = Date().addingTimeInterval(120)
        while others.contains(where: \.isRunning), Date() < othersDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let stillRunning = others.filter(\.isRunning).count
        #expect(stillRunning == 0, "the other imports waited for the stopped one")
        for process in others where process.isRunning { process.terminate() }
        kill(victim.processIdentifier, SIGKILL)
        await Command.waitForExit(of: victim)
        for process in others {
            await Command.waitForExit(of: process)
            #expect(process.terminationStatus == 0)
        }
        let resumed = try await Command.run(["import", documents[2], "--postgres", concurrent, "--resume", "--quiet"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(try await Self.contents(of: concurrent) == expected)
    }

    @Test("one command imports several documents at once, with the rows of the sequential run and a line each")
    func oneCommandManyDocuments() async throws {
        let directory = try ImportCommandTests.directory()
        let documents = try await Self.documents(in: directory)
        let sequential = try await Self.importedOneByOne(documents)
        let together = try await TestPostgres.database()
        let run = try await Command.run(
            ["import"] + documents + ["--postgres", together, "--batch-size", "150", "--jobs", "4"]
        )
        #expect(run.status == 0, "\(run.standardError)")
        for document in documents { #expect(run.standardOutput.contains("\(document): ")) }
        #expect(run.standardOutput.contains("Imported 4 of 4 documents"))
        #expect(run.standardOutput.contains("4 at a time"))
        #expect(try await Self.contents(of: together) == (try await Self.contents(of: sequential)))
    }
}
