// Written by `sluice models` from 1 sample.
//
// Decode with:
//     let decoder = StreamingJSONDecoder()
//     decoder.keyDecodingStrategy = .convertFromSnakeCase
//     let value = try decoder.decode(Twitter.self, from: data)

import Foundation
import SluiceMacros

@JSONModel
struct Twitter: Codable {
    /// Present in 1 of 1.
    var statuses: [Status]
    /// Present in 1 of 1.
    var searchMetadata: SearchMetadata
}

@JSONModel
struct Status: Codable {
    /// Present in 100 of 100.
    var metadata: Metadata
    /// Present in 100 of 100.
    var createdAt: String
    /// Present in 100 of 100.
    var id: Int64
    /// Present in 100 of 100.
    var idStr: String
    /// Present in 100 of 100.
    var text: String
    /// Present in 100 of 100.
    var source: String
    /// Present in 100 of 100.
    var truncated: Bool
    /// Present in 100 of 100, null in 94.
    var inReplyToStatusId: Int64?
    /// Present in 100 of 100, null in 94.
    var inReplyToStatusIdStr: String?
    /// Present in 100 of 100, null in 91.
    var inReplyToUserId: Int64?
    /// Present in 100 of 100, null in 91.
    var inReplyToUserIdStr: String?
    /// Present in 100 of 100, null in 91.
    var inReplyToScreenName: String?
    /// Present in 100 of 100.
    var user: User
    /// Present in 100 of 100, always null: its type is unknown.
    var geo: JSONValue?
    /// Present in 100 of 100, always null: its type is unknown.
    var coordinates: JSONValue?
    /// Present in 100 of 100, always null: its type is unknown.
    var place: JSONValue?
    /// Present in 100 of 100, always null: its type is unknown.
    var contributors: JSONValue?
    /// Present in 100 of 100.
    var retweetCount: Int
    /// Present in 100 of 100.
    var favoriteCount: Int
    /// Present in 100 of 100.
    var entities: Entities2
    /// Present in 100 of 100.
    var favorited: Bool
    /// Present in 100 of 100.
    var retweeted: Bool
    /// Present in 100 of 100.
    var lang: String
    /// Present in 73 of 100.
    var retweetedStatus: RetweetedStatus?
    /// Present in 15 of 100.
    var possiblySensitive: Bool?
}

@JSONModel
struct Metadata: Codable {
    /// Present in 173 of 173.
    var resultType: String
    /// Present in 173 of 173.
    var isoLanguageCode: String
}

@JSONModel
struct User: Codable {
    /// Present in 173 of 173.
    var id: Int64
    /// Present in 173 of 173.
    var idStr: String
    /// Present in 173 of 173.
    var name: String
    /// Present in 173 of 173.
    var screenName: String
    /// Present in 173 of 173.
    var location: String
    /// Present in 173 of 173.
    var description: String
    /// Present in 173 of 173, null in 155.
    var url: String?
    /// Present in 173 of 173.
    var entities: Entities
    /// Present in 173 of 173.
    var protected: Bool
    /// Present in 173 of 173.
    var followersCount: Int
    /// Present in 173 of 173.
    var friendsCount: Int
    /// Present in 173 of 173.
    var listedCount: Int
    /// Present in 173 of 173.
    var createdAt: String
    /// Present in 173 of 173.
    var favouritesCount: Int
    /// Present in 173 of 173, null in 143.
    var utcOffset: Int?
    /// Present in 173 of 173, null in 143.
    var timeZone: String?
    /// Present in 173 of 173.
    var geoEnabled: Bool
    /// Present in 173 of 173.
    var verified: Bool
    /// Present in 173 of 173.
    var statusesCount: Int
    /// Present in 173 of 173.
    var lang: String
    /// Present in 173 of 173.
    var contributorsEnabled: Bool
    /// Present in 173 of 173.
    var isTranslator: Bool
    /// Present in 173 of 173.
    var isTranslationEnabled: Bool
    /// Present in 173 of 173.
    var profileBackgroundColor: String
    /// Present in 173 of 173.
    var profileBackgroundImageUrl: String
    /// Present in 173 of 173.
    var profileBackgroundImageUrlHttps: String
    /// Present in 173 of 173.
    var profileBackgroundTile: Bool
    /// Present in 173 of 173.
    var profileImageUrl: String
    /// Present in 173 of 173.
    var profileImageUrlHttps: String
    /// Present in 157 of 173.
    var profileBannerUrl: String?
    /// Present in 173 of 173.
    var profileLinkColor: String
    /// Present in 173 of 173.
    var profileSidebarBorderColor: String
    /// Present in 173 of 173.
    var profileSidebarFillColor: String
    /// Present in 173 of 173.
    var profileTextColor: String
    /// Present in 173 of 173.
    var profileUseBackgroundImage: Bool
    /// Present in 173 of 173.
    var defaultProfile: Bool
    /// Present in 173 of 173.
    var defaultProfileImage: Bool
    /// Present in 173 of 173.
    var following: Bool
    /// Present in 173 of 173.
    var followRequestSent: Bool
    /// Present in 173 of 173.
    var notifications: Bool
}

@JSONModel
struct Entities: Codable {
    /// Present in 173 of 173.
    var description: Entity
    /// Present in 18 of 173.
    var url: Entity?
}

@JSONModel
struct Entity: Codable {
    /// Present in 191 of 191.
    var urls: [Url]
}

@JSONModel
struct Url: Codable {
    /// Present in 45 of 45.
    var url: String
    /// Present in 45 of 45.
    var expandedUrl: String
    /// Present in 45 of 45.
    var displayUrl: String
    /// Present in 45 of 45.
    var indices: [Int]
}

@JSONModel
struct Entities2: Codable {
    /// Present in 173 of 173.
    var hashtags: [Hashtag]
    /// Present in 173 of 173.
    var symbols: [JSONValue]
    /// Present in 173 of 173.
    var urls: [Url]
    /// Present in 173 of 173.
    var userMentions: [UserMention]
    /// Present in 10 of 173.
    var media: [Media]?
}

@JSONModel
struct Hashtag: Codable {
    /// Present in 10 of 10.
    var text: String
    /// Present in 10 of 10.
    var indices: [Int]
}

@JSONModel
struct UserMention: Codable {
    /// Present in 91 of 91.
    var screenName: String
    /// Present in 91 of 91.
    var name: String
    /// Present in 91 of 91.
    var id: Int64
    /// Present in 91 of 91.
    var idStr: String
    /// Present in 91 of 91.
    var indices: [Int]
}

@JSONModel
struct Media: Codable {
    /// Present in 10 of 10.
    var id: Int64
    /// Present in 10 of 10.
    var idStr: String
    /// Present in 10 of 10.
    var indices: [Int]
    /// Present in 10 of 10.
    var mediaUrl: String
    /// Present in 10 of 10.
    var mediaUrlHttps: String
    /// Present in 10 of 10.
    var url: String
    /// Present in 10 of 10.
    var displayUrl: String
    /// Present in 10 of 10.
    var expandedUrl: String
    /// Present in 10 of 10.
    var type: String
    /// Present in 10 of 10.
    var sizes: Sizes
    /// Present in 5 of 10.
    var sourceStatusId: Int64?
    /// Present in 5 of 10.
    var sourceStatusIdStr: String?
}

@JSONModel
struct Sizes: Codable {
    /// Present in 10 of 10.
    var medium: Size
    /// Present in 10 of 10.
    var small: Size
    /// Present in 10 of 10.
    var thumb: Size
    /// Present in 10 of 10.
    var large: Size
}

@JSONModel
struct Size: Codable {
    /// Present in 40 of 40.
    var w: Int
    /// Present in 40 of 40.
    var h: Int
    /// Present in 40 of 40.
    var resize: String
}

@JSONModel
struct RetweetedStatus: Codable {
    /// Present in 73 of 73.
    var metadata: Metadata
    /// Present in 73 of 73.
    var createdAt: String
    /// Present in 73 of 73.
    var id: Int64
    /// Present in 73 of 73.
    var idStr: String
    /// Present in 73 of 73.
    var text: String
    /// Present in 73 of 73.
    var source: String
    /// Present in 73 of 73.
    var truncated: Bool
    /// Present in 73 of 73, null in 71.
    var inReplyToStatusId: Int64?
    /// Present in 73 of 73, null in 71.
    var inReplyToStatusIdStr: String?
    /// Present in 73 of 73, null in 70.
    var inReplyToUserId: Int64?
    /// Present in 73 of 73, null in 70.
    var inReplyToUserIdStr: String?
    /// Present in 73 of 73, null in 70.
    var inReplyToScreenName: String?
    /// Present in 73 of 73.
    var user: User
    /// Present in 73 of 73, always null: its type is unknown.
    var geo: JSONValue?
    /// Present in 73 of 73, always null: its type is unknown.
    var coordinates: JSONValue?
    /// Present in 73 of 73, always null: its type is unknown.
    var place: JSONValue?
    /// Present in 73 of 73, always null: its type is unknown.
    var contributors: JSONValue?
    /// Present in 73 of 73.
    var retweetCount: Int
    /// Present in 73 of 73.
    var favoriteCount: Int
    /// Present in 73 of 73.
    var entities: Entities2
    /// Present in 73 of 73.
    var favorited: Bool
    /// Present in 73 of 73.
    var retweeted: Bool
    /// Present in 8 of 73.
    var possiblySensitive: Bool?
    /// Present in 73 of 73.
    var lang: String
}

@JSONModel
struct SearchMetadata: Codable {
    /// Present in 1 of 1.
    var completedIn: Double
    /// Present in 1 of 1.
    var maxId: Int64
    /// Present in 1 of 1.
    var maxIdStr: String
    /// Present in 1 of 1.
    var nextResults: String
    /// Present in 1 of 1.
    var query: String
    /// Present in 1 of 1.
    var refreshUrl: String
    /// Present in 1 of 1.
    var count: Int
    /// Present in 1 of 1.
    var sinceId: Int
    /// Present in 1 of 1.
    var sinceIdStr: String
}
