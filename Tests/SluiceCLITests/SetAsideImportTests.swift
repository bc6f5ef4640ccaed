import Foundation
import GRDB
import Testing

/// `sluice import --on-fault skip`: records that fail are set aside in the `faults` table and the
/// rest imported, on one thread and on several, run as the built binary against real SQLite files.
@Suite("sluice import --on-fault skip")
struct SetAsideImportTests {
    typealias Command = ValidateCommandTests
    typealias Rows = PlainImportCommandTests

    /// A JSON:API document of `count` people, one per line, where the resources at `bad` break a
    /// rule each (cycling through three faults), and an included resource that breaks one too.
    static func document(count: Int, bad: Set<Int>) -> String {
        var lines: [String] = []
        for index in 0..<count {
            guard bad.contains(index) else {
                lines.append(#"{"type": "people", "id": "\#(index)", "attributes": {"name": "p\#(index)"}}"#)
                continue
            }
            switch index % 3 {
            case 0: lines.append(#"{"type": "people", "id": \#(index)}"#)
            case 1: lines.append(#"{"type": "people", "id": "\#(index)", "relationships": {"x": 5}}"#)
            default: lines.append(#"{"type": 7, "id": "\#(index)"}"#)
            }
        }
        return "{\"data\": [\n" + lines.joined(separator: ",\n")
            + "\n], \"included\": [\n{\"type\": \"tags\", \"id\": \"t\", \"links\": {\"self\": 5}}\n]}\n"
    }

    @Test("JSON:API resources that break a rule are set aside with where and why; the rest are imported")
    func jsonAPIResources() async throws {
        let directory = try ImportCommandTests.directory()
        let input = try Rows.write(Self.document(count: 6, bad: [2, 4]), named: "people.json", in: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        let run = try await Command.run(["import", input, "--sqlite", database, "--on-fault", "skip"])
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardOutput.contains("3 resources were set aside as faults"), "\(run.standardOutput)")
        #expect(run.standardError.contains("\(input):4:10: /data/2/type: "), "\(run.standardError)")
        #expect(run.standardError.contains("3 records were set aside; the faults table of \(database)"))
        let people = try Rows.rows(database, "SELECT id, name FROM people ORDER BY id")
        #expect(people == [["0", "p0"], ["1", "p1"], ["3", "p3"], ["5", "p5"]])
        let faults = try Rows.rows(
            database,
            """
            SELECT source, line_number, column_number, pointer, record, record_truncated FROM faults
            ORDER BY byte_offset
            """
        )
        #expect(
            faults == [
                [input, "4", "10", "/data/2/type", #"{"type":7,"id":"2"}"#, "0"],
                [
                    input, "6", "54", "/data/4/relationships/x", #"{"type":"people","id":"4","relationships":{"x":5}}"#,
                    "0",
                ],
                [input, "9", "47", "/included/0/links/self", #"{"type":"tags","id":"t","links":{"self":5}}"#, "0"],
            ],
            "\(faults)"
        )
        // Each fault's byte offset is where its line and column say.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: input)))
        for row in try Rows.rows(database, "SELECT byte_offset, line_number, column_number FROM faults") {
            let offset = Int(row[0])!
            let lineStart = bytes[..<offset].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            #expect(bytes[..<offset].filter { $0 == UInt8(ascii: "\n") }.count + 1 == Int(row[1])!)
            #expect(offset - lineStart + 1 == Int(row[2])!)
        }
        let messages = try Rows.rows(database, "SELECT message FROM faults ORDER BY byte_offset").map { $0[0] }
        #expect(messages[0].contains("type") && messages[1].contains("relationship"), "\(messages)")
        let document = try Rows.rows(database, "SELECT status, resources, primary_count, faults FROM documents")
        #expect(document == [["complete", "4", "4", "3"]])

        // Imported again from its start, the document's faults are its own again, not added up.
        let again = try await Command.run(["import", input, "--sqlite", database, "--on-fault", "skip", "--quiet"])
        #expect(again.status == 1)
        #expect(try Rows.rows(database, "SELECT COUNT(*) FROM faults") == [["3"]])

        // The default stops at the first fault, with what came before it committed.
        let stopped = directory.appendingPathComponent("stopped.sqlite").path
        let strict = try await Command.run(["import", input, "--sqlite", stopped])
        #expect(strict.status == 1)
        #expect(strict.standardError.contains("\(input):4:10: /data/2/type: "), "\(strict.standardError)")
        #expect(try Rows.rows(stopped, "SELECT COUNT(*) FROM faults") == [["0"]])
    }

    @Test("on several threads and across batches the same resources are set aside as on one")
    func parallelResources() async throws {
        let directory = try ImportCommandTests.directory()
        let bad = Set(stride(from: 7, to: 6_000, by: 97))
        let input = try Rows.write(Self.document(count: 6_000, bad: bad), named: "many.json", in: directory)
        var answers: [[[String]]] = []
        for jobs in ["1", "3"] {
            let database = directory.appendingPathComponent("out-\(jobs).sqlite").path
            let run = try await Command.run([
                "import", input, "--sqlite", database, "--on-fault", "skip", "--jobs", jobs, "--batch-size", "500",
                "--quiet",
            ])
            #expect(run.status == 1, "\(run.standardError)")
            answers.append(
                try Rows.rows(database, "SELECT COUNT(*), SUM(CAST(id AS INTEGER)) FROM people")
                    + (try Rows.rows(database, "SELECT byte_offset, pointer FROM faults ORDER BY byte_offset"))
            )
        }
        #expect(answers[0] == answers[1])
        #expect(answers[0].count == 1 + bad.count + 1)
        #expect(answers[0][0][0] == String(6_000 - bad.count))
    }

    @Test("JSON Lines: a line that is not JSON and a record that cannot be keyed are set aside, long ones cut")
    func linesSetAside() async throws {
        let directory = try ImportCommandTests.directory()
        let long = String(repeating: "x", count: 5_000)
        var lines: [String] = []
        for index in 1...3_000 {
            switch index {
            case 10: lines.append(#"{"id": 10, "name": "#)
            case 20: lines.append(#"{"name": "no key"}"#)
            case 2_500: lines.append(#"{"id": 2500, "name": "\#(long)"#)
            default: lines.append(#"{"id": \#(index), "name": "n\#(index)"}"#)
            }
        }
        let input = try Rows.write(lines.joined(separator: "\n") + "\n", named: "events.ndjson", in: directory)
        var answers: [[[String]]] = []
        for jobs in ["1", "2"] {
            let database = directory.appendingPathComponent("lines-\(jobs).sqlite").path
            let run = try await Command.run([
                "import", input, "--sqlite", database, "--pk", "id", "--on-fault", "skip", "--jobs", jobs,
            ])
            #expect(run.status == 1, "\(run.standardError)")
            #expect(run.standardOutput.contains("Imported 2997 records"), "\(run.standardOutput)")
            #expect(run.standardError.contains("\(input):20:1: The record cannot be keyed"), "\(run.standardError)")
            answers.append(
                try Rows.rows(
                    database,
                    """
                    SELECT line_number, pointer IS NULL, length(record), record_truncated, substr(record, 1, 10)
                    FROM faults ORDER BY line_number
                    """
                )
            )
            #expect(try Rows.rows(database, "SELECT COUNT(*) FROM events") == [["2997"]])
        }
        #expect(
            answers[0] == [
                ["10", "1", "19", "0", #"{"id": 10,"#],
                ["20", "1", "17", "0", #"{"name":"n"#],
                ["2500", "1", "4096", "1", #"{"id": 250"#],
            ],
            "\(answers[0])"
        )
        #expect(answers[0] == answers[1])
    }

    @Test("broken syntax inside one JSON document still stops it, and too many faults stop an import")
    func whatStillStops() async throws {
        let directory = try ImportCommandTests.directory()
        let array = try Rows.write(
            #"[{"id": 1}, {"id": 2, "name": }, {"id": 3}]"#,
            named: "records.json",
            in: directory
        )
        let database = directory.appendingPathComponent("out.sqlite").path
        let broken = try await Command.run(["import", array, "--sqlite", database, "--pk", "id", "--on-fault", "skip"])
        #expect(broken.status == 1)
        #expect(broken.standardError.contains("\(array):1:31: "), "\(broken.standardError)")
        #expect(try Rows.rows(database, "SELECT status FROM documents") == [["failed"]])

        let lines = try Rows.write("{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3}\n", named: "keyless.jsonl", in: directory)
        let limited = try await Command.run([
            "import", lines, "--sqlite", database, "--pk", "id", "--on-fault", "skip", "--max-faults", "2",
        ])
        #expect(limited.status == 1)
        #expect(limited.standardError.contains("More than 2 records were set aside"), "\(limited.standardError)")
        #expect(try Rows.rows(database, "SELECT status FROM documents WHERE source = '\(lines)'") == [["failed"]])
    }
}
