// The same data model three ways: Sluice resource models, Codable JSON:API structs for
// Foundation's JSONDecoder, and plain structs filled by hand from JSONSerialization. Every
// contender ends with the same linked result, summarised by `Checksum`, checked equal before timing.

import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceMacros

/// What a linked decode must produce, reduced to numbers every contender can compute.
struct Checksum: Equatable, CustomStringConvertible {
    var articles = 0
    var views = 0
    var authorNameBytes = 0
    var resolvedComments = 0
    var commentLikes = 0
    var commentAuthors = 0
    var subjects = 0

    var description: String {
        "articles \(articles), views \(views), author name bytes \(authorNameBytes), comments \(resolvedComments), likes \(commentLikes), comment authors \(commentAuthors), subjects \(subjects)"
    }
}

// MARK: Sluice

/// What the checks read of an article, a person and a comment: one set of checks serves the
/// Codable models and the `@JSONModel` ones.
protocol ArticleModel: Resource {
    associatedtype Author: PersonModel
    associatedtype Remark: CommentModel
    var id: String { get }
    var views: Int { get }
    var author: ToOne<Author> { get }
    var comments: ToMany<Remark> { get }
    var subject: ToOne<AnyResource> { get }
}

protocol PersonModel: Resource {
    var id: String { get }
    var name: String { get }
}

protocol CommentModel: Resource {
    associatedtype Author: PersonModel
    var id: String { get }
    var likes: Int { get }
    var author: ToOne<Author> { get }
}

/// A family of models for the suite's document: the Codable ones (`SluiceModels`) and the
/// generated ones (`GeneratedModels`).
///
/// Each family spells out its own `wholeDocument`: navigating `Linked` goes through key paths,
/// and a key path to a protocol requirement in generic code is built at run time, on every use
/// (measured: a third of the whole decode's instructions).
protocol ModelFamily {
    associatedtype Article: ArticleModel where Article.Author == Person, Article.Remark == Comment
    associatedtype Person: PersonModel
    associatedtype Comment: CommentModel where Comment.Author == Person
}

extension ModelFamily where Article: Encodable, Person: Encodable, Comment: Encodable {
    /// The document's primary articles and its included people and comments, as models: what
    /// the encoding benchmark writes back.
    static func models(_ bytes: [UInt8]) throws -> (articles: [Article], included: [any Resource & Encodable]) {
        let document = try decoder.decode([Linked<Article>].self, from: bytes)
        let included = document.included.compactMap { resource -> (any Resource & Encodable)? in
            if let person = resource.as(Person.self) { return person }
            if let comment = resource.as(Comment.self) { return comment }
            return nil
        }
        return (document.data.map(\.model), included)
    }
}

extension ModelFamily {
    static var decoder: JSONAPIDecoder { decoder(.automatic) }

    /// The decoder, reading each document with `threads` (the parallel path).
    static func decoder(_ threads: Parallelism) -> JSONAPIDecoder {
        let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        decoder.parallelism = threads
        return decoder
    }

    /// Streaming: resources are handed over as they close; the consumer keeps only what it needs
    /// to link (here, names and likes by id), as an importer would.
    static func streaming(_ bytes: [UInt8], threads: Parallelism = .automatic) async throws -> Checksum {
        var sum = Checksum()
        var names: [String: Int] = [:]
        var likes: [String: (likes: Int, author: String?)] = [:]
        var articles: [(id: String, views: Int, author: String?, comments: [String], subject: ResourceIdentifier?)] = []
        let chunks = ByteChunks(bytes: bytes, size: 64 * 1024)
        for try await streamed in decoder(threads).resources(from: chunks) {
            // Each model is read where it lies: only the fields kept are copied.
            let resource = streamed.resource
            if let article = resource.withModel(
                as: Article.self,
                {
                    (
                        $0.id, $0.views, $0.author.identifier?.id, $0.comments.identifiers.compactMap(\.id),
                        $0.subject.identifier
                    )
                }
            ) {
                articles.append(article)
            } else if let (id, nameBytes) = resource.withModel(as: Person.self, { ($0.id, $0.name.utf8.count) }) {
                names[id] = nameBytes
            } else if let (id, comment) = resource.withModel(
                as: Comment.self,
                { ($0.id, (likes: $0.likes, author: $0.author.identifier?.id)) }
            ) {
                likes[id] = comment
            }
        }
        let articleIDs = Set(articles.map(\.id))
        for article in articles {
            sum.articles += 1
            sum.views += article.views
            sum.authorNameBytes += article.author.flatMap { names[$0] } ?? 0
            for id in article.comments {
                guard let comment = likes[id] else { continue }
                sum.resolvedComments += 1
                sum.commentLikes += comment.likes
                if let author = comment.author, names[author] != nil { sum.commentAuthors += 1 }
            }
            if let subject = article.subject, let id = subject.id,
                subject.type == "people" ? names[id] != nil : articleIDs.contains(id)
            {
                sum.subjects += 1
            }
        }
        return sum
    }
}

/// The same models with readers generated by `@JSONModel`.
enum GeneratedModels: ModelFamily {
    /// Decodes the whole document and follows every link the checksum counts.
    static func wholeDocument(_ bytes: [UInt8], threads: Parallelism = .automatic) throws -> Checksum {
        checksum(of: try document(bytes, threads: threads))
    }

    /// `wholeDocument`'s decode, apart from its walk (`checksum(of:)`) so that the Profile harness
    /// can time the two, and the document's release, each on its own.
    static func document(_ bytes: [UInt8], threads: Parallelism = .automatic) throws -> Document<[Linked<Article>]> {
        try decoder(threads).decode([Linked<Article>].self, from: bytes)
    }

    /// Follows every link the checksum counts.
    static func checksum(of document: Document<[Linked<Article>]>) -> Checksum {
        var sum = Checksum()
        for article in document.data {
            sum.articles += 1
            sum.views += article.views
            sum.authorNameBytes += article.author?.name.utf8.count ?? 0
            for comment in article.comments {
                sum.resolvedComments += 1
                sum.commentLikes += comment.likes
                if comment.author != nil { sum.commentAuthors += 1 }
            }
            if article.subject != nil { sum.subjects += 1 }
        }
        return sum
    }

    @JSONModel
    struct Metadata: Codable {
        var wordCount: Int
        var flags: [Bool?]
        var ratio: Double
    }

    @JSONModel
    struct Article: ArticleModel, Encodable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var body: String
        var published: Bool
        var views: Int
        var rating: Double
        var publishedAt: String
        var subtitle: String?
        var tags: [String]
        var metadata: Metadata
        var author: ToOne<Person>
        var comments: ToMany<Comment>
        var subject: ToOne<AnyResource>
    }

    @JSONModel
    struct Person: PersonModel, Encodable {
        static let resourceType = "people"
        var id: String
        var name: String
        var age: Int
        var email: String?
        var verified: Bool
    }

    @JSONModel
    struct Comment: CommentModel, Encodable {
        static let resourceType = "comments"
        var id: String
        var body: String
        var likes: Int
        var author: ToOne<Person>
        var article: ToOne<Article>
    }
}

enum SluiceModels: ModelFamily {
    /// Decodes the whole document and follows every link the checksum counts.
    static func wholeDocument(_ bytes: [UInt8], threads: Parallelism = .automatic) throws -> Checksum {
        let document = try decoder(threads).decode([Linked<Article>].self, from: bytes)
        var sum = Checksum()
        for article in document.data {
            sum.articles += 1
            sum.views += article.views
            sum.authorNameBytes += article.author?.name.utf8.count ?? 0
            for comment in article.comments {
                sum.resolvedComments += 1
                sum.commentLikes += comment.likes
                if comment.author != nil { sum.commentAuthors += 1 }
            }
            if article.subject != nil { sum.subjects += 1 }
        }
        return sum
    }

    struct Metadata: Codable {
        var wordCount: Int
        var flags: [Bool?]
        var ratio: Double
    }

    struct Article: ArticleModel, Encodable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var body: String
        var published: Bool
        var views: Int
        var rating: Double
        var publishedAt: String
        var subtitle: String?
        var tags: [String]
        var metadata: Metadata
        var author: ToOne<Person>
        var comments: ToMany<Comment>
        var subject: ToOne<AnyResource>
    }

    struct Person: PersonModel, Encodable {
        static let resourceType = "people"
        var id: String
        var name: String
        var age: Int
        var email: String?
        var verified: Bool
    }

    struct Comment: CommentModel, Encodable {
        static let resourceType = "comments"
        var id: String
        var body: String
        var likes: Int
        var author: ToOne<Person>
        var article: ToOne<Article>
    }
}

struct ByteChunks: AsyncSequence {
    typealias Element = ArraySlice<UInt8>
    let bytes: [UInt8]
    let size: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        let size: Int
        var offset = 0

        mutating func next() async -> ArraySlice<UInt8>? {
            guard offset < bytes.count else { return nil }
            let end = Swift.min(offset + size, bytes.count)
            defer { offset = end }
            return bytes[offset..<end]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes, size: size) }
}

// MARK: Foundation JSONDecoder + Codable JSON:API structs

enum CodableModels {
    struct Identifier: Codable, Hashable {
        var type: String
        var id: String
    }

    struct ToOne: Codable { var data: Identifier? }
    struct ToMany: Codable { var data: [Identifier] }

    struct Metadata: Codable {
        var wordCount: Int
        var flags: [Bool?]
        var ratio: Double
        enum CodingKeys: String, CodingKey {
            case wordCount = "word-count", flags, ratio
        }
    }

    struct ArticleAttributes: Codable {
        var title: String
        var body: String
        var published: Bool
        var views: Int
        var rating: Double
        var publishedAt: String
        var subtitle: String?
        var tags: [String]
        var metadata: Metadata
        enum CodingKeys: String, CodingKey {
            case title, body, published, views, rating, publishedAt = "published-at", subtitle, tags, metadata
        }
    }

    struct ArticleRelationships: Codable {
        var author: ToOne
        var comments: ToMany
        var subject: ToOne
    }

    struct ArticleResource: Codable {
        var type: String
        var id: String
        var attributes: ArticleAttributes
        var relationships: ArticleRelationships
    }

    struct PersonAttributes: Codable {
        var name: String
        var age: Int
        var email: String?
        var verified: Bool
    }

    struct CommentAttributes: Codable {
        var body: String
        var likes: Int
    }

    struct CommentRelationships: Codable {
        var author: ToOne
        var article: ToOne
    }

    /// An included resource of any of the document's types, chosen by `type`.
    enum Included: Codable {
        case person(id: String, PersonAttributes)
        case comment(id: String, CommentAttributes, CommentRelationships)
        case other

        enum CodingKeys: String, CodingKey { case type, id, attributes, relationships }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let id = try container.decode(String.self, forKey: .id)
            switch try container.decode(String.self, forKey: .type) {
            case "people": self = .person(id: id, try container.decode(PersonAttributes.self, forKey: .attributes))
            case "comments":
                self = .comment(
                    id: id,
                    try container.decode(CommentAttributes.self, forKey: .attributes),
                    try container.decode(CommentRelationships.self, forKey: .relationships)
                )
            default: self = .other
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .person(let id, let attributes):
                try container.encode("people", forKey: .type)
                try container.encode(id, forKey: .id)
                try container.encode(attributes, forKey: .attributes)
            case .comment(let id, let attributes, let relationships):
                try container.encode("comments", forKey: .type)
                try container.encode(id, forKey: .id)
                try container.encode(attributes, forKey: .attributes)
                try container.encode(relationships, forKey: .relationships)
            case .other:
                break
            }
        }
    }

    struct Document: Codable {
        var data: [ArticleResource]
        var included: [Included]
    }

    static func decodeAndLink(_ data: Data) throws -> Checksum {
        let document = try JSONDecoder().decode(Document.self, from: data)
        var people: [Identifier: PersonAttributes] = [:]
        var comments: [Identifier: (CommentAttributes, CommentRelationships)] = [:]
        for resource in document.included {
            switch resource {
            case .person(let id, let attributes): people[Identifier(type: "people", id: id)] = attributes
            case .comment(let id, let attributes, let relationships):
                comments[Identifier(type: "comments", id: id)] = (attributes, relationships)
            case .other: break
            }
        }
        let articles = Set(document.data.map { Identifier(type: "articles", id: $0.id) })
        var sum = Checksum()
        for article in document.data {
            sum.articles += 1
            sum.views += article.attributes.views
            sum.authorNameBytes += article.relationships.author.data.flatMap { people[$0] }?.name.utf8.count ?? 0
            for identifier in article.relationships.comments.data {
                guard let comment = comments[identifier] else { continue }
                sum.resolvedComments += 1
                sum.commentLikes += comment.0.likes
                if let author = comment.1.author.data, people[author] != nil { sum.commentAuthors += 1 }
            }
            if let subject = article.relationships.subject.data, people[subject] != nil || articles.contains(subject) {
                sum.subjects += 1
            }
        }
        return sum
    }
}

// MARK: Foundation JSONSerialization + hand mapping

enum HandMapped {
    struct Person { var name: String }
    struct Comment {
        var likes: Int
        var author: String?
    }

    static func identifier(_ value: Any?) -> (type: String, id: String)? {
        guard let object = value as? [String: Any], let type = object["type"] as? String,
            let id = object["id"] as? String
        else {
            return nil
        }
        return (type, id)
    }

    static func decodeAndLink(_ data: Data) throws -> Checksum {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let data = root["data"] as? [[String: Any]], let included = root["included"] as? [[String: Any]]
        else { throw CocoaError(.coderReadCorrupt) }
        var people: [String: Person] = [:]
        var comments: [String: Comment] = [:]
        for resource in included {
            guard let type = resource["type"] as? String, let id = resource["id"] as? String,
                let attributes = resource["attributes"] as? [String: Any]
            else { continue }
            if type == "people", let name = attributes["name"] as? String {
                people[id] = Person(name: name)
            } else if type == "comments", let likes = attributes["likes"] as? Int {
                let relationships = resource["relationships"] as? [String: Any]
                let author = identifier((relationships?["author"] as? [String: Any])?["data"])?.id
                comments[id] = Comment(likes: likes, author: author)
            }
        }
        var articleIDs = Set<String>()
        for article in data { if let id = article["id"] as? String { articleIDs.insert(id) } }
        var sum = Checksum()
        for article in data {
            guard let attributes = article["attributes"] as? [String: Any],
                let relationships = article["relationships"] as? [String: Any]
            else {
                continue
            }
            sum.articles += 1
            sum.views += attributes["views"] as? Int ?? 0
            if let author = identifier((relationships["author"] as? [String: Any])?["data"]),
                let person = people[author.id]
            {
                sum.authorNameBytes += person.name.utf8.count
            }
            let linkage = (relationships["comments"] as? [String: Any])?["data"] as? [Any] ?? []
            for entry in linkage {
                guard let id = identifier(entry)?.id, let comment = comments[id] else { continue }
                sum.resolvedComments += 1
                sum.commentLikes += comment.likes
                if let author = comment.author, people[author] != nil { sum.commentAuthors += 1 }
            }
            if let subject = identifier((relationships["subject"] as? [String: Any])?["data"]),
                subject.type == "people" ? people[subject.id] != nil : articleIDs.contains(subject.id)
            {
                sum.subjects += 1
            }
        }
        return sum
    }
}
