import Foundation
import SluiceJSON
import Testing

@Suite("StreamingJSONEncoder")
struct StreamingJSONEncoderTests {
    struct Address: Codable, Equatable {
        var street: String
        var city: String
        var zip: String?
    }

    struct Person: Codable, Equatable {
        var name: String
        var age: Int
        var height: Double
        var active: Bool
        var nickname: String?
        var tags: [String]
        var scores: [Int?]
        var address: Address
        var previous: [Address]
        var ratings: [String: Double]
        var big: UInt64
        var small: Int8
        var ratio: Float
        var homepage: URL?
        var avatar: Data?
        var seen: Date
    }

    static let person = Person(
        name: "Ada \"Countess\" / Lovelace \u{1} é 😀",
        age: 36,
        height: 1.65,
        active: true,
        nickname: nil,
        tags: ["math", "engines"],
        scores: [1, nil, 3],
        address: Address(street: "1 Analytical Way", city: "London", zip: nil),
        previous: [Address(street: "2 Difference St", city: "Marylebone", zip: "W1")],
        ratings: ["b": 2.5, "a": -0.001],
        big: .max,
        small: -128,
        ratio: 0.1,
        homepage: URL(string: "https://example.com/ada?x=1&y=2"),
        avatar: Data([1, 2, 3]),
        seen: Date(timeIntervalSince1970: 1_700_000_000.25)
    )

    @Test("compact output with sorted keys is byte for byte Foundation's")
    func sameBytes() throws {
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys]
        let sluice = StreamingJSONEncoder()
        sluice.outputFormatting = [.sortedKeys]
        let expected = String(decoding: try foundation.encode(Self.person), as: UTF8.self)
        let actual = String(decoding: try sluice.encode(Self.person), as: UTF8.self)
        #expect(actual == expected)
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        sluice.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try sluice.encode(Self.person) == (try foundation.encode(Self.person)))
    }

    @Test("round trip: encode then decode gives the value back, under every key strategy pair")
    func roundTrip() throws {
        let encoder = StreamingJSONEncoder()
        let decoder = StreamingJSONDecoder()
        #expect(try decoder.decode(Person.self, from: encoder.encode(Self.person)) == Self.person)
        encoder.keyEncodingStrategy = .convertToSnakeCase
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(Person.self, from: encoder.encode(Self.person)) == Self.person)
        encoder.keyEncodingStrategy = .convertToKebabCase
        decoder.keyDecodingStrategy = .convertFromKebabCase
        #expect(try decoder.decode(Person.self, from: encoder.encode(Self.person)) == Self.person)
    }

    @Test("key, date, data and float strategies write what Foundation writes")
    func strategies() throws {
        struct Sample: Codable {
            var myURLValue: Int
            var createdAt: Date
            var blob: Data
            var level: Double
        }
        let sample = Sample(
            myURLValue: 1,
            createdAt: Date(timeIntervalSince1970: 86_400 * 365.25 * 30 + 0.5),
            blob: Data([255, 0]),
            level: .infinity
        )
        let foundation = JSONEncoder()
        let sluice = StreamingJSONEncoder()
        foundation.outputFormatting = .sortedKeys
        sluice.outputFormatting = .sortedKeys
        foundation.keyEncodingStrategy = .convertToSnakeCase
        sluice.keyEncodingStrategy = .convertToSnakeCase
        foundation.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        sluice.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        for (foundationDate, sluiceDate) in [
            (
                JSONEncoder.DateEncodingStrategy.secondsSince1970,
                StreamingJSONEncoder.DateEncodingStrategy.secondsSince1970
            ),
            (.millisecondsSince1970, .millisecondsSince1970), (.iso8601, .iso8601), (.deferredToDate, .deferredToDate),
        ] {
            foundation.dateEncodingStrategy = foundationDate
            sluice.dateEncodingStrategy = sluiceDate
            for (foundationData, sluiceData) in [
                (JSONEncoder.DataEncodingStrategy.base64, StreamingJSONEncoder.DataEncodingStrategy.base64),
                (.deferredToData, .deferredToData),
            ] {
                foundation.dataEncodingStrategy = foundationData
                sluice.dataEncodingStrategy = sluiceData
                let expected = String(decoding: try foundation.encode(sample), as: UTF8.self)
                #expect(String(decoding: try sluice.encode(sample), as: UTF8.self) == expected)
            }
        }
        sluice.dateEncodingStrategy = .iso8601WithFractionalSeconds
        let text = String(decoding: try sluice.encode([Date(timeIntervalSince1970: 951_782_400.125)]), as: UTF8.self)
        #expect(text == #"["2000-02-29T00:00:00.125Z"]"#)
    }

    @Test("JSONValue numbers keep every digit; ISO milliseconds are not truncated below; far dates are refused")
    func numbersKeepDigitsAndDatesKeepMilliseconds() throws {
        let value: JSONValue = .object(
            JSONObject([("createdBy", .number("12345678901234567.89")), ("big", .number("1e400"))])
        )
        let encoder = StreamingJSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        #expect(
            String(decoding: try encoder.encode(value), as: UTF8.self)
                == #"{"createdBy":12345678901234567.89,"big":1e400}"#
        )
        encoder.dateEncodingStrategy = .iso8601WithFractionalSeconds
        let dates = [Date(timeIntervalSince1970: 1_709_208_000.001), Date(timeIntervalSince1970: 1_709_208_000.999)]
        #expect(
            String(decoding: try encoder.encode(dates), as: UTF8.self)
                == #"["2024-02-29T12:00:00.001Z","2024-02-29T12:00:00.999Z"]"#
        )
        #expect(throws: EncodingError.self) { try encoder.encode([Date(timeIntervalSince1970: 1e20)]) }
    }

    @Test("infinity under the default strategy is an EncodingError with the coding path")
    func invalidValue() {
        do {
            _ = try StreamingJSONEncoder().encode(["a": [1.0, .infinity]])
            Issue.record("no error")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["a", "1"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("chunked output joined equals the one-shot output")
    func chunked() throws {
        let encoder = StreamingJSONEncoder()
        let whole = try encoder.encode(Array(repeating: Self.person, count: 50))
        var joined = Data()
        var count = 0
        try encoder.encode(Array(repeating: Self.person, count: 50), chunkSize: 100) { chunk in
            joined.append(contentsOf: chunk)
            count += 1
        }
        #expect(joined == whole)
        #expect(count == (whole.count + 99) / 100)
    }

    @Test("pretty output reads back; super encoders and nested containers land in place")
    func prettyAndSuper() throws {
        class Base: Encodable {
            var id = 1
        }
        final class Derived: Base {
            var extra = "x"
            enum CodingKeys: CodingKey { case extra, location }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(extra, forKey: .extra)
                var location = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .location)
                try super.encode(to: container.superEncoder())
                try location.encode("here", forKey: .extra)
            }
        }
        let encoder = StreamingJSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let text = String(decoding: try encoder.encode(Derived()), as: UTF8.self)
        #expect(
            text
                == "{\n  \"extra\" : \"x\",\n  \"location\" : {\n    \"extra\" : \"here\"\n  },\n  \"super\" : {\n    \"id\" : 1\n  }\n}"
        )
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.prettyPrinted, .sortedKeys]
        #expect(text == String(decoding: try foundation.encode(Derived()), as: UTF8.self))
    }

    struct Wide: Codable, Equatable {
        var signed: Int128
        var unsigned: UInt128
        var list: [Int128]
        var single: UInt128?
    }

    @Test("128-bit integers are written and read back with every digit")
    func wideIntegers() throws {
        let wide = Wide(signed: .min, unsigned: .max, list: [-1, .max], single: 7)
        let data = try StreamingJSONEncoder().encode(wide)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"signed":-170141183460469231731687303715884105728,"unsigned":340282366920938463463374607431768211455,"list":[-1,170141183460469231731687303715884105727],"single":7}"#
        )
        #expect(try StreamingJSONDecoder().decode(Wide.self, from: data) == wide)
        // One past the maximum is refused as Foundation refuses an out-of-range Int64.
        let tooBig = Data(#"{"signed":0,"unsigned":340282366920938463463374607431768211456,"list":[]}"#.utf8)
        #expect(throws: DecodingError.self) { try StreamingJSONDecoder().decode(Wide.self, from: tooBig) }
    }

    struct Silent: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct HoldsSilent: Encodable {
        var inner = Silent()
        var list = [Silent()]
    }

    @Test("a nested value that encodes nothing is an empty object, as with Foundation; at the top it is an error")
    func valuesThatEncodeNothing() throws {
        let sorted = StreamingJSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let foundation = JSONEncoder()
        foundation.outputFormatting = .sortedKeys
        let ours = try sorted.encode(HoldsSilent())
        let theirs = try foundation.encode(HoldsSilent())
        #expect(ours == theirs)
        #expect(String(decoding: ours, as: UTF8.self) == #"{"inner":{},"list":[{}]}"#)
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(Silent()) }
    }

    final class Chain: Encodable {
        var next: Chain?
        init(depth: Int) { next = depth > 1 ? Chain(depth: depth - 1) : nil }
    }

    @Test("nesting past the writer's depth is refused before any chunk reaches the sink")
    func tooDeep() throws {
        var chunks = 0
        #expect(throws: EncodingError.self) {
            try StreamingJSONEncoder().encode(Chain(depth: 200), chunkSize: 16) { _ in chunks += 1 }
        }
        #expect(chunks == 0)
        let fits = try StreamingJSONEncoder().encode(Chain(depth: JSONWriter.maxDepth))
        #expect(try StreamingJSONDecoder().decode(JSONValue.self, from: fits) != .null)
    }

    struct Carrier: Encodable {
        var payload: JSONValue
    }

    @Test("JSONValue subtrees are checked while recording: number text and nesting, with their paths")
    func jsonValueChecks() throws {
        var chunks = 0
        let bad = Carrier(payload: .array([.number("1"), .object(JSONObject([("n", .number("0x1F"))]))]))
        do {
            try StreamingJSONEncoder().encode(bad, chunkSize: 1) { _ in chunks += 1 }
            Issue.record("an invalid number was written")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["payload", "Index 1", "n"])
            #expect(context.debugDescription.contains("\"0x1F\" is not a JSON number"))
        }
        #expect(chunks == 0)
        var deep = JSONValue.null
        for _ in 0..<200 { deep = .array([deep]) }
        #expect(throws: EncodingError.self) {
            try StreamingJSONEncoder().encode(Carrier(payload: deep), chunkSize: 1) { _ in chunks += 1 }
        }
        #expect(chunks == 0)
    }

    struct Acronyms: Codable, Equatable {
        var myURLValue: String
        var userID: Int
        var html5Parser: Bool
        var URLString: String
    }

    @Test("snake and kebab case round-trip keys with acronyms and digits through Sluice's own coders")
    func acronymRoundTrip() throws {
        let value = Acronyms(myURLValue: "u", userID: 7, html5Parser: true, URLString: "s")
        for (encoding, decoding) in [
            (
                StreamingJSONEncoder.KeyEncodingStrategy.convertToSnakeCase,
                StreamingJSONDecoder.KeyDecodingStrategy.convertFromSnakeCase
            ),
            (.convertToKebabCase, .convertFromKebabCase),
        ] {
            let encoder = StreamingJSONEncoder()
            encoder.keyEncodingStrategy = encoding
            encoder.outputFormatting = .sortedKeys
            let data = try encoder.encode(value)
            let decoder = StreamingJSONDecoder()
            decoder.keyDecodingStrategy = decoding
            #expect(try decoder.decode(Acronyms.self, from: data) == value, "\(String(decoding: data, as: UTF8.self))")
        }
        // The spelling Foundation's decoder maps to these keys (a capital per word) still reads.
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let foundation = Data(#"{"my_u_r_l_value":"u","user_i_d":7,"html5_parser":true,"URLString":"s"}"#.utf8)
        #expect(try decoder.decode(Acronyms.self, from: foundation) == value)
    }

    struct Shapes: Codable {
        var empty: [String: Int] = [:]
        var none: [Int] = []
        var nested: [[String: [Int]]] = [["a": []], [:], ["b": [1, 2]]]
        var text = "a, b: {c} [d] \"e\" \\"
        var number = 1.5
    }

    @Test("pretty output is Foundation's bytes: nesting, empty containers, separators inside strings")
    func prettySameBytes() throws {
        for formatting in [[.prettyPrinted, .sortedKeys], [.prettyPrinted]] as [JSONEncoder.OutputFormatting] {
            let foundation = JSONEncoder()
            foundation.outputFormatting = formatting
            let sluice = StreamingJSONEncoder()
            sluice.outputFormatting =
                formatting.contains(.sortedKeys) ? [.prettyPrinted, .sortedKeys] : [.prettyPrinted]
            for value in [Shapes(), Shapes(empty: ["x": 1], none: [3], nested: [], text: "", number: -2)] {
                let expected = String(decoding: try foundation.encode(value), as: UTF8.self)
                let actual = String(decoding: try sluice.encode(value), as: UTF8.self)
                if formatting.contains(.sortedKeys) {
                    #expect(actual == expected)
                } else {
                    // Member order is Foundation's dictionary's without sorted keys: the same
                    // lines in some order, commas aside.
                    func lines(_ text: String) -> [String] {
                        text.split(separator: "\n").map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }
                            .sorted()
                    }
                    #expect(lines(actual) == lines(expected))
                }
            }
            // Chunked output is the same bytes, whatever the chunk size.
            var chunked: [UInt8] = []
            try sluice.encode(Shapes(), chunkSize: 7) { chunked += $0 }
            #expect(chunked == Array(try sluice.encode(Shapes())))
            #expect(
                String(decoding: try sluice.encode([Int]()), as: UTF8.self)
                    == String(decoding: try foundation.encode([Int]()), as: UTF8.self)
            )
        }
    }
}
