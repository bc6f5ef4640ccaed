// Written by `sluice models` from 1 sample: 2 resource types, 4 resources read.
//
// Decode with:
//     let decoder = JSONAPIDecoder(registry: [BlogPost.self, Author.self, Tag.self])
//     decoder.keyDecodingStrategy = .convertFromKebabCase
//     decoder.dateDecodingStrategy = .anyOf([.iso8601, .rfc1123])
//     let document = try decoder.decode([Linked<BlogPost>].self, from: data)

import Foundation
import SluiceJSONAPI
import SluiceMacros

@JSONModel
struct BlogPost: Resource, Codable {
    static let resourceType = "blog-posts"

    /// Present in 2 of 2.
    var id: String
    /// Present in 2 of 2.
    var title: String
    /// Present in 2 of 2.
    var publishedAt: Date
    /// Present in 2 of 2.
    var viewCount: Int
    /// Present in 2 of 2.
    var rating: Double
    /// Present in 2 of 2.
    var canonicalUrl: String
    /// Present in 2 of 2.
    var `default`: Bool
    /// Present in 2 of 2.
    var `class`: String
    /// Present in 2 of 2.
    var _2faEnabled: Bool
    /// Present in 2 of 2.
    var bigNumber: Int64
    /// Present in 2 of 2.
    var labels: [String]
    /// Present in 2 of 2.
    var stats: Stats
    /// Present in 2 of 2.
    var extra: JSONValue
    /// Present in 2 of 2, always null: its type is unknown.
    var nothing: JSONValue?
    /// A relationship in 2 of 2.
    var author: ToOne<Author>
    /// A relationship in 2 of 2.
    var subject: ToOne<AnyResource>
    /// A relationship in 2 of 2.
    var topics: ToMany<Tag>
    /// A relationship in 1 of 2, without linkage in 1.
    var editor: ToOne<AnyResource>?

    enum CodingKeys: String, CodingKey {
        case id
        case title
        case publishedAt
        case viewCount
        case rating
        case canonicalUrl
        case `default`
        case `class`
        case _2faEnabled = "2faEnabled"
        case bigNumber
        case labels
        case stats
        case extra
        case nothing
        case author
        case subject
        case topics
        case editor
    }
}

@JSONModel
struct Author: Resource, Codable {
    static let resourceType = "authors"

    /// Present in 2 of 2.
    var id: String
    /// Present in 2 of 2.
    var name: String
    /// Present in 2 of 2.
    var joined: Date
    /// Present in 1 of 2.
    var bio: String?
}

/// Only linked to in the samples, never included: its attributes are unknown.
@JSONModel
struct Tag: Resource, Codable {
    static let resourceType = "tags"

    /// The linkage's id.
    var id: String
}

@JSONModel
struct Stats: Codable {
    /// Present in 2 of 2.
    var likes: Int
    /// Present in 2 of 2.
    var shares: Int
    /// Present in 1 of 2.
    var firstShare: FirstShare?
}

@JSONModel
struct FirstShare: Codable {
    /// Present in 1 of 1.
    var network: String
    /// Present in 1 of 1.
    var at: Date
}
