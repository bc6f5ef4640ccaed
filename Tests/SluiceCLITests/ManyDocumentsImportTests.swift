import Foundation
import GRDB
import Testing

/// `sluice import` of several documents in one command, into SQLite.
@Suite("sluice import of several documents")
struct ManyDocumentsImportTests {
    typealias Command = ValidateCommandTests

    @Test("files, a directory and a gzip file import one after another; a bad one is reported and the others go on")
    func severalIntoSQLite() async throws {
        let directory = try ImportCommandTests.directory()
        let exports = directory.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
        // Two documents in the directory (one gzipped), with disjoint ids; one broken; one outside.
        var paths: [String] = []
        for (name, seed, prefix) in [("1.json", 1, "x"), ("2.json", 2, "y"), ("3.json", 3, "z")] {
            let path = exports.appendingPathComponent(name).path
            let run = try await Command.run(["generate", "--articles", "50", "--seed", String(seed), "-o", path])
            #expect(run.status == 0)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: #""id":""#, with: #""id":"\#(prefix)"#)
                .write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip \"$0\"", paths[1]]
        try gzip.run()
        gzip.waitUntilExit()
        let outside = directory.appendingPathComponent("outside.json").path
        try FileManager.default.moveItem(atPath: paths[2], toPath: outside)
        let broken = exports.appendingPathComponent("0-broken.json").path
        try Data(#"{"data": [{"type": "articles", "id": "b1"}, {"type": "articles", "id": }]}"#.utf8)
            .write(to: URL(fileURLWithPath: broken))
        try Data("not a document".utf8).write(to: exports.appendingPathComponent("notes.txt"))

        let database = directory.appendingPathComponent("all.sqlite").path
        let run = try await Command.run(["import", exports.path, outside, "--sqlite", database, "--batch-size", "40"])
        #expect(run.status == 1, "\(run.standardError)")
        // The fault, with its place, and what was kept of that document.
        #expect(run.standardError.contains("\(broken):1:"), "\(run.standardError)")
        #expect(run.standardError.contains("\(broken): 1 resource was imported before the fault."))
        #expect(run.standardOutput.contains("\(exports.path)/1.json: "))
        #expect(run.standardOutput.contains("\(exports.path)/2.json.gz: "))
        #expect(run.standardOutput.contains("\(outside): "))
        #expect(run.standardOutput.contains("\(broken): failed"))
        #expect(run.standardOutput.contains("Imported 3 of 4 documents (1 failed)"), "\(run.standardOutput)")
        #expect(!run.standardOutput.contains("notes.txt"))

        let rows = try ImportCommandTests.read(database) { db in
            try Row.fetchAll(db, sql: "SELECT source, status FROM documents ORDER BY source")
                .map { [$0[0] as String, $0[1] as String] }
        }
        #expect(
            rows == [
                [broken, "failed"], [exports.path + "/1.json", "complete"], [exports.path + "/2.json.gz", "complete"],
                [outside, "complete"],
            ]
        )
        // Every resource of the three documents, as three single imports give them.
        let single = directory.appendingPathComponent("single.sqlite").path
        for path in [exports.path + "/1.json", exports.path + "/2.json.gz", outside] {
            #expect(try await Command.run(["import", path, "--sqlite", single, "--quiet"]).status == 0)
        }
        for question in [
            "SELECT COUNT(*), SUM(views) FROM articles WHERE id NOT LIKE 'b%'", "SELECT COUNT(*) FROM people",
            "SELECT COUNT(*) FROM comments", "SELECT COUNT(*) FROM relationships",
            "SELECT COUNT(author_id), COUNT(DISTINCT author_id) FROM articles",
        ] {
            let answers = try [database, single].map { path in
                try ImportCommandTests.read(path) { db in try Row.fetchOne(db, sql: question).map { "\($0)" } }
            }
            #expect(answers[0] == answers[1], "\(question)")
        }
    }

    @Test("a truncated gzip file is reported as gzip's fault, alone and among others, with what was kept")
    func truncatedGzip() async throws {
        let directory = try ImportCommandTests.directory()
        let exports = directory.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
        let whole = exports.appendingPathComponent("1.json").path
        #expect(try await Command.run(["generate", "--articles", "3000", "-o", whole]).status == 0)
        let cut = exports.appendingPathComponent("2.json.gz").path
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "sed 's/\"id\":\"/\"id\":\"c/g' \"$0\" | gzip > \"$1\"", whole, cut]
        try gzip.run()
        gzip.waitUntilExit()
        // Half of the compressed bytes: the JSON ends inside the data, gzip without its trailer.
        let compressed = try Data(contentsOf: URL(fileURLWithPath: cut))
        #expect(compressed.count > 10_000)
        try compressed.prefix(compressed.count / 2).write(to: URL(fileURLWithPath: cut))

        let alone = directory.appendingPathComponent("alone.sqlite").path
        let one = try await Command.run(["import", cut, "--sqlite", alone, "--batch-size", "500", "--quiet"])
        #expect(one.status == 2, "\(one.standardError)")
        let fault = "\(cut): cannot read: gzip could not decompress it completely (unexpected end of file)"
        #expect(one.standardError.contains(fault), "\(one.standardError)")
        // Neither gzip's own line nor the JSON's cut: one fault, gzip's.
        #expect(!one.standardError.contains("gzip: "), "\(one.standardError)")
        #expect(!one.standardError.contains("The input ended"), "\(one.standardError)")
        let kept = try ImportCommandTests.read(alone) { db in
            try Row.fetchOne(db, sql: "SELECT status, resources FROM documents").map { ($0[0] as String, $0[1] as Int) }
        }
        #expect(kept?.0 == "failed")
        #expect((kept?.1 ?? 0) >= 500, "whole batches before the cut stay")
        #expect(one.standardError.contains("\(kept?.1 ?? -1) resources were imported before the fault"))

        let both = directory.appendingPathComponent("both.sqlite").path
        let many = try await Command.run(["import", exports.path, "--sqlite", both, "--batch-size", "500"])
        #expect(many.status == 2, "\(many.standardError)")
        #expect(many.standardError.contains(fault), "\(many.standardError)")
        #expect(many.standardOutput.contains("\(cut): failed"))
        #expect(many.standardOutput.contains("Imported 1 of 2 documents (1 failed)"), "\(many.standardOutput)")
        let statuses = try ImportCommandTests.read(both) { db in
            try Row.fetchAll(db, sql: "SELECT source, status FROM documents ORDER BY source")
                .map { [$0[0] as String, $0[1] as String] }
        }
        #expect(statuses == [[whole, "complete"], [cut, "failed"]])
    }

    @Test("a URL goes alone, and a directory without documents is an error")
    func wrongCalls() async throws {
        let directory = try ImportCommandTests.directory()
        let withURL = try await Command.run(["import", "a.json", "https://example.com/articles"])
        #expect(withURL.status == 64 || withURL.status == 2, "\(withURL.standardError)")
        #expect(withURL.standardError.contains("A URL is imported alone"))
        let empty = try await Command.run([
            "import", directory.path, "--sqlite", directory.appendingPathComponent("x.sqlite").path,
        ])
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("no .json, .jsonl, .ndjson or .json-seq documents (or .gz) in"))
    }
}
