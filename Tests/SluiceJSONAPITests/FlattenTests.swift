import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTools
import Testing

/// `JSONAPIFlattener` writes its lines straight from the tape; these tests hold every line to
/// what `RawResource.writeFlattened` writes of the same resource decoded the general way, and
/// every fault to the general way's error.
@Suite("Flattened lines")
struct FlattenTests {
    /// The document in a temporary file, read by `body`.
    static func withFile<R>(_ json: [UInt8], _ body: (String) throws -> R) throws -> R {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flatten-\(UUID().uuidString).json")
            .path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(json)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// The flattener's output.
    static func flattened(_ json: [UInt8], parallelism: Parallelism = .workers(1)) throws -> String {
        try withFile(json) { path in
            var flattener = JSONAPIFlattener()
            flattener.parallelism = parallelism
            var output: [UInt8] = []
            try flattener.flatten(try FileChunkReader(path: path)) { output.append(contentsOf: $0) }
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// The lines of each resource decoded as a `RawResource`: primary data, then included.
    static func reference(_ json: [UInt8]) throws -> String {
        try withFile(json) { path in
            var primary: [UInt8] = []
            var included: [UInt8] = []
            try JSONAPIDecoder().forEachResource(in: try FileChunkReader(path: path)) { streamed in
                guard let raw = streamed.resource.raw else { return }
                if streamed.section == .primary {
                    raw.writeFlattened(into: &primary)
                    primary.append(UInt8(ascii: "\n"))
                } else {
                    raw.writeFlattened(into: &included)
                    included.append(UInt8(ascii: "\n"))
                }
            }
            return String(decoding: primary + included, as: UTF8.self)
        }
    }

    @Test("generated documents flatten to the general reader's lines, on one thread and on several")
    func generated() throws {
        for includedFirst in [false, true] {
            let json = SampleDocumentGenerator(articles: 300, includedFirst: includedFirst, seed: 5).bytes
            let expected = try Self.reference(json)
            #expect(expected.split(separator: "\n").count > 900)
            #expect(try Self.flattened(json) == expected)
            #expect(try Self.flattened(json, parallelism: .workers(2)) == expected)
        }
    }

    @Test(
        "unusual shapes flatten as the general reader reads them",
        arguments: [
            // No id, a lid, a null id beside a lid in a linkage, an identifier's own meta.
            #"{"data": [{"type": "a", "lid": "x", "relationships": {"r": {"data": {"type": "b", "id": null, "lid": "y", "meta": {"m": 1}}}}}]}"#,
            // Attributes that are null, an array, a string; relationships with no data, null, [].
            #"{"data": [{"type": "a", "id": "1", "attributes": null}, {"type": "a", "id": "2", "attributes": [1]},"#
                + #" {"type": "a", "id": "3", "attributes": "s", "relationships": {"p": {"meta": {"n": 2}}, "q": {"data": null}, "s": {"data": []}}}]}"#,
            // Escapes and non-ASCII text in names and values, numbers as written.
            #"{"data": {"type": "t\"q", "id": "\u00e9\n", "attributes": {"k\\ey": "v\u0001\t", "n": -1.50e+3, "o": {"a": [true, false, null]}}}}"#,
            // A member given twice, at every level.
            #"{"data": [{"type": "a", "id": "1", "type": "b"}, {"type": "a", "id": "2", "attributes": {"x": 1}, "attributes": {"y": 2}}]}"#,
            #"{"data": {"type": "a", "id": "1", "relationships": {"r": {"data": null, "data": {"type": "b", "id": "2"}}}}}"#,
            #"{"data": {"type": "a", "id": "1", "relationships": {"r": {"data": {"type": "b", "id": "2", "id": "3"}}}}}"#,
            #"{"data": {"type": "a", "id": "1", "relationships": {"r": {"data": null}, "r": {"data": {"type": "b", "id": "2"}}}}}"#,
            // Links of every form, and relationship meta beside linkage.
            #"{"data": {"type": "a", "id": "1", "links": {"self": "u", "related": null, "describedby": {"href": "h", "meta": {}}},"#
                + #" "relationships": {"r": {"links": {"self": {"href": "v"}}, "data": {"type": "b", "id": "2"}, "meta": {"count": 1}}, "z": {"meta": null}}}}"#,
            // Included before data, and members that are not the specification's.
            #"{"included": [{"type": "p", "id": "9", "extra": [1, {"x": 2}]}], "meta": {"a": 1}, "data": [{"type": "a", "id": "1", "meta": {}}]}"#,
            #"{"data": null}"#,
            #"{"data": []}"#,
        ]
    )
    func shapes(json: String) throws {
        let bytes = Array(json.utf8)
        #expect(try Self.flattened(bytes) == Self.reference(bytes))
    }

    @Test(
        "a fault reads as the general reader's",
        arguments: [
            #"{"data": [{"type": "a", "id": "1", "links": {"self": {"href": 5}}}]}"#,
            #"{"data": [{"type": "a", "id": "1", "relationships": {"r": {"links": {"self": 5}}}}]}"#,
            #"{"data": [{"type": "a", "id": "1", "relationships": {"r": 5}}]}"#,
            #"{"data": [{"type": "a", "id": "1", "relationships": []}]}"#,
            #"{"data": [{"type": "a", "id": "1", "relationships": {"r": {"data": {"id": "2"}}}}]}"#,
            #"{"data": [{"type": "a", "id": "1", "relationships": {"r": {"data": [{"type": "b", "id": 2}]}}}]}"#,
            #"{"data": [{"type": "a", "id": "1", "relationships": {"r": {"data": "b"}}}]}"#,
            #"{"data": [{"type": "a", "id": "1"}, {"type": "a", "lid": 7}]}"#,
        ]
    )
    func faults(json: String) throws {
        let bytes = Array(json.utf8)
        let expected = try #require(throws: JSONAPIDecodingError.self) { try Self.reference(bytes) }
        let error = try #require(throws: JSONAPIDecodingError.self) { try Self.flattened(bytes) }
        #expect(error.message == expected.message)
        #expect(error.pointer == expected.pointer)
        #expect(error.position == expected.position)
    }
}

extension SampleDocumentGenerator {
    /// The whole document.
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        write { bytes.append(contentsOf: $0) }
        return bytes
    }
}
