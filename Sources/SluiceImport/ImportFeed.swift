// Bytes handed to an import by a task (an HTTP body, a stream of the caller's own) rather than
// read from a file: the import's reading thread takes them as they come, without a kernel pipe
// between the two and without polling.

import Foundation
public import SluiceJSON

/// A document's bytes fed to an import chunk by chunk from async code.
///
/// The import reads the feed on its own thread; ``send(_:)`` waits, without blocking a thread,
/// while ``capacity`` chunks are waiting to be read, so a fast producer cannot run ahead of the
/// database. When the import stops early (a fault in the document, a database error),
/// ``send(_:)`` throws ``ImportFeedClosed`` instead of waiting forever.
///
/// ```swift
/// let feed = ImportFeed()
/// async let summary = importer.importDocument(reading: feed, source: url.absoluteString, progress: nil)
/// for try await chunk in body { try await feed.send(Array(chunk)) }
/// feed.finish()
/// print(try await summary.resources)
/// ```
public final class ImportFeed: ChunkSource, @unchecked Sendable {
    // @unchecked: the queue and flags are guarded by `condition`; `bytesRead` is written and read
    // by the reading thread only.
    private let condition = NSCondition()
    private var chunks: [[UInt8]] = []
    private var ended = false
    private var failure: (any Error)?

    /// The error the sender ended the document with, if it did (a body that failed mid-way).
    var senderFailure: (any Error)? { condition.withLock { failure } }
    private var closed = false
    private var senders: [CheckedContinuation<Void, Never>] = []

    /// How many chunks may wait to be read before ``send(_:)`` waits.
    public let capacity: Int
    /// Bytes the import has taken so far.
    public private(set) var bytesRead = 0
    /// The document's size, when the producer knows it (a `Content-Length`): progress reports a
    /// fraction of it.
    public let size: Int?

    /// A feed that holds at most `capacity` chunks waiting to be read.
    public init(capacity: Int = 8, size: Int? = nil) {
        self.capacity = max(1, capacity)
        self.size = size
    }

    /// Hands over the next chunk, waiting while the feed is full.
    ///
    /// - Throws: ``ImportFeedClosed`` once the import has stopped reading.
    public func send(_ chunk: [UInt8]) async throws {
        guard !chunk.isEmpty else { return }
        while true {
            let sent: Bool? = condition.withLock {
                if closed { return nil }
                guard chunks.count < capacity else { return false }
                chunks.append(chunk)
                condition.broadcast()
                return true
            }
            guard let sent else { throw ImportFeedClosed() }
            if sent { return }
            await withCheckedContinuation { continuation in
                condition.lock()
                if closed || chunks.count < capacity {
                    condition.unlock()
                    continuation.resume()
                } else {
                    senders.append(continuation)
                    condition.unlock()
                }
            }
        }
    }

    /// Ends the document: the import reads what is waiting, then sees its end, or `error` (the
    /// producer's own fault, such as a connection lost mid-body), which the import then reports.
    public func finish(throwing error: (any Error)? = nil) {
        condition.withLock {
            ended = true
            failure = error
            condition.broadcast()
        }
    }

    /// The reading side: each chunk in turn until ``finish(throwing:)``; then the feed is closed.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // Stopped after a look ahead at its first bytes, the feed stays open for the rest.
        var closing = true
        defer { if closing { close() } }
        while true {
            condition.lock()
            while chunks.isEmpty && !ended { condition.wait() }
            guard !chunks.isEmpty else {
                let failure = self.failure
                condition.unlock()
                if let failure { throw failure }
                return
            }
            let chunk = chunks.removeFirst()
            let waiting = senders.isEmpty ? nil : senders.removeFirst()
            condition.unlock()
            waiting?.resume()
            bytesRead += chunk.count
            do {
                try chunk.withUnsafeBytes(body)
            } catch let stop as PeekedChunkSource.Stop {
                closing = false
                throw stop
            }
        }
    }

    /// Stops taking chunks from the import's side without reading them: for an import that
    /// failed before it read its document.
    func abandon() {
        close()
    }

    /// Stops taking chunks: senders waiting now, and later ones, get ``ImportFeedClosed``.
    private func close() {
        let waiting: [CheckedContinuation<Void, Never>] = condition.withLock {
            closed = true
            chunks.removeAll()
            defer { senders.removeAll() }
            return senders
        }
        for sender in waiting { sender.resume() }
    }
}

/// Thrown by ``ImportFeed/send(_:)`` once the import has stopped reading (it reports why).
public struct ImportFeedClosed: Error, Sendable, CustomStringConvertible {
    /// The fault, as one sentence.
    public var description: String { "The import stopped reading the document." }
}
