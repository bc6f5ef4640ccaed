// Streams a JSON:API document into SQLite: the importer reads resources one by one as their
// objects close (JSONAPIDecoder.forEachResource, so memory does not grow with the document) and
// writes each into its type's table in batched transactions. A batch is committed whole or not at
// all, so a killed import leaves the resources of every committed batch, each with all its
// relationship rows, and nothing half-written.

import Foundation
public import GRDB
public import SluiceJSON
import SluiceJSONAPI

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
///   for the names SQLite cannot take as they are (see ``SQLiteSchemaNames``).
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
        /// Resources in primary data and in `included`.
        public var primaryCount: Int
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
    }

    /// An import stopped by a fault of the input (or of the database): what was committed
    /// before it stays.
    public struct Failure: Error, CustomStringConvertible {
        /// The fault: a `JSONError`, a `JSONAPIDecodingError`, a `JSONAPIErrorDocument`, a
        /// `FileChunkReader.Failure` or a database error.
        public var underlying: any Error
        /// Resources committed before the fault (all of them are in the database).
        public var committedResources: Int

        public var description: String { "\(underlying) (\(committedResources) resources were imported before it)" }
    }

    /// Opens (or creates) the database at `path` and its schema.
    public init(path: String, options: Options = Options()) throws {
        var configuration = Configuration()
        configuration.label = "sluice-import"
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
        }
    }

    /// Imports the document `reader` reads, recorded under `source` in `documents`.
    ///
    /// The document is parsed on a thread of its own while this one writes to SQLite; `reader`
    /// must not be used elsewhere until the call returns.
    ///
    /// - Parameter progress: Called on the calling thread after every block of a few hundred
    ///   resources and once at the end; cheap calls only (the importer does not throttle it).
    /// - Throws: ``Failure`` with the fault and how many resources were committed before it.
    @discardableResult
    public func importDocument(
        from reader: FileChunkReader,
        source: String,
        progress: ((Progress) -> Void)? = nil
    ) throws -> Summary {
        let started = ContinuousClock.now
        let batchSize = max(1, options.batchSize)
        var decoder = JSONAPIDecoder()
        decoder.limits = options.limits
        let total = reader.size
        var summary = Summary(
            resources: 0,
            primaryCount: 0,
            includedCount: 0,
            relationshipRows: 0,
            unidentified: 0,
            typeMismatches: 0,
            bytes: 0,
            batches: 0,
            seconds: 0
        )
        var committed = 0
        var bytesRead = 0
        func report(finished: Bool) {
            progress?(
                Progress(
                    bytesRead: bytesRead,
                    totalBytes: total,
                    resources: summary.resources,
                    committedResources: committed,
                    elapsed: Self.seconds(since: started),
                    finished: finished
                )
            )
        }
        var pipe: ResourcePipe?
        do {
            try database.writeWithoutTransaction { db in
                let writer = try SQLiteResourceWriter(db: db)
                try db.inTransaction(.immediate) {
                    try SQLiteSchema.recordDocument(db, source: source, status: "importing")
                    return .commit
                }
                var inBatch = 0
                try db.beginTransaction(.immediate)
                // Reading starts once the database is ready, on its own thread.
                let reading = ResourcePipe.start(reading: reader, with: decoder)
                pipe = reading
                do {
                    var documentSummary: DocumentSummary?
                    while true {
                        let (block, ending) = reading.take()
                        guard let block else {
                            switch ending {
                            case .summary(let summary): documentSummary = summary
                            case .failure(let error): throw error
                            case nil: throw ResourcePipe.Cancelled()  // (a reader always ends with one)
                            }
                            break
                        }
                        for raw in block.resources {
                            guard try writer.write(raw) else {
                                summary.unidentified += 1
                                continue
                            }
                            summary.resources += 1
                            inBatch += 1
                            if inBatch >= batchSize {
                                try db.commit()
                                committed = summary.resources
                                summary.batches += 1
                                inBatch = 0
                                try db.beginTransaction(.immediate)
                            }
                        }
                        bytesRead = block.bytesRead
                        report(finished: false)
                    }
                    guard let document = documentSummary else { throw ResourcePipe.Cancelled() }
                    bytesRead = reader.bytesRead
                    summary.primaryCount = document.primaryCount
                    summary.includedCount = document.includedCount
                    summary.relationshipRows = writer.relationshipRows
                    summary.typeMismatches = writer.typeMismatches
                    summary.bytes = bytesRead
                    summary.seconds = Self.seconds(since: started)
                    try SQLiteSchema.finishDocument(db, source: source, summary: summary, document: document)
                    try SQLiteSchema.createIndexes(db)
                    try db.commit()
                    committed = summary.resources
                    summary.batches += 1
                    // The whole import, the last commit and index included.
                    summary.seconds = Self.seconds(since: started)
                } catch {
                    // Stop the reader first: from here on only this thread touches the input.
                    reading.cancelAndWait()
                    // The resources read before the fault are whole: keep them with the batch,
                    // and say in `documents` why the import stopped.
                    bytesRead = reader.bytesRead
                    summary.relationshipRows = writer.relationshipRows
                    summary.typeMismatches = writer.typeMismatches
                    summary.bytes = bytesRead
                    summary.seconds = Self.seconds(since: started)
                    if db.isInsideTransaction {
                        do {
                            try SQLiteSchema.failDocument(db, source: source, summary: summary, error: error)
                            try db.commit()
                            committed = summary.resources
                        } catch {
                            // The database itself failed: the batch in progress goes.
                            try? db.rollback()
                        }
                    }
                    throw error
                }
            }
        } catch {
            pipe?.cancelAndWait()
            report(finished: true)
            throw Failure(underlying: error, committedResources: committed)
        }
        report(finished: true)
        return summary
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
