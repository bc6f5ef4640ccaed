import Foundation
import SluiceImport
import SluiceJSON
import SluiceJSONAPIImport
import Testing

/// A destination of the user's own, written against SluiceImport's public API alone: the engine
/// reads and batches, this only keeps what it is given (rows as text, links as lines).
final class MemoryDestination: ImportDestination, @unchecked Sendable {
    // @unchecked: one import at a time uses it (SQLite-like: `allowsConcurrentDocuments` is false).
    var destinationName: String { "memory" }
    static var allowsConcurrentDocuments: Bool { false }
    /// JSON:API documents are read by SluiceJSONAPIImport's reader; plain records need none.
    var options: ImportOptions = {
        var options = ImportOptions()
        options.documents = JSONAPIImportReader()
        return options
    }()

    /// Committed rows: table, then key, then column.
    var tables: [String: [String: [String: String]]] = [:]
    /// Committed links, `articles/1 author -> people/9`.
    var links: [String] = []
    /// Each document's status.
    var documents: [String: String] = [:]

    func importDocument(_ document: ImportDocument) async throws -> ImportSummary {
        try await document.run(through: MemoryWriter(into: self))
    }

    func close() async throws {}
}

/// One document's writes: a batch is held until the engine commits it.
final class MemoryWriter: ImportWriter {
    private let destination: MemoryDestination
    private var source = ""
    private var rows: [(table: String, key: String, columns: [String: String])] = []
    private var links: [String] = []
    private var rowsPerTable: [String: Int] = [:]

    init(into destination: MemoryDestination) {
        self.destination = destination
    }

    func resumePoint(for source: String) async throws -> ResumePoint? { nil }

    func prepare(source: String, sourceSize: Int?, resumingFrom resume: ResumePoint?) async throws {
        self.source = source
        destination.documents[source] = "importing"
    }

    func write(_ records: ArraySlice<ImportRecord>) async throws -> ImportBlockWrite {
        var written = 0
        for record in records {
            record.withReader { reader in
                let table = Self.string(reader.text())
                let (kind, key) = reader.key()
                guard kind != .none else { return }
                var columns: [String: String] = [:]
                for _ in 0..<reader.count() {
                    let name = Self.string(reader.text())
                    columns[name] = Self.string(reader.value())
                }
                for _ in 0..<reader.count() {
                    let name = Self.string(reader.text())
                    _ = reader.linkage()
                    _ = reader.meta()
                    for _ in 0..<reader.count() {
                        let targetTable = Self.string(reader.text())
                        let (_, targetKey) = reader.key()
                        links.append("\(table)/\(Self.string(key)) \(name) -> \(targetTable)/\(Self.string(targetKey))")
                    }
                }
                rows.append((table, Self.string(key), columns))
                written += 1
            }
        }
        // A row met again replaces the one before it, so every record is taken.
        return ImportBlockWrite(taken: records.count, written: written)
    }

    func commit(_ mark: ImportMark, closing: Bool) async throws -> [ImportMark] {
        for row in rows {
            destination.tables[row.table, default: [:]][row.key] = row.columns
            rowsPerTable[row.table, default: 0] += 1
        }
        destination.links += links
        rows = []
        links = []
        return [mark]
    }

    func finish(_ document: ImportDocumentSummary, summary: ImportSummary) async throws {
        destination.documents[source] = "complete"
    }

    func fail(_ error: any Error, at mark: ImportMark) async -> (durable: [ImportMark], keepingBytesRead: Bool) {
        // The open batch is dropped: what the last commit kept is what stays.
        rows = []
        links = []
        return ([], false)
    }

    func recordFailure(_ error: any Error, summary: ImportSummary) async {
        destination.documents[source] = "failed"
    }

    var counts: ImportWriterCounts {
        ImportWriterCounts(
            relationshipRows: destination.links.count,
            toOneLinks: 0,
            typeMismatches: 0,
            tables: rowsPerTable.sorted { $0.key < $1.key }.map {
                ImportSummary.TableRows(table: $0.key, rows: $0.value)
            }
        )
    }

    static func string(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }

    static func string(_ value: ImportRecord.Value) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(_, let text), .real(_, let text), .bigNumber(let text), .string(let text), .json(let text):
            string(text)
        }
    }
}

@Suite("A destination of one's own")
struct OwnDestinationTests {
    static func write(_ text: String, named name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-destination-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("JSON Lines and a JSON:API document go through ImportJob into it, batch by batch")
    func importsBothFormats() async throws {
        let lines = try Self.write(
            """
            {"id": 1, "name": "Ann", "address": {"city": "Oslo"}}
            {"id": 2, "name": "Bo", "tags": ["a", "b"]}

            {"id": 3, "name": null}
            """,
            named: "people.jsonl"
        )
        let document = try Self.write(
            #"{"data": [{"type": "articles", "id": "1", "attributes": {"title": "Streams"}, "relationships": {"author": {"data": {"type": "people", "id": "9"}}}}]}"#,
            named: "articles.json"
        )
        let destination = MemoryDestination()
        destination.options.batchSize = 2
        destination.options.records.primaryKey = ["id"]
        let job = ImportJob(sources: [ImportSource(path: lines), ImportSource(path: document)]) { destination }
        let outcomes = try await job.run()
        let summaries = try outcomes.map { try $0.result.get() }
        #expect(summaries.map(\.format) == [.lines, .jsonAPI])
        #expect(summaries[0].batches == 2)
        #expect(destination.tables["people"]?["1"]?["address_city"] == "Oslo")
        #expect(destination.tables["people"]?["2"]?["tags"] == #"["a","b"]"#)
        #expect(destination.tables["people"]?["3"]?["name"] == "null")
        #expect(destination.tables["articles"]?["1"]?["title"] == "Streams")
        #expect(destination.links == ["articles/1 author -> people/9"])
        #expect(destination.documents == [lines: "complete", document: "complete"])
    }

    @Test("a bad line stops its document at its line; the batches before it stay")
    func badLine() async throws {
        let lines = try Self.write("{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3,}\n", named: "bad.jsonl")
        let destination = MemoryDestination()
        destination.options.batchSize = 1
        destination.options.records.primaryKey = ["id"]
        let outcomes = try await ImportJob(sources: [ImportSource(path: lines)]) { destination }.run()
        guard case .failure(let failure) = outcomes[0].result else {
            Issue.record("the bad line was imported")
            return
        }
        let error = try #require(failure.underlying as? JSONError)
        #expect(error.line == 3)
        #expect(failure.committedResources == 2)
        #expect(destination.tables["bad"]?.keys.sorted() == ["1", "2"])
        #expect(destination.documents[lines] == "failed")
    }
}
