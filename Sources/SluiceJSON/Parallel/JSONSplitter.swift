// The splitter of the parallel path: cuts the big arrays of a document (JSON:API's
// `data` and `included`, or the array at a path) into batches of whole elements as the bytes
// stream in, so that other threads can parse and decode the batches while this one reads on.
//
// Why a scanner and not the parser: finding where an element ends needs only strings, escapes and
// depth, a few instructions a byte in C (CSluiceSplitter.c), where the parser costs well over a
// hundred a token. The scanner reports the skeleton (the containers leading to the arrays, and the
// arrays' separators); this file follows the paths through it and cuts batches. It checks nothing
// else: JSON's rules are the parser's, applied to each batch by a worker and to everything else by
// the caller's sequential parser, which reads every byte that is not in a batch. So a document the
// splitter misreads (a bracket too many, a trailing comma, an unfinished string) needs no flag: its
// fault is in bytes the sequential parser reads, or in a batch no worker can parse, which the
// caller then reads sequentially too (see ParallelBatches.swift).
//
// Batch boundaries depend on byte offsets alone (a batch ends at the first separator at least
// `batchBytes` after its start), never on where the input's chunks end.

internal import CSluiceTape

/// What the splitter hands over, in document order: every byte of the document is in exactly one
/// piece, so a sequential parser fed the pieces (a batch by its bytes, or by a stand-in that ends
/// where it ends) reads the whole document.
package enum JSONSplitPiece {
    /// Bytes outside the batches: the skeleton around the arrays, the arrays' brackets, the
    /// separators between batches, an array with no elements, and at the end anything left
    /// unfinished. Valid only during the call that hands them over.
    case bytes(UnsafeRawBufferPointer)
    /// A run of whole elements.
    case batch(JSONBatch)
}

/// Cuts the arrays at a set of paths into batches of whole elements, chunk by chunk.
package final class JSONSplitter {
    /// An open container on the skeleton.
    private struct Frame {
        let isObject: Bool
        /// The targets whose path leads here: for each, this container is at the path's first
        /// `steps` steps. Empty when off every path.
        let candidates: [Int]
        let steps: Int
        /// The target whose array this is, or -1.
        let target: Int
        /// Objects: whether the next string is a key. Arrays: unused.
        var expectingKey = true
        /// Objects: the targets whose next step the last key named.
        var matched: [Int] = []
    }

    private let paths: [[[UInt8]]]
    private let batchBytes: Int
    private var scanner: sluice_splitter
    private var events: UnsafeMutablePointer<sluice_split_event>
    private static let eventCapacity = 512
    private var frames: [Frame] = []
    private var arraysSeen: [Int]

    // The key being read, for an object on a path.
    private var keyStart = -1
    private var key: [UInt8] = []

    // The batch being gathered, inside a target array.
    private var region: [UInt8] = []
    private var regionStart = 0
    private var regionLine = 1
    private var regionColumn = 1
    /// The offset from which bytes outside every region have not been handed over yet.
    private var skeletonFrom = 0
    /// The offset up to which the region's bytes have been copied.
    private var copiedUpTo = 0
    private var elementsInRegion = 0
    private var elementsBefore = 0
    /// The target whose array is open, or -1 (arrays at a path cannot nest inside one another: a
    /// path runs through objects).
    private var currentTarget = -1

    /// A splitter for the arrays at `paths` (member names; an empty path is the root), cutting
    /// batches of at least `batchBytes` bytes where the elements allow. `nil` when a path has a
    /// step that can select an array element (one that reads as an `Int`, the element reader's
    /// rule), which the splitter does not follow.
    package init?(paths: [JSONPath], batchBytes: Int = 256 * 1024) {
        for path in paths where path.steps.contains(where: { Int($0) != nil }) {
            return nil
        }
        self.paths = paths.map { $0.steps.map { Array($0.utf8) } }
        self.batchBytes = max(batchBytes, 1)
        arraysSeen = Array(repeating: 0, count: paths.count)
        scanner = sluice_splitter()
        scanner.line = 1
        // The elements' separators lie one level inside the deepest array.
        scanner.report_level = Int32((paths.map(\.steps.count).max() ?? 0) + 1)
        events = .allocate(capacity: Self.eventCapacity)
    }

    deinit { events.deallocate() }

    /// Scans `chunk`, calling `emit` with each piece completed in it, in document order.
    package func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (JSONSplitPiece) throws -> Void) rethrows {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), !chunk.isEmpty else { return }
        let chunkStart = Int(scanner.offset)
        var done = 0
        while done < chunk.count {
            var count = 0
            let scanned = sluice_split_scan(
                &scanner,
                base + done,
                chunk.count - done,
                events,
                Self.eventCapacity,
                &count
            )
            for index in 0..<count {
                try handle(events[index], chunk: chunk, chunkStart: chunkStart, emit)
            }
            done += scanned
        }
        let end = chunkStart + chunk.count
        if keyStart >= 0 {
            key.append(contentsOf: chunk[(max(keyStart, chunkStart) - chunkStart)...])
            keyStart = end
        }
        if currentTarget >= 0 {
            region.append(contentsOf: chunk[(copiedUpTo - chunkStart)...])
            copiedUpTo = end
        } else {
            try emitSkeleton(upTo: end, chunk: chunk, chunkStart: chunkStart, emit)
        }
    }

    /// Ends the input. The bytes of an array left open are handed over as they are, for the
    /// sequential parser to find the fault.
    package func finish(_ emit: (JSONSplitPiece) throws -> Void) rethrows {
        if currentTarget >= 0 {
            currentTarget = -1
            if !region.isEmpty { try region.withUnsafeBytes { try emit(.bytes($0)) } }
            region.removeAll()
        }
    }

    /// Hands over the chunk's bytes from `skeletonFrom` to `end` (all in this chunk: skeleton bytes
    /// of earlier chunks went at those chunks' ends).
    private func emitSkeleton(
        upTo end: Int,
        chunk: UnsafeRawBufferPointer,
        chunkStart: Int,
        _ emit: (JSONSplitPiece) throws -> Void
    ) rethrows {
        let from = max(skeletonFrom, chunkStart)
        skeletonFrom = end
        guard end > from else { return }
        try emit(.bytes(UnsafeRawBufferPointer(rebasing: chunk[(from - chunkStart)..<(end - chunkStart)])))
    }

    private func handle(
        _ event: sluice_split_event,
        chunk: UnsafeRawBufferPointer,
        chunkStart: Int,
        _ emit: (JSONSplitPiece) throws -> Void
    ) rethrows {
        let offset = Int(event.offset)
        let top = frames.count - 1
        switch Int(event.kind) {
        case sluice_split_string_start:
            guard top >= 0, frames[top].isObject, frames[top].expectingKey, !frames[top].candidates.isEmpty else {
                return
            }
            keyStart = offset + 1
            key.removeAll(keepingCapacity: true)
            frames[top].expectingKey = false
        case sluice_split_string_end:
            guard keyStart >= 0 else { return }
            key.append(contentsOf: chunk[(max(keyStart, chunkStart) - chunkStart)..<(offset - chunkStart)])
            keyStart = -1
            if key.contains(UInt8(ascii: "\\")) {
                // Keys are compared unescaped, as the parser compares them; escapes in a key are
                // rare enough to be undone by the parser itself. A key that is no valid string
                // matches nothing; the sequential parser reports it.
                if let unescaped = Self.unescaped(key) { key = unescaped }
            }
            let steps = frames[top].steps
            frames[top].matched = frames[top].candidates.filter { paths[$0][steps] == key }
        case sluice_split_comma:
            guard top >= 0 else { return }
            if frames[top].isObject {
                frames[top].expectingKey = true
                frames[top].matched = []
            } else if frames[top].target >= 0 {
                elementsInRegion += 1
                if offset - regionStart >= batchBytes {
                    try cut(at: event, chunk: chunk, chunkStart: chunkStart, emit)
                    // The separator between two batches is skeleton.
                    skeletonFrom = offset
                    try emitSkeleton(upTo: offset + 1, chunk: chunk, chunkStart: chunkStart, emit)
                    startRegion(after: event)
                }
            }
        case sluice_split_open_object, sluice_split_open_array:
            let isObject = Int(event.kind) == sluice_split_open_object
            var candidates: [Int] = []
            var steps = 0
            if top < 0 {
                candidates = Array(paths.indices)
            } else if frames[top].isObject && !frames[top].matched.isEmpty {
                candidates = frames[top].matched
                steps = frames[top].steps + 1
            }
            // A target's array: the container at the end of its path, if it is an array.
            let target = isObject ? -1 : (candidates.first { paths[$0].count == steps } ?? -1)
            candidates.removeAll { paths[$0].count <= steps }
            frames.append(Frame(isObject: isObject, candidates: candidates, steps: steps, target: target))
            if target >= 0 {
                // Up to and with the `[`, the bytes are skeleton.
                try emitSkeleton(upTo: offset + 1, chunk: chunk, chunkStart: chunkStart, emit)
                currentTarget = target
                region.removeAll(keepingCapacity: true)
                elementsInRegion = 0
                elementsBefore = 0
                startRegion(after: event)
            }
        case sluice_split_close_object, sluice_split_close_array:
            guard let closed = frames.popLast(), closed.target >= 0 else { return }
            try cut(at: event, chunk: chunk, chunkStart: chunkStart, emit, closing: true)
            currentTarget = -1
            skeletonFrom = offset
            arraysSeen[closed.target] += 1
        default:
            break
        }
    }

    /// Starts the next batch just after `event`'s byte (the array's `[` or a `,` that ended a
    /// batch).
    private func startRegion(after event: sluice_split_event) {
        regionStart = Int(event.offset) + 1
        copiedUpTo = regionStart
        regionLine = Int(event.line)
        regionColumn = regionStart - Int(event.line_start) + 1
    }

    /// Ends the batch at the separator `event` (the array's `]` when `closing`). A closing region
    /// with no element in it (`[ ]`) is handed over as skeleton bytes.
    private func cut(
        at event: sluice_split_event,
        chunk: UnsafeRawBufferPointer,
        chunkStart: Int,
        _ emit: (JSONSplitPiece) throws -> Void,
        closing: Bool = false
    ) rethrows {
        let offset = Int(event.offset)
        region.append(contentsOf: chunk[(copiedUpTo - chunkStart)..<(offset - chunkStart)])
        copiedUpTo = offset
        var count = elementsInRegion
        // Only the last batch of an array can end without an element after its last separator
        // (`[]`, or a trailing comma), so only it is looked through. A trailing comma is left to the
        // parsers: alone after a cut, its whitespace goes to the sequential parser as skeleton
        // bytes; inside a batch, no worker can parse the batch.
        if closing && region.contains(where: { !Self.isWhitespace($0) }) { count += 1 }
        guard count > 0 else {
            if !region.isEmpty { try region.withUnsafeBytes { try emit(.bytes($0)) } }
            region.removeAll(keepingCapacity: true)
            return
        }
        try emit(
            .batch(
                JSONBatch(
                    target: currentTarget,
                    array: arraysSeen[currentTarget],
                    firstElement: elementsBefore,
                    elementCount: count,
                    bytes: region,
                    offset: regionStart,
                    line: regionLine,
                    column: regionColumn,
                    endLine: Int(event.line),
                    endColumn: offset - Int(event.line_start) + 1
                )
            )
        )
        elementsBefore += count
        elementsInRegion = 0
        region.removeAll(keepingCapacity: true)
    }

    /// A key's bytes as written (between its quotes) unescaped, or `nil` when they are not a
    /// valid JSON string.
    private static func unescaped(_ raw: [UInt8]) -> [UInt8]? {
        let quote = UInt8(ascii: "\"")
        guard let tape = try? JSONParser.parse([quote] + raw + [quote]),
            let value = try? tape.value(at: tape.startIndex),
            let bytes = try? value.withUTF8({ Array($0) })
        else { return nil }
        return bytes
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
