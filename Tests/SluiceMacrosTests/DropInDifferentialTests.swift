import Foundation
import SluiceMacros
import Testing

@JSONModel
struct DropInRecord: Codable, Equatable {
    var name: String
    var count: Int
    var ratio: Double
    var small: Float
    var tags: [String]
    var values: [Double]
    var owner: PlainPerson?
}

/// What Foundation's decoder reads beyond strict JSON (byte order marks, UTF-16 and UTF-32,
/// trailing commas, JSON5, brace-less top levels) and what it refuses (numbers past a type's
/// range), read by the generated readers exactly as by the general path: the same values, or the
/// same errors with the same paths and positions.
@Suite("@JSONModel: what Foundation's decoder reads, on both paths")
struct DropInDifferentialTests {
    static let record =
        #"{"name": "n", "count": 3, "ratio": 0.5, "small": 1.5, "tags": ["a"], "values": [1, 2.5], "owner": {"name": "o", "age": 4}}"#

    static func expectSame(
        _ bytes: Data,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ configure: (StreamingJSONDecoder) -> Void = { _ in }
    ) -> DifferentialTests.Outcome<DropInRecord> {
        func run(_ generated: Bool) -> DifferentialTests.Outcome<DropInRecord> {
            let decoder = StreamingJSONDecoder()
            decoder.usesGeneratedReaders = generated
            configure(decoder)
            do {
                return .value(try decoder.decode(DropInRecord.self, from: bytes))
            } catch {
                return .failure(DifferentialTests.describe(error))
            }
        }
        let generated = run(true)
        #expect(generated == run(false), sourceLocation: sourceLocation)
        return generated
    }

    @Test("byte order marks and every Unicode encoding Foundation's reads")
    func encodings() throws {
        let expected = Self.expectSame(Data(Self.record.utf8))
        guard case .value = expected else {
            Issue.record("the record did not decode: \(expected)")
            return
        }
        let encodings: [String.Encoding] = [
            .utf16, .utf16LittleEndian, .utf16BigEndian, .utf32, .utf32LittleEndian, .utf32BigEndian,
        ]
        for encoding in encodings {
            #expect(Self.expectSame(Self.record.data(using: encoding)!) == expected)
        }
        #expect(Self.expectSame(Data([0xEF, 0xBB, 0xBF]) + Data(Self.record.utf8)) == expected)
    }

    @Test("trailing commas, and numbers refused past the type's range")
    func commasAndRanges() {
        let commas = #"{"name": "n", "count": 3, "ratio": 0.5, "small": 1.5, "tags": ["a",], "values": [1, 2.5,],}"#
        guard case .value = Self.expectSame(Data(commas.utf8)) else {
            Issue.record("trailing commas refused")
            return
        }
        for (member, number) in [
            ("ratio", "1e-400"), ("ratio", "1e400"), ("small", "1e-50"), ("small", "1e39"), ("count", "1e19"),
        ] {
            let text = Self.record.replacingOccurrences(
                of: #""\#(member)": "#,
                with: #""\#(member)": \#(number), "x": "#
            )
            guard case .failure(let message) = Self.expectSame(Data(text.utf8)) else {
                Issue.record("\(member): \(number) decoded")
                continue
            }
            #expect(message.contains(number), "\(message)")
        }
    }

    @Test("JSON5: values, Infinity, hexadecimal, comments; and its faults, with their positions")
    func json5() {
        let json5 = """
            // a record in JSON5
            {
              name: 'five', count: 0x1F, ratio: -Infinity, small: .25,
              tags: ['a', "b",], values: [+1, 2., 0x10, Infinity], /* no owner */
            }
            """
        let outcome = Self.expectSame(Data(json5.utf8)) { $0.allowsJSON5 = true }
        #expect(
            outcome
                == .value(
                    DropInRecord(
                        name: "five",
                        count: 31,
                        ratio: -.infinity,
                        small: 0.25,
                        tags: ["a", "b"],
                        values: [1, 2, 16, .infinity],
                        owner: nil
                    )
                )
        )
        let faults = [
            json5.replacingOccurrences(of: "count: 0x1F", with: "count: Infinity"),
            json5.replacingOccurrences(of: "small: .25", with: "small: 0x1000001"),
            json5.replacingOccurrences(of: "count: 0x1F", with: "count: 1.5"),
            json5.replacingOccurrences(of: "'five'", with: "five"),
            json5.replacingOccurrences(of: "ratio: -Infinity", with: "ratio: 'x'"),
        ]
        for text in faults {
            guard case .failure(let message) = Self.expectSame(Data(text.utf8), { $0.allowsJSON5 = true }) else {
                Issue.record("decoded: \(text)")
                continue
            }
            #expect(message.contains("line 3") || message.contains("line 4"), "\(message)")
        }
    }

    @Test("brace-less top levels, in JSON and in JSON5")
    func braceless() {
        let json = #""name": "n", "count": 3, "ratio": 0.5, "small": 1.5, "tags": [], "values": [],"#
        let expected = DropInRecord(name: "n", count: 3, ratio: 0.5, small: 1.5, tags: [], values: [], owner: nil)
        #expect(Self.expectSame(Data(json.utf8)) { $0.assumesTopLevelDictionary = true } == .value(expected))
        let json5 = "name: 'n', count: 3, ratio: .5, small: 1.5, tags: [], values: []"
        #expect(
            Self.expectSame(Data(json5.utf8)) {
                $0.assumesTopLevelDictionary = true
                $0.allowsJSON5 = true
            } == .value(expected)
        )
        guard case .failure = Self.expectSame(Data(json.utf8)) else {
            Issue.record("read without braces")
            return
        }
    }

    @Test("snake-case keys converted as Foundation converts them, beyond ASCII too")
    func snakeCase() throws {
        let text = #"{"user_name": "n", "snake_ćase": 1, "user_2fa": true}"#
        func run(_ generated: Bool) throws -> SnakeMembers {
            let decoder = StreamingJSONDecoder()
            decoder.usesGeneratedReaders = generated
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(SnakeMembers.self, from: Data(text.utf8))
        }
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try foundation.decode(SnakeMembers.self, from: Data(text.utf8))
        #expect(try run(true) == expected)
        #expect(try run(false) == expected)
    }
}

@JSONModel
struct SnakeMembers: Codable, Equatable {
    var userName: String
    // swift-format-ignore: IdentifiersMustBeASCII
    var snakeĆase: Int
    var user2Fa: Bool
}
