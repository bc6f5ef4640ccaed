import Foundation
import GRDB
import SluiceTestServer
import Testing

/// `sluice import`, run as the built binary against real SQLite files.
@Suite("sluice import")
struct ImportCommandTests {
    typealias Command = ValidateCommandTests

    /// A fresh directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func generate(articles: Int, into directory: URL, name: String = "doc.json") async throws -> String {
        let path = directory.appendingPathComponent(name).path
        let run = try await Command.run(["generate", "--articles", String(articles), "-o", path])
        #expect(run.status == 0, "\(run.standardError)")
        return path
    }

    static func read<T>(_ database: String, _ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: database)
        return try queue.read(body)
    }

    @Test("a generated document imports with every resource, value and relationship, and re-imports without duplicates")
    func importsAndReimports() async throws {
        let directory = try Self.directory()
        let document = try await Self.generate(articles: 300, into: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        let first = try await Command.run(["import", document, "--sqlite", database, "--batch-size", "100"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.hasPrefix("Imported "))
        // The flattened document is the reference: one NDJSON line per resource.
        let flattened = try await Command.run(["flatten", document])
        let lines = flattened.standardOutput.split(separator: "\n")
        var expected: [String: Int] = [:]
        // To-many identifiers are rows of `relationships`; to-one linkage is columns of its
        // resource's row.
        var links = 0
        var toOneLinks: [String: Int] = [:]
        var names: [String: String] = [:]
        var firstAuthor: String?
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let (type, id) = (object["type"] as! String, object["id"] as! String)
            expected[type, default: 0] += 1
            let attributes = object["attributes"] as! [String: Any]
            if type == "people" { names[id] = attributes["name"] as? String }
            if type == "articles", id == "0" {
                let author = (object["relationships"] as! [String: Any])["author"] as! [String: Any]
                firstAuthor = author["id"] as? String
            }
            for (name, linkage) in object["relationships"] as! [String: Any] {
                if linkage is [String: Any] { toOneLinks["\(type).\(name)", default: 0] += 1 }
                if let many = linkage as? [Any] { links += many.count }
            }
        }
        #expect(first.standardOutput.contains("Imported \(lines.count) resources (300 primary"))
        let toOneCount = toOneLinks.values.reduce(0, +)
        #expect(
            first.standardOutput.contains("included), \(toOneCount) to-one links and \(links) relationship rows"),
            "\(first.standardOutput)"
        )

        func check() throws {
            try Self.read(database) { db in
                for (type, count) in expected {
                    #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(type)\"") == count, "\(type)")
                }
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM relationships") == links)
                #expect(!toOneLinks.isEmpty)
                for (key, count) in toOneLinks {
                    let parts = key.split(separator: ".")
                    let (table, name) = (String(parts[0]), String(parts[1]))
                    #expect(
                        try Int.fetchOne(db, sql: "SELECT COUNT(\(name)_id) FROM \"\(table)\"") == count,
                        "\(key)"
                    )
                    #expect(
                        try Int.fetchOne(
                            db,
                            sql: "SELECT COUNT(*) FROM relationships WHERE source_type = ? AND name = ?",
                            arguments: [table, name]
                        ) == 0
                    )
                }
                #expect(
                    try String.fetchOne(
                        db,
                        sql: """
                            SELECT column_name FROM sluice_columns
                            WHERE type = 'articles' AND attribute = '/relationships/author/data/id'
                            """
                    ) == "author_id"
                )
                // Joins back from a person to the articles that name them use an index.
                let plan = try Row.fetchAll(
                    db,
                    sql: "EXPLAIN QUERY PLAN SELECT id FROM articles WHERE author_id = '1'"
                )
                .map { $0["detail"] as String }.joined()
                #expect(plan.contains("articles_author_id_index"), "\(plan)")
                let article = try #require(try Row.fetchOne(db, sql: "SELECT * FROM articles WHERE id = '0'"))
                #expect(article["title"] as String == "naïve link gate model")
                #expect(article["published"] as Int64 == 1)
                #expect(article["views"] as Int64 == 645_316)
                #expect(article["rating"] as Double == 0.316)
                #expect(article["subtitle"] as String? == nil)
                #expect(article["tags"] as String == #"["yajl","bytes"]"#)
                #expect(
                    try String.fetchOne(
                        db,
                        sql: "SELECT declared_type FROM sluice_columns WHERE type = 'articles' AND attribute = 'views'"
                    ) == "INTEGER"
                )
                // Decimal ids are stored as integers, and found by their text as well.
                let comments = try Int.fetchAll(
                    db,
                    sql: """
                        SELECT target_id FROM relationships
                        WHERE source_type = 'articles' AND source_id = '0' AND name = 'comments' ORDER BY position
                        """
                )
                #expect(comments == [0, 1, 2, 3])
                // The author's name, joined through the article's author column.
                let author = try String.fetchOne(
                    db,
                    sql: """
                        SELECT people.name FROM articles JOIN people ON people.id = articles.author_id
                        WHERE articles.id = '0' AND articles.author_type = 'people'
                        """
                )
                #expect(author != nil)
                #expect(author == firstAuthor.flatMap { names[$0] })
                let documentRow = try #require(try Row.fetchOne(db, sql: "SELECT * FROM documents"))
                #expect(documentRow["status"] as String == "complete")
                #expect(documentRow["primary_count"] as Int == 300)
                #expect((documentRow["meta"] as String).contains(#""articles":300"#))
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents") == 1)
            }
        }
        try check()
        let second = try await Command.run(["import", document, "--sqlite", database, "--quiet"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.isEmpty)
        #expect(second.standardError.isEmpty)
        try check()
    }

    @Test("new attributes add columns; a null first makes no column; odd names get their own columns")
    func schemaGrows() async throws {
        let directory = try Self.directory()
        let database = directory.appendingPathComponent("out.sqlite").path
        let document = """
            {"data": [
              {"type": "documents", "id": "1", "attributes": {"Name": "a", "name": "b", "note": null}},
              {"type": "documents", "id": "2", "attributes": {"name": "c", "size": 12, "note": "later", "big": 1e999}},
              {"type": "documents", "id": "3", "attributes": {"size": "huge", "note": ""}},
              {"type": "widgets", "lid": "w-1", "attributes": {"size": "large"}}
            ]}
            """
        let path = directory.appendingPathComponent("odd.json").path
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        let run = try await Command.run(["import", path, "--sqlite", database])
        #expect(run.status == 0, "\(run.standardError)")
        // "huge" in the INTEGER column `size`: counted and reported, and kept as written.
        #expect(
            run.standardOutput.contains("1 values differed from their column's declared type"),
            "\(run.standardOutput)"
        )
        try Self.read(database) { db in
            // The type named like the import's own table gets a table of its own.
            let table = try String.fetchOne(db, sql: "SELECT table_name FROM sluice_tables WHERE type = 'documents'")
            #expect(table == "documents_resources")
            let columns = try Row.fetchAll(
                db,
                sql:
                    "SELECT attribute, column_name, declared_type FROM sluice_columns WHERE type = 'documents' ORDER BY rowid"
            ).map { "\($0["attribute"] as String)->\($0["column_name"] as String):\($0["declared_type"] as String)" }
            #expect(
                columns == [
                    "Name->Name:TEXT", "name->name_2:TEXT", "size->size:INTEGER", "note->note:TEXT", "big->big:TEXT",
                ]
            )
            let second = try #require(try Row.fetchOne(db, sql: "SELECT * FROM documents_resources WHERE id = '2'"))
            #expect(second["name_2"] as String == "c")
            #expect(second["size"] as Int == 12)
            #expect(second["note"] as String == "later")
            #expect(second["big"] as String == "1e999")
            #expect(try String.fetchOne(db, sql: "SELECT size FROM documents_resources WHERE id = '3'") == "huge")
            // An empty string is stored as one, not as NULL.
            #expect(try String.fetchOne(db, sql: "SELECT note FROM documents_resources WHERE id = '3'") == "")
            #expect(try String.fetchOne(db, sql: "SELECT size FROM widgets WHERE id = 'w-1'") == "large")
        }
    }

    @Test("invalid input stops with FILE:LINE:COLUMN: POINTER: message, keeps what was committed, exits 1")
    func badInput() async throws {
        let directory = try Self.directory()
        let database = directory.appendingPathComponent("out.sqlite").path
        let syntax = directory.appendingPathComponent("syntax.json").path
        try Data(
            """
            {"data": [
              {"type": "people", "id": "1", "attributes": {"name": "Ann"}},
              {"type": "people", "id": "2", "attributes": {"name": "Bo",}}
            ]}
            """.utf8
        ).write(to: URL(fileURLWithPath: syntax))
        let run = try await Command.run(["import", syntax, "--sqlite", database])
        #expect(run.status == 1)
        #expect(run.standardError.hasPrefix("\(syntax):3:61: /data/1: "), "\(run.standardError)")
        #expect(run.standardError.contains("1 resource was imported before the fault and is in \(database)."))
        try Self.read(database) { db in
            #expect(try Int.fetchAll(db, sql: "SELECT id FROM people") == [1])
            let document = try #require(try Row.fetchOne(db, sql: "SELECT status, error FROM documents"))
            #expect(document["status"] as String == "failed")
        }

        let jsonapi = directory.appendingPathComponent("jsonapi.json").path
        try Data(#"{"data": [{"type": "people", "id": 7}]}"#.utf8).write(to: URL(fileURLWithPath: jsonapi))
        let second = try await Command.run(["import", jsonapi, "--sqlite", database])
        #expect(second.status == 1)
        #expect(second.standardError.hasPrefix("\(jsonapi):1:36: /data/0/id: "), "\(second.standardError)")

        let missing = try await Command.run([
            "import", directory.appendingPathComponent("nope.json").path, "--sqlite", database,
        ])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("cannot read"))
        let nowhere = directory.appendingPathComponent("never.sqlite").path
        let typo = try await Command.run([
            "import", directory.appendingPathComponent("nope.json").path, "--sqlite", nowhere,
        ])
        #expect(typo.status == 2)
        #expect(!typo.standardError.contains("imported before the fault"), "\(typo.standardError)")
        #expect(!FileManager.default.fileExists(atPath: nowhere), "a database was made for a file that cannot be read")
        let usage = try await Command.run(["import", "--batch-size", "0"])
        #expect(usage.status == 2)
    }

    @Test("standard input and gzip input import; plain progress lines when standard error is not a terminal")
    func inputsAndProgress() async throws {
        let directory = try Self.directory()
        let document = try await Self.generate(articles: 2000, into: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        let stdin = try await Command.run(
            ["import", "-", "--sqlite", database, "--progress-interval", "0.001", "--batch-size", "500"],
            standardInput: try Data(contentsOf: URL(fileURLWithPath: document))
        )
        #expect(stdin.status == 0, "\(stdin.standardError)")
        let progress = stdin.standardError.split(separator: "\n")
        #expect(!progress.isEmpty)
        #expect(progress.allSatisfy { $0.contains(" MB, ") && $0.contains(" resources, ") && $0.contains(" elapsed") })
        #expect(!stdin.standardError.contains("\r"))

        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -k \"$0\"", document]
        try gzip.run()
        gzip.waitUntilExit()
        let zipped = directory.appendingPathComponent("zipped.sqlite").path
        let fromGzip = try await Command.run(["import", document + ".gz", "--sqlite", zipped, "--quiet"])
        #expect(fromGzip.status == 0, "\(fromGzip.standardError)")
        let counts = try [database, zipped].map { path in
            try Self.read(path) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM comments") }
        }
        #expect(counts[0] == counts[1])
        #expect((counts[0] ?? 0) > 2000)
    }

    @Test("an import killed after its first batch leaves a consistent database of whole batches")
    func interrupted() async throws {
        let directory = try Self.directory()
        let document = try await Self.generate(articles: 30_000, into: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        // Wait for the first committed batch, then kill the import mid-way.
        let process = try Self.importKilled(
            document,
            into: database,
            after: 1000,
            committed: "SELECT COUNT(*) FROM articles"
        )
        #expect(process.terminationReason == .uncaughtSignal)

        try Self.read(database) { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let articles = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM articles") ?? 0
            let committed = try Int.fetchOne(db, sql: "SELECT resources FROM documents") ?? 0
            // Whole batches of 1000. Primary data comes first, so the articles are the committed
            // resources up to 30 000 (under load the kill may land in included).
            #expect(committed >= 1000 && committed % 1000 == 0)
            #expect(articles == min(committed, 30_000))
            // Every committed article has its author and all of its comment rows.
            let authors = try Int.fetchOne(db, sql: "SELECT COUNT(author_id) FROM articles")
            #expect(authors == articles)
            let orphans = try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM articles WHERE NOT EXISTS (SELECT 1 FROM relationships
                    WHERE source_type = 'articles' AND source_id = articles.id AND name = 'comments')
                    """
            )
            #expect(orphans == 0)
            #expect(try String.fetchOne(db, sql: "SELECT status FROM documents") == "importing")
        }
        // Importing again completes the document.
        let again = try await Command.run(["import", document, "--sqlite", database, "--quiet"])
        #expect(again.status == 0, "\(again.standardError)")
        try Self.read(database) { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM articles") == 30_000)
            #expect(try String.fetchOne(db, sql: "SELECT status FROM documents") == "complete")
        }
    }

    @Test("--resume continues a killed import from its last committed batch, and the result is the whole document")
    func resumes() async throws {
        let directory = try Self.directory()
        let document = try await Self.generate(articles: 30_000, into: directory)
        let database = directory.appendingPathComponent("out.sqlite").path
        try Self.importKilled(
            document,
            into: database,
            after: 2000,
            committed: "SELECT resume_resources FROM documents"
        )
        let (articles, recorded) = try Self.read(database) { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM articles") ?? 0,
                try Int.fetchOne(db, sql: "SELECT resume_resources FROM documents") ?? 0
            )
        }
        // The row knows how far the committed batches reach: every article before it is in (data
        // comes first; under load the kill may land in included).
        #expect(articles == min(recorded, 30_000))

        let resumed = try await Command.run(["import", document, "--sqlite", database, "--resume"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("Resumed after the \(recorded) resources"))
        let whole = directory.appendingPathComponent("whole.sqlite").path
        #expect(try await Command.run(["import", document, "--sqlite", whole, "--quiet"]).status == 0)
        // The summary counts the resources of both runs.
        let total = try Self.read(whole) { db in
            try Int.fetchOne(
                db,
                sql:
                    "SELECT (SELECT COUNT(*) FROM articles) + (SELECT COUNT(*) FROM people) + (SELECT COUNT(*) FROM comments)"
            ) ?? 0
        }
        #expect(resumed.standardOutput.contains("Imported \(total) resources"))
        for question in PostgresImportTests.questions.prefix(7) {
            #expect(
                try PostgresImportTests.sqliteAnswers(database, question)
                    == PostgresImportTests.sqliteAnswers(whole, question),
                "\(question)"
            )
        }
        // Resuming a complete import imports it whole again (nothing to continue), changing nothing.
        let again = try await Command.run(["import", document, "--sqlite", database, "--resume"])
        #expect(again.status == 0)
        #expect(!again.standardOutput.contains("Resumed"))
        // A different file under the same name is not resumed into.
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in try db.execute(sql: "UPDATE documents SET status = 'importing', source_size = 5")
        }
        let changed = try await Command.run(["import", document, "--sqlite", database, "--resume"])
        #expect(changed.status != 0)
        #expect(changed.standardError.contains("Cannot resume"))
    }

    @Test(
        "peak memory stays flat as the document grows (SQLite and, when there is one, PostgreSQL)",
        .disabled(
            if: sanitized,
            "under a sanitizer, whose quarantine keeps freed memory: peaks grow with all allocated"
        )
    )
    func memoryIsFlat() async throws {
        let directory = try Self.directory()
        let small = try await Self.generate(articles: 2_000, into: directory, name: "small.json")
        let large = try await Self.generate(articles: 20_000, into: directory, name: "large.json")
        var targets = [["--sqlite", directory.appendingPathComponent("a.sqlite").path]]
        if TestPostgres.available { targets.append(["--postgres", try await TestPostgres.database()]) }
        for target in targets {
            let smallPeak = try Self.peakMemory(["import", small, "--quiet"] + target)
            let largePeak = try Self.peakMemory(["import", large, "--quiet"] + target)
            // Ten times the document (3 MB to 30 MB): at most the SQLite page cache's 8 MB and the
            // pipe's blocks more, nothing in proportion to the document.
            #expect(largePeak < smallPeak + 16_000, "\(target[0]): \(smallPeak) KB then \(largePeak) KB")
        }
    }

    /// Starts `sluice import` of `document` into `database` in batches of 1 000, and kills it once
    /// `committed` (a query of the database) reaches `count`; expects it was still running then.
    @discardableResult
    static func importKilled(
        _ document: String,
        into database: String,
        after count: Int,
        committed query: String
    )
        throws -> Process
    {
        let process = Process()
        process.executableURL = Command.executable
        process.arguments = ["import", document, "--sqlite", database, "--batch-size", "1000", "--quiet"]
        try process.run()
        kill(process.processIdentifier, SIGSTOP)
        var committed = 0
        let deadline = Date().addingTimeInterval(60)
        while committed < count, Date() < deadline, process.isRunning {
            runSlice(of: process)
            committed = (try? Self.read(database) { db in try Int.fetchOne(db, sql: query) }).flatMap { $0 } ?? 0
        }
        #expect(process.isRunning, "the import finished before it could be interrupted")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process
    }

    /// Lets a stopped import run for 20 ms, then stops it again (SIGSTOP), so that a test looks at
    /// what it committed while it stands still. However loaded the machine, the look then sees
    /// the import mid-way: when it ran freely, a look that came through late (the suite's other
    /// tests share the threads and cores) once found the import finished.
    static func runSlice(of process: Process, microseconds: UInt32 = 20_000) {
        kill(process.processIdentifier, SIGCONT)
        usleep(microseconds)
        kill(process.processIdentifier, SIGSTOP)
    }

    /// Runs the CLI and returns its peak resident memory in KB (from wait4's rusage: the child's
    /// own, not the test process's).
    static func peakMemory(_ arguments: [String]) throws -> Int {
        let argv = ([Command.executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let spawned = posix_spawn(&pid, Command.executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        #expect(status == 0, "\(arguments)")
        return usage.ru_maxrss
    }

    @Test("help reads as sentences with an example")
    func help() async throws {
        let run = try await Command.run(["import", "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("Examples:"))
        #expect(run.standardOutput.contains("sluice import export.json"))
        #expect(run.standardOutput.contains("--sqlite"))
    }

    @Test(
        "every command's help has single spaces between the words of its sentences",
        arguments: ["validate", "flatten", "fetch", "import", "generate", "bench"]
    )
    func helpSpacing(command: String) async throws {
        let run = try await Command.run([command, "--help"])
        #expect(run.status == 0)
        // Columns of options and examples are aligned with spaces; sentences are not: a run of
        // spaces between two words is a line joined from a wrapped string literal.
        for line in run.standardOutput.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            let joined = text.firstRange(of: /[a-z,.;:)]  +[a-z(]/)
            #expect(joined == nil || text.hasPrefix("-") || text.hasPrefix("sluice "), "\(command): \(line)")
        }
    }
}
