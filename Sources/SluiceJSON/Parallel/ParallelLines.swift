// JSON Lines on several threads: the input is cut after a line feed into batches of whole lines,
// which worker threads read (BatchWorkers, as for the arrays of one document), and the results
// are handed over in input order on the calling thread.
//
// Why this is simpler than splitting one document: in JSON Lines a line feed outside a string
// always ends a value (inside a string it is not JSON), so a cut after any line feed is a cut
// between values, found with one memchr and no state. Positions stay exact: a batch carries the
// offset and line of its first byte, counted by the cutter. A worker that meets any fault gives
// up on its batch, and the caller reads that batch on its own sequential reader, which then meets
// the fault itself after handing over the values before it: results and errors are those of one
// thread, for any number of threads.

import Foundation

/// Cuts a JSON Lines input into batches of whole lines for worker threads and merges what they
/// make, in input order, with the sequential reader as the fallback for a batch with a fault.
package final class ParallelLinesDriver<Output> {
    private let workers: BatchWorkers<Output>
    private let batchBytes: Int
    private let maxInFlight: Int
    /// The bytes after the last cut, not yet in a batch.
    private var current: [UInt8] = []
    /// Where `current` starts: absolute offset and line.
    private var offset = 0
    private var line = 1
    private var nextSequence = 0
    private var inFlight: [(sequence: Int, batch: JSONBatch)] = []
    private var head = 0

    /// A driver with `threads` threads in all (the caller's included), or `nil` for one thread.
    /// `makeWork` makes each thread's reader of a batch: what it returns for the batch, or `nil`
    /// when it meets a fault.
    package init?(
        threads: Int,
        batchBytes: Int = ParallelOptions().batchBytes,
        makeWork: @escaping () -> (JSONBatch) -> Output?
    ) {
        guard threads > 1 else { return nil }
        workers = BatchWorkers(helperCount: threads - 1) {
            let work = makeWork()
            return { batch, _ in work(batch) }
        }
        self.batchBytes = max(batchBytes, 1)
        maxInFlight = 2 * threads
    }

    deinit { workers.stop() }

    /// Takes the next chunk; merges the oldest batches while too many are in flight.
    ///
    /// - Parameters:
    ///   - merged: Called with each batch a worker read and its output, in input order (the
    ///     caller's own reader moves its position past the batch).
    ///   - sequential: Called with a batch a worker gave up on, in its turn, for the caller's own
    ///     reader to read.
    package func feed(
        _ chunk: UnsafeRawBufferPointer,
        merged: (JSONBatch, Output) throws -> Void,
        sequential: (JSONBatch) throws -> Void
    ) throws {
        current.append(contentsOf: chunk)
        guard current.count >= batchBytes, let cut = current.lastIndex(of: 0x0A) else { return }
        submit(Array(current[...cut]))
        current.removeFirst(cut + 1)
        while inFlight.count - head > maxInFlight {
            try mergeOldest(merged: merged, sequential: sequential)
        }
        while head < inFlight.count, workers.isFinished(inFlight[head].sequence) {
            try mergeOldest(merged: merged, sequential: sequential)
        }
    }

    /// Ends the input: the last lines become a batch, and everything is merged.
    package func finish(
        merged: (JSONBatch, Output) throws -> Void,
        sequential: (JSONBatch) throws -> Void
    ) throws {
        if !current.isEmpty {
            submit(current)
            current = []
        }
        while head < inFlight.count { try mergeOldest(merged: merged, sequential: sequential) }
        workers.stop()
    }

    private func submit(_ bytes: [UInt8]) {
        let lines = bytes.withUnsafeBytes { Self.lineFeeds(in: $0) }
        let batch = JSONBatch(
            target: 0,
            array: 0,
            firstElement: 0,
            elementCount: lines,
            bytes: bytes,
            offset: offset,
            line: line,
            column: 1,
            endLine: line + lines,
            endColumn: 1
        )
        offset += bytes.count
        line += lines
        workers.submit(batch, sequence: nextSequence, before: 0)
        inFlight.append((nextSequence, batch))
        nextSequence += 1
    }

    private func mergeOldest(
        merged: (JSONBatch, Output) throws -> Void,
        sequential: (JSONBatch) throws -> Void
    ) throws {
        let (sequence, batch) = inFlight[head]
        head += 1
        if head == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            head = 0
        }
        if let output = workers.take(sequence) {
            try merged(batch, output)
        } else {
            try sequential(batch)
        }
    }

    /// The number of line feeds in `bytes`.
    static func lineFeeds(in bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var count = 0
        var index = 0
        while index < bytes.count, let found = memchr(base + index, 0x0A, bytes.count - index) {
            count += 1
            index = base.distance(to: UnsafeRawPointer(found)) + 1
        }
        return count
    }
}
