import Foundation
import SluiceTools
import Testing

@testable import SluiceJSONAPI

/// The parallel path of the JSON:API decoder: for any number of threads, any batch size
/// and any chunking, the same resources in the same order, the same documents and identity maps,
/// and the same errors, as one thread reading the whole document.
@Suite("Parallel documents")
struct ParallelDocumentTests {
    struct SampleArticle: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var views: Int
        var rating: Double
        var publishedAt: Date
        var tags: [String]
        var author: ToOne<SamplePerson>
        var comments: ToMany<SampleComment>
    }

    struct SamplePerson: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
        var age: Int
        var email: String?
    }

    struct SampleComment: Resource, Equatable {
        static let resourceType = "comments"
        var id: String
        var body: String
        var likes: Int
        var author: ToOne<SamplePerson>
    }

    static func sample(articles: Int, includedFirst: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles, includedFirst: includedFirst).write { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func decoder(threads: Int, batchBytes: Int, registry: ResourceRegistry? = nil) -> JSONAPIDecoder {
        let decoder = JSONAPIDecoder(registry: registry ?? [SampleArticle.self, SamplePerson.self, SampleComment.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        decoder.dateDecodingStrategy = .iso8601
        decoder.parallelism = .workers(threads)
        decoder.parallel.batchBytes = batchBytes
        return decoder
    }

    /// What a stream delivered, written out: each resource with where it stands and what it holds,
    /// then the error it ended with; and how many batches went to workers (not compared).
    struct Outcome: Equatable, CustomStringConvertible {
        var lines: [String] = []
        var error: String?
        var summary: String?
        var batches = 0

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.lines == rhs.lines && lhs.error == rhs.error && lhs.summary == rhs.summary
        }

        var description: String { "\(lines.count) resources, then \(error ?? "no error")" }
    }

    static func line(_ streamed: StreamedResource) -> String {
        let resource = streamed.resource
        let content =
            resource.model.map { String(describing: $0) } ?? resource.raw.map { String(describing: $0) } ?? "-"
        return "\(streamed.pointer) \(resource.type) \(resource.id ?? "-") \(content)"
    }

    /// Streams `bytes` in chunks of `chunkSize` through the engine every streaming API uses.
    static func stream(_ bytes: [UInt8], decoder: JSONAPIDecoder, chunkSize: Int) -> Outcome {
        let engine = decoder.makeEngine(primaryModels: [], holdsIdentifiers: false)
        var outcome = Outcome()
        let body: (StreamedResource) throws -> Void = { outcome.lines.append(Self.line($0)) }
        do {
            try bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let end = min(offset + chunkSize, buffer.count)
                    try engine.feed(UnsafeRawBufferPointer(rebasing: buffer[offset..<end])) {
                        try JSONAPIDecoder.dispatch($0, to: body)
                    }
                    offset = end
                }
            }
            try engine.finish { try JSONAPIDecoder.dispatch($0, to: body) }
            let summary = engine.summary
            outcome.summary = "\(summary.primaryCount) \(summary.includedCount) \(String(describing: summary.meta))"
        } catch {
            outcome.error = String(describing: error)
        }
        outcome.batches = engine.batchesMerged
        return outcome
    }

    @Test(
        "streamed resources: the same for 1, 2, 3 and 8 threads, any batch size and chunking",
        arguments: [false, true]
    )
    func streamed(includedFirst: Bool) {
        let bytes = Self.sample(articles: 200, includedFirst: includedFirst)
        let reference = Self.stream(bytes, decoder: Self.decoder(threads: 1, batchBytes: 1), chunkSize: 1 << 30)
        #expect(reference.error == nil)
        #expect(reference.lines.count > 200)
        #expect(reference.batches == 0)
        for threads in [2, 3, 8] {
            for (batchBytes, chunkSize) in [(1, 1 << 30), (3000, 4096), (20_000, 777), (1 << 30, 64 * 1024)] {
                let outcome = Self.stream(
                    bytes,
                    decoder: Self.decoder(threads: threads, batchBytes: batchBytes),
                    chunkSize: chunkSize
                )
                #expect(outcome == reference, "\(threads) threads, batches of \(batchBytes), chunks of \(chunkSize)")
                #expect(outcome.batches > 0 || batchBytes == 1 << 30, "batches went to workers")
            }
        }
    }

    @Test("whole documents: the same primary data, included resources and links")
    func wholeDocuments() async throws {
        let bytes = Self.sample(articles: 150)
        let reference = try Self.decoder(threads: 1, batchBytes: 1).decode([Linked<SampleArticle>].self, from: bytes)
        for threads in [2, 8] {
            let decoder = Self.decoder(threads: threads, batchBytes: 2000)
            decoder.chunkSize = 5000
            let document = try decoder.decode([Linked<SampleArticle>].self, from: bytes)
            #expect(document.data.map(\.model) == reference.data.map(\.model))
            #expect(document.data.map { $0.author?.name } == reference.data.map { $0.author?.name })
            #expect(document.data.map { $0.comments.map(\.body) } == reference.data.map { $0.comments.map(\.body) })
            #expect(document.included.map(\.id) == reference.included.map(\.id))
            #expect(document.meta == reference.meta)
            #expect(document.store.count == reference.store.count)
            let chunked = try await decoder.decode(
                [Linked<SampleArticle>].self,
                from: ChunkSequence(bytes: bytes, size: 3333)
            )
            #expect(chunked.data.map(\.model) == reference.data.map(\.model))
        }
    }

    /// Faults where the workers, the merger and the splitter meet them.
    static let faults: [(name: String, plant: @Sendable ([UInt8]) -> [UInt8])] = [
        (
            "a bad byte in the first article",
            { replace(#""id":"0","attributes":{"title""#, #""id":"0","attributes":{"title"x"#, $0) }
        ),
        (
            "a type mismatch in an article",
            { replace(#""id":"57","attributes":{"title":"#, #""id":"57","attributes":{"title":7,"xtitle":"#, $0) }
        ),
        ("a resource with no type", { replace(#"{"type":"comments","id":"100","#, #"{"id":"100","#, $0) }),
        ("an unknown member type in the last comment", { replaceLast(#"{"type":"comments""#, #"{"type":7"#, $0) }),
        (
            "an element that is not an object",
            { replace(#",{"type":"people","id":"3""#, #",[],{"type":"people","id":"3""#, $0) }
        ),
        ("a trailing comma in data", { replace("}}],\"included\"", "}},],\"included\"", $0) }),
        ("a fault in the top-level meta", { replace(#""meta":{"articles""#, #""meta":{articles""#, $0) }),
        ("the input cut in included", { Array($0[..<($0.count * 3 / 4)]) }),
        (
            "an error document after data",
            { replace(#","meta":{"articles""#, #","errors":[{"status":"500"}],"meta":{"articles""#, $0) }
        ),
    ]

    static func replace(_ target: String, _ replacement: String, _ bytes: [UInt8]) -> [UInt8] {
        guard let range = bytes.firstRange(of: Array(target.utf8)) else { fatalError("no \(target) in the document") }
        return Array(bytes[..<range.lowerBound]) + Array(replacement.utf8) + Array(bytes[range.upperBound...])
    }

    static func replaceLast(_ target: String, _ replacement: String, _ bytes: [UInt8]) -> [UInt8] {
        let needle = Array(target.utf8)
        var last: Range<Int>?
        var from = 0
        while let range = bytes[from...].firstRange(of: needle) {
            last = range
            from = range.upperBound
        }
        guard let last else { fatalError("no \(target) in the document") }
        return Array(bytes[..<last.lowerBound]) + Array(replacement.utf8) + Array(bytes[last.upperBound...])
    }

    @Test("faults: the resources before, then the sequential error, for any thread count and chunking")
    func faults() {
        let bytes = Self.sample(articles: 120)
        for (name, plant) in Self.faults {
            let faulty = plant(bytes)
            let reference = Self.stream(faulty, decoder: Self.decoder(threads: 1, batchBytes: 1), chunkSize: 1 << 30)
            #expect(reference.error != nil, "\(name): the sequential read fails")
            for threads in [2, 3, 8] {
                for (batchBytes, chunkSize) in [(1, 1 << 30), (2500, 1000), (9000, 65536)] {
                    let outcome = Self.stream(
                        faulty,
                        decoder: Self.decoder(threads: threads, batchBytes: batchBytes),
                        chunkSize: chunkSize
                    )
                    #expect(
                        outcome == reference,
                        "\(name): \(threads) threads, batches of \(batchBytes), chunks of \(chunkSize)"
                    )
                }
            }
        }
    }

    @Test("a fault planted at a random place: the same outcome as one thread", arguments: 0..<30)
    func randomFault(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var bytes = Self.sample(articles: 40)
        let place = Int.random(in: 0..<bytes.count, using: &generator)
        let garbage: [UInt8] = Array("x,]}\"\\{[:1 ".utf8) + [0xC3, 0xFF]
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: bytes[place] = garbage.randomElement(using: &generator)!
        case 1: bytes.remove(at: place)
        default: bytes.insert(garbage.randomElement(using: &generator)!, at: place)
        }
        let reference = Self.stream(bytes, decoder: Self.decoder(threads: 1, batchBytes: 1), chunkSize: 1 << 30)
        for threads in [2, 8] {
            let outcome = Self.stream(
                bytes,
                decoder: Self.decoder(threads: threads, batchBytes: Int.random(in: 1...4000, using: &generator)),
                chunkSize: Int.random(in: 1...5000, using: &generator)
            )
            #expect(outcome == reference, "fault at byte \(place), \(threads) threads")
        }
    }

    @Test("uniquing keeps a decode on one thread")
    func uniquingStaysSequential() {
        let decoder = Self.decoder(threads: 4, batchBytes: 100)
        let plain = Self.stream(
            Self.sample(articles: 30),
            decoder: Self.decoder(threads: 4, batchBytes: 100),
            chunkSize: 4096
        )
        #expect(plain.batches > 0)
        decoder.options.identityStore = JSONIdentityStore()
        let unique = Self.stream(Self.sample(articles: 30), decoder: decoder, chunkSize: 4096)
        #expect(unique.batches == 0)
        #expect(unique == plain)
    }
}

/// A deterministic generator for planting faults.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
