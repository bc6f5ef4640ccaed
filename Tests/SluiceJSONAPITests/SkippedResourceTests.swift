import Foundation
import SluiceJSON
import Synchronization
import Testing

@testable import SluiceJSONAPI

/// `onUndecodableResource`: a resource that breaks a rule or does not fit its model is passed
/// over and handed to the caller with its pointer, position and error; the rest decode, on one
/// thread or several, streamed or whole.
@Suite("Passing over resources that fail to decode")
struct SkippedResourceTests {
    struct Item: Resource, Equatable {
        static let resourceType = "items"
        var id: String
        var name: String
        var count: Int
    }

    /// `count` items, of which the fourth has an `id` that is a number and the ninth a `count`
    /// that is a string (which the model rejects).
    static func broken(items count: Int) -> [UInt8] {
        let items = (0..<count).map { index in
            switch index {
            case 3: #"{"type":"items","id":3,"attributes":{"name":"n3","count":3}}"#
            case 8: #"{"type":"items","id":"8","attributes":{"name":"n8","count":"many"}}"#
            default: #"{"type":"items","id":"\#(index)","attributes":{"name":"n\#(index)","count":\#(index)}}"#
            }
        }
        return Array(("{\"data\":[\n" + items.joined(separator: ",\n") + "\n]}").utf8)
    }

    static func decoder(threads: Int, batchBytes: Int) -> JSONAPIDecoder {
        let decoder = JSONAPIDecoder(registry: [Item.self])
        decoder.parallelism = .workers(threads)
        decoder.parallel.batchBytes = batchBytes
        return decoder
    }

    @Test("streamed, whole and in parallel: the same resources pass, the same are handed over")
    func passesOver() throws {
        let bytes = Self.broken(items: 400)
        var outcomes: [[String]] = []
        var skippedLists: [[String]] = []
        for (threads, batchBytes) in [(1, 1 << 30), (3, 2_000)] {
            let skipped = Mutex<[JSONAPISkippedResource]>([])
            let decoder = Self.decoder(threads: threads, batchBytes: batchBytes)
            decoder.onUndecodableResource = { resource in skipped.withLock { $0.append(resource) } }
            let document = try decoder.decode([Linked<Item>].self, from: bytes)
            outcomes.append(document.data.map(\.id))
            if threads > 1 { #expect(document.data.count == 398) }
            let faults = skipped.withLock { $0 }
            skippedLists.append(faults.map { "\($0.pointer) \($0.error.pointer) \($0.position)" })
            #expect(faults.map(\.pointer) == ["/data/3", "/data/8"], "\(faults)")
            #expect(faults.map(\.error.pointer) == ["/data/3/id", "/data/8/attributes/count"])
            #expect(faults[0].value?["id"] == .number("3"))
            // The position is the resource object's: its opening brace.
            #expect(bytes[faults[0].position.byteOffset] == UInt8(ascii: "{"))
        }
        #expect(outcomes[0].count == 398)
        #expect(!outcomes[0].contains("3") && !outcomes[0].contains("8"))
        #expect(outcomes[0] == outcomes[1])
        #expect(skippedLists[0] == skippedLists[1])

        // Streamed from chunks, the same resources, with the faults between them in order.
        let decoder = Self.decoder(threads: 1, batchBytes: 1 << 30)
        let order = Mutex<[String]>([])
        decoder.onUndecodableResource = { resource in order.withLock { $0.append("skipped \(resource.pointer)") } }
        let summary = try decoder.forEachResource(in: MemoryChunks(bytes, size: 777)) { streamed in
            if streamed.section == .primary, let id = streamed.resource.id, ["2", "4", "7", "9"].contains(id) {
                order.withLock { $0.append(id) }
            }
        }
        #expect(order.withLock { $0 } == ["2", "skipped /data/3", "4", "7", "skipped /data/8", "9"])
        #expect(summary.primaryCount == 398)
    }

    @Test("without a handler the first failure throws, as always")
    func throwsByDefault() {
        let bytes = Self.broken(items: 20)
        #expect(throws: JSONAPIDecodingError.self) {
            try Self.decoder(threads: 1, batchBytes: 1 << 30).decode([Linked<Item>].self, from: bytes)
        }
    }
}

/// Bytes in memory handed over in chunks of `chunk` bytes.
private final class MemoryChunks: ChunkSource {
    let bytes: [UInt8]
    let chunk: Int
    private(set) var bytesRead = 0

    init(_ bytes: [UInt8], size: Int) {
        self.bytes = bytes
        chunk = size
    }

    var size: Int? { bytes.count }

    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try bytes.withUnsafeBytes { all in
            while bytesRead < all.count {
                let end = min(all.count, bytesRead + chunk)
                try body(UnsafeRawBufferPointer(rebasing: all[bytesRead..<end]))
                bytesRead = end
            }
        }
    }
}
