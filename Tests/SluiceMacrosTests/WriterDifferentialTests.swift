import Foundation
import SluiceMacros
import Testing

/// The generated writers against the general path and Foundation's `JSONEncoder`: the same bytes
/// for the corpora's models and for models built to cover every kind of member, under every key,
/// date and data strategy, compact and with `.sortedKeys`.
@Suite("@JSONModel: the generated writers against the general path and JSONEncoder")
struct WriterDifferentialTests {
    static func encoder(generated: Bool, _ configure: (StreamingJSONEncoder) -> Void = { _ in }) -> StreamingJSONEncoder
    {
        let encoder = StreamingJSONEncoder()
        encoder.usesGeneratedWriters = generated
        configure(encoder)
        return encoder
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Encodes `value` both ways (and chunked through a sink both ways) and checks the bytes agree.
    @discardableResult
    static func same<T: Encodable>(
        _ value: T,
        _ configure: @escaping (StreamingJSONEncoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Data {
        let generated = try encoder(generated: true, configure).encode(value)
        let general = try encoder(generated: false, configure).encode(value)
        #expect(text(generated) == text(general), sourceLocation: sourceLocation)
        for chunkSize in [1, 7, 4096] {
            var chunks: [Int] = []
            var streamed = Data()
            try encoder(generated: true, configure).encode(value, chunkSize: chunkSize) { chunk in
                chunks.append(chunk.count)
                streamed.append(contentsOf: chunk)
            }
            #expect(streamed == general, "chunk size \(chunkSize)", sourceLocation: sourceLocation)
            #expect(chunks.dropLast().allSatisfy { $0 == chunkSize }, sourceLocation: sourceLocation)
        }
        return generated
    }

    static func corpus(_ name: String) throws -> Data { try DifferentialTests.corpus(name) }

    @Test("The corpora's models: same bytes as the general path and JSONEncoder (.sortedKeys), and round trips")
    func corpora() throws {
        let twitter = try StreamingJSONDecoder().decode(Twitter.self, from: try Self.corpus("twitter.json"))
        let citm = try StreamingJSONDecoder().decode(CitmCatalog.self, from: try Self.corpus("citm_catalog.json"))
        let canada = try StreamingJSONDecoder().decode(Canada.self, from: try Self.corpus("canada.json"))
        func check<T: Codable & Equatable>(_ value: T) throws {
            let compact = try Self.same(value)
            let sorted = try Self.same(value) { $0.outputFormatting = [.sortedKeys] }
            let foundation = JSONEncoder()
            foundation.outputFormatting = [.sortedKeys]
            #expect(Self.text(sorted) == Self.text(try foundation.encode(value)))
            #expect(try StreamingJSONDecoder().decode(T.self, from: compact) == value)
            #expect(try JSONDecoder().decode(T.self, from: compact) == value)
            for strategy in [StreamingJSONEncoder.KeyEncodingStrategy.convertToSnakeCase, .convertToKebabCase] {
                try Self.same(value) { $0.keyEncodingStrategy = strategy }
                try Self.same(value) {
                    $0.keyEncodingStrategy = strategy
                    $0.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                }
            }
        }
        try check(twitter)
        try check(citm)
        try check(canada)
        try check(twitter.statuses)
    }
}
