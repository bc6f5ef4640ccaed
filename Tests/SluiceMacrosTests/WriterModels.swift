import Foundation
import SluiceJSONAPI
import SluiceMacros

// Models for the writer tests: every kind of member a generated writer meets.

/// A type with its own `encode(to:)`: written through the general path's recorder inside a
/// generated writer.
enum Mood: Codable, Equatable {
    case calm
    case stormy(Int)

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(Int.self)
        self = value == 0 ? .calm : .stormy(value)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .calm: try container.encode(0)
        case .stormy(let level): try container.encode(level)
        }
    }
}

@JSONModel
struct Leaf: Codable, Equatable {
    var name: String
    var weight: Double?
}

/// Every kind of member: scalars of every width, optionals, nested models, containers, dates,
/// data, URLs, decimals, a type that encodes itself, a constant with a value, JSON values.
@JSONModel
struct KitchenSink: Codable, Equatable {
    var text: String
    var escapes: String
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var doubles: [Double]
    var float: Float
    var flag: Bool
    var missing: String?
    var present: Int?
    var leaf: Leaf
    var leaves: [Leaf]
    var optionalLeaves: [Leaf?]
    var leafByName: [String: Leaf]
    var numbersByName: [String: [Int]]
    var grid: [[[Double]]]
    var createdAt: Date
    var updatedAt: Date?
    var blob: Data
    var homePageURL: URL
    var price: Decimal
    var mood: Mood
    var moods: [Mood]
    var extra: JSONValue
    var nothing: Int?
    var userID: Int
    var simpleHTTPServer: String
}

/// Coding keys renamed and in another order than the properties: Codable writes in the keys'
/// order, under their names.
@JSONModel
struct Renamed: Codable, Equatable {
    var first: Int
    var second: String
    var skipped: Int = 7
    var third: Bool

    enum CodingKeys: String, CodingKey {
        case third = "3rd"
        case first = "the first"
        case second = "a\"quoted/name\\"
    }
}

/// A class, nested to any depth.
@JSONModel
final class Node: Codable, Equatable {
    var value: Int
    var children: [Node]

    init(value: Int, children: [Node]) {
        self.value = value
        self.children = children
    }

    static func == (left: Node, right: Node) -> Bool { left.value == right.value && left.children == right.children }

    static func chain(_ depth: Int) -> Node {
        var node = Node(value: 0, children: [])
        for level in 1..<depth { node = Node(value: level, children: [node]) }
        return node
    }
}

@JSONModel
struct Box<Item: Codable & Equatable>: Codable, Equatable {
    var item: Item
    var items: [Item]
}

/// A model that writes itself: the macro generates no writer for it.
@JSONModel
struct SelfWriting: Codable, Equatable {
    var value: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension KitchenSink {
    static func sample(_ seed: Int = 1) -> KitchenSink {
        KitchenSink(
            text: "plain \(seed)",
            escapes:
                "quote \" backslash \\ slash / tab \t newline \n cr \r bell \u{7} nul \u{0} unit \u{1F} é 😀 \u{2028}",
            int: -seed * 123_456_789,
            int8: .min,
            int16: .max,
            int32: .min,
            int64: .min,
            uint: .max,
            uint8: .max,
            uint16: 0,
            uint32: .max,
            uint64: .max,
            double: 0.1 * Double(seed),
            doubles: [0, -0.0, 1, 5.0, 1e-7, 1.5e300, -2.2250738585072014e-308, 123_456.789, .pi, 1e21, 1e-5],
            float: 0.1,
            flag: seed % 2 == 0,
            missing: nil,
            present: seed,
            leaf: Leaf(name: "root", weight: nil),
            leaves: [Leaf(name: "a", weight: 1.25), Leaf(name: "b/c", weight: nil)],
            optionalLeaves: [nil, Leaf(name: "x", weight: 2)],
            leafByName: [
                "zeta": Leaf(name: "z", weight: 3), "alpha": Leaf(name: "a", weight: nil),
                "Mid": Leaf(name: "m", weight: 0),
            ],
            numbersByName: ["b": [1, 2], "a": [], "c": [-3]],
            grid: [[[1.5, -2.25], [3, 4]], []],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.125),
            updatedAt: seed % 2 == 0 ? nil : Date(timeIntervalSince1970: -86_400.5),
            blob: Data([0, 1, 2, 250, 255, 10]),
            homePageURL: URL(string: "https://example.com/a/b?c=d&e=f")!,
            price: Decimal(string: "12345.678901234567890")!,
            mood: .stormy(seed),
            moods: [.calm, .stormy(3)],
            extra: .object(
                JSONObject([("z", .number("12.5e3")), ("a", .array([.null, .bool(true), .string("s/t")]))])
            ),
            nothing: nil,
            userID: seed,
            simpleHTTPServer: "server"
        )
    }
}

// JSON:API resources with generated writers.

@JSONModel
struct WrittenArticle: Resource, Codable, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var subtitle: Field<String>
    var publishedAt: Date
    var wordCount: Int
    var tags: [String]
    var metadata: Leaf
    var author: ToOne<WrittenPerson>
    var comments: ToMany<WrittenComment>
    var editor: ToOne<WrittenPerson>
    var reviewer: ToOne<WrittenPerson>?
    var links: Links?
    var meta: JSONValue?
}

@JSONModel
struct WrittenPerson: Resource, Codable, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
    var email: String?
}

@JSONModel
struct WrittenComment: Resource, Codable, Equatable {
    static let resourceType = "comments"
    var id: String?
    var lid: String?
    var body: String
    var author: ToOne<WrittenPerson>
}

/// A resource without a generated writer, included beside generated ones.
struct PlainTag: Resource, Codable, Equatable {
    static let resourceType = "tags"
    var id: String
    var label: String
}

/// A resource whose `id` is a number: the general path refuses it, and so must the generated one.
@JSONModel
struct NumberID: Resource, Codable {
    static let resourceType = "numbers"
    var id: Int
    var value: Double
}
