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
    /// Present in 100 of 100.
    var resultType: String
    /// Present in 100 of 100.
    var isoLanguageCode: String
}

@JSONModel
struct User: Codable {
    /// Present in 100 of 100.
    var id: Int64
    /// Present in 100 of 100.
    var idStr: String
    /// Present in 100 of 100.
    var name: String
    /// Present in 100 of 100.
    var screenName: String
    /// Present in 100 of 100.
    var location: String
    /// Present in 100 of 100.
    var description: String
    /// Present in 100 of 100, null in 89.
    var url: URL?
    /// Present in 100 of 100.
    var entities: Entities
    /// Present in 100 of 100.
    var protected: Bool
    /// Present in 100 of 100.
    var followersCount: Int
    /// Present in 100 of 100.
    var friendsCount: Int
    /// Present in 100 of 100.
    var listedCount: Int
    /// Present in 100 of 100.
    var createdAt: String
    /// Present in 100 of 100.
    var favouritesCount: Int
    /// Present in 100 of 100, null in 81.
    var utcOffset: Int?
    /// Present in 100 of 100, null in 81.
    var timeZone: String?
    /// Present in 100 of 100.
    var geoEnabled: Bool
    /// Present in 100 of 100.
    var verified: Bool
    /// Present in 100 of 100.
    var statusesCount: Int
    /// Present in 100 of 100.
    var lang: String
    /// Present in 100 of 100.
    var contributorsEnabled: Bool
    /// Present in 100 of 100.
    var isTranslator: Bool
    /// Present in 100 of 100.
    var isTranslationEnabled: Bool
    /// Present in 100 of 100.
    var profileBackgroundColor: String
    /// Present in 100 of 100.
    var profileBackgroundImageUrl: URL
    /// Present in 100 of 100.
    var profileBackgroundImageUrlHttps: URL
    /// Present in 100 of 100.
    var profileBackgroundTile: Bool
    /// Present in 100 of 100.
    var profileImageUrl: URL
    /// Present in 100 of 100.
    var profileImageUrlHttps: URL
    /// Present in 86 of 100.
    var profileBannerUrl: URL?
    /// Present in 100 of 100.
    var profileLinkColor: String
    /// Present in 100 of 100.
    var profileSidebarBorderColor: String
    /// Present in 100 of 100.
    var profileSidebarFillColor: String
    /// Present in 100 of 100.
    var profileTextColor: String
    /// Present in 100 of 100.
    var profileUseBackgroundImage: Bool
    /// Present in 100 of 100.
    var defaultProfile: Bool
    /// Present in 100 of 100.
    var defaultProfileImage: Bool
    /// Present in 100 of 100.
    var following: Bool
    /// Present in 100 of 100.
    var followRequestSent: Bool
    /// Present in 100 of 100.
    var notifications: Bool
}

@JSONModel
struct Entities: Codable {
    /// Present in 100 of 100.
    var description: Description
    /// Present in 11 of 100.
    var url: Url2?
}

@JSONModel
struct Description: Codable {
    /// Present in 100 of 100.
    var urls: [Url]
}

@JSONModel
struct Url: Codable {
    /// Present in 4 of 4.
    var url: URL
    /// Present in 4 of 4.
    var expandedUrl: URL
    /// Present in 4 of 4.
    var displayUrl: String
    /// Present in 4 of 4.
    var indices: [Int]
}

@JSONModel
struct Url2: Codable {
    /// Present in 11 of 11.
    var urls: [Url3]
}

@JSONModel
struct Url3: Codable {
    /// Present in 11 of 11.
    var url: URL
    /// Present in 11 of 11.
    var expandedUrl: URL
    /// Present in 11 of 11.
    var displayUrl: String
    /// Present in 11 of 11.
    var indices: [Int]
}

@JSONModel
struct Entities2: Codable {
    /// Present in 100 of 100.
    var hashtags: [Hashtag]
    /// Present in 100 of 100.
    var symbols: [JSONValue]
    /// Present in 100 of 100.
    var urls: [Url4]
    /// Present in 100 of 100.
    var userMentions: [UserMention]
    /// Present in 6 of 100.
    var media: [Media]?
}

@JSONModel
struct Hashtag: Codable {
    /// Present in 8 of 8.
    var text: String
    /// Present in 8 of 8.
    var indices: [Int]
}

@JSONModel
struct Url4: Codable {
    /// Present in 13 of 13.
    var url: URL
    /// Present in 13 of 13.
    var expandedUrl: URL
    /// Present in 13 of 13.
    var displayUrl: String
    /// Present in 13 of 13.
    var indices: [Int]
}

@JSONModel
struct UserMention: Codable {
    /// Present in 87 of 87.
    var screenName: String
    /// Present in 87 of 87.
    var name: String
    /// Present in 87 of 87.
    var id: Int64
    /// Present in 87 of 87.
    var idStr: String
    /// Present in 87 of 87.
    var indices: [Int]
}

@JSONModel
struct Media: Codable {
    /// Present in 6 of 6.
    var id: Int64
    /// Present in 6 of 6.
    var idStr: String
    /// Present in 6 of 6.
    var indices: [Int]
    /// Present in 6 of 6.
    var mediaUrl: URL
    /// Present in 6 of 6.
    var mediaUrlHttps: URL
    /// Present in 6 of 6.
    var url: URL
    /// Present in 6 of 6.
    var displayUrl: String
    /// Present in 6 of 6.
    var expandedUrl: URL
    /// Present in 6 of 6.
    var type: String
    /// Present in 6 of 6.
    var sizes: Sizes
    /// Present in 4 of 6.
    var sourceStatusId: Int64?
    /// Present in 4 of 6.
    var sourceStatusIdStr: String?
}

@JSONModel
struct Sizes: Codable {
    /// Present in 6 of 6.
    var medium: Medium
    /// Present in 6 of 6.
    var small: Small
    /// Present in 6 of 6.
    var thumb: Thumb
    /// Present in 6 of 6.
    var large: Large
}

@JSONModel
struct Medium: Codable {
    /// Present in 6 of 6.
    var w: Int
    /// Present in 6 of 6.
    var h: Int
    /// Present in 6 of 6.
    var resize: String
}

@JSONModel
struct Small: Codable {
    /// Present in 6 of 6.
    var w: Int
    /// Present in 6 of 6.
    var h: Int
    /// Present in 6 of 6.
    var resize: String
}

@JSONModel
struct Thumb: Codable {
    /// Present in 6 of 6.
    var w: Int
    /// Present in 6 of 6.
    var h: Int
    /// Present in 6 of 6.
    var resize: String
}

@JSONModel
struct Large: Codable {
    /// Present in 6 of 6.
    var w: Int
    /// Present in 6 of 6.
    var h: Int
    /// Present in 6 of 6.
    var resize: String
}

@JSONModel
struct RetweetedStatus: Codable {
    /// Present in 73 of 73.
    var metadata: Metadata2
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
    var user: User2
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
    var entities: Entities4
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
struct Metadata2: Codable {
    /// Present in 73 of 73.
    var resultType: String
    /// Present in 73 of 73.
    var isoLanguageCode: String
}

@JSONModel
struct User2: Codable {
    /// Present in 73 of 73.
    var id: Int64
    /// Present in 73 of 73.
    var idStr: String
    /// Present in 73 of 73.
    var name: String
    /// Present in 73 of 73.
    var screenName: String
    /// Present in 73 of 73.
    var location: String
    /// Present in 73 of 73.
    var description: String
    /// Present in 73 of 73, null in 66.
    var url: URL?
    /// Present in 73 of 73.
    var entities: Entities3
    /// Present in 73 of 73.
    var protected: Bool
    /// Present in 73 of 73.
    var followersCount: Int
    /// Present in 73 of 73.
    var friendsCount: Int
    /// Present in 73 of 73.
    var listedCount: Int
    /// Present in 73 of 73.
    var createdAt: String
    /// Present in 73 of 73.
    var favouritesCount: Int
    /// Present in 73 of 73, null in 62.
    var utcOffset: Int?
    /// Present in 73 of 73, null in 62.
    var timeZone: String?
    /// Present in 73 of 73.
    var geoEnabled: Bool
    /// Present in 73 of 73.
    var verified: Bool
    /// Present in 73 of 73.
    var statusesCount: Int
    /// Present in 73 of 73.
    var lang: String
    /// Present in 73 of 73.
    var contributorsEnabled: Bool
    /// Present in 73 of 73.
    var isTranslator: Bool
    /// Present in 73 of 73.
    var isTranslationEnabled: Bool
    /// Present in 73 of 73.
    var profileBackgroundColor: String
    /// Present in 73 of 73.
    var profileBackgroundImageUrl: URL
    /// Present in 73 of 73.
    var profileBackgroundImageUrlHttps: URL
    /// Present in 73 of 73.
    var profileBackgroundTile: Bool
    /// Present in 73 of 73.
    var profileImageUrl: URL
    /// Present in 73 of 73.
    var profileImageUrlHttps: URL
    /// Present in 71 of 73.
    var profileBannerUrl: URL?
    /// Present in 73 of 73.
    var profileLinkColor: String
    /// Present in 73 of 73.
    var profileSidebarBorderColor: String
    /// Present in 73 of 73.
    var profileSidebarFillColor: String
    /// Present in 73 of 73.
    var profileTextColor: String
    /// Present in 73 of 73.
    var profileUseBackgroundImage: Bool
    /// Present in 73 of 73.
    var defaultProfile: Bool
    /// Present in 73 of 73.
    var defaultProfileImage: Bool
    /// Present in 73 of 73.
    var following: Bool
    /// Present in 73 of 73.
    var followRequestSent: Bool
    /// Present in 73 of 73.
    var notifications: Bool
}

@JSONModel
struct Entities3: Codable {
    /// Present in 73 of 73.
    var description: Description2
    /// Present in 7 of 73.
    var url: Url6?
}

@JSONModel
struct Description2: Codable {
    /// Present in 73 of 73.
    var urls: [Url5]
}

@JSONModel
struct Url5: Codable {
    /// Present in 4 of 4.
    var url: URL
    /// Present in 4 of 4.
    var expandedUrl: URL
    /// Present in 4 of 4.
    var displayUrl: String
    /// Present in 4 of 4.
    var indices: [Int]
}

@JSONModel
struct Url6: Codable {
    /// Present in 7 of 7.
    var urls: [Url7]
}

@JSONModel
struct Url7: Codable {
    /// Present in 7 of 7.
    var url: URL
    /// Present in 7 of 7.
    var expandedUrl: URL
    /// Present in 7 of 7.
    var displayUrl: String
    /// Present in 7 of 7.
    var indices: [Int]
}

@JSONModel
struct Entities4: Codable {
    /// Present in 73 of 73.
    var hashtags: [Hashtag2]
    /// Present in 73 of 73.
    var symbols: [JSONValue]
    /// Present in 73 of 73.
    var urls: [Url8]
    /// Present in 73 of 73.
    var userMentions: [UserMention2]
    /// Present in 4 of 73.
    var media: [Media2]?
}

@JSONModel
struct Hashtag2: Codable {
    /// Present in 2 of 2.
    var text: String
    /// Present in 2 of 2.
    var indices: [Int]
}

@JSONModel
struct Url8: Codable {
    /// Present in 6 of 6.
    var url: URL
    /// Present in 6 of 6.
    var expandedUrl: URL
    /// Present in 6 of 6.
    var displayUrl: String
    /// Present in 6 of 6.
    var indices: [Int]
}

@JSONModel
struct UserMention2: Codable {
    /// Present in 4 of 4.
    var screenName: String
    /// Present in 4 of 4.
    var name: String
    /// Present in 4 of 4.
    var id: Int64
    /// Present in 4 of 4.
    var idStr: String
    /// Present in 4 of 4.
    var indices: [Int]
}

@JSONModel
struct Media2: Codable {
    /// Present in 4 of 4.
    var id: Int64
    /// Present in 4 of 4.
    var idStr: String
    /// Present in 4 of 4.
    var indices: [Int]
    /// Present in 4 of 4.
    var mediaUrl: URL
    /// Present in 4 of 4.
    var mediaUrlHttps: URL
    /// Present in 4 of 4.
    var url: URL
    /// Present in 4 of 4.
    var displayUrl: String
    /// Present in 4 of 4.
    var expandedUrl: URL
    /// Present in 4 of 4.
    var type: String
    /// Present in 4 of 4.
    var sizes: Sizes2
    /// Present in 1 of 4.
    var sourceStatusId: Int64?
    /// Present in 1 of 4.
    var sourceStatusIdStr: String?
}

@JSONModel
struct Sizes2: Codable {
    /// Present in 4 of 4.
    var medium: Medium2
    /// Present in 4 of 4.
    var small: Small2
    /// Present in 4 of 4.
    var thumb: Thumb2
    /// Present in 4 of 4.
    var large: Large2
}

@JSONModel
struct Medium2: Codable {
    /// Present in 4 of 4.
    var w: Int
    /// Present in 4 of 4.
    var h: Int
    /// Present in 4 of 4.
    var resize: String
}

@JSONModel
struct Small2: Codable {
    /// Present in 4 of 4.
    var w: Int
    /// Present in 4 of 4.
    var h: Int
    /// Present in 4 of 4.
    var resize: String
}

@JSONModel
struct Thumb2: Codable {
    /// Present in 4 of 4.
    var w: Int
    /// Present in 4 of 4.
    var h: Int
    /// Present in 4 of 4.
    var resize: String
}

@JSONModel
struct Large2: Codable {
    /// Present in 4 of 4.
    var w: Int
    /// Present in 4 of 4.
    var h: Int
    /// Present in 4 of 4.
    var resize: String
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
