/// A reader of one document that the parallel path can drive: the element streamer and the
/// JSON:API document engine. It owns a sequential parser and a reader of that parser's tape and,
/// when other threads help, a split driver whose workers turn batches into `BatchOutput`.
///
/// The routine is the same for every such reader and is written once, below: feed the input
/// (through the driver when there is one), parse a stand-in for each batch a worker read and hand
/// over the worker's output in its place, drain the tape after every parse, and on a fault hand
/// over what came before it first. A reader supplies only what draining and handing over mean
/// for it.
package protocol SplitDocumentReader: AnyObject {
    /// What the caller is handed: an element, a document's event.
    associatedtype Item
    /// What a worker makes of one batch.
    associatedtype BatchOutput

    /// The sequential parser: it reads the input no worker read, and a stand-in for each batch one did.
    var parser: JSONParser { get }
    /// The parallel path's driver; `nil` when the document is read on this thread alone.
    var splitDriver: ParallelSplitDriver<BatchOutput>? { get }

    /// Reads what the tape holds, hands over every item it completes and releases the tokens read.
    func drain(_ handle: (Item) throws -> Void) throws
    /// Hands over a worker's `output` in place of the stand-in the parser has just read for its
    /// batch. Everything before the batch has been drained.
    func handOver(_ output: BatchOutput, _ handle: (Item) throws -> Void) throws
    /// The error to throw for a fault of the parser, once the items before it were handed over.
    func parseFailure(_ error: JSONError) -> any Error
}

extension SplitDocumentReader {
    /// Parses a chunk of the document and hands over every item it completes.
    package func feedDocument(_ chunk: UnsafeRawBufferPointer, _ handle: (Item) throws -> Void) throws {
        guard let splitDriver else { return try parseAndDrain(chunk, handle) }
        try splitDriver.feed(
            chunk,
            bytes: { try parseAndDrain($0, handle) },
            batch: { try merge($0, $1, handle) }
        )
    }

    /// Ends the input: merges what the workers still hold, checks the document is whole and hands
    /// over what is left.
    package func finishDocument(_ handle: (Item) throws -> Void) throws {
        try splitDriver?.finish(bytes: { try parseAndDrain($0, handle) }, batch: { try merge($0, $1, handle) })
        try parsing({ () throws(JSONError) in try parser.finish() }, handle)
        try drain(handle)
    }

    private func parseAndDrain(_ bytes: UnsafeRawBufferPointer, _ handle: (Item) throws -> Void) throws {
        try parsing({ () throws(JSONError) in try parser.parse(bytes) }, handle)
        try drain(handle)
    }

    private func merge(_ batch: JSONBatch, _ output: BatchOutput, _ handle: (Item) throws -> Void) throws {
        try parsing({ () throws(JSONError) in try parser.parseStandIn(for: batch) }, handle)
        try handOver(output, handle)
    }

    /// Runs a parser call. On a fault the tokens before it are still on the tape: they are read
    /// first, so the items before the fault are handed over wherever the chunks were cut, and the
    /// reader can say where in the document the fault interrupted it.
    private func parsing(_ call: () throws(JSONError) -> Void, _ handle: (Item) throws -> Void) throws {
        do {
            try call()
        } catch {
            try drain(handle)
            throw parseFailure(error)
        }
    }
}
