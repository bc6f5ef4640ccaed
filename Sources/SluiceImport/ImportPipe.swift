// Reading and writing on two threads: the document is parsed on threads of its own while the
// importer's thread writes to the database, so an import takes about as long as the slower of
// the two rather than their sum (the machines this runs on have two cores or more).

import Foundation
package import SluiceJSON

/// Resources handed from the reading thread to the writing one, in blocks, with a bound on how
/// many blocks wait (4 of 256): memory stays that of about a thousand resources however fast the
/// reader is. More blocks in flight buy no speed, only memory at the peak.
package final class ImportPipe: @unchecked Sendable {
    /// Records in document order, and the bytes read when the last of them closed.
    package struct Block {
        package var records: [ImportRecord]
        /// Resources the reader passed over before each of these (a resumed import's committed
        /// ones) and those in the block: the count a resume starts from after this block.
        package var resourcesRead: Int
        package var bytesRead: Int
        /// Records set aside since the previous block (``ImportOptions/onFault`` `.skip`).
        package var faults: [ImportFault] = []
    }

    /// What the writer takes next.
    package enum Delivery {
        case block(Block)
        /// The reader is done: the document's summary ...
        case finished(ImportDocumentSummary)
        /// ... or the fault that stopped it (after the blocks read before it).
        case failed(any Error)
    }

    /// Thrown to the reader once the writer has stopped.
    struct Cancelled: Error {}

    static let blockSize = 256
    private let capacity = 4
    // All state below is guarded by `condition`.
    private let condition = NSCondition()
    private var blocks: [Block] = []
    /// How the reader ended (`.finished` or `.failed`); `nil` while it runs.
    private var ending: Delivery?
    private var cancelled = false
    /// An async writer waiting in ``next()`` for the reader.
    private var waiter: CheckedContinuation<Delivery, Never>?

    /// Reader side: waits while the pipe is full; throws ``Cancelled`` once the writer stopped.
    private func put(_ block: Block) throws {
        condition.lock()
        defer { condition.unlock() }
        while blocks.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        blocks.append(block)
        condition.broadcast()
        wakeWaiter()
    }

    /// Reader side: the last call, with `.finished` or `.failed`.
    private func end(_ ending: Delivery) {
        condition.lock()
        self.ending = ending
        condition.broadcast()
        wakeWaiter()
        condition.unlock()
    }

    /// Hands the next delivery to an async writer waiting for one. (Resuming under the lock is
    /// safe: the continuation only schedules the writer's task.)
    private func wakeWaiter() {
        guard let waiter, let delivery = nextDelivery() else { return }
        self.waiter = nil
        waiter.resume(returning: delivery)
    }

    /// The next block, else how the reader ended; `nil` while neither is there. Under the lock.
    private func nextDelivery() -> Delivery? {
        if !blocks.isEmpty {
            condition.broadcast()
            return .block(blocks.removeFirst())
        }
        return ending
    }

    /// Writer side: the next block, or how the reader ended once every block is taken.
    package func take() -> Delivery {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let delivery = nextDelivery() { return delivery }
            condition.wait()
        }
    }

    /// Writer side, for an async writer: ``take()`` without blocking a thread while it waits.
    package func next() async -> Delivery {
        await withCheckedContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            if let delivery = nextDelivery() {
                continuation.resume(returning: delivery)
            } else {
                waiter = continuation
            }
        }
    }

    /// Writer side: stops the reader (at its next block) and waits until it has ended, so that
    /// nothing uses the input after the import returns.
    package func cancelAndWait() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while ending == nil { condition.wait() }
        condition.unlock()
    }

    /// The format the input was read as, once the reader has decided (read it after
    /// ``Delivery/finished(_:)``).
    package private(set) var format = ImportFormat.jsonAPI

    /// Starts reading `reader` on a thread of its own (and the decoder's workers) with `options`'s
    /// format, limits and parallelism, passing over the resources `resume` says an interrupted
    /// import committed. `source` names the input (its extension may tell its format, and plain
    /// records are keyed by it).
    package static func start(
        reading reader: any ChunkSource,
        source: String,
        options: ImportOptions,
        resumingFrom resume: ResumePoint?
    ) -> ImportPipe {
        let skipping = resume?.resourcesRead ?? 0
        let pipe = ImportPipe()
        // The reader is used by the new thread only from here on: the importer touches it not
        // until `end` (awaited by `take` or `cancelAndWait`) says the thread is done.
        let work = UncheckedBox(reader)
        let thread = Thread {
            let reader = work.value
            var block = Block(records: [], resourcesRead: 0, bytesRead: 0)
            block.records.reserveCapacity(blockSize)
            var read = 0
            var faults = 0
            func handOver() throws {
                block.bytesRead = reader.bytesRead
                block.resourcesRead = read
                try pipe.put(block)
                block.records.removeAll(keepingCapacity: true)
                block.faults.removeAll(keepingCapacity: true)
            }
            func add(_ record: ImportRecord) throws {
                read += 1
                guard read > skipping else { return }
                block.records.append(record)
                if block.records.count >= blockSize { try handOver() }
            }
            // A fault goes to the writer with the records after it, named by the source; faults
            // alone go when there are as many as a block holds records.
            func setAside(_ fault: ImportFault) throws {
                var fault = fault
                fault.source = source
                faults += 1
                if faults > options.maxFaults { throw ImportTooManyFaults(limit: options.maxFaults, last: fault) }
                block.faults.append(fault)
                if block.faults.count >= blockSize { try handOver() }
            }
            do {
                let (format, input) = try settleFormat(of: reader, source: source, options: options)
                pipe.format = format
                let summary: ImportDocumentSummary
                if !format.isPlain {
                    // A format of documents: read by the layer that knows it.
                    guard let documents = options.documents, documents.format == format else {
                        throw ImportFormatUnavailable(format: format)
                    }
                    summary = try documents.read(input, options: options, emit: add, setAside: setAside)
                } else {
                    let counts = try PlainRecordReader.read(
                        input,
                        as: format,
                        options: options.records,
                        source: source,
                        limits: options.limits,
                        threads: options.readingParallelism.threadCount,
                        faultRecordBytes: options.faultRecordBytes,
                        refusesNUL: !options.destinationStoresNUL,
                        emit: add,
                        setAside: options.onFault == .skip ? setAside : nil
                    )
                    summary = ImportDocumentSummary(primaryCount: counts.records, includedCount: counts.childRows)
                }
                block.bytesRead = reader.bytesRead
                block.resourcesRead = read
                if !block.records.isEmpty || !block.faults.isEmpty { try pipe.put(block) }
                pipe.end(.finished(summary))
            } catch {
                // The resources that closed before the fault still go to the writer.
                block.bytesRead = reader.bytesRead
                block.resourcesRead = read
                if !(error is Cancelled), !block.records.isEmpty || !block.faults.isEmpty { try? pipe.put(block) }
                pipe.end(.failed(error))
            }
        }
        thread.name = "sluice-import-reader"
        thread.start()
        return pipe
    }

    /// The format to read `reader` as: the options', else the name's, else what its first bytes
    /// say (read ahead and given again by the returned source).
    private static func settleFormat(
        of reader: any ChunkSource,
        source: String,
        options: ImportOptions
    ) throws -> (ImportFormat, any ChunkSource) {
        if options.format != .automatic { return (options.format, reader) }
        if let format = ImportFormat.byName(source) { return (format, reader) }
        if options.records.recordsAt != nil { return (.json, reader) }
        let sniffer = FormatSniffer(documents: options.documents)
        let peeked = try PeekedChunkSource(reader) { sniffer.look(at: $0) }
        return (sniffer.decideAtEnd(), peeked)
    }
}

/// Hands a value to another thread whose use of it does not overlap ours (see above).
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
