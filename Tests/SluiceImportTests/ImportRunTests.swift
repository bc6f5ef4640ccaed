import Foundation
import SluiceImport
import SluiceJSON
import SluiceJSONAPI
import SluiceJSONAPIImport
import Testing

/// The engine's side of the writer protocol, through a writer that keeps its rows in memory: the
/// document is real bytes read by the real reader, and each test checks what the engine asked of
/// the database and what it reported.
@Suite("Import engine")
struct ImportRunTests {
    /// Keeps rows by `type/key`, a batch at a time; can fail on a chosen commit, and can hold
    /// each batch back until the next commit (as PostgreSQL writes one while the next fills).
    final class MemoryWriter: ImportWriter {
        var rows: [String: Int] = [:]
        var open: [String: Int] = [:]
        var calls: [String] = []
        var commits: [ImportMark] = []
        var blockSizes: [Int] = []
        var resume: ResumePoint?
        var failCommit: Int?
        var overlaps = false
        private var inFlight: (rows: [String: Int], mark: ImportMark)?
        var failedWith: String?
        var failureSummary: ImportSummary?
        var finishedSummary: ImportSummary?
        private var written = 0

        func resumePoint(for source: String) -> ResumePoint? {
            calls.append("resumePoint")
            return resume
        }

        func prepare(source: String, sourceSize: Int?, resumingFrom resume: ResumePoint?) {
            calls.append("prepare \(resume?.resourcesRead ?? 0)")
        }

        func write(_ records: ArraySlice<ImportRecord>) -> ImportBlockWrite {
            blockSizes.append(records.count)
            var taken = 0
            var identified = 0
            for record in records {
                let key: String? = record.withReader { reader in
                    let type = String(decoding: reader.text(), as: UTF8.self)
                    let (kind, key) = reader.key()
                    return kind == .none ? nil : type + "/" + String(decoding: key, as: UTF8.self)
                }
                if let key {
                    if open[key] != nil { break }
                    written += 1
                    open[key] = written
                    identified += 1
                }
                taken += 1
            }
            return ImportBlockWrite(taken: taken, written: identified)
        }

        struct Refused: Error {}

        func commit(_ mark: ImportMark, closing: Bool) throws -> [ImportMark] {
            if let failCommit, commits.count + (inFlight == nil ? 0 : 1) + 1 == failCommit {
                open = [:]
                throw Refused()
            }
            calls.append(closing ? "commit closing" : "commit")
            var durable: [ImportMark] = []
            if let (batch, earlier) = inFlight {
                rows.merge(batch) { $1 }
                durable.append(earlier)
                inFlight = nil
            }
            if overlaps && !closing {
                inFlight = (open, mark)
            } else {
                rows.merge(open) { $1 }
                durable.append(mark)
            }
            open = [:]
            commits += durable
            return durable
        }

        func finish(_ document: ImportDocumentSummary, summary: ImportSummary) {
            calls.append("finish")
            finishedSummary = summary
        }

        func fail(_ error: any Error, at mark: ImportMark) -> (durable: [ImportMark], keepingBytesRead: Bool) {
            calls.append("fail")
            // The batch in flight went in; the open one is dropped, as a database fault leaves it.
            var durable: [ImportMark] = []
            if let (batch, earlier) = inFlight {
                rows.merge(batch) { $1 }
                durable.append(earlier)
                inFlight = nil
            }
            open = [:]
            commits += durable
            return (durable, false)
        }

        func recordFailure(_ error: any Error, summary: ImportSummary) {
            calls.append("recordFailure")
            failedWith = "\(error)"
            failureSummary = summary
        }

        var counts: ImportWriterCounts {
            ImportWriterCounts(
                relationshipRows: 0,
                toOneLinks: 0,
                typeMismatches: 0,
                tables: [ImportSummary.TableRows(table: "all", rows: rows.count)]
            )
        }
    }

    static func reader(_ text: String) throws -> FileChunkReader {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-run-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        // Open, then unlinked: the reader's descriptor keeps the bytes, and no file is left behind.
        defer { try? FileManager.default.removeItem(at: url) }
        return try FileChunkReader(path: url.path)
    }

    static func document(_ resources: [String]) -> String {
        "{\"data\": [" + resources.joined(separator: ",") + "]}"
    }

    /// The `ImportFailure` an import of `text` through `writer` throws; fails the test if it
    /// returns or throws anything else.
    static func failure(
        of writer: MemoryWriter,
        reading text: String,
        options: ImportOptions
    ) async throws
        -> ImportFailure
    {
        do {
            _ = try await ImportRun.run(
                writer,
                reading: try reader(text),
                source: "doc",
                options: options,
                progress: nil
            )
        } catch let failure as ImportFailure {
            return failure
        }
        Issue.record("the import succeeded")
        throw MemoryWriter.Refused()
    }

    /// The engine's options for JSON:API documents, read by SluiceJSONAPIImport's reader.
    static func options() -> ImportOptions {
        var options = ImportOptions()
        options.documents = JSONAPIImportReader()
        return options
    }

    static func article(_ id: Int) -> String { "{\"type\": \"articles\", \"id\": \"\(id)\"}" }

    @Test("batches end every batchSize resources, and the last commit closes before finish")
    func batchesAtTheirSize() async throws {
        let writer = MemoryWriter()
        var options = Self.options()
        options.batchSize = 4
        let text = Self.document((1...10).map(Self.article))
        let summary = try await ImportRun.run(
            writer,
            reading: try Self.reader(text),
            source: "doc",
            options: options,
            progress: nil
        )
        #expect(writer.calls == ["prepare 0", "commit", "commit", "commit closing", "finish"])
        #expect(writer.commits.map(\.resources) == [4, 8, 10])
        #expect(writer.commits.map(\.resourcesRead) == [4, 8, 10])
        #expect(writer.blockSizes.allSatisfy { $0 <= 4 })
        #expect(writer.rows.count == 10)
        #expect(summary.resources == 10 && summary.batches == 3 && summary.primaryCount == 10)
        #expect(summary.bytes == text.utf8.count)
        #expect(writer.finishedSummary?.resources == 10)
    }

    @Test("a key the open batch holds goes in after a commit, and resources without id are counted apart")
    func repeatedKeysAndUnidentified() async throws {
        let writer = MemoryWriter()
        let text = Self.document([
            Self.article(1), Self.article(2), "{\"type\": \"articles\"}", Self.article(1), Self.article(3),
        ])
        let summary = try await ImportRun.run(
            writer,
            reading: try Self.reader(text),
            source: "doc",
            options: Self.options(),
            progress: nil
        )
        // The second `articles/1` starts a new batch: the first ends after the unidentified one.
        #expect(writer.commits.map(\.resources) == [2, 4])
        #expect(writer.commits.map(\.resourcesRead) == [3, 5])
        #expect(summary.resources == 4 && summary.unidentified == 1)
        #expect(writer.rows["articles/1"] == 3)
    }

    @Test("a batch committed while the next fills counts as committed only once the writer says so")
    func overlappedCommits() async throws {
        let writer = MemoryWriter()
        writer.overlaps = true
        var options = Self.options()
        options.batchSize = 3
        var reports: [ImportProgress] = []
        let summary = try await ImportRun.run(
            writer,
            reading: try Self.reader(Self.document((1...7).map(Self.article))),
            source: "doc",
            options: options
        ) { reports.append($0) }
        #expect(writer.commits.map(\.resources) == [3, 6, 7])
        #expect(summary.batches == 3 && summary.resources == 7)
        #expect(reports.last?.finished == true)
        #expect(reports.last?.committedResources == 7)
    }

    @Test("a resumed import skips what was committed and says where it went on from")
    func resumes() async throws {
        let writer = MemoryWriter()
        writer.resume = ResumePoint(resourcesRead: 4, resources: 4, relationshipRows: 0, bytes: 100, sourceSize: nil)
        var options = Self.options()
        options.resume = true
        let summary = try await ImportRun.run(
            writer,
            reading: try Self.reader(Self.document((1...6).map(Self.article))),
            source: "doc",
            options: options,
            progress: nil
        )
        #expect(writer.calls.prefix(2) == ["resumePoint", "prepare 4"])
        #expect(writer.rows.keys.sorted() == ["articles/5", "articles/6"])
        #expect(summary.resources == 6 && summary.resumedAfter == 4)
    }

    @Test("a resume point from a document of another size stops the import before anything is written")
    func resumeOfAnotherDocument() async throws {
        let writer = MemoryWriter()
        writer.resume = ResumePoint(resourcesRead: 1, resources: 1, relationshipRows: 0, bytes: 10, sourceSize: 3)
        var options = Self.options()
        options.resume = true
        await #expect(throws: ImportFailure.self) {
            try await ImportRun.run(
                writer,
                reading: try Self.reader(Self.document([Self.article(1)])),
                source: "doc",
                options: options,
                progress: nil
            )
        }
        #expect(writer.calls == ["resumePoint"])
    }

    @Test("a fault of the input keeps what the writer made durable and reports the rest as not committed")
    func inputFault() async throws {
        let writer = MemoryWriter()
        writer.overlaps = true
        var options = Self.options()
        options.batchSize = 2
        // Five whole resources, then bad JSON.
        let text = "{\"data\": [" + (1...5).map(Self.article).joined(separator: ",") + ", {\"type\": }]}"
        let fault = try await Self.failure(of: writer, reading: text, options: options)
        #expect(fault.underlying is JSONError)
        // Batches of 2 and 4 were handed over; the writer made both durable when it failed and
        // dropped the fifth resource's open batch.
        #expect(fault.committedResources == 4)
        #expect(writer.calls.suffix(2) == ["fail", "recordFailure"])
        #expect(writer.failureSummary?.resources == 4)
        #expect(writer.rows.count == 4)
    }

    @Test("a fault of the database on a commit is reported with the batches before it")
    func databaseFault() async throws {
        let writer = MemoryWriter()
        writer.failCommit = 2
        var options = Self.options()
        options.batchSize = 3
        let fault = try await Self.failure(
            of: writer,
            reading: Self.document((1...9).map(Self.article)),
            options: options
        )
        #expect(fault.underlying is MemoryWriter.Refused)
        #expect(fault.committedResources == 3)
        #expect(writer.failureSummary?.resources == 3)
        #expect(writer.rows.count == 3)
    }

    @Test("without a document reader, a document said to be JSON:API is refused before anything is written")
    func noReaderForTheFormat() async throws {
        let writer = MemoryWriter()
        var options = ImportOptions()
        options.format = .jsonAPI
        let failure = try await Self.failure(of: writer, reading: Self.document([Self.article(1)]), options: options)
        let unavailable = try #require(failure.underlying as? ImportFormatUnavailable)
        #expect(unavailable.format == .jsonAPI)
        #expect(failure.committedResources == 0)
        #expect(writer.rows.isEmpty)
    }

    @Test("without a document reader, an object with `data` is a plain record; with one, a JSON:API document")
    func detectionAsksTheReader() async throws {
        let text = Self.document([Self.article(1), Self.article(2)])
        let plain = MemoryWriter()
        let asRecord = try await ImportRun.run(
            plain,
            reading: try Self.reader(text),
            source: "doc.json",
            options: ImportOptions(),
            progress: nil
        )
        #expect(asRecord.format == .json)
        #expect(asRecord.primaryCount == 1)
        let resources = MemoryWriter()
        let asDocument = try await ImportRun.run(
            resources,
            reading: try Self.reader(text),
            source: "doc.json",
            options: Self.options(),
            progress: nil
        )
        #expect(asDocument.format == .jsonAPI)
        #expect(asDocument.primaryCount == 2)
        #expect(resources.rows.count == 2)
    }

    @Test("the calling thread's executor runs every job of the operation there, resumed from other threads too")
    func callingThreadExecutor() throws {
        let caller = pthread_self()
        let threads = try CallingThreadExecutor.run { () async throws -> [Bool] in
            var onCaller = [pthread_equal(pthread_self(), caller) != 0]
            for _ in 0..<3 {
                // Resumed from a thread of its own: the task goes on on the caller's thread.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Thread { continuation.resume() }.start()
                }
                onCaller.append(pthread_equal(pthread_self(), caller) != 0)
            }
            return onCaller
        }
        #expect(threads == [true, true, true, true])
        #expect(throws: MemoryWriter.Refused.self) {
            try CallingThreadExecutor.run { () async throws -> Int in throw MemoryWriter.Refused() }
        }
    }
}
