// The corpora decoded into the models `sluice models` writes for them, every field typed: the
// model files here are links to the checked-in output (Tests/SluiceModelsTests/Generated), which
// a test holds equal to what the generator writes, so these are the models a user gets.
//
// Each decode ends in a checksum line that the peers (Benchmarks/Peers: serde_json, msgspec)
// print too, so that every contender is seen to read the same values before it is timed.

import Foundation
import SluiceMacros

/// The three corpora through their generated models.
public enum FullModels {
    /// Who decodes: Sluice's generated readers, or Foundation's `JSONDecoder`, on the same models.
    public enum Contender: Sendable {
        case sluice, foundation
    }

    /// Decodes `bytes` (the corpus named `corpus`: `twitter`, `citm_catalog` or `canada`) with
    /// `contender`, as the models' header says to, and returns the checksum line.
    public static func decode(_ corpus: String, _ bytes: [UInt8], with contender: Contender) throws -> String {
        switch corpus {
        case "twitter": checksum(try decode(Twitter.self, bytes, with: contender, snakeCase: true))
        case "citm_catalog": checksum(try decode(CitmCatalog.self, bytes, with: contender))
        case "canada": checksum(try decode(Canada.self, bytes, with: contender))
        default: throw CocoaError(.featureUnsupported)
        }
    }

    /// `bytes` as a `T`, by `contender`; under `.convertFromSnakeCase` when `snakeCase` (the key
    /// strategy the models' header names).
    static func decode<T: Decodable>(
        _ type: T.Type,
        _ bytes: [UInt8],
        with contender: Contender,
        snakeCase: Bool = false
    ) throws -> T {
        switch contender {
        case .sluice:
            let decoder = StreamingJSONDecoder()
            if snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
            return try decoder.decode(type, from: bytes)
        case .foundation:
            let decoder = JSONDecoder()
            if snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
            return try decoder.decode(type, from: Data(bytes))
        }
    }

    static func checksum(_ value: Twitter) -> String {
        var retweeted = 0
        var followers = 0
        var retweets = 0
        var favorites = 0
        var textBytes = 0
        var entities = 0
        for status in value.statuses {
            if status.retweetedStatus != nil { retweeted += 1 }
            followers += status.user.followersCount
            retweets += status.retweetCount
            favorites += status.favoriteCount
            textBytes += status.text.utf8.count
            entities += status.entities.hashtags.count + status.entities.urls.count + status.entities.userMentions.count
        }
        return "twitter statuses=\(value.statuses.count) retweeted=\(retweeted) followers=\(followers) "
            + "retweets=\(retweets) favorites=\(favorites) text_bytes=\(textBytes) entities=\(entities)"
    }

    static func checksum(_ value: CitmCatalog) -> String {
        var prices = 0
        var amount = 0
        var areas = 0
        var start: Int64 = 0
        for performance in value.performances {
            prices += performance.prices.count
            for price in performance.prices { amount += price.amount }
            for category in performance.seatCategories { areas += category.areas.count }
            start += performance.start
        }
        let names = value.areaNames.values.reduce(0) { $0 + $1.utf8.count }
        return "citm_catalog events=\(value.events.count) performances=\(value.performances.count) "
            + "prices=\(prices) amount=\(amount) areas=\(areas) start=\(start) names=\(names)"
    }

    static func checksum(_ value: Canada) -> String {
        var rings = 0
        var points = 0
        var x = 0.0
        var y = 0.0
        for feature in value.features {
            rings += feature.geometry.coordinates.count
            for ring in feature.geometry.coordinates {
                points += ring.count
                for point in ring {
                    x += point.x
                    y += point.y
                }
            }
        }
        return "canada features=\(value.features.count) rings=\(rings) points=\(points) "
            + String(format: "x=%.6f y=%.6f", x, y)
    }
}
