import Foundation
import Testing

@testable import SluiceJSON

/// Behaviours of Foundation's decoder that code switching to `StreamingJSONDecoder` relies on,
/// each checked against Foundation's own decoder in the same test.
@Suite("Drop-in decoder")
struct DropInDecoderTests {
    class Base: Decodable {
        let id: Int
        var kind: String { "base" }
    }

    final class Child: Base {
        let extra: String
        override var kind: String { "child \(extra)" }
        enum CodingKeys: String, CodingKey { case extra }
        required init(from decoder: any Decoder) throws {
            extra = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .extra)
            try super.init(from: decoder)
        }
    }

    @Test("a class decoded through its base class's metatype is the class the metatype names")
    func dynamicMetatype() throws {
        let data = Data(#"{"id": 1, "extra": "x"}"#.utf8)
        let type: Base.Type = Child.self
        #expect(try JSONDecoder().decode(type, from: data).kind == "child x")
        #expect(try StreamingJSONDecoder().decode(type, from: data).kind == "child x")
        #expect(
            try StreamingJSONDecoder().decode(
                [Base].self,
                from: Data("[\(String(decoding: data, as: UTF8.self))]".utf8)
            )[0].kind == "base"
        )
    }

    @Test("array elements are named Index 0, Index 1 in coding paths, with their index as intValue")
    func elementPaths() {
        struct Item: Decodable { var name: String }
        let data = Data(#"{"items": [{"name": "a"}, {"name": 2}]}"#.utf8)
        struct Holder: Decodable { var items: [Item] }
        var paths: [[String]] = []
        for decode in [
            { _ = try JSONDecoder().decode(Holder.self, from: data) },
            { _ = try StreamingJSONDecoder().decode(Holder.self, from: data) },
        ] as [() throws -> Void] {
            do {
                try decode()
                Issue.record("decoded a number as a String")
            } catch let DecodingError.typeMismatch(_, context) {
                paths.append(context.codingPath.map(\.stringValue))
                #expect(context.codingPath[1].intValue == 1)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(paths == [["items", "Index 1", "name"], ["items", "Index 1", "name"]])
    }

    @Test("a Decimal of more than 38 digits reads rounded, as Foundation's encoder writes Decimal.pi")
    func longDecimals() throws {
        let data = try JSONEncoder().encode([Decimal.pi])
        let expected = try JSONDecoder().decode([Decimal].self, from: data)
        #expect(try StreamingJSONDecoder().decode([Decimal].self, from: data) == expected)
        #expect(
            try StreamingJSONDecoder().decode([Decimal].self, from: try StreamingJSONEncoder().encode([Decimal.pi]))
                == expected
        )
        let long = Data("[123456789012345678901234567890123456789012]".utf8)
        #expect(
            try StreamingJSONDecoder().decode([Decimal].self, from: long)
                == (try JSONDecoder().decode([Decimal].self, from: long))
        )
        // The tape's own reading stays exact or refuses.
        let tape = try JSONParser.parse(Array(long))
        #expect(throws: JSONError.self) { try tape.value(at: 1).decimal() }
    }

    @Test(
        "128-bit integers past 64 bits read exactly, written with a fraction of zeros too (Foundation's refuses)",
        arguments: ["-170141183460469231731687303715884105728", "-18446744073709551616", "18446744073709551616"]
    )
    func wideIntegers(text: String) throws {
        let value = try #require(Int128(text))
        for written in [text, text + ".0", text + ".000e0"] {
            #expect(try StreamingJSONDecoder().decode(Int128.self, from: Data(written.utf8)) == value)
            if written != text {
                #expect(throws: (any Error).self) { try JSONDecoder().decode(Int128.self, from: Data(written.utf8)) }
            }
        }
        let unsigned = "340282366920938463463374607431768211455.0"
        #expect(try StreamingJSONDecoder().decode(UInt128.self, from: Data(unsigned.utf8)) == .max)
        // Past the type's range it is refused, as any integer is.
        #expect(throws: DecodingError.self) {
            try StreamingJSONDecoder().decode(UInt128.self, from: Data("340282366920938463463374607431768211456".utf8))
        }
    }

    @Test("allKeys names each key once: duplicates, and spellings a strategy makes one")
    func allKeysOnce() throws {
        struct Counted: Decodable {
            var count: Int
            enum CodingKeys: String, CodingKey { case oneTwo, other }
            init(from decoder: any Decoder) throws {
                count = try decoder.container(keyedBy: CodingKeys.self).allKeys.count
            }
        }
        let data = Data(#"{"one_two": 1, "oneTwo": 2, "other": 3, "other": 4}"#.utf8)
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let sluice = StreamingJSONDecoder()
        sluice.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try sluice.decode(Counted.self, from: data).count == foundation.decode(Counted.self, from: data).count)
        #expect(try sluice.decode(Counted.self, from: data).count == 2)
    }
}

/// `.convertFromSnakeCase` against Foundation's own cases: the member each key reads, and the
/// names `allKeys` gives.
@Suite("Snake case as Foundation converts it")
struct SnakeCaseParityTests {
    struct Found: Decodable {
        var found = false
        var listed: [String] = []
        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let wanted = try container.decode(String.self, forKey: Key(stringValue: "camelCaseKey"))
            listed = container.allKeys.map(\.stringValue)
            found = (try? container.decode(Bool.self, forKey: Key(stringValue: wanted))) == true
        }
    }

    @Test(
        "each member is found under the key Foundation makes of it, and listed so",
        arguments: [
            ("a", "a"), ("ALLCAPS", "ALLCAPS"), ("ALL_CAPS", "allCaps"), ("snake_case", "snakeCase"),
            ("one_2_three", "one2Three"), ("snake_Ćase", "snakeĆase"), ("snake_ćase", "snakeĆase"),
            ("__this_and_that", "__thisAndThat"), ("this__and__that", "thisAndThat"),
            ("this_aNd_that", "thisAndThat"), ("_one_two_three_", "_oneTwoThree_"), ("___", "___"),
            ("🐧_🐟", "🐧🐟"), ("straße_ärger", "straßeÄrger"), ("user_2fa", "user2Fa"), ("x_y2z", "xY2Z"),
        ]
    )
    func sameAsFoundation(member: String, key: String) throws {
        let data = Data("{\"camelCaseKey\":\"\(key)\",\"\(member)\":true}".utf8)
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let sluice = StreamingJSONDecoder()
        sluice.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try foundation.decode(Found.self, from: data)
        let actual = try sluice.decode(Found.self, from: data)
        #expect(expected.found && actual.found, "\(member) as \(key)")
        #expect(Set(actual.listed) == Set(expected.listed), "\(member)")
    }
}
