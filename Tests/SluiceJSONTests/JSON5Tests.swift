import Foundation
import Testing

@testable import SluiceJSON

/// `allowsJSON5` and `assumesTopLevelDictionary`: documents Foundation's decoder reads with them,
/// read to the same values, and documents it refuses, refused, with a position.
// Serialized: Foundation's JSON5 number scanner has stopped the test process (a failed
// precondition inside `JSON5Scanner.validateNumber`) in about one run in six when its decoders ran
// on several threads at once here; one at a time, it has not.
@Suite("JSON5 and brace-less documents", .serialized)
struct JSON5Tests {
    static func sluice(json5: Bool = true, braceless: Bool = false) -> StreamingJSONDecoder {
        let decoder = StreamingJSONDecoder()
        decoder.allowsJSON5 = json5
        decoder.assumesTopLevelDictionary = braceless
        return decoder
    }

    static func foundation(json5: Bool = true, braceless: Bool = false) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = json5
        decoder.assumesTopLevelDictionary = braceless
        return decoder
    }

    /// A JSON value as both decoders' values compare: objects unordered (Foundation's keyed
    /// containers list keys in no order), numbers by value (Foundation's give no text).
    indirect enum Plain: Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Plain])
        case object([String: Plain])

        init(_ value: JSONValue) {
            switch value {
            case .null: self = .null
            case .bool(let flag): self = .bool(flag)
            case .number(let text): self = .number(Double(text) ?? .nan)
            case .string(let text): self = .string(text)
            case .array(let elements): self = .array(elements.map(Plain.init))
            case .object(let object):
                self = .object(Dictionary(zip(object.keys, object.values.map(Plain.init)), uniquingKeysWith: { $1 }))
            }
        }
    }

    /// The value Foundation's decoder reads, or `nil` when it refuses the document.
    static func foundationValue<T: Decodable>(
        _ type: T.Type,
        _ text: String,
        json5: Bool = true,
        braceless: Bool = false
    ) -> T? {
        try? foundation(json5: json5, braceless: braceless).decode(type, from: Data(text.utf8))
    }

    @Test(
        "documents in JSON5 decode to Foundation's values",
        arguments: [
            "// a comment first\n{unquoted: 'single', \"double\": \"q\", $dollar_: 1, _under: [1, 2,],}",
            "{a: /* inline */ true, b: false, /* before the end */}",
            "{hex: 0x1F, neg: -0X1f, pos: +0x0A, frac: .5, trail: 5., exp: 1.e2, plus: +1}",
            "{s: 'it\\'s', d: \"say \\\"hi\\\"\", x: '\\x41\\x62', u: '\\u00e9\\uD83D\\uDE00'}",
            "[\n  1,\n  2, // two\n  3,\n]",
            "{'quoted key': {nested: [[], {}, [{}],],},}",
            "{café: 1, ǅungla: 2, ʰmod: 3, Ⅻ: 4, a\u{0301}b: 5, a‿b: 6, a\u{200D}b: 7}",
            "{'\\u0041BC': 'esc', b: '\\u0041BC'}",
            "{v\r : true, w\r\n: false}",
            "[\"\\/\\b\\f\\n\\r\\t\"]",
        ]
    )
    func sameValuesAsFoundation(text: String) throws {
        let expected = try #require(Self.foundationValue(JSONValue.self, text))
        #expect(Plain(try Self.sluice().decode(JSONValue.self, from: Data(text.utf8))) == Plain(expected))
    }

    @Test(
        "numbers in JSON5 decode as Foundation decodes them",
        arguments: [
            "1", "-1", "+1", "0", "-0", "+0", "0x1F", "0x0000000E", "-0X1f", "+0X1f", "1.", "1.e2", "1e+02",
            ".1", "-.1", "+.1", "1e-2", "123456789012345678", "0x7FFFFFFFFFFFFFFF", "-0x8000000000000000",
            "0x1000001", "0x20000000000001", "-0x20000000000000", "0xFFFFFFFFFFFFFFFF",
        ]
    )
    func numbers(text: String) throws {
        let data = Data(text.utf8)
        let decoder = Self.sluice()
        // Foundation is given the number with a line feed after it: at the very end of its
        // buffer, its decoder hands the text to strtod, which reads past the end (valgrind shows
        // it), and what lies there decides whether the process traps.
        let foundationText = text + "\n"
        // Foundation's decoder stops the process (a failed precondition) for a hexadecimal number
        // that does not fit the integer type asked for; Sluice's refuses it.
        func integer<T: FixedWidthInteger & Decodable>(_ type: T.Type) -> T? {
            guard let hex = text.lowercased().range(of: "0x") else {
                return Self.foundationValue(T.self, foundationText)
            }
            let magnitude = Int128(text[hex.upperBound...], radix: 16) ?? 0
            return T(exactly: text.hasPrefix("-") ? -magnitude : magnitude)
        }
        #expect((try? decoder.decode(Int.self, from: data)) == integer(Int.self))
        #expect((try? decoder.decode(UInt64.self, from: data)) == integer(UInt64.self))
        #expect((try? decoder.decode(Double.self, from: data)) == Self.foundationValue(Double.self, foundationText))
        #expect((try? decoder.decode(Float.self, from: data)) == Self.foundationValue(Float.self, foundationText))
    }

    @Test("Infinity and NaN are numbers: Double and Float read them, integers and strings do not")
    func specialValues() throws {
        let decoder = Self.sluice()
        #expect(try decoder.decode(Double.self, from: Data("Infinity".utf8)) == .infinity)
        #expect(try decoder.decode(Double.self, from: Data("+Infinity".utf8)) == .infinity)
        #expect(try decoder.decode(Double.self, from: Data("-Infinity".utf8)) == -.infinity)
        #expect(try decoder.decode(Float.self, from: Data("-Infinity".utf8)) == -.infinity)
        #expect(try decoder.decode(Double.self, from: Data("NaN".utf8)).isNaN)
        let negativeNaN = try decoder.decode(Double.self, from: Data("-NaN".utf8))
        #expect(negativeNaN.isNaN && negativeNaN.sign == .minus)
        #expect(try decoder.decode(Float.self, from: Data("NaN".utf8)).isNaN)
        #expect(try decoder.decode([Double].self, from: Data("[1, Infinity, -2]".utf8)) == [1, .infinity, -2])
        // Foundation reads both as Decimal's NaN.
        #expect(try decoder.decode(Decimal.self, from: Data("Infinity".utf8)).isNaN)
        for type in [Int.self, Int8.self, UInt.self] as [any Decodable.Type] {
            #expect(throws: DecodingError.self) { try decoder.decode(type, from: Data("Infinity".utf8)) }
            #expect(throws: DecodingError.self) { try decoder.decode(type, from: Data("NaN".utf8)) }
        }
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: Data("NaN".utf8)) }
        // Without JSON5 they are not numbers at all.
        #expect(throws: DecodingError.self) { try StreamingJSONDecoder().decode(Double.self, from: Data("NaN".utf8)) }
    }

    @Test(
        "what Foundation's JSON5 reader refuses is refused",
        arguments: [
            "", "   ", "// only a comment", "/* unterminated", "-", "+", "-a", "+a", "-0x", "+0x ", "0xABC.DEF",
            "0xABCpD",
            "1e", "1E ", "+1e", "-Inf", "+infinity", "-NAN", "+Na", ".e1", ".", "01", "-01", "00",
            "0xFFFFFFFFFFFFFFFFFFFFFF", "-0xAFFFFFAFFFFFAFFFFFAFFFFFAFFFFF", "tru_", "fals_", "nul_", "Null",
            "[", "['hi',", "[,]", "[1,,2]", "[1 2]", "{", "{k :", "{k : true", "{,}", "{a:1,,}", "{a 1}",
            "{1a: 1}", "{-a: 1}", "{'a': 1 'b': 2}", "'line\nbreak'", "'tab\there'", "'\\0'", "'\\x00'",
            "'\\u0000'", "'\\xZZ'", "'\\u12'", "'\\uD800'", "'\\uDC00'", "'\\1'", "\"unterminated",
            "{a: 1}}", "[1] 2", "/ 1",
        ]
    )
    func refused(text: String) throws {
        #expect(Self.foundationValue(JSONValue.self, text) == nil, "Foundation reads \(text) now")
        #expect(throws: DecodingError.self) { try Self.sluice().decode(JSONValue.self, from: Data(text.utf8)) }
    }

    @Test("invalid UTF-8 is refused in strings, keys and between values")
    func invalidUTF8() {
        for bytes: [UInt8] in [
            [0x7B, 0x80], [0x7B, 0xC0], [0x7B, 0xE0, 0x80], [0x27, 0xED, 0xA0, 0x80, 0x27], [0x5B, 0xFF, 0x5D],
        ] {
            #expect(throws: DecodingError.self) { try Self.sluice().decode(JSONValue.self, from: Data(bytes)) }
        }
    }

    @Test("Unicode's spaces are whitespace, as the JSON5 specification says (Foundation's reads fewer)")
    func unicodeSpaces() throws {
        let text = "{\u{00A0}a\u{2028}:\u{FEFF}1\u{2003},\u{3000}b\u{000C}:\u{000B}2}"
        #expect(try Self.sluice().decode([String: Int].self, from: Data(text.utf8)) == ["a": 1, "b": 2])
        // Without JSON5 none of them is whitespace.
        #expect(throws: DecodingError.self) {
            try StreamingJSONDecoder().decode([String: Int].self, from: Data("{\u{000C}\"a\": 1}".utf8))
        }
    }

    @Test("escapes JSON5 adds beyond Foundation's: \\v, a line continued, any other character as itself")
    func moreEscapes() throws {
        let decoder = Self.sluice()
        #expect(try decoder.decode(String.self, from: Data("'a\\vb'".utf8)) == "a\u{0B}b")
        #expect(try decoder.decode(String.self, from: Data("'one \\\ntwo'".utf8)) == "one two")
        #expect(try decoder.decode(String.self, from: Data("'one \\\r\ntwo'".utf8)) == "one two")
        #expect(try decoder.decode(String.self, from: Data("'\\a\\q\\é'".utf8)) == "aqé")
        #expect(try decoder.decode(String.self, from: Data("'double \" inside'".utf8)) == "double \" inside")
        #expect(try decoder.decode(String.self, from: Data("\"single ' inside\"".utf8)) == "single ' inside")
        // An identifier's `\u` escapes stand for their characters (Foundation's keeps them as written).
        #expect(try decoder.decode([String: Int].self, from: Data("{\\u0061b\\u0063: 1}".utf8)) == ["abc": 1])
    }

    @Test("errors give the line and column of the fault, past comments and continued lines")
    func positions() throws {
        let text = "{\n  // a comment\n  a: 'one \\\n two',\n  /* block\n  */ b: [1, 2,, 3],\n}"
        do {
            _ = try Self.sluice().decode(JSONValue.self, from: Data(text.utf8))
            Issue.record("decoded a document with an empty element")
        } catch DecodingError.dataCorrupted(let context) {
            let fault = try #require(context.underlyingError as? JSONError)
            #expect(fault.kind == .syntax)
            #expect(fault.line == 6)
            #expect(fault.column == 15)
            let doubled = try #require(text.range(of: ",, 3"))
            #expect(fault.byteOffset == text.utf8.distance(from: text.startIndex, to: doubled.lowerBound) + 1)
            #expect(fault.excerpt.contains("b: [1, 2,, 3]"))
        }
        // A decode error names where its value was written.
        struct Point: Decodable { let x: Int }
        do {
            _ = try Self.sluice().decode(Point.self, from: Data("{\n  /* x */ x: 'seven'\n}".utf8))
            Issue.record("decoded a string as an Int")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.debugDescription.contains("line 2, column 14"))
        }
    }

    @Test("limits hold: depth, string length and document size")
    func limits() {
        var limits = JSONLimits()
        limits.maxDepth = 3
        limits.maxStringBytes = 8
        limits.maxDocumentBytes = 64
        let decoder = Self.sluice()
        decoder.limits = limits
        func kind(_ text: String) -> JSONError.Kind? {
            do {
                _ = try decoder.decode(JSONValue.self, from: Data(text.utf8))
                return nil
            } catch DecodingError.dataCorrupted(let context) {
                return (context.underlyingError as? JSONError)?.kind
            } catch {
                return nil
            }
        }
        #expect(kind("[[[1]]]") == nil)
        #expect(kind("[[[[1]]]]") == .depthLimitExceeded)
        #expect(kind("'12345678'") == nil)
        #expect(kind("'123456789'") == .stringLimitExceeded)
        #expect(kind("{abcdefghij: 1}") == .stringLimitExceeded)
        #expect(kind("[" + String(repeating: "1,", count: 40) + "]") == .documentLimitExceeded)
    }

    @Test(
        "brace-less top levels read as Foundation reads them, with JSON5 and without",
        arguments: [
            ("hello: \"world\"", true), ("{hello: \"world\"}", true), ("hello: \"world\", goodbye: \"42\"", true),
            ("hello: \"world\",", true), ("hello: \"world\"  ,  ", true), ("   hello   : \"world\"   ", true),
            ("{hello: \"world\"", true), ("hello: \"world\"}", true), ("hello: \"world\" x", true), ("", true),
            (" ", true), ("{ }", true), (",", true), (" , ", true), ("hello: 0x", true),
            ("\"x\" : 42", false), ("{\"x\" : 42}", false), ("", false), ("\"x\" : 42}", false), ("{\"x\" : 42", false),
            ("\"x\" : 1.5, \"y\": [1,],", false), ("x: 1", false), ("\"x\": 'single'", false),
            ("\"x\": 1 // no", false),
        ]
    )
    func braceless(text: String, json5: Bool) throws {
        let expected = Self.foundationValue([String: JSONValue].self, text, json5: json5, braceless: true)
        let decoded = try? Self.sluice(json5: json5, braceless: true).decode(
            [String: JSONValue].self,
            from: Data(text.utf8)
        )
        #expect(decoded == expected)
    }

    @Test("a brace-less top level is an object: arrays and fragments are refused")
    func bracelessNotFragments() {
        let decoder = Self.sluice(braceless: true)
        #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: Data("[1,2,3]".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: Data("fragment".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: Data("42".utf8)) }
    }

    @Test("JSON5 reads from files, chunks and UTF-16 as from memory")
    func everyEntry() async throws {
        let text = "// settings\n{name: 'sluice', sizes: [0x10, .5, +3,], }"
        let expected = try Self.sluice().decode(JSONValue.self, from: Data(text.utf8))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("json5-\(UUID()).json5").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        #expect(try Self.sluice().decode(JSONValue.self, fromFileAt: path) == expected)
        let chunks = AsyncStream<[UInt8]> { continuation in
            for byte in Array(text.utf8) { continuation.yield([byte]) }
            continuation.finish()
        }
        #expect(try await Self.sluice().decode(JSONValue.self, from: chunks) == expected)
        #expect(try Self.sluice().decode(JSONValue.self, from: text.data(using: .utf16)!) == expected)
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)
        #expect(try Self.sluice().decode(JSONValue.self, from: bom) == expected)
    }

    @Test("every JSON document reads the same with JSON5 allowed", arguments: ["twitter.json", "citm_catalog.json"])
    func jsonIsJSON5(name: String) throws {
        let data = Data(try Fixtures.corpus(name))
        let strict = try StreamingJSONDecoder().decode(JSONValue.self, from: data)
        #expect(try Self.sluice().decode(JSONValue.self, from: data) == strict)
    }
}
