// Written by `sluice models` from 1 sample.
//
// Decode with:
//     let decoder = StreamingJSONDecoder()
//     let value = try decoder.decode(CitmCatalog.self, from: data)

import Foundation
import SluiceMacros

@JSONModel
struct CitmCatalog: Codable {
    /// Present in 1 of 1.
    var areaNames: [String: String]
    /// Present in 1 of 1.
    var audienceSubCategoryNames: [String: String]
    /// Present in 1 of 1.
    var blockNames: [String: JSONValue]
    /// Present in 1 of 1.
    var events: [String: Event]
    /// Present in 1 of 1.
    var performances: [Performance]
    /// Present in 1 of 1.
    var seatCategoryNames: [String: String]
    /// Present in 1 of 1.
    var subTopicNames: [String: String]
    /// Present in 1 of 1.
    var subjectNames: [String: JSONValue]
    /// Present in 1 of 1.
    var topicNames: [String: String]
    /// Present in 1 of 1.
    var topicSubTopics: [String: [Int]]
    /// Present in 1 of 1.
    var venueNames: [String: String]
}

@JSONModel
struct Event: Codable {
    /// Present in 184 of 184, always null: its type is unknown.
    var description: JSONValue?
    /// Present in 184 of 184.
    var id: Int
    /// Present in 184 of 184, null in 90.
    var logo: String?
    /// Present in 184 of 184.
    var name: String
    /// Present in 184 of 184.
    var subTopicIds: [Int]
    /// Present in 184 of 184, always null: its type is unknown.
    var subjectCode: JSONValue?
    /// Present in 184 of 184, always null: its type is unknown.
    var subtitle: JSONValue?
    /// Present in 184 of 184.
    var topicIds: [Int]
}

@JSONModel
struct Performance: Codable {
    /// Present in 243 of 243.
    var eventId: Int
    /// Present in 243 of 243.
    var id: Int
    /// Present in 243 of 243, null in 135.
    var logo: String?
    /// Present in 243 of 243, always null: its type is unknown.
    var name: JSONValue?
    /// Present in 243 of 243.
    var prices: [Price]
    /// Present in 243 of 243.
    var seatCategories: [SeatCategory]
    /// Present in 243 of 243, always null: its type is unknown.
    var seatMapImage: JSONValue?
    /// Present in 243 of 243.
    var start: Int64
    /// Present in 243 of 243.
    var venueCode: String
}

@JSONModel
struct Price: Codable {
    /// Present in 907 of 907.
    var amount: Int
    /// Present in 907 of 907.
    var audienceSubCategoryId: Int
    /// Present in 907 of 907.
    var seatCategoryId: Int
}

@JSONModel
struct SeatCategory: Codable {
    /// Present in 907 of 907.
    var areas: [Area]
    /// Present in 907 of 907.
    var seatCategoryId: Int
}

@JSONModel
struct Area: Codable {
    /// Present in 8685 of 8685.
    var areaId: Int
    /// Present in 8685 of 8685.
    var blockIds: [JSONValue]
}
