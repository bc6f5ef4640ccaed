import Foundation
import Testing

@testable import SluiceJSON

@Suite("StreamingJSONDecoder: streaming the elements of an array")
struct ElementStreamingTests {
    struct Status: Decodable, Equatable {
        var id: Int
        var text: String
        var tags: [String]
    }

    static let document = #"""
        {"meta": {"statuses": "not this one", "count": 3},
         "statuses": [{"id": 1, "text": "a", "tags": []}, {"id": 2, "text": "b", "tags": ["x", "y"]},
                      {"id": 3, "text": "c]}", "tags": ["[{"]}],
         "after": [1, 2, 3]}
        """#

    static let expected = [
        Status(id: 1, text: "a", tags: []), Status(id: 2, text: "b", tags: ["x", "y"]),
        Status(id: 3, text: "c]}", tags: ["[{"]),
    ]

    static func collect<T: Decodable>(_ type: T.Type, at path: JSONPath, _ json: String) throws -> [T] {
        var result: [T] = []
        try StreamingJSONDecoder().forEachElement(of: type, at: path, in: Data(json.utf8)) { result.append($0) }
        return result
    }

    @Test("the elements at a path come out in order; values elsewhere are passed over")
    func inOrder() throws {
        #expect(try Self.collect(Status.self, at: "statuses", Self.document) == Self.expected)
        #expect(try Self.collect(Int.self, at: "/after", Self.document) == [1, 2, 3])
    }

    @Test("nested paths, indices and the root")
    func paths() throws {
        let json = #"{"data": {"items": [[1, 2], [3]], "pages": [{"rows": [7]}, {"rows": [8, 9]}]}}"#
        #expect(try Self.collect([Int].self, at: "data.items", json) == [[1, 2], [3]])
        #expect(try Self.collect(Int.self, at: "data.pages.1.rows", json) == [8, 9])
        #expect(try Self.collect(Int.self, at: "", "[4, 5]") == [4, 5])
        #expect(try Self.collect(String.self, at: "/a~1b", #"{"a/b": ["s"]}"#) == ["s"])
    }

    @Test("the same elements however the input is cut, as an AsyncSequence")
    func chunkIndependence() async throws {
        let bytes = Array(Self.document.utf8)
        for size in [1, 2, 3, 7, 64, bytes.count] {
            let chunks = AsyncStream<[UInt8]> { continuation in
                for start in stride(from: 0, to: bytes.count, by: size) {
                    continuation.yield(Array(bytes[start..<min(start + size, bytes.count)]))
                }
                continuation.finish()
            }
            var statuses: [Status] = []
            for try await status in StreamingJSONDecoder().elements(of: Status.self, at: "statuses", from: chunks) {
                statuses.append(status)
            }
            #expect(statuses == Self.expected, "chunks of \(size)")
        }
    }

    @Test("errors: an element that does not decode carries path and index; a missing or wrong value is named")
    func errors() throws {
        do {
            _ = try Self.collect(
                Status.self,
                at: "statuses",
                #"{"statuses": [{"id": 1, "text": "a", "tags": []}, {"id": "2"}]}"#
            )
            Issue.record("no error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(
                context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["statuses", "1", "id"]
            )
        }
        do {
            _ = try Self.collect(Int.self, at: "missing", "{}")
            Issue.record("no error")
        } catch DecodingError.valueNotFound(_, let context) {
            #expect(context.debugDescription == "The document has no value at /missing")
        }
        do {
            _ = try Self.collect(Int.self, at: "a", #"{"a": {"b": 1}}"#)
            Issue.record("no error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(
                context.debugDescription == "Expected an array at /a but found an object at line 1, column 7 (byte 6)"
            )
        }
        #expect(throws: DecodingError.self) { try Self.collect(Int.self, at: "a", #"{"a": [1, 2"#) }
    }

    @Test("elements handed over before a fault in a later chunk are kept")
    func elementsBeforeFault() async throws {
        let chunks = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array(#"{"a": [1, 2, "#.utf8))
            continuation.yield(Array(#"3, x]}"#.utf8))
            continuation.finish()
        }
        var seen: [Int] = []
        do {
            for try await value in StreamingJSONDecoder().elements(of: Int.self, at: "a", from: chunks) {
                seen.append(value)
            }
            Issue.record("no error")
        } catch is DecodingError {
            #expect(seen == [1, 2, 3])
        }
    }

    @Test("a generated file of 200 000 elements streams in constant memory")
    func largeFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-elements-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        handle.write(Data(#"{"header": {"n": 200000}, "statuses": ["#.utf8))
        let count = 200_000
        var batch = ""
        for index in 0..<count {
            batch +=
                (index == 0 ? "" : ",")
                + #"{"id": \#(index), "text": "status number \#(index) \#(String(repeating: "x", count: index % 50))", "tags": ["t\#(index % 7)"]}"#
            if batch.utf8.count > 1 << 16 {
                handle.write(Data(batch.utf8))
                batch = ""
            }
        }
        handle.write(Data((batch + #"], "footer": true}"#).utf8))
        try handle.close()
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        #expect(size > 15_000_000)

        let streamer = StreamingJSONDecoder().makeStreamer(of: Status.self, at: "statuses")
        var seen = 0
        var idSum = 0
        let reader = try FileChunkReader(path: url.path)
        try reader.forEachChunk { chunk in
            try streamer.feed(chunk) { status in
                seen += 1
                idSum += status.id
            }
        }
        // Elements still in batches on other threads are handed over by `finish`.
        try streamer.finish { status in
            seen += 1
            idSum += status.id
        }
        #expect(seen == count)
        #expect(idSum == count * (count - 1) / 2)
        // One 64 KiB chunk holds a few hundred elements' tokens at most; the whole file holds
        // over a million tokens.
        #expect(streamer.peakTokenCount < 10_000, "peak \(streamer.peakTokenCount) tokens")
    }

    /// Found by FuzzValidator (Fuzz/Regressions/FuzzValidator): a pointer split by `Character`
    /// missed a `/` that the combining mark after it (U+A67D) joined into one character.
    @Test("paths and pointers are split scalar by scalar: a step may start with a combining mark")
    func combiningMarkAfterASeparator() throws {
        let name = "\u{A67D}r"
        #expect(JSONPath("/data/\(name)").steps == ["data", name])
        #expect(JSONPath("data.\(name)").steps == ["data", name])
        #expect(JSONPath("/a~1\(name)/").steps == ["a/\(name)", ""])
        // And escaped so: a `~` or `/` with a combining mark after it is one Character.
        #expect(JSONPath(steps: ["~\u{A67D}", "/\u{A67D}"]).description == "/~0\u{A67D}/~1\u{A67D}")
        #expect(JSONPath(JSONPath(steps: ["~\u{A67D}", "/\u{A67D}"]).description).steps == ["~\u{A67D}", "/\u{A67D}"])
        let json = Data(#"{"data": {"\#(name)": [1, 2]}}"#.utf8)
        var numbers: [Int] = []
        try StreamingJSONDecoder().forEachElement(of: Int.self, at: JSONPath("/data/\(name)"), in: json) {
            numbers.append($0)
        }
        #expect(numbers == [1, 2])
    }
}
