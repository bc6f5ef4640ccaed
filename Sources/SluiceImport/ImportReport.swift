// What an import reports while it runs and when it ends, the same for every target (SQLite,
// PostgreSQL), so the CLI and a caller read both alike.

public import Foundation
public import SluiceJSON

/// How an import runs, into any target.
public struct ImportOptions: Sendable {
    /// Resources per transaction. Larger batches are faster; a killed import loses at most the
    /// batch in progress. Default: 5 000.
    public var batchSize = 5_000
    /// Limits on the input document. Default: `JSONLimits.streaming`: one resource is held at
    /// a time.
    public var limits = JSONLimits.streaming
    /// How many threads parse the document (see `Parallelism`), besides the one that writes to
    /// the database. Default: `.automatic`, which for an import is one thread fewer than the
    /// cores, so that the writer keeps one of its own. What is imported is the same for any
    /// setting.
    public var parallelism = Parallelism.automatic
    /// Whether to continue an interrupted import of the same source from its last committed batch
    /// (its `documents` row records how many resources were read by then): the resources before it
    /// are read again but not written. An import with no interrupted run to continue (no row, or a
    /// complete one) runs whole. Default: `false`.
    public var resume = false
    /// What the input is read as. Default: ``ImportFormat/automatic``, by each source's name and
    /// first bytes.
    public var format = ImportFormat.automatic
    /// How plain JSON records become rows (ignored for JSON:API documents).
    public var records = PlainRecordOptions()
    /// What reads the input when it is a document rather than plain records (JSON:API, with
    /// `JSONAPIImportReader` from SluiceJSONAPIImport). Default (`nil`): the SQLite and PostgreSQL
    /// importers read JSON:API; a destination of your own reads plain records only, unless set.
    public var documents: (any ImportDocumentReader)?
    /// What a fault of one record does: stop the document (`.stop`, the default), or set the
    /// record aside and go on (`.skip`; see ``ImportFault``). A fault after which the rest of
    /// the input cannot be trusted (broken syntax inside one JSON document, a limit crossed, a
    /// JSON:API error document) stops the document either way.
    public var onFault = ImportFaultPolicy.stop
    /// With `.skip`, the most records one document may set aside: one more stops it with
    /// ``ImportTooManyFaults`` (so many faults mean the input is not what the import takes).
    /// Default: 1 000.
    public var maxFaults = 1_000
    /// With `.skip`, how many bytes of a set-aside record's text are kept in its ``ImportFault``
    /// (and the `faults` table). Default: 4 096.
    public var faultRecordBytes = 4_096
    /// Whether the destination can store the character U+0000 (JSON's `\u0000`): the import sets
    /// it from ``ImportWriter/storesNUL``. Where it cannot (PostgreSQL), a record with U+0000 in a
    /// string or a member name is a fault of that record, met on the reading side with its
    /// position and JSON Pointer: set aside with `.skip`, else it stops the import. A document
    /// reader of your own checks it too.
    public package(set) var destinationStoresNUL = true

    /// The defaults.
    public init() {}

    /// The reading threads `parallelism` stands for: `.automatic` leaves the writer a core, since
    /// a reading thread that shares the writer's core costs more in splitting and merging than it
    /// gains (the performance page has the figures).
    package var readingParallelism: Parallelism {
        guard case .automatic = parallelism else { return parallelism }
        return .workers(max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
    }
}

/// Where an import is.
public struct ImportProgress: Sendable {
    /// Bytes of the document read so far.
    public var bytesRead: Int
    /// The document's size, when known (a file; not a pipe).
    public var totalBytes: Int?
    /// Resources read so far (with those a resumed import had committed before).
    public var resources: Int
    /// Resources in committed batches.
    public var committedResources: Int
    /// Seconds since the import started.
    public var elapsed: Double
    /// Whether the import has ended (the last report of an import has it set).
    public var finished: Bool

    package init(
        bytesRead: Int,
        totalBytes: Int?,
        resources: Int,
        committedResources: Int,
        elapsed: Double,
        finished: Bool
    ) {
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.resources = resources
        self.committedResources = committedResources
        self.elapsed = elapsed
        self.finished = finished
    }
}

/// What an import did.
public struct ImportSummary: Sendable {
    /// Rows one table received.
    public struct TableRows: Sendable, Hashable {
        /// The table's name (a resource type's table, or `relationships`).
        public var table: String
        /// Rows written into it by this run (inserted or updated).
        public var rows: Int

        /// Rows `rows` written into `table`.
        public init(table: String, rows: Int) {
            self.table = table
            self.rows = rows
        }
    }

    /// Resources written (primary data and included), with those a resumed import had committed
    /// before it was interrupted.
    public var resources: Int
    /// Resources in primary data.
    public var primaryCount: Int
    /// Resources in `included`.
    public var includedCount: Int
    /// Relationship rows written: an identifier of to-many linkage each.
    public var relationshipRows: Int
    /// To-one relationships with a target, written by this run as the `NAME_type` and `NAME_id`
    /// columns of their resource's row (not rows of `relationships`).
    public var toOneLinks: Int
    /// Resources left out because they have neither `id` nor `lid` (nothing to key them by).
    public var unidentified: Int
    /// Values written into a column declared for another kind of value (a string into an
    /// `INTEGER` column, a number into a `TEXT` one). SQLite keeps them as they are (its column
    /// affinity); PostgreSQL widens the column first (see `PostgresImporter`).
    public var typeMismatches: Int
    /// Bytes read.
    public var bytes: Int
    /// Transactions committed.
    public var batches: Int
    /// Seconds the import took.
    public var seconds: Double
    /// The document's top-level members kept beside its records, as compact JSON text by name
    /// (a JSON:API document's `meta`, `links` and `jsonapi`; SluiceJSONAPIImport reads `links`
    /// back as `links`).
    public var documentMembers: [String: String]
    /// Resources a resumed import passed over because an earlier run had committed them (0 for an
    /// import that was not resumed).
    public var resumedAfter: Int
    /// The format the input was read as (``ImportFormat/automatic`` decided for one).
    public var format = ImportFormat.jsonAPI
    /// Records set aside (``ImportOptions/onFault`` `.skip`), those a resumed import met again
    /// before its resume point included: the whole document's.
    public var faults = 0
    /// The first of them (up to ``firstFaultsKept``), for a report; a destination's `faults`
    /// table has them all.
    public var firstFaults: [ImportFault] = []
    /// How many of the faults ``firstFaults`` keeps: 10.
    public static let firstFaultsKept = 10
    /// Rows per table written by this run, resource tables in the order first met, then
    /// `relationships`.
    public var tables: [TableRows]

    package init(
        resources: Int,
        primaryCount: Int,
        includedCount: Int,
        relationshipRows: Int,
        toOneLinks: Int,
        unidentified: Int,
        typeMismatches: Int,
        bytes: Int,
        batches: Int,
        seconds: Double,
        documentMembers: [String: String],
        resumedAfter: Int,
        tables: [TableRows]
    ) {
        self.resources = resources
        self.primaryCount = primaryCount
        self.includedCount = includedCount
        self.relationshipRows = relationshipRows
        self.toOneLinks = toOneLinks
        self.unidentified = unidentified
        self.typeMismatches = typeMismatches
        self.bytes = bytes
        self.batches = batches
        self.seconds = seconds
        self.documentMembers = documentMembers
        self.resumedAfter = resumedAfter
        self.tables = tables
    }

    /// Rows per second `table` received over the whole import.
    public func rowsPerSecond(_ table: TableRows) -> Double {
        seconds > 0 ? Double(table.rows) / seconds : 0
    }
}

/// An import stopped by a fault of the input or of the database: what was committed before it
/// stays, and `documents` says where a resumed import goes on.
public struct ImportFailure: Error, Sendable, CustomStringConvertible {
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

    /// The fault and how many resources were committed before it.
    public var description: String {
        "\(underlying) (\(committedResources) resource\(committedResources == 1 ? "" : "s") imported before it)"
    }
}

/// `localizedDescription` gives the fault and how much was committed before it.
extension ImportFailure: LocalizedError {
    public var errorDescription: String? { description }
}

/// Where an interrupted import of a source stopped, as its `documents` row recorded at the last
/// commit: a resumed import passes over `resourcesRead` resources and goes on from there.
public struct ResumePoint: Sendable {
    /// Resources read (written or unidentified) up to the last committed batch.
    public var resourcesRead: Int
    /// Resources written up to then.
    public var resources: Int
    /// Relationship rows written up to then.
    public var relationshipRows: Int
    /// The document's bytes read by then.
    public var bytes: Int
    /// The size of the document when the interrupted import read it (`nil` for a pipe).
    public var sourceSize: Int?

    /// A resume point with these counts, as a destination read them back from its record of the
    /// interrupted import.
    public init(resourcesRead: Int, resources: Int, relationshipRows: Int, bytes: Int, sourceSize: Int?) {
        self.resourcesRead = resourcesRead
        self.resources = resources
        self.relationshipRows = relationshipRows
        self.bytes = bytes
        self.sourceSize = sourceSize
    }

    /// Why this point cannot be resumed from with a document of `size` bytes, if it cannot.
    package func mismatch(withSize size: Int?) -> String? {
        guard let sourceSize, let size, sourceSize != size else { return nil }
        return
            "the document is \(size) bytes but was \(sourceSize) bytes when the interrupted import read it: import it again without resuming"
    }
}

/// Thrown for `resume` when the document is not the one the interrupted import read.
public struct ImportResumeError: Error, Sendable, CustomStringConvertible {
    /// Why the import cannot be resumed.
    public var reason: String
    package init(reason: String) { self.reason = reason }
    /// The fault, as one sentence.
    public var description: String { "Cannot resume the import: \(reason)." }
}
