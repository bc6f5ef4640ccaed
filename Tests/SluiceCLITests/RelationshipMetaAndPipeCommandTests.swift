import Foundation
import GRDB
import Testing

/// What the CLI keeps and says: relationship meta in flatten and import (older databases upgraded),
/// a quiet stop when the reading end of a pipe closes, validate's summary.
@Suite("sluice: relationship meta, closed pipes, validate's summary")
struct RelationshipMetaAndPipeCommandTests {
    typealias Command = ValidateCommandTests

    static let documentWithRelationshipMeta = #"""
        {"data":[
          {"type":"articles","id":"1","attributes":{"title":"A"},
           "relationships":{
             "author":{"data":{"type":"people","id":"9"},"meta":{"role":"lead"}},
             "comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"6"}],"meta":{"total":2}},
             "tags":{"data":[]}}},
          {"type":"articles","id":"2","attributes":{"title":"B"},
           "relationships":{"author":{"data":{"type":"people","id":"9"}}}}
        ]}
        """#

    @Test("flatten keeps relationship meta in relationshipMeta, only on lines whose relationships have it")
    func flattenKeepsRelationshipMeta() async throws {
        let file = try Command.temporaryFile(Self.documentWithRelationshipMeta)
        let run = try await Command.run(["flatten", file])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"{"type":"articles","id":"1","attributes":{"title":"A"},"relationships":{"author":{"type":"people","id":"9"},"comments":[{"type":"comments","id":"5"},{"type":"comments","id":"6"}],"tags":[]},"relationshipMeta":{"author":{"role":"lead"},"comments":{"total":2}}}"#,
                #"{"type":"articles","id":"2","attributes":{"title":"B"},"relationships":{"author":{"type":"people","id":"9"}}}"#,
            ]
        )
    }

    @Test("import keeps relationship meta beside its linkage, and upgrades an older database's rows")
    func importKeepsRelationshipMeta() async throws {
        let directory = try ImportCommandTests.directory()
        let document = directory.appendingPathComponent("doc.json")
        try Data(Self.documentWithRelationshipMeta.utf8).write(to: document)
        let database = directory.appendingPathComponent("old.sqlite").path
        // A database as an earlier version made it: relationships without meta, and a to-one
        // relationship stored as a row (now it is the columns of its resource's row).
        try await DatabaseQueue(path: database).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE relationships (
                        source_type TEXT NOT NULL, source_id TEXT NOT NULL, name TEXT NOT NULL,
                        position INTEGER NOT NULL, target_type TEXT NOT NULL, target_id TEXT NOT NULL,
                        PRIMARY KEY (source_type, source_id, name, position)) WITHOUT ROWID;
                    INSERT INTO relationships VALUES ('articles', '1', 'author', 0, 'people', '8');
                    """
            )
        }
        let run = try await Command.run(["import", document.path, "--sqlite", database, "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try ImportCommandTests.read(database) { db in
            try Row.fetchAll(
                db,
                sql: "SELECT source_id, name, position, meta FROM relationships ORDER BY source_id, name, position"
            ).map { row -> String in
                let meta: String? = row["meta"]
                return
                    "\(row["source_id"] as String) \(row["name"] as String) \(row["position"] as Int) \(meta ?? "NULL")"
            }
        }
        #expect(rows == [#"1 comments 0 {"total":2}"#, #"1 comments 1 {"total":2}"#])
        // The older database's relationships keep their text ids; the new table keys its
        // decimal ids as integers.
        let authors = try ImportCommandTests.read(database) { db in
            try Row.fetchAll(db, sql: "SELECT id, author_type, author_id, author_meta FROM articles ORDER BY id")
                .map { row -> String in
                    let meta: String? = row["author_meta"]
                    let target = "\(row["author_type"] as String) \(row["author_id"] as Int64)"
                    return "\(row["id"] as Int64) \(target) \(meta ?? "NULL")"
                }
        }
        #expect(authors == [#"1 people 9 {"role":"lead"}"#, "2 people 9 NULL"])
    }

    @Test("flatten | head stops quietly with exit 0 when head has its line")
    func closedPipeIsQuiet() throws {
        let sluice = Command.executable.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c",
            """
            "$0" generate --articles 20000 | "$0" flatten - 2>/tmp/sluice-pipe-$$.err | head -n 1 >/dev/null
            status=${PIPESTATUS[1]}
            echo "status $status"
            cat /tmp/sluice-pipe-$$.err; rm -f /tmp/sluice-pipe-$$.err
            """,
            sluice,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Killed by SIGPIPE, bash would report 141; a write error reported as such, 2 with a message.
        #expect(text == "status 0\n")
    }

    @Test("validate --verbose names each valid file and ends with a summary; without it, nothing on a pipe")
    func validateVerbose() async throws {
        let good = try Command.temporaryFile(#"{"data":null}"#)
        let bad = try Command.temporaryFile(#"{"data":{"type":"x"}}"#)
        let quiet = try await Command.run(["validate", good])
        #expect(quiet.status == 0)
        #expect(quiet.standardOutput.isEmpty)
        let verbose = try await Command.run(["validate", "--verbose", good])
        #expect(verbose.standardOutput == "\(good): valid\n1 file checked: all valid.\n")
        let mixed = try await Command.run(["validate", "-v", good, bad])
        #expect(mixed.status == 1)
        #expect(mixed.standardOutput == "\(good): valid\n2 files checked: 1 invalid or unreadable.\n")
        #expect(mixed.standardError.hasPrefix("\(bad):1:"))
    }
}
