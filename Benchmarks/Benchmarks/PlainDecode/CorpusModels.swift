import Foundation
import SluiceMacros

// The benchmark suite's Codable models of the three corpora, each struct with @JSONModel (the
// enum keeps its own Codable conformance and is read through the bridge). Codable models of the three benchmark corpora (twitter.json, citm_catalog.json, canada.json), for
// the plain-decode suite: every contender decodes the same file into these types and the results
// are compared with `==`. Field names and types follow the files themselves; snake_case JSON keys
// are mapped by explicit `CodingKeys`, so every decoder can run on its default settings. A field
// that is null or absent in some places of a file is optional, and so is every field that is null
// throughout but would hold an object (geo, place, ...) when present.

/// twitter.json: the answer of a Twitter v1.1 search, 100 statuses and the search's metadata.
@JSONModel
struct Twitter: Codable, Equatable, Sendable {
    var statuses: [Status]
    var searchMetadata: SearchMetadata

    enum CodingKeys: String, CodingKey {
        case statuses
        case searchMetadata = "search_metadata"
    }

    /// One tweet. A retweet carries the original tweet in `retweetedStatus`.
    @JSONModel
    struct Status: Codable, Equatable, Sendable {
        var metadata: StatusMetadata
        var createdAt: String
        var id: UInt64
        var idStr: String
        var text: String
        var source: String
        var truncated: Bool
        var inReplyToStatusId: UInt64?
        var inReplyToStatusIdStr: String?
        var inReplyToUserId: UInt64?
        var inReplyToUserIdStr: String?
        var inReplyToScreenName: String?
        var user: User
        var geo: Point?
        var coordinates: Point?
        var place: Place?
        var contributors: [Contributor]?
        var retweetedStatus: Retweeted?
        var retweetCount: Int
        var favoriteCount: Int
        var entities: Entities
        var favorited: Bool
        var retweeted: Bool
        var possiblySensitive: Bool?
        var lang: String

        enum CodingKeys: String, CodingKey {
            case metadata
            case createdAt = "created_at"
            case id
            case idStr = "id_str"
            case text
            case source
            case truncated
            case inReplyToStatusId = "in_reply_to_status_id"
            case inReplyToStatusIdStr = "in_reply_to_status_id_str"
            case inReplyToUserId = "in_reply_to_user_id"
            case inReplyToUserIdStr = "in_reply_to_user_id_str"
            case inReplyToScreenName = "in_reply_to_screen_name"
            case user
            case geo
            case coordinates
            case place
            case contributors
            case retweetedStatus = "retweeted_status"
            case retweetCount = "retweet_count"
            case favoriteCount = "favorite_count"
            case entities
            case favorited
            case retweeted
            case possiblySensitive = "possibly_sensitive"
            case lang
        }
    }

    /// The retweeted status, boxed: a struct cannot hold a value of its own type. It is coded as
    /// the status itself, with no wrapping level in the JSON.
    indirect enum Retweeted: Codable, Equatable, Sendable, JSONTapeDecodable, JSONModelValue {
        case status(Status)

        var status: Status {
            switch self {
            case .status(let status): status
            }
        }

        init(from decoder: any Decoder) throws {
            self = .status(try Status(from: decoder))
        }

        // A custom Codable type can read tapes itself too: the retweeted status then takes its
        // generated reader, as the status holding it does.
        init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
            self = .status(try Status(from: value, context: context))
        }

        func encode(to encoder: any Encoder) throws {
            try status.encode(to: encoder)
        }

        // And writes itself through the status's generated writer.
        func writeJSONModelValue(to writer: JSONModelWriter) throws {
            try status.writeJSONModelValue(to: writer)
        }
    }

    /// Why the search returned the status.
    @JSONModel
    struct StatusMetadata: Codable, Equatable, Sendable {
        var resultType: String
        var isoLanguageCode: String

        enum CodingKeys: String, CodingKey {
            case resultType = "result_type"
            case isoLanguageCode = "iso_language_code"
        }
    }

    /// The author of a status.
    @JSONModel
    struct User: Codable, Equatable, Sendable {
        var id: UInt64
        var idStr: String
        var name: String
        var screenName: String
        var location: String
        var description: String
        var url: String?
        var entities: UserEntities
        var protected: Bool
        var followersCount: Int
        var friendsCount: Int
        var listedCount: Int
        var createdAt: String
        var favouritesCount: Int
        var utcOffset: Int?
        var timeZone: String?
        var geoEnabled: Bool
        var verified: Bool
        var statusesCount: Int
        var lang: String
        var contributorsEnabled: Bool
        var isTranslator: Bool
        var isTranslationEnabled: Bool
        var profileBackgroundColor: String
        var profileBackgroundImageUrl: String
        var profileBackgroundImageUrlHttps: String
        var profileBackgroundTile: Bool
        var profileImageUrl: String
        var profileImageUrlHttps: String
        var profileBannerUrl: String?
        var profileLinkColor: String
        var profileSidebarBorderColor: String
        var profileSidebarFillColor: String
        var profileTextColor: String
        var profileUseBackgroundImage: Bool
        var defaultProfile: Bool
        var defaultProfileImage: Bool
        var following: Bool
        var followRequestSent: Bool
        var notifications: Bool

        enum CodingKeys: String, CodingKey {
            case id
            case idStr = "id_str"
            case name
            case screenName = "screen_name"
            case location
            case description
            case url
            case entities
            case protected
            case followersCount = "followers_count"
            case friendsCount = "friends_count"
            case listedCount = "listed_count"
            case createdAt = "created_at"
            case favouritesCount = "favourites_count"
            case utcOffset = "utc_offset"
            case timeZone = "time_zone"
            case geoEnabled = "geo_enabled"
            case verified
            case statusesCount = "statuses_count"
            case lang
            case contributorsEnabled = "contributors_enabled"
            case isTranslator = "is_translator"
            case isTranslationEnabled = "is_translation_enabled"
            case profileBackgroundColor = "profile_background_color"
            case profileBackgroundImageUrl = "profile_background_image_url"
            case profileBackgroundImageUrlHttps = "profile_background_image_url_https"
            case profileBackgroundTile = "profile_background_tile"
            case profileImageUrl = "profile_image_url"
            case profileImageUrlHttps = "profile_image_url_https"
            case profileBannerUrl = "profile_banner_url"
            case profileLinkColor = "profile_link_color"
            case profileSidebarBorderColor = "profile_sidebar_border_color"
            case profileSidebarFillColor = "profile_sidebar_fill_color"
            case profileTextColor = "profile_text_color"
            case profileUseBackgroundImage = "profile_use_background_image"
            case defaultProfile = "default_profile"
            case defaultProfileImage = "default_profile_image"
            case following
            case followRequestSent = "follow_request_sent"
            case notifications
        }
    }

    /// The links found in a user's profile: `url` only when the profile has a URL.
    @JSONModel
    struct UserEntities: Codable, Equatable, Sendable {
        var url: URLList?
        var description: URLList
    }

    /// A list of links, as in a user's `entities.url` and `entities.description`.
    @JSONModel
    struct URLList: Codable, Equatable, Sendable {
        var urls: [URLEntity]
    }

    /// What Twitter found in a status's text.
    @JSONModel
    struct Entities: Codable, Equatable, Sendable {
        var hashtags: [Hashtag]
        var symbols: [Symbol]
        var urls: [URLEntity]
        var userMentions: [UserMention]
        var media: [Media]?

        enum CodingKeys: String, CodingKey {
            case hashtags
            case symbols
            case urls
            case userMentions = "user_mentions"
            case media
        }
    }

    /// A hashtag, `indices` being its start and end offsets in the text.
    @JSONModel
    struct Hashtag: Codable, Equatable, Sendable {
        var text: String
        var indices: [Int]
    }

    /// A cashtag ("$TWTR"): shaped like a hashtag.
    @JSONModel
    struct Symbol: Codable, Equatable, Sendable {
        var text: String
        var indices: [Int]
    }

    /// A shortened link and what it stands for.
    @JSONModel
    struct URLEntity: Codable, Equatable, Sendable {
        var url: String
        var expandedUrl: String
        var displayUrl: String
        var indices: [Int]

        enum CodingKeys: String, CodingKey {
            case url
            case expandedUrl = "expanded_url"
            case displayUrl = "display_url"
            case indices
        }
    }

    /// An "@name" in the text.
    @JSONModel
    struct UserMention: Codable, Equatable, Sendable {
        var screenName: String
        var name: String
        var id: UInt64
        var idStr: String
        var indices: [Int]

        enum CodingKeys: String, CodingKey {
            case screenName = "screen_name"
            case name
            case id
            case idStr = "id_str"
            case indices
        }
    }

    /// A photo attached to the status; `sourceStatus*` when it comes from another status.
    @JSONModel
    struct Media: Codable, Equatable, Sendable {
        var id: UInt64
        var idStr: String
        var indices: [Int]
        var mediaUrl: String
        var mediaUrlHttps: String
        var url: String
        var displayUrl: String
        var expandedUrl: String
        var type: String
        var sizes: MediaSizes
        var sourceStatusId: UInt64?
        var sourceStatusIdStr: String?

        enum CodingKeys: String, CodingKey {
            case id
            case idStr = "id_str"
            case indices
            case mediaUrl = "media_url"
            case mediaUrlHttps = "media_url_https"
            case url
            case displayUrl = "display_url"
            case expandedUrl = "expanded_url"
            case type
            case sizes
            case sourceStatusId = "source_status_id"
            case sourceStatusIdStr = "source_status_id_str"
        }
    }

    /// The sizes a photo is served in.
    @JSONModel
    struct MediaSizes: Codable, Equatable, Sendable {
        var medium: MediaSize
        var small: MediaSize
        var thumb: MediaSize
        var large: MediaSize
    }

    /// One served size: width, height and how it was resized ("fit", "crop").
    @JSONModel
    struct MediaSize: Codable, Equatable, Sendable {
        var w: Int
        var h: Int
        var resize: String
    }

    /// A GeoJSON point, for `geo` (latitude first) and `coordinates` (longitude first).
    @JSONModel
    struct Point: Codable, Equatable, Sendable {
        var type: String
        var coordinates: [Double]
    }

    /// A named place the status is associated with.
    @JSONModel
    struct Place: Codable, Equatable, Sendable {
        var id: String
        var url: String
        var placeType: String
        var name: String
        var fullName: String
        var countryCode: String
        var country: String
        var boundingBox: BoundingBox?
        var attributes: [String: String]?

        enum CodingKeys: String, CodingKey {
            case id
            case url
            case placeType = "place_type"
            case name
            case fullName = "full_name"
            case countryCode = "country_code"
            case country
            case boundingBox = "bounding_box"
            case attributes
        }
    }

    /// A place's outline: a GeoJSON polygon.
    @JSONModel
    struct BoundingBox: Codable, Equatable, Sendable {
        var type: String
        var coordinates: [[[Double]]]
    }

    /// A user who contributed to the status.
    @JSONModel
    struct Contributor: Codable, Equatable, Sendable {
        var id: UInt64
        var idStr: String
        var screenName: String

        enum CodingKeys: String, CodingKey {
            case id
            case idStr = "id_str"
            case screenName = "screen_name"
        }
    }

    /// How the search ran and how to page on.
    @JSONModel
    struct SearchMetadata: Codable, Equatable, Sendable {
        var completedIn: Double
        var maxId: UInt64
        var maxIdStr: String
        var nextResults: String
        var query: String
        var refreshUrl: String
        var count: Int
        var sinceId: UInt64
        var sinceIdStr: String

        enum CodingKeys: String, CodingKey {
            case completedIn = "completed_in"
            case maxId = "max_id"
            case maxIdStr = "max_id_str"
            case nextResults = "next_results"
            case query
            case refreshUrl = "refresh_url"
            case count
            case sinceId = "since_id"
            case sinceIdStr = "since_id_str"
        }
    }
}

/// citm_catalog.json: a ticketing catalogue, events and their performances with prices per seat
/// category, and the names of areas, seat categories, topics and venues keyed by numeric strings.
@JSONModel
struct CitmCatalog: Codable, Equatable, Sendable {
    var areaNames: [String: String]
    var audienceSubCategoryNames: [String: String]
    var blockNames: [String: String]
    var events: [String: Event]
    var performances: [Performance]
    var seatCategoryNames: [String: String]
    var subTopicNames: [String: String]
    var subjectNames: [String: String]
    var topicNames: [String: String]
    var topicSubTopics: [String: [Int]]
    var venueNames: [String: String]

    /// An event, keyed in `events` by its id.
    @JSONModel
    struct Event: Codable, Equatable, Sendable {
        var description: String?
        var id: Int
        var logo: String?
        var name: String
        var subTopicIds: [Int]
        var subjectCode: String?
        var subtitle: String?
        var topicIds: [Int]
    }

    /// One performance of an event; `start` in milliseconds since 1970.
    @JSONModel
    struct Performance: Codable, Equatable, Sendable {
        var eventId: Int
        var id: Int
        var logo: String?
        var name: String?
        var prices: [Price]
        var seatCategories: [SeatCategory]
        var seatMapImage: String?
        var start: Int64
        var venueCode: String
    }

    /// The price of a seat category for an audience sub-category.
    @JSONModel
    struct Price: Codable, Equatable, Sendable {
        var amount: Int
        var audienceSubCategoryId: Int
        var seatCategoryId: Int
    }

    /// A seat category of a performance and the areas it covers.
    @JSONModel
    struct SeatCategory: Codable, Equatable, Sendable {
        var areas: [Area]
        var seatCategoryId: Int
    }

    /// An area of the venue and its blocks.
    @JSONModel
    struct Area: Codable, Equatable, Sendable {
        var areaId: Int
        var blockIds: [Int]
    }
}

/// canada.json: a GeoJSON FeatureCollection, the outline of Canada as one polygon of 480 rings.
@JSONModel
struct Canada: Codable, Equatable, Sendable {
    var type: String
    var features: [Feature]

    /// A GeoJSON feature: its properties (here only "name") and its geometry.
    @JSONModel
    struct Feature: Codable, Equatable, Sendable {
        var type: String
        var properties: [String: String]
        var geometry: Geometry
    }

    /// A polygon: rings of [longitude, latitude] positions.
    @JSONModel
    struct Geometry: Codable, Equatable, Sendable {
        var type: String
        var coordinates: [[[Double]]]
    }
}
