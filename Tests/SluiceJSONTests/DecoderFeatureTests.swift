import Foundation
import SluiceJSON
import Testing

private func decode<T: Decodable>(
    _ type: T.Type,
    _ json: String,
    configure: (StreamingJSONDecoder) -> Void = { _ in }
) throws -> T {
    let decoder = StreamingJSONDecoder()
    configure(decoder)
    return try decoder.decode(type, from: Data(json.utf8))
}

private func errorDescription(_ body: () throws -> Void) -> String {
    do {
        try body()
        return "no error"
    } catch let error as DecodingError {
        switch error {
        case .keyNotFound(_, let context), .valueNotFound(_, let context), .typeMismatch(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return "\(path): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    } catch {
        return "\(error)"
    }
}

@Suite("StreamingJSONDecoder: dates, data and special numbers")
struct DateStrategyTests {
    struct Event: Decodable {
        var at: Date
    }

    static func date(_ json: String, _ strategy: JSONDateDecodingStrategy) throws -> Date {
        try decode(Event.self, #"{"at": \#(json)}"#) { $0.dateDecodingStrategy = strategy }.at
    }

    @Test("Foundation's strategies read as Foundation reads them")
    func foundationStrategies() throws {
        #expect(try Self.date("1.5", .deferredToDate) == Date(timeIntervalSinceReferenceDate: 1.5))
        #expect(try Self.date("1700000000", .secondsSince1970) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(
            try Self.date("1700000000123", .millisecondsSince1970) == Date(timeIntervalSince1970: 1_700_000_000.123)
        )
        #expect(try Self.date(#""2024-02-29T12:00:00Z""#, .iso8601) == Date(timeIntervalSince1970: 1_709_208_000))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy/MM/dd"
        #expect(try Self.date(#""2024/03/01""#, .formatted(formatter)) == Date(timeIntervalSince1970: 1_709_251_200))
        let custom = try Self.date(#""yesterday""#, .custom { _ in Date(timeIntervalSince1970: 7) })
        #expect(custom == Date(timeIntervalSince1970: 7))
        // The same strategies in Foundation's decoder agree.
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .iso8601
        let expected = try foundation.decode([Date].self, from: Data(#"["2024-02-29T12:00:00+01:00"]"#.utf8))
        let actual = try decode([Date].self, #"["2024-02-29T12:00:00+01:00"]"#) { $0.dateDecodingStrategy = .iso8601 }
        #expect(actual == expected)
    }

    @Test(
        "every named format reads its examples, with zones, leap years and fractions",
        arguments: [
            (#""2024-02-29T23:59:59.5+02:00""#, JSONDateFormat.iso8601, 1_709_243_999.5),
            (#""2000-02-29 00:00:00z""#, .iso8601, 951_782_400),
            (#""1994-11-06T08:49:37.123456Z""#, .iso8601WithFractionalSeconds, 784_111_777.123456),
            (#""Sun, 06 Nov 1994 08:49:37 GMT""#, .rfc1123, 784_111_777),
            (#""Sunday, 06-Nov-94 08:49:37 GMT""#, .rfc850, 784_111_777),
            (#""Sun Nov  6 08:49:37 1994""#, .asctime, 784_111_777),
            ("784111777", .secondsSince1970, 784_111_777),
            (#""784111777""#, .secondsSince1970, 784_111_777),
            ("784111777500", .millisecondsSince1970, 784_111_777.5),
            (#""784111777500""#, .millisecondsSince1970, 784_111_777.5),
            (#""06.11.1994""#, .pattern("dd.MM.yyyy"), 784_080_000),
        ] as [(String, JSONDateFormat, Double)]
    )
    func formats(json: String, format: JSONDateFormat, seconds: Double) throws {
        let date = try Self.date(json, .format(format))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6, "\(date.timeIntervalSince1970)")
    }

    @Test(
        "dates that are not in the format are dataCorrupted naming the format and the text",
        arguments: [
            (#""2023-02-29T00:00:00Z""#, JSONDateFormat.iso8601),
            (#""1900-02-29T00:00:00Z""#, .iso8601),
            (#""2024-01-01T00:00:00Z""#, .iso8601WithFractionalSeconds),
            (#""Mon, 06 Nov 1994 08:49:37 GMT""#, .rfc1123),
            (#""12:00""#, .secondsSince1970),
        ] as [(String, JSONDateFormat)]
    )
    func badDates(json: String, format: JSONDateFormat) {
        let description = errorDescription { _ = try Self.date(json, .format(format)) }
        #expect(description.hasPrefix("at: Expected a date in the format "), "\(description)")
        #expect(description.contains(json), "\(description)")
    }

    @Test("a wrong JSON type for a date is a type mismatch")
    func wrongType() {
        let description = errorDescription { _ = try Self.date("true", .iso8601) }
        #expect(description.hasPrefix("at: Expected a string, found a Boolean"), "\(description)")
    }

    @Test("one payload mixing formats: per key, and the first of several that reads")
    func mixedFormats() throws {
        struct Mixed: Decodable {
            var created: Date
            var modified: Date
            var seen: Date
        }
        let json =
            #"{"created": "2024-01-01T00:00:00Z", "modified": "Mon, 01 Jan 2024 00:00:00 GMT", "seen": 1704067200000}"#
        let expected = Date(timeIntervalSince1970: 1_704_067_200)
        let perKey = try decode(Mixed.self, json) {
            $0.dateDecodingStrategy = .perKey(
                ["modified": .format(.rfc1123), "seen": .millisecondsSince1970],
                default: .iso8601
            )
        }
        #expect(perKey.created == expected && perKey.modified == expected && perKey.seen == expected)
        let anyOf = try decode([Date].self, #"["2024-01-01T00:00:00Z", "Mon, 01 Jan 2024 00:00:00 GMT"]"#) {
            $0.dateDecodingStrategy = .anyOf([.iso8601, .rfc1123])
        }
        #expect(anyOf == [expected, expected])
        let description = errorDescription {
            _ = try decode([Date].self, #"["yesterday"]"#) { $0.dateDecodingStrategy = .anyOf([.iso8601, .rfc1123]) }
        }
        #expect(description.contains("one of the formats ISO 8601, RFC 1123"), "\(description)")
    }

    @Test("data strategies: Base64, byte arrays, custom; bad Base64 is dataCorrupted")
    func dataStrategies() throws {
        #expect(try decode(Data.self, #""AAEC""#) == Data([0, 1, 2]))
        #expect(
            try decode(Data.self, "[0, 1, 255]") { $0.dataDecodingStrategy = .deferredToData } == Data([0, 1, 255])
        )
        #expect(
            try decode(Data.self, #""hi""#) { $0.dataDecodingStrategy = .custom { _ in Data([9]) } } == Data([9])
        )
        #expect(throws: DecodingError.self) { try decode(Data.self, #""%%%""#) }
    }

    @Test("non-conforming floats: refused by default, read from the named strings when asked")
    func nonConformingFloats() throws {
        let json = #"["+inf", "-inf", "nan", 1.5]"#
        #expect(throws: DecodingError.self) { try decode([Double].self, json) }
        let values = try decode([Double].self, json) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
        }
        #expect(values[0] == .infinity && values[1] == -.infinity && values[2].isNaN && values[3] == 1.5)
        let floats = try decode([Float].self, #"["+inf"]"#) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
        }
        #expect(floats == [.infinity])
    }
}

@Suite("StreamingJSONDecoder: lenient conversions and converters")
struct ConversionTests {
    struct Record: Decodable, Equatable {
        var count: Int
        var ratio: Double
        var label: String
        var flag: Bool
        var amount: Decimal
        var link: URL
    }

    static let loose =
        #"{"count": "42", "ratio": "-1.5e2", "label": 7.50, "flag": "TRUE", "amount": "0.1", "link": "https://x.org/a"}"#

    @Test("off by default: a number in a string is a type mismatch, as in Foundation")
    func strictByDefault() {
        let description = errorDescription { _ = try decode(Record.self, Self.loose) }
        #expect(description == #"count: Expected a number, found a string at line 1, column 11"#)
    }

    @Test("on when asked: numbers from strings, strings from numbers, booleans from strings")
    func lenient() throws {
        let record = try decode(Record.self, Self.loose) { $0.conversions = .all }
        #expect(
            record
                == Record(
                    count: 42,
                    ratio: -150,
                    label: "7.50",
                    flag: true,
                    amount: Decimal(string: "0.1")!,
                    link: URL(string: "https://x.org/a")!
                )
        )
    }

    @Test("Decimal from a string keeps every digit: no trip through Double")
    func decimalExact() throws {
        let value = try decode(Decimal.self, #""0.1000000000000000000000000001""#) {
            $0.conversions = .numberFromString
        }
        #expect(value == Decimal(string: "0.1000000000000000000000000001"))
    }

    @Test(
        "each conversion is separate, and a bad conversion names what it found",
        arguments: [
            (
                #"{"v": "12x"}"#, JSONConversions.numberFromString,
                #"v: Expected a number or a string holding one, found the string "12x" at line 1, column 7"#
            ),
            (#"{"v": "300"}"#, .numberFromString, "v: The number 300 does not fit in UInt8 at line 1, column 7"),
            (
                #"{"v": " 1"}"#, .numberFromString,
                #"v: Expected a number or a string holding one, found the string " 1" at line 1, column 7"#
            ),
            (#"{"v": "1"}"#, .stringFromNumber, "v: Expected a number, found a string at line 1, column 7"),
        ] as [(String, JSONConversions, String)]
    )
    func conversionErrors(json: String, conversions: JSONConversions, expected: String) {
        struct Holder: Decodable { var v: UInt8 }
        let description = errorDescription { _ = try decode(Holder.self, json) { $0.conversions = conversions } }
        #expect(description == expected)
    }

    @Test("booleans from 0 and 1, and from the words; other numbers are refused")
    func booleans() throws {
        #expect(try decode([Bool].self, "[0, 1]") { $0.conversions = .boolFromNumber } == [false, true])
        #expect(
            try decode([Bool].self, #"["true", "False", "1", "0"]"#) { $0.conversions = .boolFromString }
                == [true, false, true, false]
        )
        let description = errorDescription { _ = try decode([Bool].self, "[2]") { $0.conversions = .boolFromNumber } }
        #expect(description == "0: Expected a Boolean, 0 or 1, found the number 2 at line 1, column 2")
        #expect(throws: DecodingError.self) { try decode([Bool].self, "[1]") { $0.conversions = .boolFromString } }
    }

    /// Decodable as a number of cents under any decoder; the converter reads "$3.50" strings.
    struct Money: Decodable, Equatable {
        var cents: Int
    }

    struct Invoice: Decodable, Equatable {
        var total: Money
        var lines: [Money]
    }

    @Test("a converter reads a user type from the raw value; its errors carry the coding path")
    func converters() throws {
        var converters = JSONConverters()
        converters.register(Money.self) { (value: JSONTape.Value) in
            let text = try value.string()
            guard text.hasPrefix("$"), let amount = Decimal(string: String(text.dropFirst())) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not money: \(text)"))
            }
            return Money(cents: NSDecimalNumber(decimal: amount * 100).intValue)
        }
        let invoice = try decode(Invoice.self, #"{"total": "$3.50", "lines": ["$1.25", "$2.25"]}"#) {
            $0.converters = converters
        }
        #expect(invoice == Invoice(total: Money(cents: 350), lines: [Money(cents: 125), Money(cents: 225)]))
        let description = errorDescription {
            _ = try decode(Invoice.self, #"{"total": "$1", "lines": [7]}"#) { $0.converters = converters }
        }
        #expect(description == "lines.0: Expected a string, found a number at line 1, column 27")
    }

    @Test("a converter can replace how a standard type reads")
    func overrideBool() throws {
        var converters = JSONConverters()
        converters.register(Bool.self) { value in try value.string() == "yes" }
        #expect(try decode([Bool].self, #"["yes", "no"]"#) { $0.converters = converters } == [true, false])
    }
}

@Suite("StreamingJSONDecoder: key paths, member checks and ignored keys")
struct KeyPathAndCheckTests {
    struct Place: Decodable, Equatable {
        var name: String
        var latitude: Double
        var cooked: Bool?
        enum CodingKeys: String, JSONKeyPathCodingKey {
            case name
            case latitude = "location.latitude"
            case cooked = "accounting.books.cooked"
        }
    }

    @Test("a key path reads a nested member, under the key strategy")
    func keyPaths() throws {
        let json = #"{"name": "x", "location": {"latitude": 51.5}, "accounting": {"books": {"cooked": false}}}"#
        #expect(try decode(Place.self, json) == Place(name: "x", latitude: 51.5, cooked: false))
        let snake = #"{"Name": "x", "LOCATION": {"Latitude": 1}}"#
        #expect(try decode(Place.self, snake) { $0.keyDecodingStrategy = .loose } == Place(name: "x", latitude: 1))
        // The whole dotted name as a member is read first.
        #expect(try decode(Place.self, #"{"name": "x", "location.latitude": 2}"#).latitude == 2)
    }

    @Test("an optional key path whose steps are missing is nil; a required one names the missing step")
    func missingSteps() {
        #expect(
            (try? decode(Place.self, #"{"name": "x", "location": {"latitude": 1}, "accounting": {}}"#))?.cooked == nil
        )
        let missing = errorDescription { _ = try decode(Place.self, #"{"name": "x", "location": {"lat": 1}}"#) }
        #expect(
            missing
                == #"location: Step 2 of the key path "location.latitude", "latitude", is missing from the object at line 1, column 27"#
        )
        let notObject = errorDescription { _ = try decode(Place.self, #"{"name": "x", "location": [1]}"#) }
        #expect(
            notObject
                == #": Step 1 of the key path "location.latitude", "location", is not an object but an array at line 1, column 27"#
        )
    }

    struct Account: Codable, Equatable {
        var name: String
        var email: String?
        var role: String?
    }

    @Test("ignored keys read as absent")
    func ignoredKeys() throws {
        let account = try decode(Account.self, #"{"name": "a", "email": "e", "role": "admin"}"#) {
            $0.ignoredKeys = ["role"]
        }
        #expect(account == Account(name: "a", email: "e", role: nil))
    }

    @Test("a member check can skip a member or reject the payload with the member's path")
    func memberCheck() throws {
        let check: @Sendable (JSONMemberCheck) throws -> Bool = { member in
            if member.key.stringValue == "email" {
                guard (try? member.value.string())?.contains("@") ?? true else {
                    throw CheckFailure.invalidEmail
                }
            }
            return !(member.key.stringValue == "role" && (try? member.value.string()) == "root")
        }
        let accepted = try decode(Account.self, #"{"name": "a", "email": "a@b", "role": "root"}"#) {
            $0.memberCheck = check
        }
        #expect(accepted == Account(name: "a", email: "a@b", role: nil))
        let description = errorDescription {
            _ = try decode([Account].self, #"[{"name": "a", "email": "nope"}]"#) { $0.memberCheck = check }
        }
        #expect(description == #"0.email: The member for "email" at line 1, column 25 was rejected: invalidEmail"#)
    }

    enum CheckFailure: Error { case invalidEmail }
}

@Suite("StreamingJSONDecoder: update, uniquing and parent references")
struct ModelGraphTests {
    struct Settings: Codable, Equatable {
        struct Display: Codable, Equatable {
            var theme: String
            var fontSize: Int
        }
        var name: String
        var volume: Double
        var tags: [String]
        var display: Display
        var lastOpened: Date?
    }

    @Test("update keeps absent members, merges nested objects and replaces arrays")
    func update() throws {
        var settings = Settings(
            name: "mine",
            volume: .infinity,
            tags: ["a", "b"],
            display: .init(theme: "dark", fontSize: 12),
            lastOpened: Date(timeIntervalSince1970: 5)
        )
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        try decoder.update(&settings, from: Data(#"{"tags": ["c"], "display": {"font_size": 14}}"#.utf8))
        #expect(
            settings
                == Settings(
                    name: "mine",
                    volume: .infinity,
                    tags: ["c"],
                    display: .init(theme: "dark", fontSize: 14),
                    lastOpened: Date(timeIntervalSince1970: 5)
                )
        )
        try decoder.update(&settings, from: Data(#"{"last_opened": "1970-01-01T00:00:09Z", "name": "new"}"#.utf8))
        #expect(
            settings.lastOpened == Date(timeIntervalSince1970: 9) && settings.name == "new" && settings.tags == ["c"]
        )
        // An explicit null clears an optional; ignored keys keep their values.
        decoder.ignoredKeys = ["name"]
        try decoder.update(&settings, from: Data(#"{"last_opened": null, "name": "ignored"}"#.utf8))
        #expect(settings.lastOpened == nil && settings.name == "new")
    }

    @Test("update with a wrong type reports it and leaves the value as it was")
    func updateFailure() {
        var settings = Settings(name: "x", volume: 1, tags: [], display: .init(theme: "t", fontSize: 1))
        #expect(throws: DecodingError.self) {
            try StreamingJSONDecoder().update(&settings, from: Data(#"{"volume": "loud"}"#.utf8))
        }
        #expect(settings.volume == 1)
    }

    final class User: Decodable, JSONMergeable {
        let id: Int
        var name: String
        enum CodingKeys: CodingKey { case id, name }
        func merge(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? name
        }
    }

    struct Post: Decodable {
        var author: User
        var editors: [User]
    }

    @Test("the same identity yields the same instance within a decode, merged with later objects")
    func uniquing() throws {
        let json =
            #"[{"author": {"id": 1, "name": "Ada"}, "editors": [{"id": 2, "name": "Bo"}, {"id": 1}]},"#
            + #" {"author": {"id": 2, "name": "Bob"}, "editors": []}]"#
        let posts = try decode([Post].self, json) { $0.uniquing.register(User.self, identityKey: "id") }
        #expect(posts[0].author === posts[0].editors[1])
        #expect(posts[0].editors[0] === posts[1].author)
        #expect(posts[1].author.name == "Bob")
        // Without registration, every object is a new instance.
        let plain = try decode(
            Post.self,
            #"{"author": {"id": 1, "name": "Ada"}, "editors": [{"id": 1, "name": "Ada"}]}"#
        )
        #expect(plain.author !== plain.editors[0])
    }

    @Test("a caller's identity store keeps instances across decodes; without one, decodes are separate")
    func identityStore() throws {
        let decoder = StreamingJSONDecoder()
        decoder.uniquing.register(User.self, identityKey: "id")
        let first = try decoder.decode(User.self, from: Data(#"{"id": 7, "name": "a"}"#.utf8))
        let second = try decoder.decode(User.self, from: Data(#"{"id": 7, "name": "b"}"#.utf8))
        #expect(first !== second)
        let store = JSONIdentityStore()
        decoder.identityStore = store
        let third = try decoder.decode(User.self, from: Data(#"{"id": 7, "name": "c"}"#.utf8))
        let fourth = try decoder.decode(User.self, from: Data(#"{"id": 7, "name": "d"}"#.utf8))
        #expect(third === fourth && fourth.name == "d")
        #expect(store.instance(of: User.self, identifiedBy: 7) === third)
        #expect(store.count == 1)
    }

    final class Thread: Decodable {
        let title: String
        let comments: [Comment]
    }

    final class Comment: Decodable {
        let text: String
        let replies: [Comment]
        weak var thread: Thread?
        weak var parent: Comment?
        enum CodingKeys: CodingKey { case text, replies }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            replies = try container.decodeIfPresent([Comment].self, forKey: .replies) ?? []
            decoder.linkToParent(Thread.self) { [weak self] thread in self?.thread = thread }
            decoder.linkToParent(Comment.self) { [weak self] comment in self?.parent = comment }
        }
    }

    @Test("children get back-references to the nearest enclosing parent of the type they ask for")
    func parents() throws {
        let json = #"{"title": "t", "comments": [{"text": "a", "replies": [{"text": "a1"}]}, {"text": "b"}]}"#
        let thread = try decode(Thread.self, json)
        #expect(thread.comments[0].thread === thread)
        #expect(thread.comments[1].thread === thread)
        #expect(thread.comments[0].parent == nil)
        let reply = thread.comments[0].replies[0]
        #expect(reply.parent === thread.comments[0])
        #expect(reply.thread === thread)
        // Under Foundation's decoder the request is ignored, not an error.
        let foundation = try JSONDecoder().decode(Thread.self, from: Data(json.utf8))
        #expect(foundation.comments[0].thread == nil)
    }
}

@Suite("StreamingJSONDecoder: edge cases")
struct DecoderEdgeCaseTests {
    final class Board: Decodable {
        let cards: [Card]
        enum CodingKeys: CodingKey { case cards }
        required init(from decoder: any Decoder) throws {
            // Drops some children before their parent completes.
            cards = try decoder.container(keyedBy: CodingKeys.self).decode([Card].self, forKey: .cards).filter(\.keep)
        }
    }

    final class Card: Decodable {
        let keep: Bool
        weak var board: Board?
        enum CodingKeys: CodingKey { case keep }
        required init(from decoder: any Decoder) throws {
            keep = try decoder.container(keyedBy: CodingKeys.self).decode(Bool.self, forKey: .keep)
            decoder.linkToParent(Board.self) { [weak self] board in self?.board = board }
        }
    }

    @Test("children a parent drops before it completes are not linked, and do not crash the decode")
    func droppedChildren() throws {
        let board = try decode(Board.self, #"{"cards": [{"keep": false}, {"keep": true}, {"keep": false}]}"#)
        #expect(board.cards.count == 1 && board.cards[0].board === board)
    }

    @Test("elements completed before a syntax error in the same chunk are handed over")
    func elementsBeforeSyntaxError() {
        var seen: [Int] = []
        #expect(throws: DecodingError.self) {
            try StreamingJSONDecoder().forEachElement(of: Int.self, at: "", in: Data("[1,2,3,x]".utf8)) {
                seen.append($0)
            }
        }
        #expect(seen == [1, 2, 3])
    }

    @Test("setting all options at once updates the key strategy property too")
    func optionsSetter() {
        let decoder = StreamingJSONDecoder()
        var options = TapeDecodingOptions()
        options.keyStrategy = .loose
        decoder.options = options
        guard case .loose = decoder.keyDecodingStrategy else {
            Issue.record("key strategy not updated")
            return
        }
    }

    @Test("replayed Int8 numbers stay numbers, NaN decimals are refused, nested optionals unwrap")
    func replayTypes() throws {
        let decoder = StreamingJSONDecoder()
        #expect(
            try decoder.decode([Int].self, fromJSONObject: [NSNumber(value: Int8(1)), NSNumber(value: Int8(0))]) == [
                1, 0,
            ]
        )
        #expect(try decoder.decode([Bool].self, fromJSONObject: [NSNumber(value: true)]) == [true])
        #expect(throws: DecodingError.self) { try decoder.decode([Int].self, fromJSONObject: [Decimal.nan]) }
        let nested: Int?? = .some(.some(4))
        #expect(try decoder.decode([Int].self, fromJSONObject: [nested as Any]) == [4])
    }

    struct Numbered: Codable, Equatable {
        var first: String
        var second: Int
        enum CodingKeys: Int, CodingKey {
            case first = 1
            case second = 2
        }
    }

    @Test("update keeps members whose coding keys have integer values")
    func updateIntegerKeys() throws {
        var value = Numbered(first: "a", second: 1)
        try StreamingJSONDecoder().update(&value, from: Data(#"{"second": 5}"#.utf8))
        #expect(value == Numbered(first: "a", second: 5))
    }
}

@Suite("StreamingJSONDecoder: Foundation containers")
struct FoundationContainerTests {
    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var big: UInt64
        var flag: Bool
        var list: [Int]
        var nested: [String: String]
        var missing: String?
    }

    static let json =
        #"{"name": "x", "count": -3, "ratio": 0.1, "big": 18446744073709551615, "flag": true, "list": [1, 2], "nested": {"a": "b"}, "missing": null}"#

    @Test("JSONSerialization's output decodes to what the bytes decode to")
    func jsonSerialization() throws {
        let object = try JSONSerialization.jsonObject(with: Data(Self.json.utf8))
        let decoder = StreamingJSONDecoder()
        let fromObject = try decoder.decode(Sample.self, fromJSONObject: object)
        #expect(fromObject == (try decoder.decode(Sample.self, from: Data(Self.json.utf8))))
    }

    @Test("dictionaries built in code, with strategies applied")
    func literals() throws {
        let object: [String: Any] = [
            "Name": "x", "COUNT": 3, "ratio": 2.5, "big": UInt64.max, "flag": false, "list": [Int](),
            "nested": [String: String](), "missing": NSNull(),
        ]
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .loose
        let sample = try decoder.decode(Sample.self, fromJSONObject: object)
        #expect(sample == Sample(name: "x", count: 3, ratio: 2.5, big: .max, flag: false, list: [], nested: [:]))
    }

    @Test("property lists: dates and data come back through the default strategies")
    func propertyList() throws {
        struct Backup: Codable, Equatable {
            var created: Date
            var payload: Data
            var size: Int
        }
        let plist: [String: Any] = [
            "created": Date(timeIntervalSince1970: 1_000_000), "payload": Data([1, 2]), "size": 2,
        ]
        let bytes = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let object = try PropertyListSerialization.propertyList(from: bytes, format: nil)
        let backup = try StreamingJSONDecoder().decode(Backup.self, fromJSONObject: object)
        #expect(backup == Backup(created: Date(timeIntervalSince1970: 1_000_000), payload: Data([1, 2]), size: 2))
    }

    @Test("errors carry the coding path and say the value was replayed; non-JSON values are refused")
    func errors() {
        let description = errorDescription {
            _ = try StreamingJSONDecoder().decode([Sample].self, fromJSONObject: [["name": 1]])
        }
        #expect(description == "0.name: Expected a string, found a number in the replayed value")
        let infinite = errorDescription {
            _ = try StreamingJSONDecoder().decode([Double].self, fromJSONObject: [Double.infinity])
        }
        #expect(infinite == "0: There is no JSON form for the number inf.")
    }
}
