// Written by `sluice models` from 1 sample: 3 resource types, 159 resources read.
//
// Decode with:
//     let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self])
//     decoder.keyDecodingStrategy = .convertFromKebabCase
//     decoder.dateDecodingStrategy = .iso8601
//     let document = try decoder.decode([Linked<Article>].self, from: data)

import Foundation
import SluiceJSONAPI
import SluiceMacros

@JSONModel
struct Article: Resource, Codable {
    static let resourceType = "articles"

    /// Present in 40 of 40.
    var id: String
    /// Present in 40 of 40.
    var title: String
    /// Present in 40 of 40.
    var body: String
    /// Present in 40 of 40.
    var published: Bool
    /// Present in 40 of 40.
    var views: Int
    /// Present in 40 of 40.
    var rating: Double
    /// Present in 40 of 40.
    var publishedAt: Date
    /// Present in 40 of 40, always null: its type is unknown.
    var subtitle: JSONValue?
    /// Present in 40 of 40.
    var tags: [String]
    /// Present in 40 of 40.
    var metadata: Metadata
    /// A relationship in 40 of 40.
    var author: ToOne<Person>
    /// A relationship in 40 of 40.
    var comments: ToMany<Comment>
    /// A relationship in 40 of 40.
    var subject: ToOne<AnyResource>
}

@JSONModel
struct Person: Resource, Codable {
    static let resourceType = "people"

    /// Present in 4 of 4.
    var id: String
    /// Present in 4 of 4.
    var name: String
    /// Present in 4 of 4.
    var age: Int
    /// Present in 4 of 4, always null: its type is unknown.
    var email: JSONValue?
    /// Present in 4 of 4.
    var verified: Bool
}

@JSONModel
struct Comment: Resource, Codable {
    static let resourceType = "comments"

    /// Present in 115 of 115.
    var id: String
    /// Present in 115 of 115.
    var body: String
    /// Present in 115 of 115.
    var likes: Int
    /// A relationship in 115 of 115.
    var author: ToOne<Person>
    /// A relationship in 115 of 115.
    var article: ToOne<Article>
}

@JSONModel
struct Metadata: Codable {
    /// Present in 40 of 40.
    var wordCount: Int
    /// Present in 40 of 40.
    var flags: [Bool?]
    /// Present in 40 of 40.
    var ratio: Double
}
