import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// The parallel path's splitter (issue 16): every batch it cuts holds whole elements that parse on
/// their own to exactly the elements a sequential parse finds, starting at the same positions, and
/// the batches do not depend on how the input is chunked.
@Suite("Splitter")
struct SplitterTests {
    enum Split: CustomStringConvertible {
        case whole
        case byteByByte
        case fixed(Int)
        case random(UInt64)
        var description: String {
            switch self {
            case .whole: "whole"
            case .byteByByte: "byte by byte"
            case .fixed(let size): "chunks of \(size)"
            case .random(let seed): "random chunks (seed \(seed))"
            }
        }
    }

    /// The batches of `bytes` fed as `split` says, and whether the splitter vouches for them.
    static func batches(
        _ bytes: [UInt8],
        paths: [JSONPath],
        batchBytes: Int,
        split: Split
    ) -> (batches: [JSONBatch], reliable: Bool) {
        let splitter = JSONSplitter(paths: paths, batchBytes: batchBytes)!
        var batches: [JSONBatch] = []
        var generator = SeededGenerator(seed: 1)
        var sizes: () -> Int
        switch split {
        case .whole: sizes = { bytes.count }
        case .byteByByte: sizes = { 1 }
        case .fixed(let size): sizes = { size }
        case .random(let seed):
            generator = SeededGenerator(seed: seed)
            sizes = { Int.random(in: 1...9000, using: &generator) }
        }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let end = min(offset + max(sizes(), 1), buffer.count)
                splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[offset..<end])) { batches.append($0) }
                offset = end
            }
        }
        splitter.finish()
        return (batches, splitter.isReliable)
    }

    /// The elements of the arrays at `path`, as a sequential parse of the whole document finds
    /// them: each element's value and position.
    static func reference(_ tape: JSONTape, at path: JSONPath) throws -> [(JSONValue, JSONPosition)] {
        var value = try tape.value(at: tape.startIndex)
        for step in path.steps {
            guard let next = value[step] else { return [] }
            value = next
        }
        guard value.kind == .arrayStart else { return [] }
        return try value.elements().map { (try $0.jsonValue(), $0.position) }
    }

    /// Checks every batch against the sequential parse: whole elements, in order, each at its
    /// own position, and every element of every target array in some batch.
    static func verify(_ bytes: [UInt8], paths: [JSONPath], batches: [JSONBatch]) throws {
        let tape = try JSONParser.parse(bytes)
        for (target, path) in paths.enumerated() {
            let expected = try reference(tape, at: path)
            let mine = batches.filter { $0.target == target }
            var next = 0
            for batch in mine {
                #expect(batch.array == 0)
                #expect(batch.firstElement == next, "batches of \(path) in order, none missing")
                let parsed = try JSONParser.parse([UInt8(ascii: "[")] + batch.bytes + [UInt8(ascii: "]")])
                let elements = try root(of: parsed).elements().map { try $0.jsonValue() }
                #expect(elements.count == batch.elementCount)
                for (index, element) in elements.enumerated() where batch.firstElement + index < expected.count {
                    #expect(element == expected[batch.firstElement + index].0)
                }
                // Where the first element starts, from the batch's own position.
                var offset = batch.offset
                var line = batch.line
                var column = batch.column
                for byte in batch.bytes {
                    guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { break }
                    offset += 1
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else {
                        column += 1
                    }
                }
                if batch.firstElement < expected.count {
                    let position = expected[batch.firstElement].1
                    #expect(offset == position.byteOffset)
                    #expect(line == position.line)
                    #expect(column == position.column)
                }
                next += batch.elementCount
            }
            #expect(next == expected.count, "every element of \(path) is in a batch")
        }

        func root(of parsed: JSONTape) throws -> JSONTape.Value { try parsed.value(at: parsed.startIndex) }
    }

    static func corpus(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/corpora/\(name)").standardizedFileURL
        return try [UInt8](Data(contentsOf: url))
    }

    static func generated(articles: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles).write { bytes.append(contentsOf: $0) }
        return bytes
    }

    @Test(
        "a generated JSON:API document: data and included cut into whole elements, however it is chunked",
        arguments: [Split.whole, .byteByByte, .fixed(7), .fixed(4096), .random(3), .random(4)]
    )
    func generatedDocument(split: Split) throws {
        let bytes = Self.generated(articles: 300)
        let paths: [JSONPath] = ["data", "included"]
        let whole = Self.batches(bytes, paths: paths, batchBytes: 16 * 1024, split: .whole)
        #expect(whole.reliable)
        #expect(whole.batches.count > 10)
        try Self.verify(bytes, paths: paths, batches: whole.batches)
        let cut = Self.batches(bytes, paths: paths, batchBytes: 16 * 1024, split: split)
        #expect(cut.reliable)
        #expect(cut.batches == whole.batches, "the same batches \(split)")
    }

    @Test(
        "the corpora's big arrays, against the sequential parse",
        arguments: [("twitter.json", "statuses"), ("citm_catalog.json", "performances"), ("canada.json", "features")]
    )
    func corpora(name: String, path: String) throws {
        let bytes = try Self.corpus(name)
        for batchBytes in [1, 10_000, 1 << 30] {
            let result = Self.batches(bytes, paths: [JSONPath(path)], batchBytes: batchBytes, split: .random(9))
            #expect(result.reliable)
            try Self.verify(bytes, paths: [JSONPath(path)], batches: result.batches)
            #expect(
                result.batches
                    == Self.batches(bytes, paths: [JSONPath(path)], batchBytes: batchBytes, split: .whole).batches
            )
        }
    }

    @Test("strings that hold brackets, separators, quotes and backslashes; scalars; empty arrays; the root")
    func trickyText() throws {
        let json = #"""
            {"a\"]": [1], "data": ["x,]", {"k\\": "\"}],[", "n": [1, [2]]}, -1.5e3, null, "\\", [[]], {}],
             "meta": {"data": [9]}, "included": [],
             "included2": [ ]}
            """#
        let bytes = Array(json.utf8)
        let paths: [JSONPath] = ["data", "included", "meta.data"]
        for split in [Split.whole, .byteByByte, .fixed(2), .fixed(3)] {
            for batchBytes in [1, 5, 1000] {
                let result = Self.batches(bytes, paths: paths, batchBytes: batchBytes, split: split)
                #expect(result.reliable)
                try Self.verify(bytes, paths: paths, batches: result.batches)
                #expect(result.batches.filter { $0.target == 0 }.map(\.elementCount).reduce(0, +) == 7)
                #expect(result.batches.filter { $0.target == 2 }.map(\.elementCount) == [1])
                #expect(result.batches.allSatisfy { $0.target != 1 }, "an empty array makes no batch")
            }
        }
        let root = Array("[\n  {\"a\": [1, 2]},\n  3\n]".utf8)
        let result = Self.batches(root, paths: [""], batchBytes: 1, split: .byteByByte)
        try Self.verify(root, paths: [""], batches: result.batches)
        #expect(result.batches.map(\.elementCount) == [1, 1])
        #expect(result.batches.first?.line == 1 && result.batches.first?.column == 2)
    }

    @Test("what the splitter cannot vouch for is marked, for the caller to read sequentially")
    func unreliable() {
        let cases = [
            #"{"data": [1, 2]}]"#,  // closes more than it opened
            #"{"data": [1, 2, ]}"#,  // a trailing comma
            #"{"data": [1, 2"#,  // ends inside the array
            #"{"data": ["1, 2]}"#,  // ends inside a string
        ]
        for json in cases {
            #expect(!Self.batches(Array(json.utf8), paths: ["data"], batchBytes: 1, split: .whole).reliable, "\(json)")
        }
        #expect(JSONSplitter(paths: ["data.0"]) == nil, "index steps are not followed")
        // A key written with escapes is compared unescaped, as the parser compares it.
        let escaped = Array(#"{"d\u0061ta": [1, 2], "x\"": [3]}"#.utf8)
        let result = Self.batches(escaped, paths: ["data"], batchBytes: 1, split: .byteByByte)
        #expect(result.reliable)
        #expect(result.batches.map(\.elementCount) == [1, 1])
    }
}

/// A small deterministic generator (SplitMix64), so that a failing split can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
