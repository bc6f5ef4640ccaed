import Foundation
import SluiceJSON
import Testing

@Suite("Tape and reader")
struct TapeTests {
    static let document =
        #"{"name": "Ada", "langs": ["en", "fr"], "born": 1815, "alive": false, "spouse": null, "esc": "a\"b\\c\u00e9"}"#

    @Test("tokens come in input order with text, positions and container links")
    func tokens() throws {
        let tape = try JSONParser.parse(Array(#"{"a": [1, true]}"#.utf8))
        #expect(tape.map(\.kind) == [.objectStart, .key, .arrayStart, .number, .true, .arrayEnd, .objectEnd])
        #expect(tape.map(\.byteOffset) == [0, 1, 6, 7, 10, 14, 15])
        #expect(tape.text(of: tape[1]) == "a")
        #expect(tape.endOfValue(at: 0) == 7)
        #expect(tape.endOfValue(at: 2) == 6)
        #expect(try tape.value(at: 2).count == 2)
        #expect(try tape.value(at: 0).count == 1)
    }

    @Test("the reader walks members and elements and converts on demand")
    func reader() throws {
        let tape = try JSONParser.parse(Array(Self.document.utf8))
        let root = try tape.value(at: tape.startIndex)
        #expect(try root.members().map(\.key) == ["name", "langs", "born", "alive", "spouse", "esc"])
        #expect(try root["name"]?.string() == "Ada")
        #expect(try root["langs"]?.elements().map { try $0.string() } == ["en", "fr"])
        #expect(try root["langs"]?[1]?.string() == "fr")
        #expect(root["langs"]?[2] == nil)
        #expect(try root["born"]?.integer(as: Int.self) == 1815)
        #expect(try root["alive"]?.bool() == false)
        #expect(root["spouse"]?.isNull == true)
        #expect(try root["esc"]?.string() == "a\"b\\cé")
        #expect(root["missing"] == nil)
        #expect(root[0] == nil, "an object has no elements")
    }

    @Test(
        "strings from the tape equal, hash and compare as strings made by hand",
        arguments: [
            "id", "a string longer than fifteen bytes", "café", "naïve text longer than fifteen bytes",
            "日本語", "emoji 🎉 beyond the basic plane", "", "tab\tand \"quotes\"", "\u{0}nul",
        ]
    )
    func checkedStrings(text: String) throws {
        // Written with escapes where JSON needs them, so both the C fast path (no escapes) and
        // the Swift path (escapes, or a token cut by a chunk's end) make the String.
        let json = Array(("[" + JSONValue.string(text).jsonText + "]").utf8)
        for chunkSize in [json.count, 3, 1] {
            let parser = JSONParser()
            var start = 0
            while start < json.count {
                let end = min(start + chunkSize, json.count)
                try json[start..<end].withUnsafeBytes { try parser.parse($0) }
                start = end
            }
            try parser.finish()
            let decoded = try parser.tape.value(at: parser.tape.startIndex + 1).string()
            #expect(decoded == text)
            #expect(decoded.hashValue == text.hashValue)
            #expect(Set([decoded]).contains(text))
            #expect(decoded.utf8.elementsEqual(text.utf8))
            #expect(decoded.count == text.count)
            #expect((decoded + "!") == text + "!")
        }
    }

    @Test("releasing tokens keeps indices absolute and bounds storage")
    func release() throws {
        let parser = JSONParser()
        try parser.parse(Array(#"[{"id": "1"}, {"id": "2"}, "#.utf8))
        var tape = parser.tape
        #expect(tape.startIndex == 0)
        #expect(tape.count == 9)
        // Release the first element; the second keeps its indices.
        let second = try #require(tape.endOfValue(at: 1))
        parser.removeTokens(before: second)
        tape = parser.tape
        #expect(tape.startIndex == 5)
        #expect(try tape.value(at: 5)["id"]?.string() == "2")
        #expect(tape.byteCount == 3, "only the arena bytes of \"id\" and \"2\" remain")
        parser.removeAllTokens()
        try parser.parse(Array(#"{"id": "3"}]"#.utf8))
        tape = parser.tape
        #expect(tape.startIndex == 9)
        #expect(try tape.value(at: 9)["id"]?.string() == "3")
        #expect(tape.last?.kind == .arrayEnd)
        try parser.finish()
        #expect(parser.isComplete)
        #expect(parser.bytesParsed == 39)
    }

    @Test("a value still being parsed is reported as such")
    func incomplete() throws {
        let parser = JSONParser()
        try parser.parse(Array(#"{"a": [1, 2"#.utf8))
        #expect(parser.depth == 2)
        #expect(!parser.isComplete)
        let error = try #require(throws: JSONError.self) { try parser.tape.value(at: 0) }
        #expect(parser.tape.withTokens { $0.jsonValue(at: 0) } == nil)
        #expect(error.kind == .unexpectedEndOfInput)
        #expect(error.message == "The object at this position has not been fully parsed yet.")
    }

    @Test("Data, byte arrays and raw buffers parse alike")
    func inputTypes() throws {
        let bytes = Array(Self.document.utf8)
        let fromArray = try JSONParser.parse(bytes)
        let fromData = try JSONParser.parse(Data(bytes))
        let parser = JSONParser()
        try bytes.withUnsafeBytes { try parser.parse($0) }
        try parser.finish()
        #expect(Array(fromArray) == Array(fromData))
        #expect(Array(fromArray) == Array(parser.tape))
    }

    /// Values whose every kind, nesting, escape and empty container `jsonValue()` must make as the
    /// tape's reader walks them.
    static let builderCases = [
        #"{"s": "a\"b\\c\n\u00e9\ud83c\udf0a", "o": {"e": {}, "a": [[], [true, false, null], -1.5e-3]}}"#,
        #"[0, -0, 1E400, 12345678901234567890, "", {"": ""}]"#,
        #"{"k": 1, "k": 2, "long key of more than sixteen bytes": "and a value as long as it"}"#,
        #""just a string""#, "7", "null", "[[[[[]]]]]",
    ]

    /// The value as the tape's public reader walks it: members, elements and texts one by one,
    /// the reference `jsonValue()` (built from the tape's token pointers) is held to.
    static func walked(_ value: JSONTape.Value) throws -> JSONValue {
        switch value.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(try value.numberText())
        case .string: return .string(try value.string())
        case .arrayStart: return .array(try value.elements().map(walked))
        case .objectStart: return .object(JSONObject(try value.members().map { ($0.key, try walked($0.value)) }))
        case .key, .objectEnd, .arrayEnd:
            Issue.record("a value never starts at \(value.kind)")
            return .null
        }
    }

    @Test(
        "jsonValue() makes the values the tape's reader walks, and writes the text the tape writes",
        arguments: builderCases + Fixtures.jsonTestSuite(prefix: "y_")
    )
    func pointerBuilder(source: String) throws {
        let bytes = source.hasSuffix(".json") ? try Fixtures.bytes(ofJSONTestSuiteCase: source) : Array(source.utf8)
        let tape = try JSONParser.parse(bytes)
        let root = try tape.value(at: tape.startIndex)
        let expected = try Self.walked(root)
        #expect(tape.withTokens { $0.jsonValue(at: tape.startIndex) } == expected)
        #expect(try root.jsonValue() == expected)
        // The same through text: the value written back equals the tape's own compact writing.
        var written: [UInt8] = []
        try root.jsonValue().write(into: &written)
        var fromTape: [UInt8] = []
        root.writeJSON(into: &fromTape)
        #expect(written == fromTape)
        // A value inside the document, where the whole is a container.
        if case .arrayStart = tape[tape.startIndex].kind, tape.endIndex - tape.startIndex > 2 {
            let inner = tape.startIndex + 1
            #expect(tape.withTokens { $0.jsonValue(at: inner) } == (try Self.walked(tape.value(at: inner))))
        }
    }
}
