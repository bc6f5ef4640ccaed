import Foundation

// The element reader: finds the elements of the array at a path while the tokens arrive, hands
// each one over as soon as it is complete, and tells the caller which tokens it may release.
//
// Why a state machine of its own instead of waiting for the whole document: the arrays people
// stream ("statuses", "data.items") are the bulk of exports many times larger than memory. The
// reader keeps one frame per open container (bounded by the depth limit), never the tokens it has
// passed, so memory is the size of the largest single element.

/// The state machine under ``StreamingJSONDecoder``'s element streaming. Feed it the tape after
/// every chunk; it reports complete elements of the arrays at its path.
package struct JSONElementReader {
    /// An open container.
    private struct Frame {
        /// Whether it is an object.
        let isObject: Bool
        /// How many steps of the path lead to it, or -1 when it is off the path.
        let level: Int
        /// Whether it is an array at the path, whose elements are reported.
        let isTarget: Bool
        /// For objects, whether the last key read is the next step of the path.
        var keyMatches = false
        /// The number of values in it so far.
        var children = 0
    }

    package let path: JSONPath
    /// The path's steps as UTF-8, for comparing keys without making strings.
    private let stepBytes: [[UInt8]]
    /// The next token to look at.
    private var cursor: Int?
    private var frames: [Frame] = []
    /// The first token of the element being built, while one is open.
    private var elementStart: Int?
    /// The depth (frame count) of the target array whose element is open.
    private var elementDepth = 0
    /// How many elements have been reported.
    package private(set) var elementCount = 0
    /// What stands at the path, once seen: the kind of its first token.
    package private(set) var targetKind: JSONToken.Kind?
    /// Where the value at the path starts, once seen.
    package private(set) var targetPosition: JSONPosition?

    package init(path: JSONPath) {
        self.path = path
        stepBytes = path.steps.map { Array($0.utf8) }
    }

    /// Counts `count` elements as reported without seeing them: the elements after a stand-in
    /// for a batch another thread read (see ParallelBatches.swift).
    mutating func skipElements(_ count: Int) {
        elementCount += count
    }

    /// The first token the reader still needs: every token before it may be released.
    package func firstNeededIndex(on tape: JSONTape) -> Int {
        elementStart ?? cursor ?? tape.endIndex
    }

    /// Reads the tokens added since the last call and reports every element they complete, with
    /// its index among all elements reported.
    package mutating func advance(over tape: JSONTape, _ report: (JSONTape.Value, Int) throws -> Void) rethrows {
        var index = cursor ?? tape.startIndex
        let end = tape.endIndex
        while index < end {
            let token = tape[index]
            switch token.kind {
            case .key:
                if var frame = frames.last, frame.level >= 0, frame.level < stepBytes.count {
                    frame.keyMatches = tape.withUnsafeText(of: token) { name in
                        stepBytes[frame.level].withUnsafeBytes { name.hasSameBytes(as: $0) }
                    }
                    frames[frames.count - 1] = frame
                }
            case .objectEnd, .arrayEnd:
                frames.removeLast()
                if let start = elementStart, frames.count == elementDepth {
                    elementStart = nil
                    try report(JSONTape.Value(tape: tape, index: start, endIndex: index + 1), elementCount)
                    elementCount += 1
                }
            default:
                try startValue(token, at: index, on: tape, report)
            }
            index += 1
        }
        cursor = index
    }

    /// A value starts at `index`: place it relative to the path.
    private mutating func startValue(
        _ token: JSONToken,
        at index: Int,
        on tape: JSONTape,
        _ report: (JSONTape.Value, Int) throws -> Void
    ) rethrows {
        let isContainer = token.kind == .objectStart || token.kind == .arrayStart
        // The level of the path this value stands at, or -1 off the path.
        var level = -1
        var isElement = false
        if let parent = frames.last {
            let position = parent.children
            frames[frames.count - 1].children += 1
            if parent.isTarget && elementStart == nil {
                isElement = true
            } else if parent.level >= 0 && parent.level < stepBytes.count {
                let matches =
                    parent.isObject ? parent.keyMatches : Int(path.steps[parent.level]) == position
                if matches { level = parent.level + 1 }
            }
        } else {
            level = 0
        }
        if level == stepBytes.count {
            targetKind = token.kind
            targetPosition = token.position
        }
        if isElement && !isContainer {
            try report(JSONTape.Value(tape: tape, index: index, endIndex: index + 1), elementCount)
            elementCount += 1
            return
        }
        guard isContainer else { return }
        if isElement {
            elementStart = index
            elementDepth = frames.count
        }
        let isTarget = level == stepBytes.count && token.kind == .arrayStart
        frames.append(
            Frame(isObject: token.kind == .objectStart, level: level < stepBytes.count ? level : -1, isTarget: isTarget)
        )
    }
}
