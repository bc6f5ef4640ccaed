import Foundation
import Testing

@testable import SluiceJSON

/// The parallel path's splitter: every batch it cuts holds whole elements that parse on
/// their own to exactly the elements a sequential parse finds, starting at the same positions, and
/// the batches do not depend on how the input is chunked.
@Suite("Splitter")
struct SplitterTests {
    typealias Split = ChunkingVerifier.Split

    /// What a sequential read of a document says: `valid`, or its error.
    static func outcome(_ read: () throws -> Void) -> String {
        do {
            try read()
            return "valid"
        } catch {
            return "\(error)"
        }
    }

    /// The batches of `bytes` fed as `split` cuts it, and what the document reads as: whole, with
    /// one parser, and as the parallel path's merger reads the pieces (a stand-in for each batch
    /// that parses on its own, the batch's bytes for any other). The two must agree, whatever the
    /// splitter made of the bytes.
    static func batches(
        _ bytes: [UInt8],
        paths: [JSONPath],
        batchBytes: Int,
        split: Split
    ) -> (batches: [JSONBatch], whole: String) {
        let splitter = JSONSplitter(paths: paths, batchBytes: batchBytes)!
        var batches: [JSONBatch] = []
        // Every byte is in exactly one piece: the pieces put back together are the document.
        var reassembled: [UInt8] = []
        var pieces: [Either<[UInt8], JSONBatch>] = []
        func take(_ piece: JSONSplitPiece) {
            switch piece {
            case .bytes(let buffer):
                reassembled.append(contentsOf: buffer)
                pieces.append(.left(Array(buffer)))
            case .batch(let batch):
                #expect(batch.offset == reassembled.count, "a batch starts where the pieces before it end")
                reassembled.append(contentsOf: batch.bytes)
                batches.append(batch)
                pieces.append(.right(batch))
            }
        }
        bytes.withUnsafeBytes { buffer in
            for range in split.chunks(of: buffer.count) {
                splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[range]), take)
            }
        }
        splitter.finish(take)
        #expect(reassembled == bytes, "the pieces make up the document \(split)")
        let whole = outcome { _ = try JSONParser.parse(bytes) }
        let merged = outcome {
            let parser = JSONParser()
            for piece in pieces {
                switch piece {
                case .left(let bytes):
                    try parser.parse(bytes)
                case .right(let batch):
                    let depth = paths[batch.target].steps.count + 1
                    if batch.bytes.count >= 4, batch.parseAsArray(limits: .default, arrayDepth: depth) != nil {
                        try parser.parseStandIn(for: batch)
                    } else {
                        try parser.parse(batch.bytes)
                    }
                }
                parser.removeAllTokens()
            }
            try parser.finish()
        }
        #expect(merged == whole, "the merger's read is the sequential one \(split)")
        return (batches, whole)
    }

    enum Either<Left, Right> {
        case left(Left)
        case right(Right)
    }

    /// The elements of the array at `path`, as a sequential parse of the whole document finds
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
            var next = 0
            for batch in batches where batch.target == target {
                #expect(batch.array == 0)
                #expect(batch.firstElement == next, "batches of \(path) in order, none missing")
                let parsed = try JSONParser.parse([UInt8(ascii: "[")] + batch.bytes + [UInt8(ascii: "]")])
                let elements = try parsed.value(at: parsed.startIndex).elements().map { try $0.jsonValue() }
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
                // Where the batch ends: the separator after it.
                let endOffset = batch.offset + batch.bytes.count
                let lineFeeds = bytes[..<endOffset].lazy.filter { $0 == 0x0A }.count
                let lineStart = (bytes[..<endOffset].lastIndex(of: 0x0A) ?? -1) + 1
                #expect(batch.endLine == lineFeeds + 1)
                #expect(batch.endColumn == endOffset - lineStart + 1)
                next += batch.elementCount
            }
            #expect(next == expected.count, "every element of \(path) is in a batch")
        }
    }

    /// A JSON:API compound document shaped as exports are (primary data, then included resources,
    /// one per line), whose strings hold escapes, brackets, separators and non-ASCII text.
    static func jsonAPIDocument(articles: Int) -> [UInt8] {
        var text = "{\"data\": [\n"
        for index in 0..<articles {
            if index > 0 { text += ",\n" }
            text +=
                #"  {"type": "articles", "id": "\#(index)", "attributes": {"title": "Nº \#(index): \"[x], {y}\" \\ ok","#
            text += #" "tags": ["a,b", "]", "{"], "score": \#(Double(index) / 8)},"#
            text += #" "relationships": {"author": {"data": {"type": "people", "id": "\#(index % 7)"}},"#
            text += #" "comments": {"data": [{"type": "comments", "id": "\#(index)"}]}}}"#
        }
        text += "\n],\n\"included\": [\n"
        for index in 0..<articles {
            if index > 0 { text += ",\n" }
            text += #"  {"type": "comments", "id": "\#(index)", "attributes": {"body": "été \u00e9\n\t\"\#(index)\""}}"#
        }
        text += "\n], \"meta\": {\"data\": [1, 2]}}\n"
        return Array(text.utf8)
    }

    @Test(
        "a JSON:API document: data and included cut into whole elements, however it is chunked",
        arguments: [Split.whole, .byteByByte, .fixed(7), .fixed(4096), .random(seed: 3), .random(seed: 4)]
    )
    func jsonAPI(split: Split) throws {
        let bytes = Self.jsonAPIDocument(articles: 300)
        let paths: [JSONPath] = ["data", "included"]
        let whole = Self.batches(bytes, paths: paths, batchBytes: 4 * 1024, split: .whole)
        #expect(whole.whole == "valid")
        #expect(whole.batches.count > 10)
        try Self.verify(bytes, paths: paths, batches: whole.batches)
        let cut = Self.batches(bytes, paths: paths, batchBytes: 4 * 1024, split: split)
        #expect(cut.whole == "valid")
        #expect(cut.batches == whole.batches, "the same batches \(split)")
    }

    @Test(
        "the corpora's big arrays, against the sequential parse",
        arguments: [("twitter.json", "statuses"), ("citm_catalog.json", "performances"), ("canada.json", "features")]
    )
    func corpora(name: String, path: String) throws {
        let bytes = try Fixtures.corpus(name)
        for batchBytes in [1, 10_000, 1 << 30] {
            let result = Self.batches(bytes, paths: [JSONPath(path)], batchBytes: batchBytes, split: .random(seed: 9))
            #expect(result.whole == "valid")
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
                #expect(result.whole == "valid")
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

    @Test("what the splitter misreads is read as one parser reads it: the same fault")
    func misread() {
        let cases = [
            #"{"data": [1, 2]}]"#,  // closes more than it opened
            #"{"data": [1, 2, ]}"#,  // a trailing comma (after a cut, or inside a batch)
            #"{"data": [1, 2"#,  // ends inside the array
            #"{"data": ["1, 2]}"#,  // ends inside a string
            #"{"d\x": [1], "data": [2]}"#,  // a key that is no string
        ]
        for json in cases {
            // `batches` checks the merger's read against the whole one.
            for batchBytes in [1, 1000] {
                let result = Self.batches(Array(json.utf8), paths: ["data"], batchBytes: batchBytes, split: .whole)
                #expect(result.whole != "valid", "\(json)")
            }
        }
        #expect(JSONSplitter(paths: ["data.0"]) == nil, "index steps are not followed")
        // A key written with escapes is compared unescaped, as the parser compares it.
        let escaped = Array(#"{"d\u0061ta": [1, 2], "x\"": [3]}"#.utf8)
        let result = Self.batches(escaped, paths: ["data"], batchBytes: 1, split: .byteByByte)
        #expect(result.whole == "valid")
        #expect(result.batches.map(\.elementCount) == [1, 1])
    }
}
