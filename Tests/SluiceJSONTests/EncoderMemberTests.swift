import Foundation
import Testing

@testable import SluiceJSON

/// A name given twice in one container: Foundation's encoder keeps one member with the last value,
/// and nested containers asked for twice fill one object or array. Sluice's encoder must write the
/// same, never the same name twice (a reader keeps one of the two values and loses the other).
@Suite("Encoder members")
struct EncoderMemberTests {
    /// A value whose `encode(to:)` does one of the things that name a member twice.
    struct Twice: Encodable, CustomStringConvertible {
        let description: String
        let body: @Sendable (any Encoder) throws -> Void
        func encode(to encoder: any Encoder) throws { try body(encoder) }
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    class Base: Encodable {
        var id = 1
        enum CodingKeys: CodingKey { case top }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var top = container.nestedContainer(keyedBy: Key.self, forKey: .top)
            try top.encode(id, forKey: Key("id"))
        }
    }

    final class Child: Base {
        var name = "child"
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            var top = container.nestedContainer(keyedBy: Key.self, forKey: .top)
            try top.encode(name, forKey: Key("name"))
        }
    }

    static let cases: [Twice] = [
        Twice(description: "a key encoded twice") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(0, forKey: Key("key"))
            try container.encode(42, forKey: Key("key"))
        },
        Twice(description: "a nested keyed container asked for twice") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            var first = container.nestedContainer(keyedBy: Key.self, forKey: Key("top"))
            try first.encode("1", forKey: Key("first"))
            var second = container.nestedContainer(keyedBy: Key.self, forKey: Key("top"))
            try second.encode("2", forKey: Key("second"))
        },
        Twice(description: "a nested unkeyed container asked for twice") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            var first = container.nestedUnkeyedContainer(forKey: Key("list"))
            try first.encode(1)
            var second = container.nestedUnkeyedContainer(forKey: Key("list"))
            try second.encode(2)
        },
        Twice(description: "an object encoded, then a nested container under its name") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(["a": 1], forKey: Key("top"))
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("top"))
            try nested.encode(2, forKey: Key("b"))
        },
        Twice(description: "a super encoder for a key, twice") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            try "first".encode(to: container.superEncoder(forKey: Key("super")))
            try "second".encode(to: container.superEncoder(forKey: Key("super")))
        },
        Twice(description: "thirty names, each given twice (past the names worth scanning)") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            for round in 0..<2 {
                for index in 0..<30 { try container.encode(index * 10 + round, forKey: Key("k\(index % 30)")) }
            }
        },
        Twice(description: "a subclass and its superclass nesting under one key") { encoder in
            try Child().encode(to: encoder)
        },
    ]

    @Test("one member per name, with Foundation's bytes under sorted keys", arguments: cases)
    func sameAsFoundation(value: Twice) throws {
        for strategy in [JSONEncoder.KeyEncodingStrategy.useDefaultKeys, .convertToSnakeCase] {
            let foundation = JSONEncoder()
            foundation.outputFormatting = [.sortedKeys]
            foundation.keyEncodingStrategy = strategy
            let sluice = StreamingJSONEncoder()
            sluice.outputFormatting = [.sortedKeys]
            if case .convertToSnakeCase = strategy { sluice.keyEncodingStrategy = .convertToSnakeCase }
            let expected = String(decoding: try foundation.encode(value), as: UTF8.self)
            let actual = String(decoding: try sluice.encode(value), as: UTF8.self)
            #expect(actual == expected, "\(value)")
        }
    }

    @Test("unsorted, a name keeps its first place and takes its last value", arguments: cases)
    func firstPlaceLastValue(value: Twice) throws {
        let data = try StreamingJSONEncoder().encode(value)
        let expected = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? NSDictionary
        let actual = try JSONSerialization.jsonObject(with: data) as? NSDictionary
        #expect(actual == expected, "\(value)")
        // No name twice in any object of the text: each object's names, counted by the tape.
        let tape = try JSONParser.parse(Array(data))
        for index in tape.indices where tape[index].kind == .objectStart {
            let members = try tape.value(at: index).members()
            let names = members.map(\.key)
            #expect(Set(names).count == names.count, "\(value): \(names)")
        }
    }

    @Test("a nested container under a name that holds a scalar replaces it (Foundation's stops the process)")
    func containerReplacesScalar() throws {
        let value = Twice(description: "scalar, then container") { encoder in
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("text", forKey: Key("top"))
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("top"))
            try nested.encode(2, forKey: Key("b"))
        }
        #expect(String(decoding: try StreamingJSONEncoder().encode(value), as: UTF8.self) == #"{"top":{"b":2}}"#)
    }
}

/// Control characters in strings and keys are escaped as Foundation's encoder escapes them.
@Suite("Control character escapes")
struct ControlEscapeTests {
    @Test("\\u001f in lowercase, in values and keys, compact, sorted and pretty")
    func lowercaseHex() throws {
        let text = "a\u{1F}b\u{1B}c\u{7}d\u{0}e\u{1}\n\t"
        let value = [text: [text, "plain"]]
        for formatting in [[.sortedKeys], [.sortedKeys, .prettyPrinted], [.sortedKeys, .withoutEscapingSlashes]]
            as [JSONEncoder.OutputFormatting]
        {
            let foundation = JSONEncoder()
            foundation.outputFormatting = formatting
            let sluice = StreamingJSONEncoder()
            sluice.outputFormatting = StreamingJSONEncoder.OutputFormatting(
                rawValue: (formatting.contains(.sortedKeys)
                    ? StreamingJSONEncoder.OutputFormatting.sortedKeys.rawValue : 0)
                    | (formatting.contains(.prettyPrinted)
                        ? StreamingJSONEncoder.OutputFormatting.prettyPrinted.rawValue : 0)
                    | (formatting.contains(.withoutEscapingSlashes)
                        ? StreamingJSONEncoder.OutputFormatting.withoutEscapingSlashes.rawValue : 0)
            )
            let expected = String(decoding: try foundation.encode(value), as: UTF8.self)
            #expect(expected.contains("\\u001f") && expected.contains("\\u001b"))
            #expect(String(decoding: try sluice.encode(value), as: UTF8.self) == expected)
        }
    }
}

/// The snake-case key strategy against Foundation's on keys beyond ASCII.
@Suite("Snake-case keys beyond ASCII")
struct UnicodeSnakeCaseTests {
    struct Keyed: Encodable {
        let names: [String]
        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for name in names { try container.encode(1, forKey: Key(stringValue: name)) }
        }
    }

    @Test(
        "letters with combining marks split into words as Foundation splits them",
        arguments: ["m͉̟̹y̦̳G͍͚͎̳r̤͉̤͕ͅea̲͕t͇̥̼͖U͇̝̠R͙̻̥͓̣L̥̖͎͓̪̫ͅR̩͖̩eq͈͓u̞e̱s̙t̤̺ͅ", "snakeĆase", "myURLRequest", "ÄrgerÜberAll", "straßeNAME"]
            // Runs of capitals, digits and underscores next to capitals, capitals first and last.
            + [
                "a_B", "URLs", "ABCd", "my_URL", "a1A2b", "ÀÉ", "user2FA", "_leading", "trailing_", "__private",
                "x1Y2", "aBC", "a__b", "_aB_", "userID2", "fooBAR9Baz", "ǅungla", "ŉA", "ßX", "A", "", "_", "1A",
            ]
    )
    func sameAsFoundation(name: String) throws {
        let foundation = JSONEncoder()
        foundation.keyEncodingStrategy = .convertToSnakeCase
        let sluice = StreamingJSONEncoder()
        sluice.keyEncodingStrategy = .convertToSnakeCase
        let value = Keyed(names: [name])
        #expect(try sluice.encode(value) == (try foundation.encode(value)), "\(name)")
    }
}
