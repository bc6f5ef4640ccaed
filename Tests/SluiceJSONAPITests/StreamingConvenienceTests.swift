import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// Streaming straight from files and writing any sequence, with no glue code.
@Suite("Streaming without glue")
struct StreamingConvenienceTests {
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(UUID().uuidString).json")
            .path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("FileChunkReader.chunks reads a file in order, one chunk per request, the last one short")
    func fileChunks() async throws {
        let bytes = (0..<1000).map { UInt8($0 % 251) }
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sizes: [Int] = []
        var read: [UInt8] = []
        for try await chunk in FileChunkReader.chunks(ofFileAt: path, chunkSize: 300) {
            sizes.append(chunk.count)
            read += chunk
        }
        #expect(sizes == [300, 300, 300, 100])
        #expect(read == bytes)
    }

    @Test("a file that cannot be opened fails on the first element, naming the path")
    func missingFile() async throws {
        var iterator = JSONAPIDecoder().resources(fromFileAt: "/nonexistent/sluice.json").makeAsyncIterator()
        let error = try await #require(throws: FileChunkReader.Failure.self) { _ = try await iterator.next() }
        #expect(error.path == "/nonexistent/sluice.json")
    }

    @Test("resources(fromFileAt:) streams every resource of a file with its section and pointer")
    func resourcesFromFile() async throws {
        let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self])
        var seen: [String] = []
        var titles: [String] = []
        for try await streamed in decoder.resources(fromFileAt: Fixtures.path("compound.json")) {
            seen.append("\(streamed.pointer) \(streamed.resource.type) \(streamed.resource.id ?? "-")")
            if let article = streamed.resource.as(Article.self) { titles.append(article.title) }
        }
        #expect(
            seen == ["/data/0 articles 1", "/included/0 people 9", "/included/1 comments 5", "/included/2 comments 12"]
        )
        #expect(titles == ["JSON:API paints my bikeshed!"])
    }

    struct Status: Decodable, Equatable {
        var id: Int
    }

    @Test("elements(of:at:fromFileAt:) streams the elements of an array in a file")
    func elementsFromFile() async throws {
        let path = try Self.temporaryFile(Array(#"{"statuses":[{"id":1},{"id":2},{"id":3}],"more":true}"#.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var ids: [Int] = []
        for try await status in StreamingJSONDecoder().elements(of: Status.self, at: "statuses", fromFileAt: path) {
            ids.append(status.id)
        }
        #expect(ids == [1, 2, 3])
    }

    @Test("encodeCollection takes arrays and lazy sequences, and writes what encode writes")
    func encodeSequences() throws {
        let people = (1...300).map { Person(id: String($0), firstName: "F\($0)", lastName: "L", twitter: nil) }
        let encoder = JSONAPIEncoder()
        let whole = try encoder.encode(people)
        var fromArray = Data()
        var chunks = 0
        try encoder.encodeCollection(people, chunkSize: 1024) { chunk in
            fromArray.append(contentsOf: chunk)
            chunks += 1
        }
        var fromLazy = Data()
        try encoder.encodeCollection((1...300).lazy.map { people[$0 - 1] }) { fromLazy.append(contentsOf: $0) }
        #expect(fromArray == whole)
        #expect(fromLazy == whole)
        #expect(chunks > 10)
    }
}
