/// A chunk source whose first bytes were read ahead, to decide how to read the rest (which format
/// a file is in, say): reading it gives those bytes first, then the rest of the source, so the
/// reader sees the input whole, as if nothing had been read ahead.
///
/// Reading ahead stops the source's ``ChunkSource/forEachChunk(_:)`` with ``Stop``, and the rest
/// is read by calling it again: a source must let a second call go on where the first stopped,
/// as `FileChunkReader` does, and treat ``Stop`` as no fault of the input.
package final class PeekedChunkSource: ChunkSource {
    /// Thrown into a source's `forEachChunk` to stop it after the bytes looked at.
    package struct Stop: Error {}

    package let base: any ChunkSource
    /// The bytes read ahead.
    package private(set) var prefix: [UInt8] = []
    /// Whether reading ahead found the end of the source.
    package private(set) var reachedEnd = false

    /// Reads chunks of `base` until `enough`, given each chunk in turn, says the bytes so far
    /// suffice (or the source ends).
    package init(_ base: any ChunkSource, until enough: (UnsafeRawBufferPointer) -> Bool) throws {
        self.base = base
        var prefix: [UInt8] = []
        do {
            try base.forEachChunk { chunk in
                prefix.append(contentsOf: chunk)
                if enough(chunk) { throw Stop() }
            }
            reachedEnd = true
        } catch is Stop {}
        self.prefix = prefix
    }

    /// Gives the bytes read ahead, then the rest. While the source has more, the bytes read ahead
    /// go out inside its own `forEachChunk`, with its next chunk: so a reader that stops at them
    /// (a fault) stops the source as it would have without the look ahead (a feed is closed, and
    /// its producer told).
    package func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let prefix = self.prefix
        self.prefix = []
        var prefixPending = !prefix.isEmpty
        if !reachedEnd {
            try base.forEachChunk { chunk in
                if prefixPending {
                    prefixPending = false
                    try prefix.withUnsafeBytes(body)
                }
                try body(chunk)
            }
        }
        if prefixPending { try prefix.withUnsafeBytes(body) }
    }

    package var bytesRead: Int { base.bytesRead }
    package var size: Int? { base.size }
}
