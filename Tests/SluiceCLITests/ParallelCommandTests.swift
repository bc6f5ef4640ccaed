import Foundation
import GRDB
import Testing

/// `--jobs`: `sluice import`, `flatten` and `validate --syntax` give the same databases,
/// lines and faults for any number of threads, run as the built binary on real files.
@Suite("Parallel commands")
struct ParallelImportTests {
    typealias Command = ValidateCommandTests

    /// Every row of every table but `documents` (whose times differ), as text, sorted (some tables
    /// have no rowid to order by).
    static func dump(_ database: String) throws -> [String] {
        try ImportCommandTests.read(database) { db in
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'documents' ORDER BY name"
            )
            var lines: [String] = []
            for table in tables {
                lines += try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { "\(table): \($0)" }.sorted()
            }
            return lines
        }
    }

    /// `document` imported with 1, 2 and 8 jobs, each into the same database path, emptied first
    /// (messages name the database): each run and what the database then holds.
    static func importWithEveryJobs(
        _ document: String,
        in directory: URL
    ) async throws -> [(jobs: Int, run: Command.Run, dump: [String])] {
        let database = directory.appendingPathComponent("import.sqlite").path
        var results: [(jobs: Int, run: Command.Run, dump: [String])] = []
        for jobs in [1, 2, 8] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            let run = try await Command.run([
                "import", document, "--sqlite", database, "--jobs", String(jobs), "--quiet",
            ])
            results.append((jobs, run, try Self.dump(database)))
        }
        return results
    }

    @Test("import: the same tables, rows and relationships for 1, 2 and 8 threads")
    func importSame() async throws {
        let directory = try ImportCommandTests.directory()
        // About 3 MB: some ninety batches of 32 KiB.
        let document = try await ImportCommandTests.generate(articles: 2000, into: directory)
        let imports = try await Self.importWithEveryJobs(document, in: directory)
        for (jobs, run, dump) in imports {
            #expect(run.status == 0, "\(run.standardError)")
            #expect(dump.count > 10_000)
            #expect(dump == imports[0].dump, "--jobs \(jobs)")
        }
    }

    @Test("import of a document with a fault: the same rows committed and the same message")
    func importFault() async throws {
        let directory = try ImportCommandTests.directory()
        let path = try await ImportCommandTests.generate(articles: 2000, into: directory)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // A comment's id made a number, deep in included.
        let target = Data(#"{"type":"comments","id":"4000","attributes""#.utf8)
        let range = try #require(bytes.range(of: target))
        bytes.replaceSubrange(range, with: Data(#"{"type":"comments","id":4000,"attributes""#.utf8))
        let faulty = directory.appendingPathComponent("faulty.json").path
        try bytes.write(to: URL(fileURLWithPath: faulty))
        let imports = try await Self.importWithEveryJobs(faulty, in: directory)
        for (jobs, run, dump) in imports {
            #expect(run.status == 1)
            #expect(run.standardError.contains("/included/"), "\(run.standardError)")
            #expect(run.standardError == imports[0].run.standardError, "--jobs \(jobs)")
            #expect(dump == imports[0].dump, "--jobs \(jobs): the same rows committed")
        }
    }

    @Test("flatten and validate --syntax: the same output and faults for 1, 2 and 8 threads")
    func flattenAndValidate() async throws {
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 2000, into: directory)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: document))
        bytes.insert(UInt8(ascii: "x"), at: bytes.count * 2 / 3)
        let faulty = directory.appendingPathComponent("faulty.json").path
        try bytes.write(to: URL(fileURLWithPath: faulty))
        for arguments in [["flatten", document], ["flatten", faulty], ["validate", "--syntax", faulty]] {
            let reference = try await Command.run(arguments + ["--jobs", "1"])
            for jobs in ["2", "8"] {
                let run = try await Command.run(arguments + ["--jobs", jobs])
                #expect(run.status == reference.status, "\(arguments) --jobs \(jobs)")
                #expect(run.standardOutput == reference.standardOutput, "\(arguments) --jobs \(jobs)")
                #expect(run.standardError == reference.standardError, "\(arguments) --jobs \(jobs)")
            }
        }
        #expect(try await Command.run(["flatten", document, "--jobs", "0"]).status == 2, "--jobs 0 is a usage error")
    }
}
