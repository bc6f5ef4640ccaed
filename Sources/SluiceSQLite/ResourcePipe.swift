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

    /// What the reader ended with.
    enum Ending {
        case summary(DocumentSummary)
        case failure(any Error)
    }

    /// Thrown to the reader once the writer has stopped.
    struct Cancelled: Error {}

    static let blockSize = 256
    private let capacity = 8
    // All state below is guarded by `condition`.
    private let condition = NSCondition()
    private var blocks: [Block] = []
    private var ending: Ending?
    private var cancelled = false
    private var readerDone = false

    /// Reader side: waits while the pipe is full; throws ``Cancelled`` once the writer stopped.
    func put(_ block: Block) throws {
        condition.lock()
        defer { condition.unlock() }
        while blocks.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        blocks.append(block)
        condition.broadcast()
    }

    /// Reader side: the last call.
    func finish(_ end: Ending) {
        condition.lock()
        ending = end
        readerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Writer side: the next block, or `nil` with the reader's ending once every block is taken.
    func take() -> (block: Block?, ending: Ending?) {
        condition.lock()
        defer { condition.unlock() }
        while blocks.isEmpty && !readerDone { condition.wait() }
        if blocks.isEmpty { return (nil, ending) }
        let block = blocks.removeFirst()
        condition.broadcast()
        return (block, nil)
    }

    /// Writer side: stops the reader (at its next block) and waits until it has ended, so that
    /// nothing uses the input after the import returns.
    func cancelAndWait() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !readerDone { condition.wait() }
        condition.unlock()
    }

    /// Starts reading `reader` on a thread of its own.
    static func start(reading reader: FileChunkReader, with decoder: JSONAPIDecoder) -> ResourcePipe {
        let pipe = ResourcePipe()
        // The reader and decoder are used by the new thread only from here on: the importer
        // touches neither until `finish` (or `cancelAndWait`) says the thread is done with them.
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
                pipe.finish(.summary(summary))
            } catch {
                // The resources that closed before the fault still go to the writer.
                block.bytesRead = reader.bytesRead
                if !(error is Cancelled), !block.resources.isEmpty { try? pipe.put(block) }
                pipe.finish(.failure(error))
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
