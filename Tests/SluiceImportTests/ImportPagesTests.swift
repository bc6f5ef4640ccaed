import Foundation
import GRDB
import SluiceImport
import SluiceJSON
import SluiceJSONAPI
import SluiceSQLite
import Testing

/// A paginated collection through `ImportJob.importPages`, into a real SQLite file; pages are
/// chunk sequences named by their `links.next`.
@Suite("Import of pages")
struct ImportPagesTests {
    /// Three pages, each naming the next; `loop` links back to itself, `broken` is cut short.
    static let pages: [String: String] = [
        "p1": #"{"data":[{"type":"people","id":"1","attributes":{"name":"A"}}],"links":{"next":"p2"}}"#,
        "p2": #"{"data":[{"type":"people","id":"2","attributes":{"name":"B"}}],"links":{"next":"p3"}}"#,
        "p3": #"{"data":[{"type":"people","id":"3","attributes":{"name":"C"}}],"links":{"next":null}}"#,
        "loop": #"{"data":[{"type":"people","id":"9"}],"links":{"next":"loop"}}"#,
        "broken": #"{"data":[{"type":"people","id":"1"},{"type":"people","id":7}],"links":{"next":"p3"}}"#,
    ]

    /// The page `name` as a sequence of two chunks.
    static func page(_ name: String) -> ImportSource {
        let bytes = Array(pages[name]!.utf8)
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        continuation.yield(Array(bytes[..<(bytes.count / 2)]))
        continuation.yield(Array(bytes[(bytes.count / 2)...]))
        continuation.finish()
        return ImportSource(name: name, chunks: stream)
    }

    /// The page a page's `links.next` names.
    static func next(_ previous: ImportJob.ImportedPage?, first: String) -> ImportSource? {
        guard let previous else { return page(first) }
        return previous.summary.links?.next?.href.map(page)
    }

    static func database() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-pages-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("pages.sqlite").path
    }

    static func rows(_ path: String, _ sql: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: sql) }
    }

    @Test("pages are followed to the last, each its own documents row")
    func followsToTheLast() async throws {
        let path = try Self.database()
        let importer = try SQLiteImporter(path: path)
        let outcomes = try await ImportJob.importPages(into: importer) { Self.next($0, first: "p1") }
        #expect(outcomes.map(\.source.name) == ["p1", "p2", "p3"])
        #expect(outcomes.compactMap { try? $0.result.get().resources } == [1, 1, 1])
        #expect(try Self.rows(path, "SELECT name FROM people ORDER BY id") == ["A", "B", "C"])
        #expect(
            try Self.rows(path, "SELECT source || ' ' || status FROM documents ORDER BY source")
                == ["p1 complete", "p2 complete", "p3 complete"]
        )
    }

    @Test("maxPages stops early; a failing page ends the outcomes with its fault")
    func stops() async throws {
        let limited = try await ImportJob.importPages(into: try SQLiteImporter(path: try Self.database()), maxPages: 2)
        {
            Self.next($0, first: "p1")
        }
        #expect(limited.map(\.source.name) == ["p1", "p2"])

        let path = try Self.database()
        let failing = try await ImportJob.importPages(into: try SQLiteImporter(path: path)) {
            Self.next($0, first: "broken")
        }
        #expect(failing.count == 1)
        guard case .failure(let failure) = failing.last?.result else {
            Issue.record("the broken page imported")
            return
        }
        #expect("\(failure.underlying)".contains("/data/1/id"))
        #expect(failure.committedResources == 1)
    }

    @Test("a link back to a page already imported throws, with the pages before")
    func leadsBack() async throws {
        do {
            _ = try await ImportJob.importPages(into: try SQLiteImporter(path: try Self.database())) {
                Self.next($0, first: "loop")
            }
            Issue.record("a looping collection ended")
        } catch let error as ImportPagesError {
            guard case .leadsBack(let name) = error.reason else {
                Issue.record("stopped for \(error.reason)")
                return
            }
            #expect(name == "loop")
            #expect(error.imported.count == 1)
            #expect(error.committedResources == 1)
        }
    }

    @Test("a next page that cannot be had throws its error, with the committed count")
    func nextPageFails() async throws {
        struct Unreachable: Error {}
        do {
            _ = try await ImportJob.importPages(into: try SQLiteImporter(path: try Self.database())) { previous in
                guard previous == nil else { throw Unreachable() }
                return Self.page("p1")
            }
            Issue.record("the pages ended without the error")
        } catch let error as ImportPagesError {
            guard case .nextPage(let cause) = error.reason else {
                Issue.record("stopped for \(error.reason)")
                return
            }
            #expect(cause is Unreachable)
            #expect(error.committedResources == 1)
        }
    }
}
