import Foundation
import SluiceJSON
import Testing

/// A released tape's buffers go to the next tape sized up front: every decode still reads its
/// own document, however the buffers pass between decodes and threads, and the limit holds.
@Suite("Spare tape memory")
struct SpareTapeMemoryTests {
    /// Documents of different sizes and shapes, each well over the size a tape's buffers are
    /// kept from, so that each decode both takes and leaves buffers.
    static func documents() throws -> [[UInt8]] {
        let numbers = "[" + (0..<40_000).map { "\(Double($0) / 3)" }.joined(separator: ",") + "]"
        let records = (0..<3_000).map {
            #"{"id": \#($0), "name": "record \#($0) \#u{e9}t\#u{e9}", "tags": ["a", "b"]}"#
        }
        return [
            try Fixtures.corpus("twitter.json"),
            try Fixtures.corpus("citm_catalog.json"),
            Array(numbers.utf8),
            Array(("[" + records.joined(separator: ",") + "]").utf8),
        ]
    }

    @Test("decodes one after another and on many threads at once each read their own document")
    func reuseKeepsDocumentsApart() async throws {
        let documents = try Self.documents()
        // Each document's value, read once first.
        let expected = try documents.map { try StreamingJSONDecoder().decode(JSONValue.self, from: $0) }
        // In turn, each after a different one: a tape that takes the last one's buffers must
        // read only its own tokens and text.
        for round in 0..<3 {
            for (index, document) in documents.enumerated().reversed() {
                let value = try StreamingJSONDecoder().decode(JSONValue.self, from: document)
                #expect(value == expected[index], "round \(round), document \(index)")
            }
        }
        // At once: buffers handed between threads under the lock, never to two tapes.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var same = true
                    for round in 0..<4 {
                        let index = (task + round) % documents.count
                        let value = try StreamingJSONDecoder().decode(JSONValue.self, from: documents[index])
                        if value != expected[index] { same = false }
                    }
                    return same
                }
            }
            for try await same in group { #expect(same) }
        }
    }

    @Test("with no spare memory allowed, decodes read the same values")
    func noSpareMemory() throws {
        let documents = try Self.documents()
        let limit = JSONTape.spareMemoryLimit
        #expect(limit == 32 << 20)
        defer { JSONTape.spareMemoryLimit = limit }
        let kept = try documents.map { try StreamingJSONDecoder().decode(JSONValue.self, from: $0) }
        JSONTape.spareMemoryLimit = 0
        #expect(JSONTape.spareMemoryLimit == 0)
        let unkept = try documents.map { try StreamingJSONDecoder().decode(JSONValue.self, from: $0) }
        #expect(unkept == kept)
        JSONTape.spareMemoryLimit = -5
        #expect(JSONTape.spareMemoryLimit == 0)
    }
}
