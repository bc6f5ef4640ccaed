// One document's counts while a destination writes it, kept one way for every destination: what
// was read, written and committed, where a resumed import starts, and the progress and summary
// made from them. The destinations differ in how they write and commit (SQLite on its own thread,
// PostgreSQL a batch in flight while the next is staged), not in what they count.

/// The counts of one document's import (see the file's comment).
package struct ImportTally: Sendable {
    /// When the import began (elapsed times count from here).
    package let started: ContinuousClock.Instant
    /// The document's size, when known.
    package let totalBytes: Int?
    /// Resources passed over because an interrupted run committed them.
    package let resumedAfter: Int
    /// Relationship rows written by earlier runs of a resumed import.
    package let earlierRelationshipRows: Int
    /// Resources written, an interrupted run's included.
    package private(set) var resources: Int
    /// Resources read without `id` or `lid`, which no table can key.
    package private(set) var unidentified = 0
    /// Resources written into the open batch.
    package private(set) var inBatch = 0
    /// The reader's count of resources (written or not) by the last one taken whole: where a
    /// resume would start if the open batch were committed now.
    package private(set) var resourcesRead: Int
    /// Bytes read by the end of the last block taken (the reader's count once it is done).
    package var bytesRead: Int
    /// Resources, resources read and bytes read by the last commit.
    package private(set) var committed: Int
    package private(set) var committedRead: Int
    package private(set) var committedBytes: Int
    /// Batches committed.
    package private(set) var batches = 0
    /// Records set aside (handed to the writer), and the first few for the summary.
    package private(set) var faults = 0
    package private(set) var firstFaults: [ImportFault] = []

    /// The counts of an import that starts now, or goes on from `resume`.
    package init(resumingFrom resume: ResumePoint?, totalBytes: Int?, started: ContinuousClock.Instant) {
        self.started = started
        self.totalBytes = totalBytes
        resumedAfter = resume?.resourcesRead ?? 0
        earlierRelationshipRows = resume?.relationshipRows ?? 0
        resources = resume?.resources ?? 0
        resourcesRead = resumedAfter
        bytesRead = resume?.bytes ?? 0
        committed = resources
        committedRead = resourcesRead
        committedBytes = bytesRead
    }

    /// Seconds since the import began.
    package var elapsed: Double { (ContinuousClock.now - started) / .seconds(1) }

    /// Counts resources up to the reader's number `readNumber`: `written` of them went into the
    /// open batch, `unidentified` were passed over without `id` or `lid`. Only once a resource
    /// is whole does the count a resume starts from move past it.
    package mutating func took(throughRead readNumber: Int, written: Int, unidentified: Int) {
        resourcesRead = readNumber
        resources += written
        inBatch += written
        self.unidentified += unidentified
    }

    /// Counts records set aside; the summary keeps the first ``ImportSummary/firstFaultsKept``.
    package mutating func setAside(_ faults: [ImportFault]) {
        self.faults += faults.count
        firstFaults.append(contentsOf: faults.prefix(max(0, ImportSummary.firstFaultsKept - firstFaults.count)))
    }

    /// Where the import is now: what a batch committed now would reach.
    package var mark: ImportMark {
        ImportMark(resources: resources, resourcesRead: resourcesRead, bytes: bytesRead)
    }

    /// The open batch has been handed over to be committed: the next resources start a new one.
    package mutating func closeBatch() {
        inBatch = 0
    }

    /// The batch that ended at `mark` has been committed (after `closeBatch`, and for
    /// PostgreSQL while the next one fills).
    package mutating func committedBatch(_ mark: ImportMark) {
        committed = mark.resources
        committedRead = mark.resourcesRead
        committedBytes = mark.bytes
        batches += 1
    }

    /// What was written after the last commit is gone (the database rolled it back, or it never
    /// reached the database): the counts go back to that commit's, the bytes read too unless
    /// `keepingBytesRead` (the input was read that far, whatever became of it).
    package mutating func rollBackToCommit(keepingBytesRead: Bool = false) {
        resources = committed
        resourcesRead = committedRead
        if !keepingBytesRead { bytesRead = committedBytes }
        inBatch = 0
    }

    /// Where the import is now.
    package func progress(finished: Bool) -> ImportProgress {
        ImportProgress(
            bytesRead: bytesRead,
            totalBytes: totalBytes,
            resources: resources,
            committedResources: committed,
            elapsed: elapsed,
            finished: finished
        )
    }

    /// What the import did, with the destination's own counts; `document` gives the primary and
    /// included counts and the top-level links when the document was read to its end.
    package func summary(
        _ document: ImportDocumentSummary?,
        relationshipRows: Int,
        toOneLinks: Int,
        typeMismatches: Int,
        tables: [ImportSummary.TableRows]
    ) -> ImportSummary {
        var summary = ImportSummary(
            resources: resources,
            primaryCount: document?.primaryCount ?? 0,
            includedCount: document?.includedCount ?? 0,
            relationshipRows: relationshipRows,
            toOneLinks: toOneLinks,
            unidentified: unidentified,
            typeMismatches: typeMismatches,
            bytes: bytesRead,
            batches: batches,
            seconds: elapsed,
            documentMembers: document?.members ?? [:],
            resumedAfter: resumedAfter,
            tables: tables
        )
        summary.faults = faults
        summary.firstFaults = firstFaults
        return summary
    }
}

/// Where a batch ends: the counts the `documents` row records with it, and where a resumed
/// import goes on once it is committed.
public struct ImportMark: Sendable, Equatable {
    /// Records written by then, an interrupted run's included.
    public var resources: Int
    /// The reader's count of records (written or not) by then: what a destination records with
    /// the batch, and gives back in its ``ResumePoint`` as `resourcesRead`.
    public var resourcesRead: Int
    /// Bytes of the document read by then.
    public var bytes: Int
}
