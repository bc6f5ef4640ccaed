import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTools
import Testing

/// The models `sluice models` writes for a document of `sluice generate` (SampleDocumentModels.swift,
/// its output as checked in) compile with `@JSONModel` and decode every document the generator
/// writes, whatever its size, seed or order.
@Suite("Models written for generated documents")
struct SampleDocumentModelsTests {
    static func document(articles: Int, seed: UInt64, includedFirst: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles, includedFirst: includedFirst, seed: seed).write {
            bytes.append(contentsOf: $0)
        }
        return bytes
    }

    @Test("the checked-in models are what the generator writes for its document")
    func checkedInAsWritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("generated-\(UUID()).json").path
        try Data(Self.document(articles: 40, seed: 11)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sampler = ModelSampler()
        try sampler.read(try FileChunkReader(path: path))
        let checkedIn = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("SampleDocumentModels.swift"),
            encoding: .utf8
        )
        #expect(sampler.models().source == checkedIn)
    }

    @Test(
        "they decode generated documents of other sizes, seeds and orders, as the flattened lines say",
        arguments: [(40, 11, false), (500, 3, true), (1_000, 8, false)]
    )
    func decode(articles: Int, seed: UInt64, includedFirst: Bool) throws {
        let bytes = Self.document(articles: articles, seed: seed, includedFirst: includedFirst)
        let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        decoder.dateDecodingStrategy = .iso8601
        let document = try decoder.decode([Linked<Article>].self, from: bytes)
        #expect(document.data.count == articles)
        var titles: [String] = []
        var flattener = JSONAPIFlattener()
        flattener.parallelism = .workers(1)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flatten-\(UUID()).json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The output as a whole: included resources held back until data is done come back in
        // chunks of any size.
        var output: [UInt8] = []
        try flattener.flatten(try FileChunkReader(path: path)) { output.append(contentsOf: $0) }
        for line in output.split(separator: UInt8(ascii: "\n")) {
            let tape = try JSONParser.parse(Array(line))
            guard case .object(let resource) = try tape.value(at: tape.startIndex).jsonValue(),
                resource["type"] == .string("articles"), case .object(let attributes)? = resource["attributes"],
                case .string(let title)? = attributes["title"]
            else { continue }
            titles.append(title)
        }
        #expect(document.data.map { $0.title } == titles)
        #expect(document.data.allSatisfy { $0.author != nil })
        #expect(document.included.count > articles)
    }
}
