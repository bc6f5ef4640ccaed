import Foundation
import SluiceJSON
import SluiceJSONAPI

enum Fixtures {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Resources"
    )

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: resources.appendingPathComponent(name))
    }

    static func path(_ name: String) -> String {
        resources.appendingPathComponent(name).path
    }
}

struct Article: Resource, Encodable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: ToOne<Person>
    var comments: ToMany<Comment>
    var links: Links?
}

struct Person: Resource, Encodable {
    static let resourceType = "people"
    var id: String
    var firstName: String
    var lastName: String
    var twitter: String?
}

struct Comment: Resource, Encodable {
    static let resourceType = "comments"
    var id: String
    var body: String
    var author: ToOne<Person>?
}

/// Splits bytes into an async sequence of chunks, for the streaming APIs.
struct ChunkSequence: AsyncSequence {
    typealias Element = [UInt8]
    let bytes: [UInt8]
    let size: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        let size: Int
        var offset = 0

        mutating func next() async -> [UInt8]? {
            guard offset < bytes.count else { return nil }
            let end = Swift.min(offset + size, bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes, size: size) }
}
