import Foundation
import GRDB
import SluicePostgres
import SluiceTestServer
import Testing

/// Imports interrupted at random moments, over and over: the process killed (SIGKILL) while it
/// writes SQLite, the importing backend ended (`pg_terminate_backend`) while it writes PostgreSQL,
/// across batches, commits and the work at the end. Each interruption must leave a clean failure
/// (no crash, whole batches, a readable database), and each `--resume` the answers of an import
/// that was never interrupted.
@Suite("Imports interrupted at random moments")
struct InterruptedImportTests {
    typealias Command = ValidateCommandTests

    /// The questions whose answers an interrupted-then-resumed import must share with a clean one.
    static let questions = [
        "SELECT COUNT(*), SUM(views), MIN(title), MAX(title) FROM articles",
        "SELECT COUNT(*), SUM(likes) FROM comments",
        "SELECT COUNT(*) FROM people",
        "SELECT COUNT(*), COUNT(DISTINCT source_id) FROM relationships",
        "SELECT COUNT(author_id) FROM articles",
        "SELECT status, resources, primary_count, included_count, relationship_rows FROM documents",
    ]

    /// A small deterministic generator, so that a failing round can be run again from its seed.
    struct Moments: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    static let seed = UInt64(Date().timeIntervalSince1970)

    /// Rounds per test: 6 in a test run; SLUICE_INTERRUPT_ROUNDS=200 hunts for a rare moment.
    static let rounds = Int(ProcessInfo.processInfo.environment["SLUICE_INTERRUPT_ROUNDS"] ?? "") ?? 6

    /// Runs `arguments` as `sluice` in short slices (stopped between them, so that the moment
    /// does not depend on how loaded the machine is), until `committed` reaches `threshold`;
    /// then calls `interrupt` while the process stands still, lets it go on, and returns how it
    /// ended. `interrupted` says whether it was still running at the moment.
    static func run(
        _ arguments: [String],
        interruptingOnceCommitted threshold: Int,
        committed: () async -> Int,
        interrupt: (Process) async throws -> Void
    ) async throws -> (status: Int32, reason: Process.TerminationReason, standardError: String, interrupted: Bool) {
        let process = Process()
        process.executableURL = Command.executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        kill(process.processIdentifier, SIGSTOP)
        let reader = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline, await committed() < threshold {
            ImportCommandTests.runSlice(of: process, microseconds: 10_000)
        }
        let interrupted = process.isRunning
        if interrupted { try await interrupt(process) }
        kill(process.processIdentifier, SIGCONT)
        let text = String(decoding: await reader.value, as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, text, interrupted)
    }

    @Test("SQLite: killed at random moments, each resume gives the clean import's answers")
    func sqliteKilled() async throws {
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 3_000, into: directory)
        let clean = directory.appendingPathComponent("clean.sqlite").path
        #expect(try await Command.run(["import", document, "--sqlite", clean, "--quiet"]).status == 0)
        let expected = try Self.questions.map { try PlainImportCommandTests.rows(clean, $0) }
        let total = Int(try PlainImportCommandTests.rows(clean, "SELECT resources FROM documents")[0][0])!

        var moments = Moments(state: Self.seed)
        var interrupted = 0
        for round in 0..<Self.rounds {
            let database = directory.appendingPathComponent("killed-\(round).sqlite").path
            // Anywhere from the first statement to the end (every batch in: the indexes, the sync).
            let threshold = Int.random(in: 0...total, using: &moments)
            let killed = try await Self.run(
                ["import", document, "--sqlite", database, "--batch-size", "200", "--quiet"],
                interruptingOnceCommitted: threshold,
                committed: {
                    let rows = try? PlainImportCommandTests.rows(database, "SELECT MAX(resources) FROM documents")
                    return rows?.first?.first.flatMap { Int($0) } ?? 0
                },
                interrupt: { process in kill(process.processIdentifier, SIGKILL) }
            )
            let context = "round \(round), seed \(Self.seed), killed at \(threshold) resources: \(killed.standardError)"
            if killed.interrupted {
                interrupted += 1
                #expect(killed.reason == .uncaughtSignal, "\(context)")
                #expect(killed.status == SIGKILL, "\(context)")
                // What the kill left is a database SQLite reads whole.
                let check = try PlainImportCommandTests.rows(database, "PRAGMA integrity_check")
                #expect(check == [["ok"]], "\(context)")
            } else {
                #expect(killed.status == 0, "\(context)")
            }
            let resumed = try await Command.run(["import", document, "--sqlite", database, "--resume", "--quiet"])
            #expect(resumed.status == 0, "\(context); resumed: \(resumed.standardError)")
            for (question, answer) in zip(Self.questions, expected) {
                let answers = try PlainImportCommandTests.rows(database, question)
                #expect(answers == answer, "\(context): \(question)")
            }
        }
        // The moments are spread over the import's length: most land before its end.
        #expect(
            interrupted >= Self.rounds / 3,
            "\(interrupted) of \(Self.rounds) imports were killed, seed \(Self.seed)"
        )
    }

    @Test(
        "PostgreSQL: the backend ended at random moments, each a clean failure, each resume the clean import",
        .enabled(if: TestPostgres.available, Comment(rawValue: TestPostgres.skipReason))
    )
    func postgresTerminated() async throws {
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 3_000, into: directory)
        let sqlite = directory.appendingPathComponent("clean.sqlite").path
        #expect(try await Command.run(["import", document, "--sqlite", sqlite, "--quiet"]).status == 0)
        let clean = try await TestPostgres.database()
        #expect(try await Command.run(["import", document, "--postgres", clean, "--quiet"]).status == 0)
        var expected: [[[String?]]] = []
        for question in Self.questions { expected.append(try await TestPostgres.query(clean, question)) }
        let total = Int(try await TestPostgres.query(clean, "SELECT resources FROM documents")[0][0]!)!

        var moments = Moments(state: Self.seed ^ 0x5eed)
        var interrupted = 0
        for round in 0..<Self.rounds {
            let url = try await TestPostgres.database()
            let threshold = Int.random(in: 0...total, using: &moments)
            // One connection, opened before the import, watches it: a new one would first wait
            // for the schema lock, which the stopped import may hold.
            let watcher = try await PostgresImporter.connect(to: try PostgresTarget(url: url))
            let ended = try await Self.run(
                ["import", document, "--postgres", url, "--batch-size", "200", "--quiet"],
                interruptingOnceCommitted: threshold,
                committed: {
                    let rows = try? await watcher.rows("SELECT MAX(resources) FROM documents")
                    return rows?.first?.first.flatMap { $0.flatMap(Int.init) } ?? 0
                },
                interrupt: { _ in
                    // Every backend of the import's database but the watcher's own.
                    _ = try await watcher.rows(
                        """
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                        """
                    )
                }
            )
            try await watcher.close()
            let context = "round \(round), seed \(Self.seed), ended at \(threshold) resources: \(ended.standardError)"
            // Never a crash: an exit with a message, 2 for the database's fault (0 when the import
            // was done before the backend was ended).
            #expect(ended.reason == .exit, "\(context)")
            #expect(ended.status == 0 || ended.status == 2, "\(context)")
            if ended.status == 2 { #expect(ended.standardError.contains("PostgreSQL"), "\(context)") }
            if ended.interrupted { interrupted += 1 }
            let resumed = try await Command.run(["import", document, "--postgres", url, "--resume", "--quiet"])
            #expect(resumed.status == 0, "\(context); resumed: \(resumed.standardError)")
            for (question, answer) in zip(Self.questions, expected) {
                let answers = try await TestPostgres.query(url, question)
                #expect(answers == answer, "\(context): \(question)")
            }
        }
        #expect(
            interrupted >= Self.rounds / 3,
            "\(interrupted) of \(Self.rounds) imports were ended, seed \(Self.seed)"
        )
    }
}
