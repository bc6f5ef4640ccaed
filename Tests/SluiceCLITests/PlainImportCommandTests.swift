import Foundation
import GRDB
import Testing

/// `sluice import` of plain JSON: arrays, the array at a pointer, JSON Lines, text sequences, one
/// object; keys, nested values, faults and resuming, run as the built binary against real SQLite
/// files.
@Suite("sluice import of plain JSON")
struct PlainImportCommandTests {
    typealias Command = ValidateCommandTests

    static func write(_ text: String, named name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func rows(_ database: String, _ sql: String) throws -> [[String]] {
        try ImportCommandTests.read(database) { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value in
                    switch value.storage {
                    case .null: "NULL"
                    case .int64(let integer): "\(integer)"
                    case .double(let real): "\(real)"
                    case .string(let text): text
                    case .blob(let bytes): "\(bytes.count) bytes"
                    }
                }
            }
        }
    }

    static let events = """
        {"id": 1, "type": "push", "actor": {"login": "ada", "id": 7}, "tags": ["a", "b"]}
        {"id": 2, "type": "fork", "actor": {"login": "bob", "id": 8}, "tags": []}
        {"id": 3, "type": "push", "actor": {"login": "cy", "id": 9}, "tags": ["c"], "late": 1.5}

        """

    /// The same three records as each layout an export comes in: file name, text, options.
    static let exportLayouts: [(String, String, [String])] = {
        let lines = events.split(separator: "\n").map(String.init)
        let crlf: String = events.replacingOccurrences(of: "\n", with: "\r\n")
        let array: String = "[" + lines.joined(separator: ",\n") + "]"
        let wrapped: String = "{\"results\": [" + lines.joined(separator: ",") + "]}"
        let sequence: String = lines.map { "\u{1E}" + $0 + "\n" }.joined()
        return [
            ("events.ndjson", events, []),
            ("events.jsonl", crlf, []),
            ("events.json", array, []),
            ("events.json", wrapped, ["--at", "/results"]),
            ("events.json", "\u{FEFF}" + events, []),
            ("events.json-seq", sequence, []),
            ("events.txt", String(events.dropLast()), []),
        ]
    }()

    @Test("every layout of the same records gives the same rows", arguments: exportLayouts)
    func layouts(name: String, text: String, extra: [String]) async throws {
        let directory = try ImportCommandTests.directory()
        let input = try Self.write(text, named: name, in: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        let run = try await Command.run(["import", input, "--sqlite", database, "--pk", "id"] + extra)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Imported 3 records from \(input) ("), "\(run.standardOutput)")
        let rows = try Self.rows(
            database,
            "SELECT id, type, actor_login, actor_id, tags, late FROM events ORDER BY id"
        )
        #expect(
            rows == [
                ["1", "push", "ada", "7", #"["a","b"]"#, "NULL"],
                ["2", "fork", "bob", "8", "[]", "NULL"],
                ["3", "push", "cy", "9", #"["c"]"#, "1.5"],
            ],
            "\(rows)"
        )
        let document = try Self.rows(database, "SELECT status, primary_count FROM documents")
        #expect(document == [["complete", "3"]])
    }

    @Test("the format found is reported, and --format overrides it")
    func formatReported() async throws {
        let directory = try ImportCommandTests.directory()
        let database = directory.appendingPathComponent("out.sqlite").path
        let lines = try Self.write(Self.events, named: "a.log", in: directory)
        let run = try await Command.run(["import", lines, "--sqlite", database])
        #expect(run.standardOutput.contains("(JSON Lines)"), "\(run.standardOutput)\(run.standardError)")
        let array = try Self.write("[{\"x\": 1}]", named: "b.data", in: directory)
        let second = try await Command.run(["import", array, "--sqlite", database])
        #expect(second.standardOutput.contains("(JSON)"), "\(second.standardOutput)\(second.standardError)")
        // A JSON:API document is still one; forced to be plain, it is one record.
        let document = try Self.write(#"{"data": [{"type": "people", "id": "1"}]}"#, named: "c.json", in: directory)
        let third = try await Command.run(["import", document, "--sqlite", database])
        #expect(third.standardOutput.hasPrefix("Imported 1 resources"), "\(third.standardOutput)\(third.standardError)")
        let fourth = try await Command.run([
            "import", document, "--sqlite", database, "--format", "json", "--table", "raw",
        ])
        #expect(fourth.status == 0, "\(fourth.standardError)")
        #expect(try Self.rows(database, "SELECT data FROM raw") == [[#"[{"type":"people","id":"1"}]"#]])
    }

    @Test("without --pk a record is keyed by its file and line, so a re-import updates it")
    func keyedByPlace() async throws {
        let directory = try ImportCommandTests.directory()
        let input = try Self.write(Self.events, named: "events.ndjson", in: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        for _ in 0..<2 {
            let run = try await Command.run(["import", input, "--sqlite", database, "--table", "all_events"])
            #expect(run.status == 0, "\(run.standardError)")
        }
        let rows = try Self.rows(database, "SELECT id, id_attribute FROM all_events ORDER BY id_attribute")
        #expect(rows == [["\(input):1", "1"], ["\(input):2", "2"], ["\(input):3", "3"]], "\(rows)")
    }

    @Test("--pk upserts: a record met again replaces its row, several members key together")
    func upserts() async throws {
        let directory = try ImportCommandTests.directory()
        let database = directory.appendingPathComponent("out.sqlite").path
        let first = try Self.write(
            "{\"org\": \"a\", \"n\": 1, \"v\": \"old\"}\n{\"org\": \"b\", \"n\": 1, \"v\": \"keep\"}\n",
            named: "items.ndjson",
            in: directory
        )
        #expect(try await Command.run(["import", first, "--sqlite", database, "--pk", "org,n"]).status == 0)
        let second = try Self.write(
            "{\"org\": \"a\", \"n\": 1, \"v\": \"new\"}\n{\"org\": \"a\", \"n\": 1, \"v\": \"newest\"}\n",
            named: "items-2.ndjson",
            in: directory
        )
        let run = try await Command.run(["import", second, "--sqlite", database, "--pk", "org,n", "--table", "items"])
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try Self.rows(database, "SELECT id, org, n, v FROM items ORDER BY id")
        #expect(rows == [[#"["a",1]"#, "a", "1", "newest"], [#"["b",1]"#, "b", "1", "keep"]], "\(rows)")
        // A record without the key's member is a fault at its line.
        let bad = try Self.write("{\"org\": \"c\", \"n\": 2}\n{\"org\": \"d\"}\n", named: "items.ndjson", in: directory)
        let failed = try await Command.run(["import", bad, "--sqlite", database, "--pk", "org,n"])
        #expect(failed.status == 1)
        #expect(failed.standardError.contains("items.ndjson:2:1: "), "\(failed.standardError)")
        #expect(failed.standardError.contains(#"it has no member "n", which the key names"#), "\(failed.standardError)")
    }

    @Test("--nested json keeps objects whole; --nested tables makes child tables keyed by their parent")
    func nestedModes() async throws {
        let directory = try ImportCommandTests.directory()
        let text = """
            {"id": 10, "actor": {"login": "ada"}, "commits": [{"sha": "x1", "files": ["a.c", "b.c"]}, {"sha": "x2", "files": []}]}
            {"id": 11, "actor": {"login": "bob"}, "commits": []}

            """
        let input = try Self.write(text, named: "pushes.ndjson", in: directory)
        let json = directory.appendingPathComponent("json.sqlite").path
        #expect(
            try await Command.run(["import", input, "--sqlite", json, "--pk", "id", "--nested", "json"]).status == 0
        )
        #expect(
            try Self.rows(json, "SELECT id, actor FROM pushes ORDER BY id")
                == [["10", #"{"login":"ada"}"#], ["11", #"{"login":"bob"}"#]]
        )
        let tables = directory.appendingPathComponent("tables.sqlite").path
        let run = try await Command.run(["import", input, "--sqlite", tables, "--pk", "id", "--nested", "tables"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Imported 2 records and 4 child rows"), "\(run.standardOutput)")
        #expect(
            try Self.rows(tables, "SELECT id, actor_login FROM pushes ORDER BY id") == [["10", "ada"], ["11", "bob"]]
        )
        #expect(
            try Self.rows(tables, "SELECT id, _parent_id, _position, sha FROM pushes_commits ORDER BY id")
                == [["10/0", "10", "0", "x1"], ["10/1", "10", "1", "x2"]]
        )
        #expect(
            try Self.rows(tables, "SELECT _parent_id, _position, value FROM pushes_commits_files ORDER BY id")
                == [["10/0", "0", "a.c"], ["10/0", "1", "b.c"]]
        )
    }

    @Test("a bad line stops the import at its line; committed batches stay and --resume finishes it")
    func badLineAndResume() async throws {
        let directory = try ImportCommandTests.directory()
        var lines = (1...50).map { "{\"id\": \($0), \"name\": \"n\($0)\"}" }
        // Cut short by one byte: the mended file below has the same size, as a resume requires.
        lines[36] = "{\"id\": 37, \"name\": \"n37\"x"
        let input = try Self.write(lines.joined(separator: "\n") + "\n", named: "people.ndjson", in: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        let failed = try await Command.run(["import", input, "--sqlite", database, "--pk", "id", "--batch-size", "10"])
        #expect(failed.status == 1)
        #expect(failed.standardError.hasPrefix("\(input):37:"), "\(failed.standardError)")
        // Every record before the bad line is whole, and kept.
        #expect(failed.standardError.contains("36 resources were imported before the fault"), "\(failed.standardError)")
        #expect(try Self.rows(database, "SELECT COUNT(*) FROM people") == [["36"]])
        lines[36] = "{\"id\": 37, \"name\": \"n37\"}"
        let mended = lines.joined(separator: "\n") + "\n"
        try Data(mended.utf8).write(to: URL(fileURLWithPath: input))
        let resumed = try await Command.run(["import", input, "--sqlite", database, "--pk", "id", "--resume"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("Resumed after the 36 rows"), "\(resumed.standardOutput)")
        #expect(try Self.rows(database, "SELECT COUNT(*), SUM(id) FROM people") == [["50", "1275"]])
    }

    @Test("a directory's .jsonl and .ndjson.gz files import alongside its .json ones, one table each")
    func directoryAndGzip() async throws {
        let directory = try ImportCommandTests.directory()
        let exports = directory.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
        _ = try Self.write("{\"a\": 1}\n{\"a\": 2}\n", named: "one.jsonl", in: exports)
        let two = try Self.write("{\"b\": 1}\n", named: "two.ndjson", in: exports)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", two]
        try gzip.run()
        gzip.waitUntilExit()
        _ = try Self.write("[{\"c\": 1}, {\"c\": 2}, {\"c\": 3}]", named: "three.json", in: exports)
        let database = directory.appendingPathComponent("out.sqlite").path
        let run = try await Command.run(["import", exports.path, "--sqlite", database])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Self.rows(database, "SELECT COUNT(*) FROM one") == [["2"]])
        #expect(try Self.rows(database, "SELECT COUNT(*) FROM two") == [["1"]])
        #expect(try Self.rows(database, "SELECT COUNT(*) FROM three") == [["3"]])
    }

    @Test("standard input and byte-by-byte pipes read as files do; one thread equals several")
    func standardInput() async throws {
        let directory = try ImportCommandTests.directory()
        // About 700 KB: several batches of lines for the other threads.
        let lines = (0..<20000).map { "{\"k\": \($0), \"v\": {\"w\": \"\($0 % 7)\"}}" }.joined(separator: "\n")
        var outputs: [[[String]]] = []
        for jobs in ["1", "2"] {
            let database = directory.appendingPathComponent("stdin-\(jobs).sqlite").path
            let run = try await Command.run(
                ["import", "-", "--sqlite", database, "--pk", "k", "--jobs", jobs],
                standardInput: Data(lines.utf8)
            )
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("(JSON Lines)"), "\(run.standardOutput)")
            outputs.append(try Self.rows(database, "SELECT id, v_w FROM records ORDER BY id"))
        }
        #expect(outputs[0].count == 20000)
        #expect(outputs[0] == outputs[1])
    }

    @Test("validate --syntax lists every bad line of a JSON Lines file, up to --max-violations")
    func validateLines() async throws {
        let directory = try ImportCommandTests.directory()
        let text = "{\"a\": 1}\n{\"a\": }\n{\"a\": 3}\n[1,\n\u{FEFF}{}\n{\"a\": 6}\n"
        let input = try Self.write(text, named: "mixed.ndjson", in: directory)
        let run = try await Command.run(["validate", "--syntax", input])
        #expect(run.status == 1)
        let faults = run.standardError.split(separator: "\n").filter { $0.hasPrefix(input + ":") }
        #expect(faults.map { $0.split(separator: ":")[1] } == ["2", "4", "5"], "\(run.standardError)")
        let limited = try await Command.run(["validate", "--syntax", "--max-violations", "1", input])
        #expect(limited.standardError.contains("\(input): 2 more bad lines"), "\(limited.standardError)")
        let good = try Self.write("{}\r\n\n[]\n", named: "good.log", in: directory)
        #expect(try await Command.run(["validate", "--syntax", "--lines", good]).status == 0)
        #expect(try await Command.run(["validate", "--syntax", good]).status == 1)
    }

    @Test("flatten writes the records of plain JSON one compact line each")
    func flattenPlain() async throws {
        let directory = try ImportCommandTests.directory()
        let wrapped = try Self.write(
            "{\"n\": 2, \"results\": [ {\"a\": 1},\n {\"b\": [1, 2]} ]}",
            named: "r.json",
            in: directory
        )
        let elements = try await Command.run(["flatten", "--at", "/results", wrapped])
        #expect(elements.status == 0, "\(elements.standardError)")
        #expect(elements.standardOutput == "{\"a\":1}\n{\"b\":[1,2]}\n")
        let lines = try Self.write("{ \"a\" : 1 }\r\n\n[ 1 ]\n", named: "l.jsonl", in: directory)
        let relined = try await Command.run(["flatten", lines])
        #expect(relined.standardOutput == "{\"a\":1}\n[1]\n", "\(relined.standardError)")
        let missing = try await Command.run(["flatten", "--at", "/nothing", wrapped])
        #expect(missing.status == 1)
        #expect(
            missing.standardError.contains("Expected an array at /nothing, but found nothing."),
            "\(missing.standardError)"
        )
    }

    @Test("a bad line deep in a file read on two threads fails as on one, with the same rows kept")
    func badLineOnThreads() async throws {
        let directory = try ImportCommandTests.directory()
        var lines = (0..<30000).map { "{\"k\": \($0), \"text\": \"line \($0)\"}" }
        lines[23456] = "{\"k\": 23456, \"text\": \"cut}"
        let input = try Self.write(lines.joined(separator: "\r\n"), named: "deep.ndjson", in: directory)
        var outcomes: [[String]] = []
        for jobs in ["1", "2", "3"] {
            let database = directory.appendingPathComponent("deep-\(jobs).sqlite").path
            let run = try await Command.run([
                "import", input, "--sqlite", database, "--pk", "k", "--jobs", jobs, "--batch-size", "1000",
            ])
            #expect(run.status == 1)
            let count = try Self.rows(database, "SELECT COUNT(*), MAX(id) FROM deep")
            outcomes.append([run.standardError.replacingOccurrences(of: database, with: "DB")] + count[0])
        }
        #expect(outcomes[0][0].hasPrefix("\(input):23457:"), "\(outcomes[0][0])")
        #expect(outcomes[0] == outcomes[1])
        #expect(outcomes[0] == outcomes[2])
    }
}
