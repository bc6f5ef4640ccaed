// Streams a JSON:API document into SQLite: a reading thread hands over resources as their objects
// close (JSONAPIDecoder.forEachResource through a bounded ResourcePipe, so memory does not grow
// with the document) and the importer's thread writes each into its type's table in batched
// transactions. A batch is committed whole or not at
// all, so a killed import leaves the resources of every committed batch, each with all its
// relationship rows, and nothing half-written.

public import Foundation
public import GRDB
public import SluiceJSON
public import SluiceJSONAPI

/// Imports JSON:API documents into an SQLite database.
///
/// ```swift
/// let importer = try SQLiteImporter(path: "export.sqlite")
/// let summary = try importer.importDocument(from: try FileChunkReader(path: "export.json"), source: "export.json")
/// print(summary.resources, "resources")
/// ```
///
/// The schema (created on first use, extended as new types and attributes appear):
/// - one table per resource type, named as the type, keyed by `id TEXT PRIMARY KEY` (the `lid`
///   for a resource that has no `id`), with one column per attribute: `TEXT`, `INTEGER` or `REAL`
///   after the attribute's first non-null value; objects and arrays as JSON text, Booleans as 0/1,
///   `null` as NULL;
/// - `relationships(source_type, source_id, name, position, target_type, target_id)`, one row per
///   identifier of a relationship's linkage (`position` 0 for a to-one);
/// - `documents`: one row per source, with its status, top-level `meta`, `links` and `jsonapi`
///   as JSON text, counts and the fault that stopped it;
/// - `sluice_tables` and `sluice_columns`: which table and column hold each type and attribute,
///   for the names SQLite cannot take as they are (`Name` beside `name` becomes `name_2`; a type
///   named like one of these tables gets `TYPE_resources`; an attribute `id`, `id_attribute`).
///
/// Re-importing upserts: a resource already present has the attributes the document gives
/// replaced and its relationships that have linkage rewritten; nothing is duplicated.
public final class SQLiteImporter {
    /// The open database (GRDB's), for queries beside the import.
    public let database: DatabaseQueue
    /// How the import runs.
    public var options: Options

    /// How an import runs.
    public struct Options: Sendable {
        /// Resources per transaction. Larger batches are faster; a killed import loses at most
        /// the batch in progress. Default: 5 000.
        public var batchSize = 5_000
        /// Limits on the input document.
        public var limits = JSONLimits()
        /// How many threads parse the document (see `Parallelism`), besides the thread that writes
        /// to the database. Default: `.automatic`. What is imported is the same for any setting.
        public var parallelism = Parallelism.automatic

        /// The defaults.
        public init() {}
    }

    /// Where an import is.
    public struct Progress: Sendable {
        /// Bytes of the document read so far.
        public var bytesRead: Int
        /// The document's size, when known (a file; not a pipe).
        public var totalBytes: Int?
        /// Resources read so far.
        public var resources: Int
        /// Resources in committed batches.
        public var committedResources: Int
        /// Seconds since the import started.
        public var elapsed: Double
        /// Whether the import has ended (the last report of an import has it set).
        public var finished: Bool
    }

    /// What an import did.
    public struct Summary: Sendable {
        /// Resources written (primary data and included).
        public var resources: Int
        /// Resources in primary data.
        public var primaryCount: Int
        /// Resources in `included`.
        public var includedCount: Int
        /// Relationship rows written.
        public var relationshipRows: Int
        /// Resources left out because they have neither `id` nor `lid` (nothing to key them by).
        public var unidentified: Int
        /// Values written into a column declared for another kind of value (a string into an
        /// `INTEGER` column, a number into a `TEXT` one), where SQLite's column affinity applies.
        public var typeMismatches: Int
        /// Bytes read.
        public var bytes: Int
        /// Transactions committed.
        public var batches: Int
        /// Seconds the import took.
        public var seconds: Double
        /// The document's top-level `links` (where a paginated export's next page is).
        public var links: Links?
    }

    /// An import stopped by a fault of the input (or of the database): what was committed
    /// before it stays.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The fault: a `JSONError`, a `JSONAPIDecodingError`, a `JSONAPIErrorDocument`, a
        /// `FileChunkReader.Failure` or a database error.
        public var underlying: any Error
        /// Resources committed before the fault (all of them are in the database).
        public var committedResources: Int

        /// Creates a failure (a caller that feeds the importer reports its own faults this way).
        public init(underlying: any Error, committedResources: Int) {
            self.underlying = underlying
            self.committedResources = committedResources
        }

        public var description: String {
            "\(underlying) (\(committedResources) resource\(committedResources == 1 ? "" : "s") imported before it)"
        }
    }

    /// Opens (or creates) the database at `path` and its schema.
    public init(path: String, options: Options = Options()) throws {
        var configuration = Configuration()
        configuration.label = "sluice-import"
        // A reader of the same file (someone checking progress with sqlite3, a test polling
        // the counts) may hold a lock for a moment, most of all while the first statements
        // switch the file to WAL: wait for it rather than fail the import with "database is
        // locked".
        configuration.busyMode = .timeout(10)
        database = try DatabaseQueue(path: path, configuration: configuration)
        self.options = options
        try database.writeWithoutTransaction { db in
            // WAL: readers (a progress query, a test) see committed batches while the import
            // runs. NORMAL: a commit survives the process being killed, which is what a batch
            // job needs; only a power loss may lose the last commits, never consistency.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 8 MB of page cache (the default is 2 MB): the relationship indexes stay in memory
            // instead of being read back from the file for every insert, and peak memory stays
            // well under the import's 64 MB bound.
            try db.execute(sql: "PRAGMA cache_size = -8192")
            try SQLiteSchema.createFixedTables(db)
            try SQLiteSchema.upgradeFixedTables(db)
        }
    }

    /// Imports the document `reader` reads, recorded under `source` in `documents`.
    ///
    /// The document is parsed on a thread of its own while this one writes to SQLite; `reader`
    /// must not be used elsewhere until the call returns.
    ///
    /// - Parameters:
    ///   - reader: The document, read in chunks (a file, or standard input).
    ///   - source: The name the import is recorded under in `documents` (a path or a URL); a
    ///     second import of the same source replaces its row.
    ///   - progress: Called on the calling thread after every block of a few hundred resources and
    ///     once at the end; cheap calls only (the importer does not throttle it).
    /// - Throws: ``Failure`` with the fault and how many resources were committed before it.
    @discardableResult
    public func importDocument(
        from reader: FileChunkReader,
        source: String,
        progress: ((Progress) -> Void)? = nil
    ) throws -> Summary {
        let started = ContinuousClock.now
        var decoder = JSONAPIDecoder()
        decoder.limits = options.limits
        decoder.parallelism = options.parallelism
        let batchSize = max(1, options.batchSize)
        let total = reader.size
        var session: ImportSession?
        func report(finished: Bool) {
            guard let progress, let session else { return }
            progress(
                Progress(
                    bytesRead: session.bytesRead,
                    totalBytes: total,
                    resources: session.resources,
                    committedResources: session.committed,
                    elapsed: session.elapsed,
                    finished: finished
                )
            )
        }
        do {
            let summary = try database.writeWithoutTransaction { db in
                let current = try ImportSession(db: db, source: source, batchSize: batchSize, started: started)
                session = current
                // Reading starts once the database is ready, on its own thread.
                let pipe = ResourcePipe.start(reading: reader, with: decoder)
                do {
                    let document = try current.write(from: pipe) { report(finished: false) }
                    current.bytesRead = reader.bytesRead
                    try current.complete(document)
                    return current.summary(document)
                } catch {
                    // Stop the reader first: from here on only this thread touches the input.
                    pipe.cancelAndWait()
                    current.bytesRead = reader.bytesRead
                    current.fail(error)
                    throw error
                }
            }
            report(finished: true)
            return summary
        } catch {
            report(finished: true)
            throw Failure(underlying: error, committedResources: session?.committed ?? 0)
        }
    }
}

/// One import's state on the database's thread: the writer, the open batch and the counts.
private final class ImportSession {
    private let db: Database
    private let source: String
    private let writer: SQLiteResourceWriter
    private let batchSize: Int
    private let started: ContinuousClock.Instant
    private var inBatch = 0
    private(set) var resources = 0
    private(set) var unidentified = 0
    /// Resources in committed batches.
    private(set) var committed = 0
    private(set) var batches = 0
    /// Bytes read by the end of the last block written (the reader's count once it is done).
    var bytesRead = 0

    /// Records the document as importing (committed at once, so an interrupted import shows)
    /// and opens the first batch.
    init(db: Database, source: String, batchSize: Int, started: ContinuousClock.Instant) throws {
        self.db = db
        self.source = source
        self.batchSize = batchSize
        self.started = started
        writer = try SQLiteResourceWriter(db: db)
        try db.inTransaction(.immediate) {
            try SQLiteSchema.recordDocument(db, source: source, status: "importing")
            return .commit
        }
        try db.beginTransaction(.immediate)
    }

    var elapsed: Double { (ContinuousClock.now - started) / .seconds(1) }

    /// Writes every block the reader hands over, committing a batch every `batchSize`
    /// resources; returns the document's summary when the reader ends, throws its fault.
    func write(from pipe: ResourcePipe, progress: () -> Void) throws -> DocumentSummary {
        while true {
            switch pipe.take() {
            case .block(let block):
                for resource in block.resources { try write(resource) }
                bytesRead = block.bytesRead
                progress()
            case .finished(let document):
                return document
            case .failed(let error):
                throw error
            }
        }
    }

    private func write(_ resource: RawResource) throws {
        guard try writer.write(resource) else {
            unidentified += 1
            return
        }
        resources += 1
        inBatch += 1
        if inBatch >= batchSize {
            try commit()
            try db.beginTransaction(.immediate)
        }
    }

    private func commit() throws {
        try db.commit()
        committed = resources
        batches += 1
        inBatch = 0
    }

    /// Ends the last batch with the document's row and the indexes.
    func complete(_ document: DocumentSummary) throws {
        try SQLiteSchema.finishDocument(db, source: source, summary: summary(document), document: document)
        try SQLiteSchema.createIndexes(db)
        try commit()
    }

    /// Commits the resources read before `error` (they are whole) with the document's row
    /// saying why the import stopped; when the database itself fails, the open batch goes.
    func fail(_ error: any Error) {
        guard db.isInsideTransaction else { return }
        do {
            try SQLiteSchema.failDocument(db, source: source, summary: summary(nil), error: error)
            try commit()
        } catch {
            try? db.rollback()
        }
    }

    /// The counts so far; `document` gives the primary and included counts when known.
    func summary(_ document: DocumentSummary?) -> SQLiteImporter.Summary {
        SQLiteImporter.Summary(
            resources: resources,
            primaryCount: document?.primaryCount ?? 0,
            includedCount: document?.includedCount ?? 0,
            relationshipRows: writer.relationshipRows,
            unidentified: unidentified,
            typeMismatches: writer.typeMismatches,
            bytes: bytesRead,
            batches: batches,
            seconds: elapsed,
            links: document?.links
        )
    }
}

/// `localizedDescription` gives the fault and how much was committed before it.
extension SQLiteImporter.Failure: LocalizedError {
    public var errorDescription: String? { description }
}
