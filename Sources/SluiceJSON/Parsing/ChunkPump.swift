package import Foundation

/// Drives a streaming consumer from an asynchronous sequence of byte chunks, for the
/// `AsyncSequence`s that hand over what the consumer produces (elements of an array, resources of
/// a document) one at a time.
///
/// It pulls the next chunk only when everything the previous chunk produced has been taken, so a
/// slow reader slows the input instead of letting results pile up; and when a chunk holds a fault,
/// it hands over what was complete before the fault, then throws it, so the outcome does not
/// depend on where the chunks were cut.
///
/// The results wait in a ``ReadyResults`` that the sequence's iterator holds itself: taking one is
/// then a few instructions with no generic metadata to look up, where a pump generic over the
/// caller's chunk sequence, called from an iterator that is not specialized for it, looked up
/// its own metadata twice for every result.
package struct ChunkPump<Chunks: AsyncSequence> where Chunks.Element: ContiguousBytes {
    private var chunks: Chunks.AsyncIterator
    private var finished = false
    /// A fault met after some results of the same chunk: thrown once those are taken.
    private var pendingError: (any Error)?

    package init(_ chunks: Chunks.AsyncIterator) {
        self.chunks = chunks
    }

    /// Refills `results` once they have all been taken, from as many chunks as it takes to make
    /// at least one result; `false` at the end of the input. `consume` is handed each chunk in
    /// turn, then `nil` at the end of the input, with the batch to append the results the bytes
    /// complete to. (The batch rather than a function that appends: the caller's closure knows
    /// the element type, so its appends are specialized, where an append made here, generic over
    /// the element, looked up the array's metadata for every result.)
    package mutating func refill<Element>(
        _ results: inout ReadyResults<Element>,
        _ consume: (UnsafeRawBufferPointer?, inout [Element]) throws -> Void
    ) async throws -> Bool {
        while results.isEmpty {
            if let pendingError {
                self.pendingError = nil
                finished = true
                throw pendingError
            }
            guard !finished else { return false }
            // Filled through a local, swapped in and out: `consume`'s emitter may not capture
            // `results` while `self.chunks` is being advanced.
            var batch: [Element] = []
            results.takeStorage(into: &batch)
            do {
                if let chunk = try await chunks.next() {
                    try chunk.withUnsafeBytes { bytes in try consume(bytes, &batch) }
                } else {
                    finished = true
                    try consume(nil, &batch)
                }
            } catch {
                pendingError = error
            }
            results.fill(from: &batch)
        }
        return true
    }
}

/// What the last chunk produced, taken one at a time; one buffer for every chunk, emptied but kept.
package struct ReadyResults<Element> {
    private var elements: [Element] = []
    private var index = 0

    package init() {}

    var isEmpty: Bool { index == elements.count }

    /// The next result, if any is left.
    @inline(__always)
    package mutating func take() -> Element? {
        guard index < elements.count else { return nil }
        defer { index += 1 }
        return elements[index]
    }

    mutating func takeStorage(into batch: inout [Element]) {
        elements.removeAll(keepingCapacity: true)
        index = 0
        swap(&batch, &elements)
    }

    mutating func fill(from batch: inout [Element]) {
        swap(&batch, &elements)
    }
}
