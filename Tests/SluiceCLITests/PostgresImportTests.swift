import Foundation
import GRDB
import SluiceJSON
import SluicePostgres
import SluiceTestServer
import Testing

/// `sluice import --postgres` and `PostgresImporter` against a real PostgreSQL server.
@Suite("sluice import --postgres", .enabled(if: TestPostgres.available, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresImportTests {
    typealias Command = ValidateCommandTests

    /// The questions whose answers must not depend on the target.
    static let questions = [
        "SELECT COUNT(*) FROM articles",
        "SELECT COUNT(*) FROM people",
        "SELECT COUNT(*) FROM comments",
        "SELECT COUNT(*) FROM relationships",
        "SELECT SUM(views) FROM articles",
        "SELECT SUM(likes) FROM comments",
        "SELECT COUNT(*) FROM articles WHERE published = 1",
        "SELECT MIN(title), MAX(title) FROM articles",
        """
        SELECT articles.id, people.name FROM articles
        JOIN relationships r ON r.source_type = 'articles' AND r.source_id = articles.id AND r.name = 'author'
        JOIN people ON people.id = r.target_id ORDER BY CAST(articles.id AS TEXT) LIMIT 5
        """,
        // SQLite keeps decimal ids as integers (PostgreSQL as text): ordered as text, they agree.
        """
        SELECT source_id, COUNT(*) FROM relationships WHERE source_type = 'articles' AND name = 'comments'
        GROUP BY source_id ORDER BY COUNT(*) DESC, CAST(source_id AS TEXT) LIMIT 3
        """,
        "SELECT source, status, bytes, resources, primary_count, included_count, relationship_rows FROM documents",
        "SELECT type, attribute, column_name FROM sluice_columns ORDER BY type, attribute",
    ]

    static func sqliteAnswers(_ database: String, _ sql: String) throws -> [[String?]] {
        try ImportCommandTests.read(database) { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value -> String? in
                    switch value.storage {
                    case .null: return nil
                    case .int64(let integer): return String(integer)
                    case .double(let real): return String(real)
                    case .string(let text): return text
                    case .blob(let data): return String(decoding: data, as: UTF8.self)
                    }
                }
            }
        }
    }

    @Test("a document imports with the same answers as SQLite, re-imports without duplicates, PGPASSWORD never printed")
    func importsLikeSQLite() async throws {
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 400, into: directory)
        let sqlite = directory.appendingPathComponent("out.sqlite").path
        let url = try await TestPostgres.database()
        let database = TestPostgres.name(of: url)
        let sqliteRun = try await Command.run(["import", document, "--sqlite", sqlite, "--batch-size", "100"])
        #expect(sqliteRun.status == 0, "\(sqliteRun.standardError)")
        // The password from PGPASSWORD, the URL without it.
        let bare = TestPostgres.url(database: database, withPassword: false)
        for _ in 0..<2 {
            let run = try await Command.run(
                ["import", document, "--postgres", bare, "--batch-size", "100"],
                environment: ["PGPASSWORD": TestPostgres.password!]
            )
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("into postgres://"))
            #expect(run.standardOutput.contains("relationships"))
            #expect(run.standardOutput.contains("rows/s"))
            #expect(!run.standardOutput.contains(TestPostgres.password!))
            #expect(!run.standardError.contains(TestPostgres.password!))
        }
        for question in Self.questions {
            let expected = try Self.sqliteAnswers(sqlite, question)
            let answer = try await TestPostgres.query(url, question)
            #expect(answer == expected, "\(question)")
        }
        // Objects and arrays are jsonb: the same JSON as SQLite's text, read back.
        let tags = try await TestPostgres.query(url, "SELECT tags::text FROM articles ORDER BY id LIMIT 1")
        let sqliteTags = try Self.sqliteAnswers(sqlite, "SELECT tags FROM articles ORDER BY id LIMIT 1")
        let parsed = try JSONSerialization.jsonObject(with: Data(tags[0][0]!.utf8)) as? NSArray
        let sqliteParsed = try JSONSerialization.jsonObject(with: Data(sqliteTags[0][0]!.utf8)) as? NSArray
        #expect(parsed != nil && parsed == sqliteParsed)
        let types = try await TestPostgres.query(
            url,
            """
            SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'articles'
            AND column_name IN ('tags', 'views', 'rating') ORDER BY column_name
            """
        )
        #expect(types == [["rating", "double precision"], ["tags", "jsonb"], ["views", "bigint"]])
    }

    @Test("import URL --resume into PostgreSQL goes on at the first page not complete")
    func resumesPages() async throws {
        let database = try await TestPostgres.database()
        try await JSONAPITestServer.with(total: 45) { server in
            let url = server.url("/page/articles?page%5Bsize%5D=10").absoluteString
            let first = try await Command.run(["import", url, "--postgres", database, "--max-pages", "3"])
            #expect(first.status == 0, "\(first.standardError)")
            let resumed = try await Command.run(["import", url, "--postgres", database, "--resume"])
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardOutput.contains("Resuming at page 4"), "\(resumed.standardOutput)")
        }
        let counts = try await TestPostgres.query(
            database,
            "SELECT (SELECT COUNT(*) FROM articles), (SELECT COUNT(*) FROM documents WHERE status = 'complete')"
        )
        #expect(counts == [["45", "5"]])
    }

    @Test("names that need quoting, every value kind, widened columns and numbers beyond a double")
    func namesAndValues() async throws {
        let directory = try ImportCommandTests.directory()
        let longType = String(repeating: "x", count: 70)
        let document = """
            {"data": [
              {"type": "blog-posts", "id": "1", "attributes": {"Title": "tab\\there\\nline \\\\ \\"quoted\\" é ✓",
                "title": "lower", "id": 7, "count": 3, "ratio": 0.5, "huge": 1e400, "big": 12345678901234567890,
                "flag": true, "none": null, "tags": ["a", {"b": [1, 2.50]}], "meta": {"k": "v"}, "changes": 1},
               "relationships": {"owner": {"data": {"type": "Order", "id": "o\\"1"}, "meta": {"why": "x"}}}},
              {"type": "blog-posts", "id": "2", "attributes": {"count": 4.5, "changes": "now text", "huge": 2,
                "tags": "plain"}},
              {"type": "Order", "id": "o\\"1", "attributes": {"select": "reserved word"}},
              {"type": "documents", "id": "d", "attributes": {"from": "a type named like a fixed table"}},
              {"type": "\(longType)", "id": "L", "attributes": {"n": -0}},
              {"type": "a\\"b", "lid": "local-1", "attributes": {"x": false}}
            ]}
            """
        let path = directory.appendingPathComponent("kinds.json").path
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let sqlite = directory.appendingPathComponent("kinds.sqlite").path
        let url = try await TestPostgres.database()
        let sqliteRun = try await Command.run(["import", path, "--sqlite", sqlite])
        #expect(sqliteRun.status == 0, "\(sqliteRun.standardError)")
        let run = try await Command.run(["import", path, "--postgres", url])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("columns that could not hold them were widened"))

        // The same tables and columns in both, however the names had to change.
        let tables = "SELECT type, table_name FROM sluice_tables ORDER BY type"
        let pgTables = try await TestPostgres.query(url, tables)
        #expect(pgTables == (try Self.sqliteAnswers(sqlite, tables)))
        #expect(pgTables.contains(["documents", "documents_resources"]))
        #expect(pgTables.contains([longType, String(repeating: "x", count: 63)]))
        let columns = "SELECT type, attribute, column_name FROM sluice_columns ORDER BY type, attribute"
        #expect(try await TestPostgres.query(url, columns) == (try Self.sqliteAnswers(sqlite, columns)))

        let texts = """
            SELECT id, "Title", "title_2", "id_attribute", "count", "ratio", "flag", "changes"
            FROM "blog-posts" ORDER BY id
            """
        let pgTexts = try await TestPostgres.query(url, texts)
        #expect(pgTexts.first?[1] == "tab\there\nline \\ \"quoted\" é ✓")
        #expect(pgTexts.first?[2] == "lower")
        #expect(pgTexts.first?[3] == "7")
        #expect(pgTexts.first?[5] == "0.5")
        #expect(pgTexts.first?[6] == "1")
        // `count` widened to double precision for 4.5; `changes` to text for "now text".
        #expect(pgTexts.map { $0[4] } == ["3.0", "4.5"])
        #expect(pgTexts.map { $0[7] } == ["1", "now text"])
        // A null before any value makes no column, in both.
        let none = "SELECT COUNT(*) FROM sluice_columns WHERE attribute = 'none'"
        #expect(try await TestPostgres.query(url, none) == [["0"]])
        // A number beyond a double's range keeps every digit (numeric, then text once "2" and
        // the widening of the column agree).
        let huge = try await TestPostgres.query(url, #"SELECT huge::text, big::text FROM "blog-posts" WHERE id = '1'"#)
        #expect(huge.first?[0]?.hasPrefix("1") == true)
        #expect(huge.first?[0]?.count ?? 0 > 300)
        #expect(huge.first?[1] == "12345678901234567890" || huge.first?[1] == "1.2345678901234567e+19")
        let order = try await TestPostgres.query(url, #"SELECT id, "select" FROM "Order""#)
        #expect(order == [["o\"1", "reserved word"]])
        let quoted = try await TestPostgres.query(url, #"SELECT id, x FROM "a""b""#)
        #expect(quoted == [["local-1", "0"]])
        // The same mismatches counted as in SQLite.
        #expect(
            run.standardOutput.split(separator: "\n").first { $0.contains("differed") }?.prefix(while: { $0 != " " })
                == sqliteRun.standardOutput.split(separator: "\n").first { $0.contains("differed") }?.prefix(
                    while: { $0 != " " })
        )
        // A to-one relationship is its resource's columns, indexed on the id for joins back.
        let link = try await TestPostgres.query(
            url,
            #"SELECT owner_type, owner_id, owner_meta->>'why' FROM "blog-posts" WHERE id = '1'"#
        )
        #expect(link == [["Order", "o\"1", "x"]])
        #expect(try await TestPostgres.query(url, "SELECT COUNT(*) FROM relationships") == [["0"]])
        let index = try await TestPostgres.query(
            url,
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'blog-posts_owner_id_index'"
        )
        #expect(index.first?[0]?.contains("(owner_id)") == true, "\(index)")
    }

    @Test("an import killed mid-way keeps whole batches, and --resume finishes it from the last one")
    func resumesAfterKill() async throws {
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 30_000, into: directory)
        let url = try await TestPostgres.database()
        // One connection watches the import (a new one per look could miss the moment).
        let watcher = try await PostgresImporter.connect(to: try PostgresTarget(url: url))
        let process = Process()
        process.executableURL = Command.executable
        process.arguments = ["import", document, "--postgres", url, "--batch-size", "1000", "--quiet"]
        try process.run()
        kill(process.processIdentifier, SIGSTOP)
        var committed = 0
        let deadline = Date().addingTimeInterval(120)
        while committed < 2000, Date() < deadline, process.isRunning {
            ImportCommandTests.runSlice(of: process)
            let rows = try? await watcher.rows("SELECT COALESCE(MAX(resources), 0) FROM documents")
            committed = rows?.first?.first.flatMap { $0.flatMap(Int.init) } ?? 0
        }
        #expect(process.isRunning, "the import finished before it could be interrupted")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try await watcher.close()

        let state = try await TestPostgres.query(
            url,
            "SELECT status, resources, resume_resources, relationship_rows FROM documents"
        )
        #expect(state.first?[0] == "importing")
        // Whole batches only. The kill may land in data or, when the suite's load delays the
        // watcher, in included (a clean-clone run once committed 36 000): data comes first, so the
        // articles are the committed resources up to 30 000.
        let committedResources = Int(state.first?[1] ?? "") ?? -1
        #expect(committedResources >= 1000 && committedResources % 1000 == 0, "\(state)")
        let articles = Int(try await TestPostgres.query(url, "SELECT COUNT(*) FROM articles")[0][0]!)!
        #expect(articles == min(committedResources, 30_000))
        let authors = try await TestPostgres.query(url, "SELECT COUNT(author_id) FROM articles")
        #expect(authors[0][0] == String(articles))

        let resumed = try await Command.run(["import", document, "--postgres", url, "--resume"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("Resumed after the \(committedResources) resources"))
        // The whole document, as an uninterrupted import writes it.
        let sqlite = directory.appendingPathComponent("whole.sqlite").path
        #expect(try await Command.run(["import", document, "--sqlite", sqlite, "--quiet"]).status == 0)
        for question in Self.questions.prefix(7) {
            #expect(try await TestPostgres.query(url, question) == (try Self.sqliteAnswers(sqlite, question)))
        }
        let done = try await TestPostgres.query(url, "SELECT status, resources FROM documents")
        #expect(done.first?[0] == "complete")
    }

    @Test("a lost connection stops the import with a clear error, whole batches, and the row marked failed")
    func connectionLoss() async throws {
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 20_000, into: directory)
        let url = try await TestPostgres.database()
        var options = PostgresImporter.Options()
        options.batchSize = 1000
        let importer = try await PostgresImporter.connect(to: try PostgresTarget(url: url), options: options)
        let pid = try await importer.rows("SELECT pg_backend_pid()")[0][0]!
        // Another connection ends the importer's once two batches are in.
        let killer = Task {
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                let rows = try await TestPostgres.query(url, "SELECT COALESCE(MAX(resources), 0) FROM documents")
                if (rows.first?.first.flatMap { $0.flatMap(Int.init) } ?? 0) >= 2000 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            print("killer: terminating \(pid)")
            _ = try await TestPostgres.query(url, "SELECT pg_terminate_backend(\(pid))")
            print("killer: terminated")
        }
        do {
            try await importer.importDocument(from: try FileChunkReader(path: document), source: "lost.json")
            Issue.record("the import went on after its connection was ended")
        } catch let failure as ImportFailure {
            #expect(failure.underlying is PostgresImportError)
            #expect("\(failure)".contains("PostgreSQL"))
            #expect(failure.committedResources >= 2000)
            let articles = try await TestPostgres.query(url, "SELECT COUNT(*) FROM articles")
            #expect(articles[0][0] == String(failure.committedResources))
            let row = try await TestPostgres.query(url, "SELECT status, resources, error FROM documents")
            #expect(row.first?[0] == "failed")
            #expect(row.first?[1] == String(failure.committedResources))
            #expect(row.first?[2]?.contains("PostgreSQL") == true)
        }
        try await killer.value
        try? await importer.close()
    }

    @Test("repeats, emptied relationships, columns widened across imports and tiny numbers answer as in SQLite")
    func reimportsLikeSQLite() async throws {
        let directory = try ImportCommandTests.directory()
        let sqlite = directory.appendingPathComponent("edge.sqlite").path
        let url = try await TestPostgres.database()
        let documents = [
            // Resource 1 twice in one batch, its later occurrence with fewer columns.
            """
            {"data": [{"type": "t", "id": "1", "attributes": {"a": 1, "b": "x", "v": 1},
               "relationships": {"r": {"data": [{"type": "u", "id": "1"}, {"type": "u", "id": "2"}]},
                                 "s": {"data": {"type": "u", "id": "3"}}}},
              {"type": "t", "id": "2", "attributes": {"a": 2, "tiny": 1e-400}},
              {"type": "t", "id": "1", "attributes": {"a": 5},
               "relationships": {"r": {"data": [{"type": "u", "id": "9"}]}}}]}
            """,
            // A re-import: r emptied, s set to null, v widened to text.
            """
            {"data": [{"type": "t", "id": "1", "attributes": {"v": "text"},
               "relationships": {"r": {"data": []}, "s": {"data": null}}}]}
            """,
            // v, now text, takes a real: no second widening that text cannot undergo.
            #"{"data": [{"type": "t", "id": "3", "attributes": {"v": 1.5}}]}"#,
        ]
        for (index, text) in documents.enumerated() {
            let path = directory.appendingPathComponent("edge\(index).json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let sqliteRun = try await Command.run(["import", path, "--sqlite", sqlite, "--batch-size", "10"])
            #expect(sqliteRun.status == 0, "\(sqliteRun.standardError)")
            let run = try await Command.run(["import", path, "--postgres", url, "--batch-size", "10"])
            #expect(run.status == 0, "\(run.standardError)")
        }
        for question in [
            "SELECT id, a, b FROM t ORDER BY id",
            "SELECT source_id, name, position, target_id FROM relationships ORDER BY source_id, name, position",
            "SELECT id, v FROM t ORDER BY id",
        ] {
            #expect(
                try await TestPostgres.query(url, question) == (try Self.sqliteAnswers(sqlite, question)),
                "\(question)"
            )
        }
        #expect(try await TestPostgres.query(url, "SELECT tiny FROM t WHERE id = '2'") == [["0.0"]])
        #expect(
            try await TestPostgres.query(url, "SELECT declared_type FROM sluice_columns WHERE attribute = 'v'") == [
                ["TEXT"]
            ]
        )
    }

    @Test("one importer imports several documents of different shapes in turn, as the pages of a URL")
    func severalDocuments() async throws {
        let directory = try ImportCommandTests.directory()
        let url = try await TestPostgres.database()
        let importer = try await PostgresImporter.connect(to: try PostgresTarget(url: url))
        let documents = [
            #"{"data": [{"type": "x", "id": "1", "attributes": {"a": 1, "b": "one"}}]}"#,
            // A repeated key: x is staged from here on, with two columns, then four.
            #"{"data": [{"type": "x", "id": "1", "attributes": {"a": 5}}, {"type": "y", "id": "1", "attributes": {"c": true}}]}"#,
            #"{"data": [{"type": "x", "id": "1", "attributes": {"a": 2, "b": "two", "c": [3]}}, {"type": "x", "id": "2"}]}"#,
        ]
        for (index, text) in documents.enumerated() {
            let path = directory.appendingPathComponent("page\(index).json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try await importer.importDocument(from: try FileChunkReader(path: path), source: "page\(index)")
        }
        #expect(
            try await importer.rows(#"SELECT id, a, b, c::text FROM x ORDER BY id"#) == [
                ["1", "2", "two", "[3]"], ["2", nil, nil, nil],
            ]
        )
        #expect(try await importer.rows("SELECT id, c FROM y") == [["1", "1"]])
        #expect(try await importer.rows("SELECT COUNT(*) FROM documents WHERE status = 'complete'") == [["3"]])
        try await importer.close()
    }

    @Test("import URL --postgres follows next links, one documents row per page")
    func importsPages() async throws {
        let url = try await TestPostgres.database()
        try await JSONAPITestServer.with(total: 95, chunkSize: 300) { server in
            let pages = server.url("/offset/articles?page%5Blimit%5D=20").absoluteString
            let run = try await ValidateCommandTests.run(["import", pages, "--postgres", url, "--batch-size", "7"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("from 5 pages"))
        }
        #expect(try await TestPostgres.query(url, "SELECT COUNT(*) FROM articles") == [["95"]])
        #expect(
            try await TestPostgres.query(url, "SELECT COUNT(*) FROM documents WHERE status = 'complete'") == [["5"]]
        )
        let author = "SELECT COUNT(author_id) FROM articles WHERE id = '95'"
        #expect(try await TestPostgres.query(url, author) == [["1"]])
    }

    @Test("--on-fault skip sets aside the same records as SQLite, in the batches' transactions")
    func setsAsideLikeSQLite() async throws {
        let directory = try ImportCommandTests.directory()
        let path = directory.appendingPathComponent("faulty.json").path
        try SetAsideImportTests.document(count: 600, bad: [5, 250, 251, 599]).write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let url = try await TestPostgres.database()
        let sqlite = directory.appendingPathComponent("faulty.sqlite").path
        for target in [["--postgres", url], ["--sqlite", sqlite]] {
            let run = try await Command.run(
                ["import", path, "--on-fault", "skip", "--batch-size", "100", "--quiet"] + target
            )
            #expect(run.status == 1, "\(run.standardError)")
            #expect(run.standardError.contains("5 records were set aside"), "\(run.standardError)")
        }
        let questions = [
            """
            SELECT source, byte_offset, line_number, column_number, pointer, message, record FROM faults
            ORDER BY byte_offset
            """,
            "SELECT COUNT(*), SUM(CAST(id AS INTEGER)) FROM people",
            "SELECT status, resources, faults FROM documents",
        ]
        for question in questions {
            let answers = try await TestPostgres.query(url, question)
            #expect(answers == (try Self.sqliteAnswers(sqlite, question)), "\(question): \(answers)")
            #expect(!answers.isEmpty)
        }
        #expect(try await TestPostgres.query(url, "SELECT COUNT(*) FROM faults") == [["5"]])
    }

    @Test("U+0000, which PostgreSQL cannot store, is a fault of its record, found while reading")
    func nulIsARecordFault() async throws {
        let directory = try ImportCommandTests.directory()
        // JSON:API: one resource with U+0000 in a string, one in a nested member's name.
        var resources = (0..<400).map { #"{"type": "people", "id": "\#($0)", "attributes": {"name": "p\#($0)"}}"# }
        resources[3] = #"{"type": "people", "id": "3", "attributes": {"name": "a\u0000b"}}"#
        resources[257] = #"{"type": "people", "id": "257", "attributes": {"extra": [1, {"k\u0000": 2}]}}"#
        let document = directory.appendingPathComponent("nul.json").path
        try "{\"data\": [\n\(resources.joined(separator: ",\n"))\n]}".write(
            toFile: document,
            atomically: true,
            encoding: .utf8
        )
        // JSON Lines: line 5 holds it.
        var lines = (1...300).map { #"{"id": \#($0), "note": "n\#($0)"}"# }
        lines[4] = #"{"id": 5, "note": "x\u0000"}"#
        let jsonLines = directory.appendingPathComponent("nul.jsonl").path
        try lines.joined(separator: "\n").write(toFile: jsonLines, atomically: true, encoding: .utf8)

        let url = try await TestPostgres.database()
        for jobs in ["1", "3"] {
            let skipped = try await Command.run(
                ["import", document, jsonLines, "--postgres", url, "--on-fault", "skip", "--batch-size", "100"]
                    + ["--pk", "id", "--jobs", jobs, "--quiet"]
            )
            #expect(skipped.status == 1, "\(skipped.standardError)")
            #expect(skipped.standardError.contains("nul.json:5:"), "\(skipped.standardError)")
            #expect(skipped.standardError.contains("/data/3/attributes/name: The text holds the character U+0000"))
            #expect(skipped.standardError.contains("nul.jsonl:5:"), "\(skipped.standardError)")
            let faults = try await TestPostgres.query(
                url,
                "SELECT source LIKE '%nul.jsonl', line_number, pointer FROM faults ORDER BY source, byte_offset"
            )
            #expect(
                faults == [
                    ["false", "5", "/data/3/attributes/name"], ["false", "259", "/data/257/attributes/extra/1"],
                    ["true", "5", "/note"],
                ],
                "\(faults)"
            )
            #expect(try await TestPostgres.query(url, "SELECT COUNT(*) FROM people") == [["398"]])
            #expect(try await TestPostgres.query(url, "SELECT COUNT(*) FROM nul") == [["299"]])
            #expect(try await TestPostgres.query(url, "SELECT SUM(faults) FROM documents") == [["3"]])
        }

        // Without skip the record stops the import where it is, before the server sees it.
        let stopped = try await Command.run(["import", document, "--postgres", url, "--batch-size", "2", "--quiet"])
        #expect(stopped.status == 1, "\(stopped.standardError)")
        #expect(stopped.standardError.contains("nul.json:5:"), "\(stopped.standardError)")
        #expect(stopped.standardError.contains("/data/3/attributes/name"), "\(stopped.standardError)")
        #expect(!stopped.standardError.contains("22021") && !stopped.standardError.contains("22P05"))
    }

    @Test("a bad document stops with its position; what was committed stays and the row says failed")
    func badDocument() async throws {
        let directory = try ImportCommandTests.directory()
        let path = directory.appendingPathComponent("bad.json").path
        let resources = (0..<30).map { #"{"type": "people", "id": "\#($0)"}"# }.joined(separator: ",\n")
        try #"{"data": [\#n\#(resources),\#n{"type": "people", "id": 7}]}"#.write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let url = try await TestPostgres.database()
        let run = try await Command.run(["import", path, "--postgres", url, "--batch-size", "10"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("bad.json:32:"))
        #expect(run.standardError.contains("/data/30/id"))
        #expect(run.standardError.contains("30 resources were imported before the fault"))
        #expect(try await TestPostgres.query(url, "SELECT COUNT(*) FROM people") == [["30"]])
        #expect(try await TestPostgres.query(url, "SELECT status FROM documents") == [["failed"]])
    }

    @Test(
        "sslmode=require imports over TLS; verify-full refuses a self-signed certificate",
        .enabled(if: ProcessInfo.processInfo.environment["SLUICE_POSTGRES_TLS"] != nil, "the test server has no TLS")
    )
    func tls() async throws {
        let url = try await TestPostgres.database()
        var components = URLComponents(string: url)!
        components.queryItems = [URLQueryItem(name: "sslmode", value: "require")]
        let importer = try await PostgresImporter.connect(to: try PostgresTarget(url: components.string!))
        let encrypted = try await importer.rows("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        #expect(encrypted == [["true"]])
        let directory = try ImportCommandTests.directory()
        let document = try await ImportCommandTests.generate(articles: 50, into: directory)
        let summary = try await importer.importDocument(from: try FileChunkReader(path: document), source: "tls.json")
        #expect(summary.primaryCount == 50)
        try await importer.close()
        components.queryItems = [URLQueryItem(name: "sslmode", value: "verify-full")]
        let refused = try await Command.run(["import", document, "--postgres", components.string!])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("cannot open the database"))
        #expect(!refused.standardError.contains(TestPostgres.password!))
    }

    @Test("a URL that is not PostgreSQL's, or a server that is not there, exits 2 without the password")
    func badTargets() async throws {
        let wrong = try await Command.run(["import", "-", "--postgres", "mysql://u:secret@h/db"])
        #expect(wrong.status == 2)
        #expect(wrong.standardError.contains("Not a PostgreSQL URL"))
        let closed = try await Command.run([
            "import", "-", "--postgres", "postgres://u:secret@127.0.0.1:1/db?sslmode=disable",
        ])
        #expect(closed.status == 2)
        #expect(closed.standardError.contains("cannot open the database"))
        #expect(!closed.standardError.contains("secret"))
    }

    @Test("plain JSON Lines with child tables gives the same rows in PostgreSQL as in SQLite")
    func plainRecordsLikeSQLite() async throws {
        let directory = try ImportCommandTests.directory()
        let lines = (0..<300).map { index in
            var line = "{\"id\": \(index), \"kind\": \"k\(index % 3)\", \"actor\": {\"login\": \"u\(index % 17)\"}"
            line += ", \"items\": [{\"n\": \(index)}, {\"n\": \(index + 1), \"extra\": true}]"
            if index > 150 { line += ", \"late\": \(Double(index) / 4)" }
            return line + "}"
        }
        let input = directory.appendingPathComponent("feed.ndjson").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        let sqlite = directory.appendingPathComponent("out.sqlite").path
        let options = ["--pk", "id", "--nested", "tables", "--batch-size", "64"]
        let sqliteRun = try await ValidateCommandTests.run(["import", input, "--sqlite", sqlite] + options)
        #expect(sqliteRun.status == 0, "\(sqliteRun.standardError)")
        let url = try await TestPostgres.database()
        for _ in 0..<2 {
            let run = try await ValidateCommandTests.run(["import", input, "--postgres", url] + options)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.hasPrefix("Imported 300 records and 600 child rows"), "\(run.standardOutput)")
        }
        let questions = [
            "SELECT COUNT(*), SUM(CAST(id AS INTEGER)), MIN(actor_login), MAX(actor_login) FROM feed",
            "SELECT kind, COUNT(*), CAST(SUM(late * 4) AS INTEGER) FROM feed GROUP BY kind ORDER BY kind",
            "SELECT COUNT(*), SUM(n), COUNT(extra) FROM feed_items",
            "SELECT CAST(_parent_id AS TEXT), _position, n FROM feed_items ORDER BY n, _position LIMIT 5",
            "SELECT source, status, primary_count, included_count FROM documents",
        ]
        for question in questions {
            let expected = try Self.sqliteAnswers(sqlite, question)
            let answer = try await TestPostgres.query(url, question)
            #expect(answer == expected, "\(question)")
        }
    }
}
