import Foundation
import Testing

@testable import SluiceJSON

/// The parallel path of element streaming: for any number of threads and any
/// chunking, the same elements in the same order and the same error, message and position alike,
/// as one thread reading the whole document.
@Suite("Parallel streaming")
struct ParallelStreamingTests {
    typealias Split = ChunkingVerifier.Split

    struct Item: Decodable, Equatable {
        var id: Int
        var name: String
        var tags: [String]
        var score: Double?
    }

    /// What a stream delivered: every element, then the error it ended with, if any.
    struct Outcome<Element: Equatable>: Equatable, CustomStringConvertible {
        var elements: [Element] = []
        var error: String?
        /// Batches read on the parallel path; not compared.
        var batches = 0

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.elements == rhs.elements && lhs.error == rhs.error }

        var description: String { "\(elements.count) elements, then \(error ?? "no error")" }
    }

    static func stream<Element: Decodable & Equatable>(
        _ type: Element.Type,
        at path: JSONPath,
        in bytes: [UInt8],
        threads: Int,
        batchBytes: Int,
        split: Split
    ) -> Outcome<Element> {
        let decoder = StreamingJSONDecoder()
        decoder.parallelism = .workers(threads)
        decoder.batchBytes = batchBytes
        let streamer = decoder.makeStreamer(of: type, at: path)
        var outcome = Outcome<Element>()
        do {
            try bytes.withUnsafeBytes { buffer in
                for range in split.chunks(of: buffer.count) {
                    try streamer.feed(UnsafeRawBufferPointer(rebasing: buffer[range])) { outcome.elements.append($0) }
                }
            }
            try streamer.finish { outcome.elements.append($0) }
        } catch {
            outcome.error = Self.describe(error)
        }
        outcome.batches = streamer.batchesMerged
        return outcome
    }

    /// An error with everything a user sees of it: the message, and the coding path.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                .keyNotFound(_, let context):
                return "\(error): \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
            @unknown default:
                return "\(error)"
            }
        }
        return "\(error)"
    }

    /// `count` items, one a line, with strings that hold brackets, separators and escapes.
    static func document(items count: Int) -> [UInt8] {
        var text = "{\"meta\": {\"count\": \(count)},\n \"items\": [\n"
        for index in 0..<count {
            if index > 0 { text += ",\n" }
            text += #"  {"id": \#(index), "name": "Nº \#(index) \"[x], {y}\" \\ é", "tags": ["a,b", "]"]"#
            text += index % 3 == 0 ? "}" : #", "score": \#(Double(index) / 4)}"#
        }
        text += "\n], \"after\": [1, 2]}\n"
        return Array(text.utf8)
    }

    @Test(
        "the same elements for 1, 2, 3 and 8 threads and every chunking",
        arguments: [Split.whole, .fixed(1000), .fixed(7), .random(seed: 5)]
    )
    func sameElements(split: Split) {
        let bytes = Self.document(items: 600)
        let reference = Self.stream(Item.self, at: "items", in: bytes, threads: 1, batchBytes: 1 << 20, split: .whole)
        #expect(reference.error == nil)
        #expect(reference.elements.count == 600)
        for threads in [2, 3, 8] {
            for batchBytes in [1, 700, 5000] {
                let outcome = Self.stream(
                    Item.self,
                    at: "items",
                    in: bytes,
                    threads: threads,
                    batchBytes: batchBytes,
                    split: split
                )
                #expect(outcome == reference, "\(threads) threads, batches of \(batchBytes), \(split)")
                #expect(outcome.batches > 1, "the batches were read in parallel")
            }
        }
    }

    @Test(
        "the corpora's big arrays, as JSON values",
        arguments: [("twitter.json", "statuses"), ("citm_catalog.json", "performances"), ("canada.json", "features")]
    )
    func corpora(name: String, path: String) throws {
        let bytes = try Fixtures.corpus(name)
        let reference = Self.stream(
            JSONValue.self,
            at: JSONPath(path),
            in: bytes,
            threads: 1,
            batchBytes: 1,
            split: .whole
        )
        #expect(reference.error == nil)
        #expect(!reference.elements.isEmpty)
        for threads in [2, 8] {
            let outcome = Self.stream(
                JSONValue.self,
                at: JSONPath(path),
                in: bytes,
                threads: threads,
                batchBytes: 20_000,
                split: .random(seed: 11)
            )
            #expect(outcome == reference, "\(threads) threads")
            #expect(outcome.batches > 1 || name == "canada.json", "the batches were read in parallel")
        }
    }

    /// Faults planted where the splitter and the workers meet them: in the first element, the
    /// last, across a batch boundary, in the skeleton before and after the array, and at the end.
    static let faults: [(name: String, plant: @Sendable ([UInt8]) -> [UInt8])] = [
        ("a bad byte in the first element", { replace(#""id": 0,"#, with: #""id": 0x,"#, in: $0) }),
        ("a bad byte in the last element", { replace(#""id": 299,"#, with: #""id": 29 9,"#, in: $0) }),
        ("a type mismatch in an element", { replace(#""id": 150,"#, with: #""id": "150","#, in: $0) }),
        ("a missing member", { replace(#""id": 77, "#, with: "", in: $0) }),
        ("an element that is not an object", { replace(#"{"id": 42,"#, with: #"[42,"#, in: $0) }),
        ("invalid UTF-8 in a string", { replace("Nº 123 ", with: "N\u{FF}\u{FF} 123 ", in: $0, rawLatin: true) }),
        ("an empty element", { replace(",\n  {\"id\": 200,", with: ",\n  ,{\"id\": 200,", in: $0) }),
        ("a trailing comma", { replace("\n], \"after\"", with: ",\n], \"after\"", in: $0) }),
        ("a missing comma between elements", { replace("},\n  {\"id\": 100,", with: "}\n  {\"id\": 100,", in: $0) }),
        ("a bracket too many", { replace("\n], \"after\"", with: "\n]], \"after\"", in: $0) }),
        ("a fault in the skeleton before the array", { replace(#"{"count": 300}"#, with: #"{"count" 300}"#, in: $0) }),
        ("a fault in the skeleton after the array", { replace(#""after": [1, 2]"#, with: #""after": [1, 2"#, in: $0) }),
        ("the input cut inside an element", { Array($0[..<($0.count / 2)]) }),
        ("the input cut inside a string", { Array($0[..<($0.firstRange(of: Array("Nº 250".utf8))!.lowerBound + 2)]) }),
    ]

    static func replace(
        _ target: String,
        with replacement: String,
        in bytes: [UInt8],
        rawLatin: Bool = false
    ) -> [UInt8] {
        let from = Array(target.utf8)
        // `rawLatin`: U+00FF stands for the byte 0xFF, which no UTF-8 text holds.
        let to =
            rawLatin ? replacement.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } : Array(replacement.utf8)
        guard let range = bytes.firstRange(of: from) else { fatalError("no \(target) in the document") }
        return Array(bytes[..<range.lowerBound]) + to + Array(bytes[range.upperBound...])
    }

    @Test("faults: the elements before, then the sequential error, for any thread count and chunking")
    func faults() {
        let bytes = Self.document(items: 300)
        for (name, plant) in Self.faults {
            let faulty = plant(bytes)
            let reference = Self.stream(
                Item.self,
                at: "items",
                in: faulty,
                threads: 1,
                batchBytes: 1 << 20,
                split: .whole
            )
            #expect(reference.error != nil, "\(name): the sequential read fails")
            for threads in [2, 3, 8] {
                for (batchBytes, split) in [(1, Split.whole), (900, .fixed(333)), (4000, .random(seed: 2))] {
                    let outcome = Self.stream(
                        Item.self,
                        at: "items",
                        in: faulty,
                        threads: threads,
                        batchBytes: batchBytes,
                        split: split
                    )
                    #expect(outcome == reference, "\(name): \(threads) threads, batches of \(batchBytes), \(split)")
                }
            }
        }
    }

    @Test("a fault planted at a random place: the same outcome as one thread", arguments: 0..<40)
    func randomFault(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var bytes = Self.document(items: 120)
        let place = Int.random(in: 0..<bytes.count, using: &generator)
        let garbage: [UInt8] = Array("x,]}\"\\{[:1 \u{7F}".utf8) + [0xC3]
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: bytes[place] = garbage.randomElement(using: &generator)!
        case 1: bytes.remove(at: place)
        default: bytes.insert(garbage.randomElement(using: &generator)!, at: place)
        }
        let reference = Self.stream(Item.self, at: "items", in: bytes, threads: 1, batchBytes: 1 << 20, split: .whole)
        for threads in [2, 8] {
            let outcome = Self.stream(
                Item.self,
                at: "items",
                in: bytes,
                threads: threads,
                batchBytes: Int.random(in: 1...3000, using: &generator),
                split: .random(seed: seed)
            )
            #expect(outcome == reference, "fault at byte \(place), \(threads) threads")
        }
    }

    /// The outcome of `validateSyntax` on `bytes`, read from a file in chunks of `chunkSize`.
    static func syntaxCheck(_ bytes: [UInt8], threads: Int, chunkSize: Int) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-syntax-\(UUID().uuidString).json"
        )
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let reader = try FileChunkReader(path: url.path, chunkSize: chunkSize)
            return
                "valid, \(try JSONParser.validateSyntax(of: reader, parallelism: .workers(threads), splittingArraysAt: ["", "items"])) bytes"
        } catch {
            return "\(error)"
        }
    }

    @Test("syntax checks: the same first fault for any number of threads")
    func syntaxCheck() throws {
        var generator = SeededGenerator(seed: 99)
        let bytes = Array(Self.document(items: 20_000).dropFirst(0))
        // A root array, a JSON:API shape and a plain object, each whole and with faults planted.
        var cases: [[UInt8]] = [bytes, Array("[1, 2, [3], {\"a\": [4]}, \"5\"]".utf8)]
        for (_, plant) in Self.faults { cases.append(plant(Self.document(items: 300))) }
        for _ in 0..<6 {
            var faulty = bytes
            faulty[Int.random(in: 0..<faulty.count, using: &generator)] = Array("x]}\",".utf8).randomElement(
                using: &generator
            )!
            cases.append(faulty)
        }
        let root = Array(("[" + (0..<40_000).map { "{\"n\": \($0)}" }.joined(separator: ",\n") + "]").utf8)
        cases.append(root)
        cases.append(Self.replace("{\"n\": 39000}", with: "{\"n\": 39000,}", in: root))
        for bytes in cases {
            let reference = try Self.syntaxCheck(bytes, threads: 1, chunkSize: 64 * 1024)
            for (threads, chunkSize) in [(2, 64 * 1024), (8, 1000)] {
                #expect(try Self.syntaxCheck(bytes, threads: threads, chunkSize: chunkSize) == reference)
            }
        }
    }

    @Test("the depth limit holds inside batches as in the document")
    func depthLimit() {
        let bytes = Self.replace(
            #""tags": ["a,b", "]"]}"#,
            with: #""tags": [[["a,b"]], "]"]}"#,
            in: Self.document(items: 50)
        )
        for maxDepth in [3, 4, 5, 6] {
            let decoder = StreamingJSONDecoder()
            var limits = JSONLimits()
            limits.maxDepth = maxDepth
            decoder.limits = limits
            func run(_ threads: Int) -> Outcome<JSONValue> {
                decoder.parallelism = .workers(threads)
                decoder.batchBytes = 100
                var outcome = Outcome<JSONValue>()
                do {
                    try decoder.forEachElement(of: JSONValue.self, at: "items", in: Data(bytes)) {
                        outcome.elements.append($0)
                    }
                } catch {
                    outcome.error = Self.describe(error)
                }
                return outcome
            }
            #expect(run(3) == run(1), "depth limit \(maxDepth)")
        }
    }

    @Test("an async sequence of chunks, read by several threads")
    func asyncChunks() async throws {
        let bytes = Self.document(items: 400)
        let chunks = stride(from: 0, to: bytes.count, by: 999).map { Array(bytes[$0..<min($0 + 999, bytes.count)]) }
        let decoder = StreamingJSONDecoder()
        decoder.parallelism = .workers(3)
        decoder.batchBytes = 2000
        var ids: [Int] = []
        // As `ElementStreamingTests` hands over chunks: one at a time, as a body arrives.
        let body = AsyncStream<[UInt8]> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        for try await item in decoder.elements(of: Item.self, at: "items", from: body) {
            ids.append(item.id)
        }
        #expect(ids == Array(0..<400))
    }

    @Test("a consumer that stops early stops the threads")
    func consumerStops() {
        struct Enough: Error {}
        let decoder = StreamingJSONDecoder()
        decoder.parallelism = .workers(4)
        decoder.batchBytes = 500
        var seen = 0
        #expect(throws: Enough.self) {
            try decoder.forEachElement(of: Item.self, at: "items", in: Data(Self.document(items: 2000))) { _ in
                seen += 1
                if seen == 10 { throw Enough() }
            }
        }
        #expect(seen == 10)
    }
}
