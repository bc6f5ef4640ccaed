// The import engine: one document from its bytes to a database, the same way for every database.
// The engine reads the document on threads of its own (ImportPipe), hands the writer blocks of
// records, decides where batches end, counts (ImportTally), reports progress, finds and checks
// the resume point, and words the summary and the failure. A database only writes: it conforms
// to ImportWriter (prepare, write a block, commit, finish, fail), on its own terms (SQLite on one
// thread, PostgreSQL with a batch in flight while the next one fills).

import Foundation
package import SluiceJSON

/// One document's writes into a database, as the engine drives them: what a destination
/// implements to take imports (see ``ImportDestination``).
///
/// The engine reads the document on threads of its own and hands the writer blocks of records;
/// the writer only writes. The calls come in this order, from one task, one at a time:
/// ``resumePoint(for:)`` (when resuming), ``prepare(source:sourceSize:resumingFrom:)``, then
/// ``write(_:)`` and ``commit(_:closing:)`` in turn, and last either ``commit(_:closing:)`` with
/// `closing` and ``finish(_:summary:)``, or ``fail(_:at:)`` and ``recordFailure(_:summary:)``.
///
/// A batch is what lies between two commits: a writer makes it durable whole or not at all, with
/// the ``ImportMark`` it ends at, so that a resumed import can go on after it.
public protocol ImportWriter: AnyObject {
    /// Where an interrupted import of `source` stopped (as the last commit's mark recorded it), if
    /// one did and did not complete.
    func resumePoint(for source: String) async throws -> ResumePoint?

    /// Records the document as being imported (or resumed from `resume`) and opens its first
    /// batch.
    func prepare(source: String, sourceSize: Int?, resumingFrom resume: ResumePoint?) async throws

    /// Writes `records` into the open batch, in order, and says how many it took: all of them,
    /// or those before the first whose key the open batch already holds (which goes in after a
    /// commit, so that its later occurrence wins).
    func write(_ records: ArraySlice<ImportRecord>) async throws -> ImportBlockWrite

    /// Commits the open batch, which ends at `mark`, and opens the next unless `closing`. A
    /// writer may return before the batch is durable (writing it while the next one fills),
    /// except when `closing`. Returns the marks of the batches that became durable during the
    /// call, in order.
    func commit(_ mark: ImportMark, closing: Bool) async throws -> [ImportMark]

    /// Ends the document once every batch is durable: its record says it is done, with
    /// `summary` and `document`'s top-level members, and the indexes are made.
    func finish(_ document: ImportDocumentSummary, summary: ImportSummary) async throws

    /// Makes durable what can be kept after `error` (the records written up to `mark` are whole,
    /// but a fault of the database may have left the open batch half-written). Returns the marks
    /// that became durable during the call, and whether the bytes read past the last of them
    /// count as read (they were read, but nothing of them reached the database when it failed).
    func fail(_ error: any Error, at mark: ImportMark) async -> (durable: [ImportMark], keepingBytesRead: Bool)

    /// Writes records the import set aside (``ImportOptions/onFault`` `.skip`) into the open
    /// batch, before the records read after them: the SQLite and PostgreSQL writers keep them in
    /// a `faults` table, keyed by source and byte offset (a resumed import that meets one again
    /// writes it once). The default keeps them nowhere: the summary counts them and lists the
    /// first ten.
    func setAside(_ faults: [ImportFault]) async throws

    /// Records the failed import: `summary` and why.
    func recordFailure(_ error: any Error, summary: ImportSummary) async

    /// The writer's own counts for the summary, as of the last durable batch once a failure was
    /// handled.
    var counts: ImportWriterCounts { get }

    /// The fault as the import reports it (a database's error worded as the database's, the
    /// caller's cancellation as a `CancellationError`). Default: `error` as it is.
    func reported(_ error: any Error) -> any Error

    /// Whether the destination can store U+0000 in text. When it cannot, the import finds the
    /// records that hold it while reading (see ``ImportOptions/destinationStoresNUL``), rather
    /// than have the database refuse a batch. Default: `true`.
    var storesNUL: Bool { get }
}

extension ImportWriter {
    /// `error` as it is.
    public func reported(_ error: any Error) -> any Error { error }

    /// Keeps the faults nowhere (the summary counts them).
    public func setAside(_ faults: [ImportFault]) async throws {}

    /// `true`.
    public var storesNUL: Bool { true }
}

/// What ``ImportWriter/write(_:)`` did with a block.
public struct ImportBlockWrite: Sendable {
    /// The records taken, from the first: all of them, or those before a repeated key.
    public var taken: Int
    /// How many of those went into the batch; the others have no key.
    public var written: Int

    /// `taken` records taken, `written` of them written.
    public init(taken: Int, written: Int) {
        self.taken = taken
        self.written = written
    }
}

/// A writer's own counts, for the summary.
public struct ImportWriterCounts: Sendable {
    /// Rows of to-many linkage written (`relationships`), an interrupted run's included.
    public var relationshipRows: Int
    /// To-one links written as columns of their record's row by this run.
    public var toOneLinks: Int
    /// Values written into a column declared for another kind of value.
    public var typeMismatches: Int
    /// Rows written per table, `relationships` last.
    public var tables: [ImportSummary.TableRows]

    /// The counts as given.
    public init(relationshipRows: Int, toOneLinks: Int, typeMismatches: Int, tables: [ImportSummary.TableRows]) {
        self.relationshipRows = relationshipRows
        self.toOneLinks = toOneLinks
        self.typeMismatches = typeMismatches
        self.tables = tables
    }
}

/// Runs one document's import through a writer (see the file's comment).
package enum ImportRun {
    /// Imports the document `reader` reads through `writer`, recorded under `source`, calling
    /// `progress` after every block and once at the end (on the task's executor).
    ///
    /// - Throws: ``ImportFailure`` with the fault and how many resources were committed before it.
    package static func run(
        _ writer: some ImportWriter,
        reading reader: any ChunkSource,
        source: String,
        options: ImportOptions,
        progress: ((ImportProgress) -> Void)?
    ) async throws -> ImportSummary {
        let started = ContinuousClock.now
        let resume: ResumePoint?
        do {
            resume = options.resume ? try await writer.resumePoint(for: source) : nil
            if let reason = resume?.mismatch(withSize: reader.size) { throw ImportResumeError(reason: reason) }
            try await writer.prepare(source: source, sourceSize: reader.size, resumingFrom: resume)
        } catch {
            // Nothing was read, so nothing was committed.
            throw ImportFailure(underlying: writer.reported(error), committedResources: 0)
        }
        var tally = ImportTally(resumingFrom: resume, totalBytes: reader.size, started: started)
        // Reading starts once the database is ready, on threads of its own.
        var options = options
        options.destinationStoresNUL = writer.storesNUL
        let pipe = ImportPipe.start(reading: reader, source: source, options: options, resumingFrom: resume)
        do {
            let document = try await write(
                from: pipe,
                into: writer,
                batchSize: max(1, options.batchSize),
                tally: &tally,
                progress: progress
            )
            tally.bytesRead = reader.bytesRead
            try await commit(writer, closing: true, tally: &tally)
            var summary = summary(of: tally, document, writer)
            summary.format = pipe.format
            try await writer.finish(document, summary: summary)
            progress?(tally.progress(finished: true))
            return summary
        } catch {
            // Stop the reader first: from here on only this task touches the input.
            pipe.cancelAndWait()
            tally.bytesRead = reader.bytesRead
            let (durable, keepingBytesRead) = await writer.fail(error, at: tally.mark)
            for mark in durable { tally.committedBatch(mark) }
            tally.rollBackToCommit(keepingBytesRead: keepingBytesRead)
            await writer.recordFailure(error, summary: summary(of: tally, nil, writer))
            progress?(tally.progress(finished: true))
            throw ImportFailure(underlying: writer.reported(error), committedResources: tally.committed)
        }
    }

    /// Hands every block the reader delivers to the writer, committing a batch every
    /// `batchSize` resources (and before a key the open batch already holds); returns the
    /// document's summary when the reader ends, throws its fault.
    private static func write(
        from pipe: ImportPipe,
        into writer: some ImportWriter,
        batchSize: Int,
        tally: inout ImportTally,
        progress: ((ImportProgress) -> Void)?
    ) async throws -> ImportDocumentSummary {
        while true {
            switch await pipe.next() {
            case .block(let block):
                if !block.faults.isEmpty {
                    try await writer.setAside(block.faults)
                    tally.setAside(block.faults)
                }
                // Every resource read after the skipped ones is a record: the one at `index`
                // is the reader's resource number `firstRead + index + 1`.
                let firstRead = block.resourcesRead - block.records.count
                var start = 0
                while start < block.records.count {
                    let end = min(block.records.count, start + batchSize - tally.inBatch)
                    let done = try await writer.write(block.records[start..<end])
                    let repeatedKey = done.taken < end - start
                    start += done.taken
                    tally.took(
                        throughRead: firstRead + start,
                        written: done.written,
                        unidentified: done.taken - done.written
                    )
                    // No key repeats in an empty batch: a writer that takes nothing from one
                    // would stop the import here for good.
                    precondition(!repeatedKey || tally.inBatch > 0, "a writer took no record into an empty batch")
                    if repeatedKey || tally.inBatch >= batchSize {
                        try await commit(writer, closing: false, tally: &tally)
                    }
                }
                tally.bytesRead = block.bytesRead
                progress?(tally.progress(finished: false))
            case .finished(let document):
                return document
            case .failed(let error):
                throw error
            }
        }
    }

    /// Commits the open batch at the tally's mark and counts the batches that became durable.
    /// A cancelled caller stops here, before the batch: a writer's statements need not notice
    /// cancellation themselves (postgres-nio's simple queries do not).
    private static func commit(_ writer: some ImportWriter, closing: Bool, tally: inout ImportTally) async throws {
        try Task.checkCancellation()
        let durable = try await writer.commit(tally.mark, closing: closing)
        tally.closeBatch()
        for mark in durable { tally.committedBatch(mark) }
    }

    private static func summary(
        of tally: ImportTally,
        _ document: ImportDocumentSummary?,
        _ writer: some ImportWriter
    ) -> ImportSummary {
        let counts = writer.counts
        return tally.summary(
            document,
            relationshipRows: counts.relationshipRows,
            toOneLinks: counts.toOneLinks,
            typeMismatches: counts.typeMismatches,
            tables: counts.tables
        )
    }
}
