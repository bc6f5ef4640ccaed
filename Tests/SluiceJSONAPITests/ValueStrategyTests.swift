import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// The plain decoder's value options on the JSON:API coders: dates, data, special numbers,
/// conversions, converters and member checks when reading; key, date and data strategies when
/// writing, under the names the plain coders use.
@Suite("JSON:API value strategies")
struct ValueStrategyTests {
    struct Post: Resource, Codable, Equatable {
        static let resourceType = "posts"
        var id: String
        var title: String
        var publishedAt: Date
        var editedAt: Date?
        var coverImage: Data?
        var author: ToOne<Writer>
    }

    struct Writer: Resource, Codable, Equatable {
        static let resourceType = "writers"
        var id: String
        var displayName: String
        var joinedOn: Date
    }

    static let kebabDocument = #"""
        {"data":{"type":"posts","id":"1",
          "attributes":{"title":"Dates","published-at":"2024-02-29T12:30:00Z","edited-at":"2024-03-01T08:00:00.250Z","cover-image":"AQID"},
          "relationships":{"author":{"data":{"type":"writers","id":"9"}}}},
         "included":[{"type":"writers","id":"9","attributes":{"display-name":"Ada","joined-on":"2020-01-02T00:00:00Z"}}]}
        """#

    static func decoder() -> JSONAPIDecoder {
        let decoder = JSONAPIDecoder(registry: [Post.self, Writer.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    @Test("dateDecodingStrategy reads ISO 8601 attributes of primary and included resources")
    func isoDates() throws {
        let document = try Self.decoder().decode(Linked<Post>.self, from: Data(Self.kebabDocument.utf8))
        #expect(document.data.publishedAt == Date(timeIntervalSince1970: 1_709_209_800))
        #expect(document.data.editedAt == Date(timeIntervalSince1970: 1_709_280_000.25))
        #expect(document.data.coverImage == Data([1, 2, 3]))
        #expect(document.data.author?.joinedOn == Date(timeIntervalSince1970: 1_577_923_200))
    }

    @Test("without a date strategy, an ISO 8601 attribute is a type mismatch naming the pointer")
    func defaultDateStrategyRefusesStrings() throws {
        let decoder = Self.decoder()
        decoder.dateDecodingStrategy = .deferredToDate
        #expect {
            _ = try decoder.decode(Linked<Post>.self, from: Data(Self.kebabDocument.utf8))
        } throws: { error in
            let error = try #require(error as? JSONAPIDecodingError)
            return error.pointer == "/data/attributes/published-at"
        }
    }

    @Test("perKey date strategies pick a format by property, with a default for the rest")
    func perKeyDates() throws {
        let json = #"""
            {"data":{"type":"writers","id":"1","attributes":{"displayName":"Ada","joinedOn":"Sun, 06 Nov 1994 08:49:37 GMT"}}}
            """#
        let decoder = JSONAPIDecoder()
        decoder.dateDecodingStrategy = .perKey(["joinedOn": .format(.rfc1123)], default: .iso8601)
        let writer = try decoder.decode(Linked<Writer>.self, from: Data(json.utf8)).data
        #expect(writer.joinedOn == Date(timeIntervalSince1970: 784_111_777))
    }

    struct Reading: Resource, Codable {
        static let resourceType = "readings"
        var id: String
        var value: Double
        var count: Int
        var flag: Bool
        var secret: String?
    }

    @Test("non-conforming floats, conversions, ignored keys and member checks apply to attributes")
    func scalarOptions() throws {
        let json = #"""
            {"data":{"type":"readings","id":"1","attributes":{"value":"NaN","count":"42","flag":1,"secret":"s3cr3t"}}}
            """#
        let decoder = JSONAPIDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        decoder.conversions = [.numberFromString, .boolFromNumber]
        decoder.ignoredKeys = ["secret"]
        let reading = try decoder.decode(Linked<Reading>.self, from: Data(json.utf8)).data
        #expect(reading.value.isNaN)
        #expect(reading.count == 42)
        #expect(reading.flag)
        #expect(reading.secret == nil)

        decoder.ignoredKeys = []
        decoder.memberCheck = { check in check.key.stringValue != "secret" }
        #expect(try decoder.decode(Linked<Reading>.self, from: Data(json.utf8)).data.secret == nil)

        decoder.conversions = []
        #expect(throws: JSONAPIDecodingError.self) {
            _ = try decoder.decode(Linked<Reading>.self, from: Data(json.utf8))
        }
    }

    struct Money: Codable, Equatable {
        var cents: Int
    }

    struct Invoice: Resource, Codable {
        static let resourceType = "invoices"
        var id: String
        var total: Money
    }

    @Test("converters read attribute types their own way")
    func converters() throws {
        let json = #"{"data":{"type":"invoices","id":"1","attributes":{"total":"12.34"}}}"#
        let decoder = JSONAPIDecoder()
        decoder.converters.register(Money.self) { value in
            let text = try value.string()
            return Money(cents: Int((Double(text) ?? 0) * 100 + 0.5))
        }
        #expect(try decoder.decode(Linked<Invoice>.self, from: Data(json.utf8)).data.total == Money(cents: 1234))
    }

    @Test("a kebab-case, date-carrying document round-trips through the encoder's own strategies")
    func roundTrip() throws {
        let document = try Self.decoder().decode(Linked<Post>.self, from: Data(Self.kebabDocument.utf8))
        let encoder = JSONAPIEncoder()
        encoder.keyEncodingStrategy = .convertToKebabCase
        encoder.dateEncodingStrategy = .iso8601WithFractionalSeconds
        let writer = try #require(document.data.author?.model)
        let data = try encoder.encode(document.data.model, included: [writer])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""published-at":"2024-02-29T12:30:00.000Z""#))
        #expect(text.contains(#""edited-at":"2024-03-01T08:00:00.250Z""#))
        #expect(text.contains(#""cover-image":"AQID""#))
        #expect(text.contains(#""display-name":"Ada""#))
        #expect(!text.contains("publishedAt"))
        let again = try Self.decoder().decode(Linked<Post>.self, from: data)
        #expect(again.data.model == document.data.model)
        #expect(again.data.author?.model == writer)
    }

    @Test("memberName is one function for both directions")
    func memberNameBothWays() throws {
        let transform: @Sendable (String) -> String = { "x_" + $0 }
        let encoder = JSONAPIEncoder()
        encoder.keyEncodingStrategy = .memberName(transform)
        encoder.dateEncodingStrategy = .secondsSince1970
        let writer = Writer(id: "1", displayName: "Ada", joinedOn: Date(timeIntervalSince1970: 5))
        let data = try encoder.encode(writer)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"data":{"type":"writers","id":"1","attributes":{"x_displayName":"Ada","x_joinedOn":5}}}"#
        )
        let decoder = JSONAPIDecoder()
        decoder.keyDecodingStrategy = .memberName(transform)
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(try decoder.decode(Linked<Writer>.self, from: data).data.model == writer)
    }

    @Test(
        "every date format the decoders read, the encoder writes, and the two agree",
        arguments: [
            (JSONDateFormat.iso8601, #""1994-11-06T08:49:37Z""#),
            (.iso8601WithFractionalSeconds, #""1994-11-06T08:49:37.000Z""#),
            (.rfc1123, #""Sun, 06 Nov 1994 08:49:37 GMT""#),
            (.rfc850, #""Sunday, 06-Nov-94 08:49:37 GMT""#),
            (.asctime, #""Sun Nov  6 08:49:37 1994""#),
            (.secondsSince1970, "784111777"),
            (.millisecondsSince1970, "784111777000"),
            (.pattern("yyyy-MM-dd HH:mm:ss"), #""1994-11-06 08:49:37""#),
        ]
    )
    func dateFormats(format: JSONDateFormat, expected: String) throws {
        let date = Date(timeIntervalSince1970: 784_111_777)
        let encoder = StreamingJSONEncoder()
        encoder.dateEncodingStrategy = .format(format)
        let data = try encoder.encode([date])
        #expect(String(decoding: data, as: UTF8.self) == "[\(expected)]")
        let decoder = StreamingJSONDecoder()
        decoder.dateDecodingStrategy = .format(format)
        #expect(try decoder.decode([Date].self, from: data) == [date])
    }

    @Test("asctime pads single-digit days with a space, RFC 850 writes two-digit years")
    func httpDateEdges() throws {
        let encoder = StreamingJSONEncoder()
        encoder.dateEncodingStrategy = .format(.asctime)
        let date = Date(timeIntervalSince1970: 946_684_799)  // 1999-12-31T23:59:59Z
        #expect(String(decoding: try encoder.encode(date), as: UTF8.self) == #""Fri Dec 31 23:59:59 1999""#)
        encoder.dateEncodingStrategy = .format(.rfc850)
        let leap = Date(timeIntervalSince1970: 951_782_400)  // 2000-02-29T00:00:00Z
        #expect(String(decoding: try encoder.encode(leap), as: UTF8.self) == #""Tuesday, 29-Feb-00 00:00:00 GMT""#)
        let old = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01, a Monday
        encoder.dateEncodingStrategy = .format(.rfc1123)
        #expect(String(decoding: try encoder.encode(old), as: UTF8.self) == #""Mon, 01 Jan 1900 00:00:00 GMT""#)
    }

    struct Event: Codable, Equatable {
        var startsAt: Date
        var day: Date
    }

    @Test("perKey date encoding mirrors the decoder's")
    func perKeyEncoding() throws {
        let event = Event(startsAt: Date(timeIntervalSince1970: 86_400), day: Date(timeIntervalSince1970: 172_800))
        let encoder = StreamingJSONEncoder()
        encoder.dateEncodingStrategy = .perKey(["day": .format(.pattern("yyyy-MM-dd"))], default: .iso8601)
        let data = try encoder.encode(event)
        #expect(String(decoding: data, as: UTF8.self) == #"{"startsAt":"1970-01-02T00:00:00Z","day":"1970-01-03"}"#)
        let decoder = StreamingJSONDecoder()
        decoder.dateDecodingStrategy = .perKey(["day": .format(.pattern("yyyy-MM-dd"))], default: .iso8601)
        #expect(try decoder.decode(Event.self, from: data) == event)
    }
}
