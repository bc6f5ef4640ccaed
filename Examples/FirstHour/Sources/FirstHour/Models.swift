import Foundation
import SluiceJSONAPI

struct Article: Resource, Codable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var publishedAt: Date  // "published-at": "2024-02-29T12:30:00Z"
    var author: ToOne<Person>
    var comments: ToMany<Comment>
    var subject: ToOne<AnyResource>  // polymorphic: a person, an article, ...
}

struct Person: Resource, Codable {
    static let resourceType = "people"
    var id: String
    var displayName: String
}

struct Comment: Resource, Codable {
    static let resourceType = "comments"
    var id: String
    var body: String
}
