// Importing several documents in one run: the sources (files, gzip files, standard input, the
// documents of a directory, asynchronous sequences of chunks), the databases they go into behind
// one protocol, and the job that runs them side by side where the database allows it.

public import Foundation
public import SluiceJSON

/// A database an import writes into: an `SQLiteImporter`, a `PostgresImporter`, or one of your
/// own.
///
/// The import engine (``ImportJob``, and ``importDocument(reading:source:progress:)`` for a
/// single document) reads each document, decides where batches end, counts, reports progress and
/// resumes; a destination only writes. It hands each document an ``ImportWriter`` of its own, in
/// whatever context its connection needs: SQLite runs the document on a thread that holds its
/// connection, PostgreSQL on the caller's task.
///
/// ```swift
/// final class CSVDestination: ImportDestination {
///     var destinationName: String { directory }
///     static var allowsConcurrentDocuments: Bool { false }
///     var options = ImportOptions()
///     func importDocument(_ document: ImportDocument) async throws -> ImportSummary {
///         try await document.run(through: CSVWriter(directory: directory))   // an ImportWriter
///     }
///     func close() async throws {}
/// }
/// ```
public protocol ImportDestination: AnyObject {
    /// The database as messages name it: a path, or a URL without its password.
    var destinationName: String { get }

    /// Whether several documents may be imported into the database at once, each through a
    /// destination of its own (PostgreSQL: one connection each). SQLite has one writer at a
    /// time, so its documents go one after another through one importer.
    static var allowsConcurrentDocuments: Bool { get }

    /// How documents are read and batched on their way into this database.
    var options: ImportOptions { get }

    /// Runs `document` through a writer of this database's (``ImportDocument/run(through:)``)
    /// and returns its summary.
    ///
    /// - Throws: ``ImportFailure``, with how many resources were committed before the fault.
    func importDocument(_ document: ImportDocument) async throws -> ImportSummary

    /// Closes the connection to the database, if there is one.
    func close() async throws

    /// What the database's `documents` table records of `source`, or `nil` when it has no row
    /// for it (or keeps no such table): how an interrupted import of a URL's pages finds the
    /// page it stopped at.
    func recordedDocument(source: String) async throws -> RecordedDocument?
}

/// A document as a destination's `documents` table records it.
public struct RecordedDocument: Sendable, Hashable {
    /// The document's source, as imported.
    public var source: String
    /// Whether its import completed.
    public var isComplete: Bool
    /// Its primary resources, once complete.
    public var primaryCount: Int?
    /// Its top-level `links` as JSON text, once complete.
    public var links: String?

    /// A record with these fields.
    public init(source: String, isComplete: Bool, primaryCount: Int?, links: String?) {
        self.source = source
        self.isComplete = isComplete
        self.primaryCount = primaryCount
        self.links = links
    }
}

extension ImportDestination {
    /// `nil`: a destination keeps no record of documents unless it says otherwise.
    public func recordedDocument(source: String) async throws -> RecordedDocument? { nil }

    /// Imports the document `reader` reads, recorded under `source`, with the destination's
    /// ``options``, calling `progress` as it goes (on whichever thread the import runs on).
    ///
    /// - Throws: ``ImportFailure``, with how many resources were committed before the fault.
    public func importDocument(
        reading reader: any ChunkSource,
        source: String,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws -> ImportSummary {
        try await importDocument(ImportDocument(reading: reader, source: source, options: options) { progress?($0) })
    }
}

/// One document's import, ready to run: its bytes, the name it is recorded under, the options
/// and where progress goes. The engine makes one for each document and hands it to the
/// destination, which runs it through its writer.
public final class ImportDocument: @unchecked Sendable {
    // @unchecked: one destination runs it, once; it may hand it to a thread of its own first.
    /// The name the import is recorded under (a path, `<stdin>` or a URL).
    public let source: String
    /// How the document is read and batched.
    public let options: ImportOptions
    private let reader: any ChunkSource
    private let progress: ((ImportProgress) -> Void)?

    /// A document that `reader` reads, recorded under `source`; `progress` is called after every
    /// block and once at the end, on the task that runs it.
    package init(
        reading reader: any ChunkSource,
        source: String,
        options: ImportOptions,
        progress: ((ImportProgress) -> Void)?
    ) {
        self.reader = reader
        self.source = source
        self.options = options
        self.progress = progress
    }

    /// Imports the document through `writer`: reads it on threads of its own, hands `writer` its
    /// records block by block and commits a batch every ``ImportOptions/batchSize`` records. Run
    /// it once.
    ///
    /// - Throws: ``ImportFailure`` with the fault and how many records were committed before it.
    public func run(through writer: some ImportWriter) async throws -> ImportSummary {
        try await ImportRun.run(writer, reading: reader, source: source, options: options, progress: progress)
    }
}

/// A document to import: a file, read through `gzip -dc` when its name ends in `.gz`, standard
/// input (`-`), or an asynchronous sequence of byte chunks (an HTTP body, a stream of your own).
///
/// ```swift
/// let page = ImportSource(name: url.absoluteString, chunks: body)   // body: an AsyncSequence of [UInt8]
/// let job = ImportJob(sources: [page, ImportSource(path: "export.json.gz")]) { try SQLiteImporter(path: "db.sqlite") }
/// ```
///
/// Two sources are equal when they name the same file, or when one is a copy of the other's
/// chunk sequence.
public struct ImportSource: Sendable, Hashable {
    /// The source's name in messages and in the `documents` table: the path, `<stdin>`, or the
    /// name given to a sequence of chunks.
    public let name: String
    private let origin: Origin

    private enum Origin: Sendable {
        case file(path: String)
        /// What reads a sequence of chunks into a feed.
        case stream(ImportStream)
    }

    /// The file's path as given (`-` for standard input); `nil` for a sequence of chunks.
    public var path: String? {
        guard case .file(let path) = origin else { return nil }
        return path
    }

    /// A source for the file at `path`, or standard input for `-`.
    public init(path: String) {
        name = path == "-" ? "<stdin>" : path
        origin = .file(path: path)
    }

    /// A source that reads `chunks`. The import takes each chunk as it arrives; the sequence is
    /// asked for the next one only while the import keeps up (``ImportFeed``), and an error it
    /// throws stops the document as a fault of its own.
    ///
    /// - Parameters:
    ///   - name: The source's name in messages and in the `documents` table (the URL the bytes
    ///     come from, say).
    ///   - size: The document's size when known (a `Content-Length`), for progress.
    ///   - chunks: The document's bytes, chunk by chunk.
    public init<Chunks: AsyncSequence & Sendable>(name: String, size: Int? = nil, chunks: Chunks)
    where Chunks.Element: ContiguousBytes {
        self.name = name
        let stream = ImportStream(size: size) { feed in
            do {
                for try await chunk in chunks {
                    // Arrays are handed over as they are; other bytes are copied into one.
                    try await feed.send((chunk as? [UInt8]) ?? chunk.withUnsafeBytes { Array($0) })
                }
                feed.finish()
            } catch is ImportFeedClosed {
                // The import stopped reading: it reports why.
            } catch {
                feed.finish(throwing: error)
            }
        }
        origin = .stream(stream)
    }

    public static func == (left: ImportSource, right: ImportSource) -> Bool {
        switch (left.origin, right.origin) {
        case (.file(let one), .file(let other)): one == other
        case (.stream(let one), .stream(let other)): one === other && left.name == right.name
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        if case .stream(let stream) = origin { hasher.combine(ObjectIdentifier(stream)) }
    }

    /// The extensions a directory's documents have, each also with `.gz` after it.
    public static let documentExtensions = [".json", ".jsonl", ".ndjson", ".json-seq"]

    private static func isDocumentName(_ name: String) -> Bool {
        let plain = name.hasSuffix(".gz") ? String(name.dropLast(3)) : name
        return documentExtensions.contains { plain.hasSuffix($0) }
    }

    /// The sources `paths` name, in order, a directory standing for the documents directly in it
    /// (names ending in `.json`, `.jsonl`, `.ndjson` or `.json-seq`, each perhaps followed by
    /// `.gz`, sorted by name). A file named more than once (by
    /// two spellings of its path, a link to it, or a directory and the file in it: the same file
    /// on disk, by device and inode) is imported once, under the name it first came by: twice in
    /// one run would write the same rows and the same `documents` row twice, at the same time
    /// when documents go side by side. A path that names no file is kept, to fail as itself.
    ///
    /// - Throws: ``ImportSourceError`` for a directory that cannot be listed.
    public static func expanding(_ paths: [String]) throws -> [ImportSource] {
        var sources: [ImportSource] = []
        var seen: Set<String> = []
        func add(_ path: String) {
            var info = stat()
            let file = path != "-" && stat(path, &info) == 0 ? "\(info.st_dev):\(info.st_ino)" : "path:" + path
            if seen.insert(file).inserted { sources.append(ImportSource(path: path)) }
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                isDirectory.boolValue
            else {
                add(path)
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw ImportSourceError(path: path, reason: "cannot list the directory: \(error.localizedDescription)")
            }
            let directory = URL(fileURLWithPath: path)
            for name in names.sorted() where isDocumentName(name) {
                add(directory.appendingPathComponent(name).path)
            }
        }
        return sources
    }

    /// Why the file this source names cannot be opened; `nil` when it can, and for standard input
    /// and sequences of chunks. Asks the file system first, so a file that can be opened (a pipe
    /// whose writer must not lose its reader, say) is not opened here.
    var unopenableFile: FileChunkReader.Failure? {
        guard case .file(let path) = origin, path != "-", access(path, R_OK) != 0 else { return nil }
        do throws(FileChunkReader.Failure) {
            _ = try FileChunkReader(path: path)
            return nil
        } catch {
            return error
        }
    }

    /// Opens the source for reading: for a sequence of chunks, starts the task that reads it.
    ///
    /// - Throws: `FileChunkReader.Failure` when a file cannot be opened, ``ImportSourceError``
    ///   when gzip cannot be started.
    public func open() throws -> OpenedImportSource {
        switch origin {
        case .file(let path):
            return try OpenedImportSource(path: path)
        case .stream(let stream):
            let feed = ImportFeed(size: stream.size)
            let pump = stream.pump
            return OpenedImportSource(feed: feed, task: Task { await pump(feed) })
        }
    }
}

/// A source being read: its reader, and for a `.gz` file the `gzip` process that feeds it, or for
/// a sequence of chunks the task that reads it into a feed.
public final class OpenedImportSource: @unchecked Sendable {
    // @unchecked: used by one import at a time, which hands the reader to its reading thread
    // and calls `finish` or `stop(after:)` once that thread is done.
    /// The document's bytes.
    public let reader: any ChunkSource
    private let gzip: Gzip?
    private let feed: ImportFeed?
    private let task: Task<Void, Never>?

    /// The `gzip -dc` process a `.gz` file is read through.
    fileprivate struct Gzip {
        let process: Process
        /// What the reader reads: the process's output.
        let output: FileChunkReader
        /// Its standard error, kept for the fault it explains rather than printed beside ours.
        let messages: FileHandle
    }

    init(feed: ImportFeed, task: Task<Void, Never>) {
        reader = feed
        self.feed = feed
        self.task = task
        gzip = nil
    }

    init(path: String) throws {
        feed = nil
        task = nil
        guard path.hasSuffix(".gz") else {
            reader = try FileChunkReader(path: path)
            gzip = nil
            return
        }
        // Checked first, so a missing file reads as one rather than as gzip's complaint.
        _ = try FileChunkReader(path: path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", "--", path]
        let output = Pipe()
        let messages = Pipe()
        process.standardOutput = output
        process.standardError = messages
        do {
            try process.run()
        } catch {
            throw ImportSourceError(path: path, reason: "cannot run gzip: \(error.localizedDescription)")
        }
        // Our copies of the write ends must go, or the read ends never see the end of the data.
        try? output.fileHandleForWriting.close()
        try? messages.fileHandleForWriting.close()
        // The pipe's read end, opened again by path: FileChunkReader reads descriptors it opens.
        let decompressed = try FileChunkReader(path: "/dev/fd/\(output.fileHandleForReading.fileDescriptor)")
        try? output.fileHandleForReading.close()
        reader = decompressed
        gzip = Gzip(process: process, output: decompressed, messages: messages.fileHandleForReading)
    }

    /// Waits for gzip, if any, once the document has been read: `nil` when it read the whole file
    /// without complaint, else its fault (a document may parse although its gzip trailer is
    /// damaged).
    public func finish() -> ImportGzipError? {
        guard let gzip else { return nil }
        gzip.process.waitUntilExit()
        return gzip.fault
    }

    /// Stops the source after the import of it failed, and returns the failure with its cause:
    /// where the importer saw only bytes cut short, what cut them (the error a sequence of chunks
    /// failed with, or gzip's fault for a truncated or damaged file); else the failure as it is.
    public func stop(after failure: ImportFailure) -> ImportFailure {
        let cause = readFailure
        cancel()
        guard let cause else { return failure }
        // What was committed stays the importer's count.
        return ImportFailure(underlying: cause, committedResources: failure.committedResources)
    }

    /// Asked before gzip is stopped, which would make it a failure of its own.
    private var readFailure: (any Error)? {
        if let failure = feed?.senderFailure { return failure }
        guard let gzip else { return nil }
        if gzip.output.reachedEnd {
            // gzip has closed its output and is exiting.
            gzip.process.waitUntilExit()
        } else if gzip.process.isRunning {
            // The document failed mid-way on its own: gzip waits on a full pipe, which cancel()
            // stops. One that already failed (a damaged stream) is the cause.
            return nil
        }
        return gzip.fault
    }

    /// Stops gzip, or the task reading a sequence of chunks, after a fault.
    public func cancel() {
        if let feed {
            // A task waiting to hand over a chunk is let go; the sequence is not read further.
            feed.abandon()
            task?.cancel()
        }
        guard let process = gzip?.process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

extension OpenedImportSource.Gzip {
    /// The exited process's fault, with what it said; `nil` for success or for its warning
    /// (status 2: trailing garbage or zeros ignored, the data it gave whole).
    var fault: ImportGzipError? {
        guard process.terminationReason == .exit else { return ImportGzipError(detail: "stopped by a signal") }
        guard process.terminationStatus != 0, process.terminationStatus != 2 else { return nil }
        let text = String(decoding: (try? messages.readToEnd()) ?? Data(), as: UTF8.self)
        // gzip says "gzip: PATH: what"; the path is already the report's.
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        let what = line.range(of: ": ", options: .backwards).map { String(line[$0.upperBound...]) } ?? line
        return ImportGzipError(detail: what.isEmpty ? nil : what)
    }
}

/// A source that cannot be read for a reason of its own (a directory that cannot be listed, gzip
/// that cannot be started); a file that cannot be opened throws `FileChunkReader.Failure`.
public struct ImportSourceError: Error, Sendable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    /// Why it cannot be read.
    public var reason: String
    /// `path: cannot read: reason`.
    public var description: String { "\(path): cannot read: \(reason)" }
}

/// A `.gz` document that gzip could not decompress completely: cut short, or damaged.
public struct ImportGzipError: Error, Sendable, CustomStringConvertible {
    /// What gzip said, without its name and the path (`unexpected end of file`), when it said
    /// anything.
    public var detail: String?

    /// Wraps what gzip said.
    public init(detail: String? = nil) {
        self.detail = detail
    }

    /// The fault, as one sentence.
    public var description: String {
        "gzip could not decompress it completely" + (detail.map { " (\($0))" } ?? "")
    }
}

/// Several documents imported into one database in one run, each with its own `documents` row,
/// progress and resume point: up to ``concurrentDocuments`` at a time where the database allows
/// it (PostgreSQL), one after another where it does not (SQLite). A document that fails does
/// not stop the others.
///
/// ```swift
/// let job = ImportJob(sources: try ImportSource.expanding(["exports/"]), concurrentDocuments: 4) {
///     try await PostgresImporter.connect(to: try PostgresTarget(url: url))
/// }
/// for outcome in await job.run() {
///     print(outcome.source.name, (try? outcome.result.get().resources) ?? 0)
/// }
/// ```
public struct ImportJob: Sendable {
    /// One document's outcome.
    public struct Outcome: Sendable {
        /// The document.
        public var source: ImportSource
        /// Its summary, or the ``ImportFailure`` that stopped it (a `FileChunkReader.Failure`,
        /// ``ImportSourceError`` or ``ImportGzipError`` inside it when it could not be read).
        public var result: Result<ImportSummary, ImportFailure>
    }

    /// The documents, in the order their outcomes are given.
    public var sources: [ImportSource]
    /// How many documents are imported at once, at most. Default: 1.
    public var concurrentDocuments: Int
    /// Makes a destination: once for a database that takes one document at a time, else once per
    /// document imported at the same time as others.
    public var makeDestination: @Sendable () async throws -> any ImportDestination

    /// A job for `sources` into the databases `makeDestination` opens.
    public init(
        sources: [ImportSource],
        concurrentDocuments: Int = 1,
        makeDestination: @escaping @Sendable () async throws -> any ImportDestination
    ) {
        self.sources = sources
        self.concurrentDocuments = concurrentDocuments
        self.makeDestination = makeDestination
    }

    /// Runs the job; calls `progress` with each document's reports, and `finished` with each
    /// document's outcome as it ends. Returns the outcomes in the order of ``sources``.
    ///
    /// When none of the sources is a file that can be opened (a mistyped name), each outcome is
    /// that fault and no destination is made, so no empty database is left behind.
    ///
    /// - Throws: What `makeDestination` throws: without a database, no document is imported.
    public func run(
        progress: (@Sendable (ImportSource, ImportProgress) -> Void)? = nil,
        finished: (@Sendable (Outcome) -> Void)? = nil
    ) async throws -> [Outcome] {
        let faults = sources.map(\.unopenableFile)
        if !faults.isEmpty, faults.allSatisfy({ $0 != nil }) {
            let outcomes = zip(sources, faults).map { source, fault in
                Outcome(source: source, result: .failure(ImportFailure(underlying: fault!, committedResources: 0)))
            }
            for outcome in outcomes { finished?(outcome) }
            return outcomes
        }
        let first = try await makeDestination()
        let lanes = type(of: first).allowsConcurrentDocuments ? max(1, min(concurrentDocuments, sources.count)) : 1
        // Each lane takes the next document in turn, through a destination of its own.
        let next = NextIndex()
        var destinations: [any ImportDestination] = [first]
        do {
            for _ in 1..<max(lanes, 1) { destinations.append(try await makeDestination()) }
        } catch {
            // The connections already open are not left behind.
            for destination in destinations { try? await destination.close() }
            throw error
        }
        let lanesDestinations = destinations.map { UncheckedDestination(destination: $0) }
        let outcomes = await withTaskGroup(of: [(Int, Outcome)].self) { group in
            for lane in lanesDestinations {
                group.addTask {
                    var done: [(Int, Outcome)] = []
                    while let index = next.take(below: sources.count) {
                        let source = sources[index]
                        let outcome = await Self.importDocument(source, into: lane.destination) { report in
                            progress?(source, report)
                        }
                        finished?(outcome)
                        done.append((index, outcome))
                    }
                    return done
                }
            }
            var all: [(Int, Outcome)] = []
            for await done in group { all += done }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
        for lane in lanesDestinations { try? await lane.destination.close() }
        return outcomes
    }

    static func importDocument(
        _ source: ImportSource,
        into destination: any ImportDestination,
        progress: @escaping @Sendable (ImportProgress) -> Void
    ) async -> Outcome {
        let opened: OpenedImportSource
        do {
            opened = try source.open()
        } catch {
            return Outcome(source: source, result: .failure(ImportFailure(underlying: error, committedResources: 0)))
        }
        do {
            let document = ImportDocument(
                reading: opened.reader,
                source: source.name,
                options: destination.options,
                progress: progress
            )
            let summary = try await destination.importDocument(document)
            if let fault = opened.finish() {
                return Outcome(
                    source: source,
                    result: .failure(ImportFailure(underlying: fault, committedResources: summary.resources))
                )
            }
            return Outcome(source: source, result: .success(summary))
        } catch let failure as ImportFailure {
            return Outcome(source: source, result: .failure(opened.stop(after: failure)))
        } catch {
            opened.cancel()
            return Outcome(source: source, result: .failure(ImportFailure(underlying: error, committedResources: 0)))
        }
    }
}

/// The index of the next document a lane takes.
private final class NextIndex: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var value = 0

    func take(below count: Int) -> Int? {
        lock.withLock {
            guard value < count else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

/// A destination handed to the one lane that uses it.
private struct UncheckedDestination: @unchecked Sendable {
    let destination: any ImportDestination
}

/// What reads a sequence of chunks into the feed an import reads. A class so that copies of
/// a source share it: equality is identity.
final class ImportStream: Sendable {
    let size: Int?
    let pump: @Sendable (ImportFeed) async -> Void

    init(size: Int?, pump: @escaping @Sendable (ImportFeed) async -> Void) {
        self.size = size
        self.pump = pump
    }
}
