package import Foundation

/// Drives a streaming consumer from an asynchronous sequence of byte chunks, for the
/// `AsyncSequence`s that hand over what the consumer produces (elements of an array, resources of
/// a document) one at a time.
///
/// It pulls the next chunk only when everything the previous chunk produced has been taken, so a
/// slow reader slows the input instead of letting results pile up; and when a chunk holds a fault,
/// it hands over what was complete before the fault, then throws it, so the outcome does not
/// depend on where the chunks were cut.
package struct ChunkPump<Chunks: AsyncSequence, Element> where Chunks.Element: ContiguousBytes {
    private var chunks: Chunks.AsyncIterator
    /// What the last chunk produced; one buffer for every chunk, emptied but kept.
    private var ready: [Element] = []
    private var readyIndex = 0
    private var finished = false
    /// A fault met after some results of the same chunk: thrown once those are taken.
    private var pendingError: (any Error)?

    package init(_ chunks: Chunks.AsyncIterator) {
        self.chunks = chunks
    }

    /// The next result. `consume` is handed each chunk in turn, then `nil` at the end of the
    /// input, with a function that emits the results the bytes complete.
    package mutating func next(
        _ consume: (UnsafeRawBufferPointer?, (Element) -> Void) throws -> Void
    ) async throws -> Element? {
        while readyIndex == ready.count {
            if let pendingError {
                self.pendingError = nil
                finished = true
                throw pendingError
            }
            guard !finished else { return nil }
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            // Filled through a local, swapped in and out: `consume`'s emitter may not capture
            // `self` while `self.chunks` is being advanced.
            var batch: [Element] = []
            swap(&batch, &ready)
            do {
                if let chunk = try await chunks.next() {
                    try chunk.withUnsafeBytes { bytes in try consume(bytes) { batch.append($0) } }
                } else {
                    finished = true
                    try consume(nil) { batch.append($0) }
                }
            } catch {
                pendingError = error
            }
            swap(&batch, &ready)
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }
}
