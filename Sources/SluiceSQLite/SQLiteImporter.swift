// Streams a JSON:API document into SQLite: reading threads hand over resources as their objects
// close (JSONAPIDecoder.forEachResource through a bounded ImportPipe, as import records, so memory
// does not grow with the document) and the importer's thread writes each into its type's table in
// batched transactions. A batch is committed whole or not at
// all, so a killed import leaves the resources of every committed batch, each with all its
// relationship rows, and nothing half-written.

import Foundation
public import GRDB
@_exported public import SluiceImport
public import SluiceJSON
@_exported public import SluiceJSONAPIImport

/// Imports JSON:API documents into an SQLite database.
///
/// ```swift
/// let importer = try SQLiteImporter(path: "export.sqlite")
/// let summary = try importer.importDocument(from: try FileChunkReader(path: "export.json"), source: "export.json")
/// print(summary.resources, "resources")
/// ```
///
/// The schema (created on first use, extended as new types and attributes appear):
/// - one table per resource type, named as the type, keyed by `id` (the `lid` for a resource
///   that has no `id`): `INTEGER PRIMARY KEY` while every id is a canonical decimal, `TEXT`
///   from the first that is not (the same holds for to-one `NAME_id` columns and the ids of
///   `relationships`), with one column per attribute: `TEXT`, `INTEGER` or `REAL`
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
    /// How the import runs. Documents that are not plain records are read as JSON:API unless
    /// `ImportOptions.documents` names another reader.
    public var options: Options {
        didSet { options = options.readingJSONAPI }
    }

    /// How an import runs (the same options for every target).
    public typealias Options = ImportOptions

    /// Where an import is.
    public typealias Progress = ImportProgress
    /// What an import did.
    public typealias Summary = ImportSummary
    /// An import stopped by a fault of the input (or of the database): what was committed
    /// before it stays.
    public typealias Failure = ImportFailure

    /// Whether the import waits for the disk at each checkpoint (the moments SQLite copies its
    /// log into the database file): in a database that existed before this importer opened it,
    /// yes; in one it creates, only at the end of each document (see `applyBulkLoadSettings`).
    public let syncsAtCheckpoints: Bool

    /// Opens (or creates) the database at `path` and its schema.
    ///
    /// A database that does not exist yet (or is empty) is written without waiting for the disk,
    /// and synced once at the end of each document: its whole content comes from this importer's
    /// sources. A killed process still keeps every committed batch; a power loss or an
    /// operating-system crash while a document is imported may leave the new file unreadable,
    /// documents imported before it included (import them again). An existing database waits for
    /// the disk at each checkpoint, as any other data it holds deserves: such a crash may lose the
    /// last batches, never the file.
    public init(path: String, options: Options = Options()) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        syncsAtCheckpoints = (size ?? 0) > 0
        var configuration = Configuration()
        configuration.label = "sluice-import"
        // A reader of the same file (someone checking progress with sqlite3, a test polling
        // the counts) may hold a lock for a moment, most of all while the first statements
        // switch the file to WAL: wait for it rather than fail the import with "database is
        // locked".
        configuration.busyMode = .timeout(10)
        database = try DatabaseQueue(path: path, configuration: configuration)
        self.options = options.readingJSONAPI
        let syncsAtCheckpoints = syncsAtCheckpoints
        try database.writeWithoutTransaction { db in
            try SQLiteImporter.applyBulkLoadSettings(db, syncsAtCheckpoints: syncsAtCheckpoints)
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
        from reader: any ChunkSource,
        source: String,
        progress: ((Progress) -> Void)? = nil
    ) throws -> Summary {
        try run(ImportDocument(reading: reader, source: source, options: options, progress: progress))
    }

    /// Runs `document` through this database's writer on the calling thread, which it blocks.
    private func run(_ document: ImportDocument) throws -> Summary {
        let syncsAtCheckpoints = syncsAtCheckpoints
        let path = database.path
        do {
            return try database.writeWithoutTransaction { db in
                // The engine runs on this thread, inside GRDB's access to the connection, which
                // the writer uses between the engine's suspension points.
                let writer = try ImportSession(db: db)
                let summary: Summary
                do {
                    summary = try CallingThreadExecutor.run { try await document.run(through: writer) }
                } catch {
                    // What was committed before the fault is made durable too, for --resume.
                    if !syncsAtCheckpoints { try? SQLiteImporter.syncCommitted(db, path: path) }
                    throw error
                }
                if !syncsAtCheckpoints {
                    do {
                        try SQLiteImporter.syncCommitted(db, path: path)
                    } catch {
                        // Every batch is committed; only the disk did not confirm them.
                        throw Failure(underlying: error, committedResources: summary.resources)
                    }
                }
                return summary
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            // GRDB's own faults, before the engine ran (after it, faults are `Failure`s).
            throw Failure(underlying: error, committedResources: 0)
        }
    }

    /// The settings of a bulk load, on the import's own connection:
    /// - WAL: readers (a progress query, a test) see committed batches while the import runs,
    ///   and a commit appends to one file instead of journalling pages.
    /// - `synchronous = NORMAL` in an existing database: a commit survives the process being
    ///   killed, which is what a batch job needs; only a power loss or an OS crash may lose the
    ///   last commits, never the database's consistency. `OFF` in a database the importer
    ///   creates: a commit still survives the process being killed (the operating system holds
    ///   it), and no checkpoint waits for the disk; `syncCommitted` makes each document durable at
    ///   its end.
    /// - 6 MB of page cache (the default is 2 MB): the tables' key indexes stay in memory instead
    ///   of being read back for every insert, and the peak stays within the import's bound.
    /// - 16 KB pages in a new database (an existing one keeps its own): a B-tree of bigger pages
    ///   is shallower and splits less often.
    ///
    /// What remains of the time is SQLite's B-tree work on the CPU, which other journal and
    /// locking modes, a bigger cache or `mmap` do not shorten (the performance page has the
    /// figures). A killed import keeps every committed batch.
    static func applyBulkLoadSettings(_ db: Database, syncsAtCheckpoints: Bool) throws {
        try db.execute(sql: "PRAGMA page_size = 16384")
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: syncsAtCheckpoints ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = OFF")
        try db.execute(sql: "PRAGMA cache_size = -6144")
    }

    /// Makes every committed batch durable, in a database written without waiting for the disk:
    /// copies the log into the database file (so that reopening it has little to replay), then
    /// syncs the file and the log themselves. Not left to SQLite's checkpoint: one syncs only
    /// when it has pages left to copy, and the automatic checkpoints of the last commit (the
    /// indexes' transaction) may have copied them all without syncing.
    static func syncCommitted(_ db: Database, path: String) throws {
        _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
        for path in [path, path + "-wal"] where FileManager.default.fileExists(atPath: path) {
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.synchronize()
        }
    }
}

/// One document's writes on the database's thread (the engine's ``ImportWriter``): the
/// resource writer, the open transaction and what the last commit recorded.
private final class ImportSession: ImportWriter {
    private let db: Database
    private let writer: SQLiteResourceWriter
    private var source = ""
    /// Relationship rows written by earlier runs of a resumed import.
    private var earlierRelationshipRows = 0

    init(db: Database) throws {
        self.db = db
        writer = try SQLiteResourceWriter(db: db)
    }

    func resumePoint(for source: String) throws -> ResumePoint? {
        try SQLiteSchema.resumePoint(db, source: source)
    }

    /// Records the document as importing (committed at once, so an interrupted import shows)
    /// and opens the first batch.
    func prepare(source: String, sourceSize: Int?, resumingFrom resume: ResumePoint?) throws {
        self.source = source
        earlierRelationshipRows = resume?.relationshipRows ?? 0
        committedRelationshipRows = earlierRelationshipRows
        try db.inTransaction(.immediate) {
            if resume == nil {
                try SQLiteSchema.recordDocument(db, source: source, status: "importing", sourceSize: sourceSize)
            } else {
                try SQLiteSchema.markResumed(db, source: source)
            }
            return .commit
        }
        try db.beginTransaction(.immediate)
    }

    func write(_ records: ArraySlice<ImportRecord>) throws -> ImportBlockWrite {
        var written = 0
        for record in records where try writer.write(record) { written += 1 }
        return ImportBlockWrite(taken: records.count, written: written)
    }

    /// Into the open batch's transaction: a fault is durable with the records around it.
    func setAside(_ faults: [ImportFault]) throws {
        try SQLiteSchema.recordFaults(db, faults)
    }

    /// Commits the open batch with the `documents` row saying how far it reaches, which is where
    /// a resumed import goes on.
    func commit(_ mark: ImportMark, closing: Bool) throws -> [ImportMark] {
        try writer.flush()
        committedRelationshipRows = relationshipRows
        committedToOneLinks = toOneLinks
        try SQLiteSchema.recordProgress(
            db,
            source: source,
            bytes: mark.bytes,
            resources: mark.resources,
            relationshipRows: relationshipRows,
            resourcesRead: mark.resourcesRead
        )
        try db.commit()
        if !closing { try db.beginTransaction(.immediate) }
        return [mark]
    }

    private var relationshipRows: Int {
        rolledBack ? committedRelationshipRows : earlierRelationshipRows + writer.relationshipRows
    }
    private var toOneLinks: Int { rolledBack ? committedToOneLinks : writer.toOneLinks }
    /// Relationship rows and to-one links by the last commit, and whether the open batch was
    /// rolled back.
    private var committedRelationshipRows = 0
    private var committedToOneLinks = 0
    private var rolledBack = false

    /// The document's row and the indexes, in a transaction of their own.
    func finish(_ document: ImportDocumentSummary, summary: ImportSummary) throws {
        try db.inTransaction(.immediate) {
            try SQLiteSchema.finishDocument(db, source: source, summary: summary, document: document)
            // Made once from sorted keys rather than grown batch by batch: grown, the indexes of
            // keys that come in no order (an article's author) outgrow the page cache, and
            // every commit rewrites pages all over them.
            try SQLiteSchema.createIndexes(db)
            try writer.createToOneIndexes()
            return .commit
        }
    }

    /// Commits the resources written before `error` (each is whole: a resource's rows are
    /// written before the count moves past it). When the database itself failed, a statement
    /// may have stopped half-way through a resource: the open batch is rolled back instead.
    func fail(_ error: any Error, at mark: ImportMark) -> (durable: [ImportMark], keepingBytesRead: Bool) {
        if !(error is DatabaseError), db.isInsideTransaction, let durable = try? commit(mark, closing: true) {
            return (durable, true)
        }
        writer.discardQueued()
        if db.isInsideTransaction { try? db.rollback() }
        rolledBack = true
        return ([], false)
    }

    func recordFailure(_ error: any Error, summary: ImportSummary) {
        try? db.inTransaction(.immediate) {
            try SQLiteSchema.failDocument(db, source: source, summary: summary, error: error)
            return .commit
        }
    }

    var counts: ImportWriterCounts {
        var tables = writer.tableRows.map { ImportSummary.TableRows(table: $0.table, rows: $0.rows) }
        tables.append(ImportSummary.TableRows(table: "relationships", rows: writer.relationshipRows))
        return ImportWriterCounts(
            relationshipRows: relationshipRows,
            toOneLinks: toOneLinks,
            typeMismatches: writer.typeMismatches,
            tables: tables
        )
    }
}

extension SQLiteImporter: ImportDestination {
    /// The database file's path.
    public var destinationName: String { database.path }

    /// The `documents` row of `source`, if there is one.
    public func recordedDocument(source: String) async throws -> RecordedDocument? {
        try await database.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT status, primary_count, links FROM documents WHERE source = ?",
                arguments: [source]
            )
            .map { row in
                RecordedDocument(
                    source: source,
                    isComplete: (row["status"] as String) == "complete",
                    primaryCount: row["primary_count"],
                    links: row["links"]
                )
            }
        }
    }

    /// `false`: SQLite has one writer at a time, so documents go one after another.
    public static var allowsConcurrentDocuments: Bool { false }

    /// Runs `document` on a thread of its own, which holds the database's connection while the
    /// import writes: the writer blocks, which Swift's cooperative threads must not.
    public func importDocument(_ document: ImportDocument) async throws -> ImportSummary {
        let importer = UncheckedImporter(importer: self)
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try importer.importer.run(document) })
            }
            thread.name = "sluice-import"
            thread.start()
        }
    }

    /// Closes the database connection, which leaves the file whole for other readers (the last
    /// connection out of a WAL database checkpoints it): then, and not whenever the importer
    /// happens to be released, another connection may read it. The importer cannot be used
    /// afterwards.
    public func close() async throws {
        try database.close()
    }
}

/// An importer handed to the thread that uses it alone until it returns.
private struct UncheckedImporter: @unchecked Sendable {
    let importer: SQLiteImporter
}
