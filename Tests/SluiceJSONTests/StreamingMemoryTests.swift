import SluiceJSON
import Testing

/// A consumer that releases each element of a huge top-level array once it closes keeps the tape
/// small, however long the input.
@Suite("Streaming memory")
struct StreamingMemoryTests {
    /// Makes the bytes of `[record, record, ...]`, one chunk at a time, without holding them all.
    struct RecordStream {
        let records: Int
        var next = 0

        /// About 280 bytes per record, with escapes, non-ASCII text, numbers and a nested array.
        mutating func chunk() -> [UInt8]? {
            guard next <= records else { return nil }
            var text = next == 0 ? "[\n" : ""
            let end = min(next + 500, records)
            while next < end {
                text += """
                    {"id": \(next), "title": "Record \\"\(next)\\" \u{e9}t\u{e9} \u{6f22}", "score": \(Double(next) / 7), \
                    "tags": ["alpha", "beta", {"depth": [1, 2, [3, null, true]]}], "note": "line\\nbreak \\u00e9", \
                    "padding": "\(String(repeating: "x", count: 120))"}\(next + 1 < records ? "," : "")\n
                    """
                next += 1
            }
            if next == records {
                text += "]\n"
                next += 1
            }
            return Array(text.utf8)
        }
    }

    @Test("200 MB streamed in 4 KiB chunks keeps the tape within a few records' worth")
    func boundedTape() throws {
        let records = 700_000
        let parser = JSONParser()
        var stream = RecordStream(records: records)
        var totalBytes = 0
        var completed = 0
        var scanned = 0
        while let bytes = stream.chunk() {
            totalBytes += bytes.count
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 4096, bytes.count)
                try bytes[offset..<end].withUnsafeBytes { try parser.parse($0) }
                offset = end
                // Walk the new tokens; release everything before the first element not yet closed.
                let tape = parser.tape
                var releaseBefore = tape.startIndex
                var index = max(scanned, tape.startIndex)
                while index < tape.endIndex {
                    if index == 0 {
                        index = 1  // the top-level array's start
                        continue
                    }
                    guard let end = tape.endOfValue(at: index), end <= tape.endIndex else { break }
                    if tape[index].kind == .arrayEnd { break }
                    completed += 1
                    index = end
                    releaseBefore = end
                }
                scanned = releaseBefore
                parser.removeTokens(before: releaseBefore)
            }
        }
        try parser.finish()
        #expect(totalBytes > 200_000_000)
        #expect(completed == records)
        let tape = parser.tape
        // One record is 40 tokens and about 250 arena bytes; a 4 KiB chunk holds at most 15.
        #expect(tape.peakTokenCount < 1_000, "peak tokens: \(tape.peakTokenCount)")
        #expect(tape.peakByteCount < 8_192, "peak arena bytes: \(tape.peakByteCount)")
        #expect(tape.tokenCapacity < 2_048)
        #expect(tape.byteCapacity < 16_384)
    }
}
