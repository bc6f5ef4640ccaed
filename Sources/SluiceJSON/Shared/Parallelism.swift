import Foundation

/// How many threads read one document.
///
/// With more than one, a splitter cuts the document's big arrays (JSON:API `data` and `included`,
/// or the array at an element path) into batches of whole elements as the bytes arrive, other
/// threads parse and decode the batches, and the results are handed over in document order. What
/// comes out (values, order, errors with their positions and pointers) is the same for any number
/// of threads and any chunking of the input; only the speed differs.
///
/// ```swift
/// let decoder = JSONAPIDecoder(registry: [Article.self, Person.self])
/// decoder.parallelism = .workers(4)
/// ```
public enum Parallelism: Sendable, Hashable {
    /// One thread per core the process may use (the default). A document too small to cut into
    /// two batches is read on the calling thread alone, starting no thread.
    case automatic
    /// `n` threads in all: the calling thread (which also reads, splits and hands over results)
    /// and `n - 1` others. `.workers(1)` reads on the calling thread alone, as a sequential
    /// decoder does. Values below 1 count as 1.
    case workers(Int)

    /// The number of threads this stands for on this machine.
    public var threadCount: Int {
        switch self {
        case .automatic: max(ProcessInfo.processInfo.activeProcessorCount, 1)
        case .workers(let count): max(count, 1)
        }
    }
}

/// The parallel path's settings as a coder holds them.
package struct ParallelOptions: Sendable {
    /// How many threads read a document.
    package var threads = Parallelism.automatic
    /// The size of a batch: a batch ends at the first separator this many bytes after its start.
    /// Large enough that the hand-over costs little next to the reading, small enough that every
    /// thread has work early and memory stays small: every batch in flight is held as bytes,
    /// tokens and decoded resources, so peak memory grows with the batch size, while larger
    /// batches do not read faster.
    package var batchBytes = 32 * 1024

    package init() {}

    /// One thread: what the engines that work for a parallel read use themselves.
    package static var sequential: ParallelOptions {
        var options = ParallelOptions()
        options.threads = .workers(1)
        return options
    }
}
