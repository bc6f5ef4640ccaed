// The parallel path's machinery, shared by the element streamer and the JSON:API
// engine: worker threads that read batches, and the driver that splits the input and merges the
// results back in document order.
//
// How a document is read in parallel, and why the result is the sequential one:
//
// - The splitter (JSONSplitter) hands over the document as pieces in order: skeleton bytes and
//   batches of whole elements. Every byte is in exactly one piece.
// - Each batch goes to a worker, which parses it as an array of its own (`[` + batch + `]`), with
//   positions seeded from the batch's, and decodes its elements. A worker that meets any fault
//   (or a batch that does not hold the elements the splitter counted) gives up: nothing it did is
//   used.
// - The calling thread merges in document order. It feeds the skeleton to the consumer's own
//   sequential parser; for a batch a worker read, it feeds a stand-in (`null`, ending where the
//   batch ends) and hands over the worker's results; for a batch a worker gave up on, it feeds the
//   batch's real bytes, so the sequential parser and decoder meet the fault themselves, after
//   handing over the elements before it. The sequential parser is thus in the same state at every
//   batch as it would be reading the whole document, and every error is the one a single thread
//   gives, message, position and pointer alike.
// - Memory: at most `2 × threads` batches are between the splitter and the merger; a full pipeline
//   makes the calling thread merge (and so hand over to the consumer) before it reads on, which is
//   the back-pressure from the consumer to the input.
// - The calling thread is a worker too: a batch it must merge that no worker has started, it reads
//   itself. So `.workers(2)` is one extra thread, which suits a machine of two cores.

import Foundation

/// Threads that read batches, and the results they leave for the merger.
///
/// `@unchecked Sendable`: every field below the lock is read and written holding `condition`'s
/// lock. A result is made on one thread and handed to the merger under the lock; the worker keeps
/// nothing of it, so the hand-over is a transfer, not sharing. `makeWork` runs on each thread; what
/// it captures (decoding options, limits, model metatypes, coding keys) is immutable, which the
/// compiler cannot see through generic metatypes and `any CodingKey`.
package final class BatchWorkers<Output>: @unchecked Sendable {
    /// Reads one batch: `nil` when the batch must be read sequentially. The `Int` is the number of
    /// elements of the same target before the batch, in all its arrays.
    package typealias Work = (JSONBatch, Int) -> Output?

    private let condition = NSCondition()
    private let helperCount: Int
    private let makeWork: () -> Work
    /// The calling thread's own reader, made when it first reads a batch itself.
    private var localWork: Work?

    // Under the lock.
    private var waiting: [(sequence: Int, batch: JSONBatch, before: Int)] = []
    private var waitingHead = 0
    private var finished: [Int: Output?] = [:]
    private var threadsStarted = 0
    private var stopping = false

    /// Workers with `helperCount` threads besides the caller's, each reading with what `makeWork`
    /// makes for it (its own parser and decoding context).
    package init(helperCount: Int, makeWork: @escaping () -> Work) {
        self.helperCount = helperCount
        self.makeWork = makeWork
    }

    deinit { stop() }

    /// Queues a batch. Threads start with the first batch, so a document too small to cut starts
    /// none.
    package func submit(_ batch: JSONBatch, sequence: Int, before: Int) {
        condition.lock()
        waiting.append((sequence, batch, before))
        let startThread = threadsStarted < helperCount && threadsStarted < waiting.count - waitingHead
        if startThread { threadsStarted += 1 }
        condition.signal()
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in self.run() }
            // Decoding recurses once per nesting level; give helpers the main thread's room.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Whether the batch `sequence` has been read.
    package func isFinished(_ sequence: Int) -> Bool {
        condition.withLock { finished[sequence] != nil }
    }

    /// The result of the batch `sequence`: read here if no thread has started it. While another
    /// thread reads it, this one reads the next batches waiting rather than sit idle: on a machine
    /// with as many cores as threads, an idle merger is a core lost.
    package func take(_ sequence: Int) -> Output? {
        condition.lock()
        while true {
            if let output = finished.removeValue(forKey: sequence) {
                condition.unlock()
                return output
            }
            guard waitingHead < waiting.count else {
                condition.wait()
                continue
            }
            let job = popWaiting()
            condition.unlock()
            if localWork == nil { localWork = makeWork() }
            let output = localWork?(job.batch, job.before)
            if job.sequence == sequence { return output }
            condition.lock()
            finished[job.sequence] = .some(output)
        }
    }

    /// Stops the threads once they finish the batch in hand; queued batches are dropped.
    package func stop() {
        condition.withLock {
            stopping = true
            waiting.removeAll()
            waitingHead = 0
            condition.broadcast()
        }
    }

    private func popWaiting() -> (sequence: Int, batch: JSONBatch, before: Int) {
        let job = waiting[waitingHead]
        waitingHead += 1
        // Compact now and then rather than remove from the front each time.
        if waitingHead > 64 && waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
        return job
    }

    private func run() {
        let work = makeWork()
        condition.lock()
        while true {
            while !stopping && waitingHead == waiting.count { condition.wait() }
            if stopping { break }
            let job = popWaiting()
            condition.unlock()
            let output = work(job.batch, job.before)
            condition.lock()
            if stopping { break }
            finished[job.sequence] = .some(output)
            condition.broadcast()
        }
        condition.unlock()
    }
}

/// Splits the input, hands batches to workers and merges everything back in document order, on
/// the calling thread. The owner supplies, at each call, what merging means for it: `bytes` for
/// input it parses itself, `batch` for a batch a worker read.
package final class ParallelSplitDriver<Output> {
    private enum Pending {
        case bytes([UInt8])
        case batch(sequence: Int, JSONBatch)
    }

    private let splitter: JSONSplitter
    private let workers: BatchWorkers<Output>
    private let maxInFlight: Int
    /// Pieces split and not yet merged, in document order, from `head`.
    private var pending: [Pending] = []
    private var head = 0
    private var batchesInFlight = 0
    private var nextSequence = 0
    /// Per target, the elements in batches split so far, in all its arrays.
    private var elementsSplit: [Int]

    /// A driver for the arrays at `paths`, with `threads` threads in all (the caller's included),
    /// or `nil` where the splitter cannot follow a path (see `JSONSplitter.init`).
    package init?(
        paths: [JSONPath],
        threads: Int,
        batchBytes: Int = ParallelOptions().batchBytes,
        makeWork: @escaping () -> BatchWorkers<Output>.Work
    ) {
        guard threads > 1, let splitter = JSONSplitter(paths: paths, batchBytes: batchBytes) else { return nil }
        self.splitter = splitter
        workers = BatchWorkers(helperCount: threads - 1, makeWork: makeWork)
        maxInFlight = 2 * threads
        elementsSplit = Array(repeating: 0, count: paths.count)
    }

    deinit { workers.stop() }

    /// Splits `chunk`; merges what is ready, and the oldest batches while too many are in flight.
    package func feed(
        _ chunk: UnsafeRawBufferPointer,
        bytes: (UnsafeRawBufferPointer) throws -> Void,
        batch: (JSONBatch, Output) throws -> Void
    ) throws {
        try splitter.feed(chunk) { piece in try accept(piece, bytes: bytes, batch: batch) }
        while head < pending.count {
            if case .batch(let sequence, _) = pending[head], !workers.isFinished(sequence) { break }
            try mergeOldest(bytes: bytes, batch: batch)
        }
    }

    /// Ends the input and merges everything left.
    package func finish(
        bytes: (UnsafeRawBufferPointer) throws -> Void,
        batch: (JSONBatch, Output) throws -> Void
    ) throws {
        try splitter.finish { piece in try accept(piece, bytes: bytes, batch: batch) }
        while head < pending.count { try mergeOldest(bytes: bytes, batch: batch) }
        workers.stop()
    }

    private func accept(
        _ piece: JSONSplitPiece,
        bytes: (UnsafeRawBufferPointer) throws -> Void,
        batch: (JSONBatch, Output) throws -> Void
    ) throws {
        /// Bytes this thread parses itself: at once, without a copy, when nothing before them
        /// waits; else in their turn.
        func read(_ buffer: UnsafeRawBufferPointer) throws {
            if head == pending.count {
                try bytes(buffer)
            } else {
                pending.append(.bytes(Array(buffer)))
            }
        }
        switch piece {
        case .bytes(let buffer):
            try read(buffer)
        case .batch(let split):
            let before = elementsSplit[split.target]
            elementsSplit[split.target] += split.elementCount
            // The stand-in needs four bytes. A batch smaller than that (the last of an array, or
            // any with a tiny batch size) is cheaper to read here than to send.
            guard split.bytes.count >= 4 else {
                try split.bytes.withUnsafeBytes { try read($0) }
                return
            }
            workers.submit(split, sequence: nextSequence, before: before)
            pending.append(.batch(sequence: nextSequence, split))
            nextSequence += 1
            batchesInFlight += 1
            while batchesInFlight > maxInFlight { try mergeOldest(bytes: bytes, batch: batch) }
        }
    }

    private func mergeOldest(
        bytes: (UnsafeRawBufferPointer) throws -> Void,
        batch: (JSONBatch, Output) throws -> Void
    ) throws {
        let piece = pending[head]
        pending[head] = .bytes([])
        head += 1
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        }
        switch piece {
        case .bytes(let buffer):
            try buffer.withUnsafeBytes { try bytes($0) }
        case .batch(let sequence, let split):
            batchesInFlight -= 1
            if let output = workers.take(sequence) {
                try batch(split, output)
            } else {
                // A fault somewhere in the batch: read it here, where the sequential parser meets
                // the fault after handing over the elements before it.
                try split.bytes.withUnsafeBytes { try bytes($0) }
            }
        }
    }
}

extension JSONBatch {
    /// Parses the batch as an array of its own (`[` + bytes + `]`), with every position the
    /// document's, for a worker. `limits` are the document's: the depth allowed inside is reduced
    /// by `arrayDepth - 1`, the depth of the batch's array in the document less the wrapper's own.
    ///
    /// - Returns: The parser, its tape holding the array; `nil` on any fault, or when the array
    ///   does not hold the elements the splitter counted (`[1,,2]` makes an empty element).
    package func parseAsArray(limits: JSONLimits, arrayDepth: Int) -> JSONParser? {
        var limits = limits
        limits.maxDepth -= arrayDepth - 1
        guard limits.maxDepth >= 1 else { return nil }
        // The `[` stands on the byte before the batch, the document's own `[` or `,`; the `]` on
        // the byte after it, its `,` or `]`.
        let parser = JSONParser(limits: limits, startingAt: offset - 1, line: line, column: column - 1)
        parser.reserveTape(forInputBytes: bytes.count)
        do {
            try parser.parse([UInt8(ascii: "[")])
            try parser.parse(bytes)
            try parser.parse([UInt8(ascii: "]")])
            try parser.finish()
        } catch {
            return nil
        }
        let tape = parser.tape
        guard let root = try? tape.value(at: tape.startIndex), root.count == elementCount else { return nil }
        return parser
    }
}
