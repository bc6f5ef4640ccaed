// Reading and writing on two threads: the document is parsed on a thread of its own while the
// importer's thread writes to SQLite, so an import takes about as long as the slower of the two
// rather than their sum (the machines this runs on have two cores or more).

import Foundation
import SluiceJSON
import SluiceJSONAPI

/// Resources handed from the reading thread to the writing one, in blocks, with a bound on how
/// many blocks wait: memory stays that of a few hundred resources however fast the reader is.
final class ResourcePipe: @unchecked Sendable {
    /// Resources in document order, and the bytes read when the last of them closed.
    struct Block {
        var resources: [RawResource]
        var bytesRead: Int
    }

    /// What the writer takes next.
    enum Delivery {
        case block(Block)
        /// The reader is done: the document's summary ...
        case finished(DocumentSummary)
        /// ... or the fault that stopped it (after the blocks read before it).
        case failed(any Error)
    }

    /// Thrown to the reader once the writer has stopped.
    struct Cancelled: Error {}

    static let blockSize = 256
    private let capacity = 8
    // All state below is guarded by `condition`.
    private let condition = NSCondition()
    private var blocks: [Block] = []
    /// How the reader ended (`.finished` or `.failed`); `nil` while it runs.
    private var ending: Delivery?
    private var cancelled = false

    /// Reader side: waits while the pipe is full; throws ``Cancelled`` once the writer stopped.
    func put(_ block: Block) throws {
        condition.lock()
        defer { condition.unlock() }
        while blocks.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        blocks.append(block)
        condition.broadcast()
    }

    /// Reader side: the last call, with `.finished` or `.failed`.
    func end(_ ending: Delivery) {
        condition.lock()
        self.ending = ending
        condition.broadcast()
        condition.unlock()
    }

    /// Writer side: the next block, or how the reader ended once every block is taken.
    func take() -> Delivery {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !blocks.isEmpty {
                condition.broadcast()
                return .block(blocks.removeFirst())
            }
            if let ending { return ending }
            condition.wait()
        }
    }

    /// Writer side: stops the reader (at its next block) and waits until it has ended, so that
    /// nothing uses the input after the import returns.
    func cancelAndWait() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while ending == nil { condition.wait() }
        condition.unlock()
    }

    /// Starts reading `reader` on a thread of its own.
    static func start(reading reader: FileChunkReader, with decoder: JSONAPIDecoder) -> ResourcePipe {
        let pipe = ResourcePipe()
        // The reader and decoder are used by the new thread only from here on: the importer
        // touches neither until `end` (awaited by `take` or `cancelAndWait`) says the thread is done.
        let work = UncheckedBox((reader, decoder))
        let thread = Thread {
            let (reader, decoder) = work.value
            var block = Block(resources: [], bytesRead: 0)
            block.resources.reserveCapacity(blockSize)
            do {
                let summary = try decoder.forEachResource(in: reader) { streamed in
                    guard let raw = streamed.resource.raw else { return }
                    block.resources.append(raw)
                    if block.resources.count >= blockSize {
                        block.bytesRead = reader.bytesRead
                        try pipe.put(block)
                        block.resources.removeAll(keepingCapacity: true)
                    }
                }
                block.bytesRead = reader.bytesRead
                if !block.resources.isEmpty { try pipe.put(block) }
                pipe.end(.finished(summary))
            } catch {
                // The resources that closed before the fault still go to the writer.
                block.bytesRead = reader.bytesRead
                if !(error is Cancelled), !block.resources.isEmpty { try? pipe.put(block) }
                pipe.end(.failed(error))
            }
        }
        thread.name = "sluice-import-reader"
        thread.start()
        return pipe
    }
}

/// Hands a value to another thread whose use of it does not overlap ours (see above).
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
