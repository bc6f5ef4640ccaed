import Foundation
import SluiceJSONAPI
import SluiceTools
import Testing

/// The parallel path's threads at work, for Thread Sanitizer to watch: worker threads reading
/// batches, the merger taking their results, consumers stopping early, faults. Each test also
/// checks the outcome against one thread, so a race that changes a result fails here too.
@Suite("Parallel path under Thread Sanitizer", .timeLimit(.minutes(10)))
struct ParallelRaceTests {
    /// A generated JSON:API document of `articles` articles in a temporary file (about 1.5 KB an
    /// article: 2 000 make a dozen batches of 256 KiB).
    static func document(articles: Int, plant: ((inout [UInt8]) -> Void)? = nil) throws -> String {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles).write { bytes.append(contentsOf: $0) }
        plant?(&bytes)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tsan-\(UUID().uuidString).json")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Every resource streamed from `path` with `threads` threads, written out, then the error.
    static func stream(_ path: String, threads: Int, stopAfter limit: Int? = nil) -> [String] {
        let decoder = JSONAPIDecoder()
        decoder.parallelism = .workers(threads)
        var lines: [String] = []
        struct Stop: Error {}
        do {
            try decoder.forEachResource(in: try FileChunkReader(path: path)) { streamed in
                let raw = streamed.resource.raw.map { String(describing: $0) } ?? "-"
                lines.append("\(streamed.pointer) \(raw)")
                if let limit, lines.count == limit { throw Stop() }
            }
        } catch is Stop {
            lines.append("stopped")
        } catch {
            lines.append("error: \(error)")
        }
        return lines
    }

    @Test("streamed resources, 1 thread against 2, 3 and 8")
    func streamed() throws {
        let path = try Self.document(articles: 2000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = Self.stream(path, threads: 1)
        #expect(reference.count > 8000)
        for threads in [2, 3, 8] {
            #expect(Self.stream(path, threads: threads) == reference, "\(threads) threads")
        }
    }

    @Test("a fault deep in included, and a consumer that stops early")
    func faultAndStop() throws {
        let path = try Self.document(articles: 2000) { bytes in
            let target = Array(#"{"type":"comments","id":"4000","attributes""#.utf8)
            let range = bytes.firstRange(of: target)!
            bytes.replaceSubrange(range, with: Array(#"{"type":"comments","id":4000,"attributes""#.utf8))
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = Self.stream(path, threads: 1)
        #expect(reference.last?.hasPrefix("error: ") == true)
        for threads in [2, 8] {
            #expect(Self.stream(path, threads: threads) == reference, "\(threads) threads")
            #expect(Self.stream(path, threads: threads, stopAfter: 3000).last == "stopped")
        }
    }

    @Test("whole documents, from memory and from an async sequence")
    func wholeDocuments() async throws {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: 1500).write { bytes.append(contentsOf: $0) }
        let decoder = JSONAPIDecoder()
        decoder.parallelism = .workers(1)
        let reference = try decoder.decode([AnyResource].self, from: bytes)
        decoder.parallelism = .workers(4)
        let document = try decoder.decode([AnyResource].self, from: bytes)
        #expect(document.data.map(\.raw) == reference.data.map(\.raw))
        #expect(document.included.map(\.raw) == reference.included.map(\.raw))
        let chunks = stride(from: 0, to: bytes.count, by: 10_000).map {
            Array(bytes[$0..<min($0 + 10_000, bytes.count)])
        }
        let body = AsyncStream<[UInt8]> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        let streamed = try await decoder.decode([AnyResource].self, from: body)
        #expect(streamed.data.map(\.raw) == reference.data.map(\.raw))
    }

    @Test("plain JSON: the elements of a big array, and a syntax check")
    func plainJSON() throws {
        let text =
            "{\"items\": [" + (0..<60_000).map { #"{"n": \#($0), "s": "x\#($0)"}"# }.joined(separator: ",") + "]}"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tsan-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        struct Item: Decodable, Equatable {
            var n: Int
            var s: String
        }
        func elements(_ threads: Int) throws -> [Item] {
            let decoder = StreamingJSONDecoder()
            decoder.parallelism = .workers(threads)
            var items: [Item] = []
            try decoder.forEachElement(of: Item.self, at: "items", inFileAt: url.path) { items.append($0) }
            return items
        }
        let reference = try elements(1)
        #expect(reference.count == 60_000)
        #expect(try elements(4) == reference)
        let bytes = try JSONParser.validateSyntax(
            of: FileChunkReader(path: url.path),
            parallelism: .workers(3),
            splittingArraysAt: ["items"]
        )
        #expect(bytes == text.utf8.count)
    }
}
