import Foundation
import SluiceJSON
import Testing

/// Exact messages and positions for the faults users meet most.
@Suite("Parser errors")
struct ParserErrorTests {
    private func parseError(
        parsing text: String,
        limits: JSONLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONError {
        try #require(throws: JSONError.self, sourceLocation: sourceLocation) {
            try JSONParser.parse(Array(text.utf8), limits: limits)
        }
    }

    static let arrayTrailingComma =
        "Trailing comma: ',' before ']' ends the array; JSON allows no comma after its last element."

    private func parseError(parsing bytes: [UInt8], limits: JSONLimits = .default) throws -> JSONError {
        try #require(throws: JSONError.self) { try JSONParser.parse(bytes, limits: limits) }
    }

    @Test("a trailing comma names the bracket, its line and column, with an excerpt and caret")
    func trailingComma() throws {
        let error = try parseError(parsing: "{\n  \"a\": [1, 2,]\n}")
        #expect(error.kind == .syntax)
        #expect(error.message == Self.arrayTrailingComma)
        #expect(error.position == JSONPosition(byteOffset: 15, line: 2, column: 14))
        #expect(error.excerpt == "  \"a\": [1, 2,]")
        #expect(error.excerptColumn == 13)
        #expect(
            error.description == """
                line 2, column 14 (byte 15): \(Self.arrayTrailingComma)
                      "a": [1, 2,]
                                 ^
                """
        )
    }

    @Test("a trailing comma is named as such in arrays and objects, wherever the chunks end")
    func trailingCommaAnyChunking() throws {
        let cases: [(String, String, Int)] = [
            ("[1, 2 ,\n ]", Self.arrayTrailingComma, 9),
            (
                "{\"a\": {\"b\": 1,}}",
                "Trailing comma: ',' before '}' ends the object; JSON allows no comma after its last member.",
                14
            ),
            // Not trailing commas: a missing value, a mismatched bracket, a comma first.
            ("[1,,2]", "Unexpected ',' where a value was expected.", 3),
            ("[1,}", "Unexpected '}' where a value was expected.", 3),
            ("[,]", "Unexpected ',' where a value was expected.", 1),
        ]
        for (json, message, offset) in cases {
            let bytes = Array(json.utf8)
            for chunkSize in 1...bytes.count {
                let parser = JSONParser()
                let error = try #require(throws: JSONError.self) {
                    var rest = bytes[...]
                    while !rest.isEmpty {
                        try parser.parse(Array(rest.prefix(chunkSize)))
                        rest = rest.dropFirst(chunkSize)
                    }
                    try parser.finish()
                }
                #expect(error.message == message, "\(json), chunks of \(chunkSize)")
                #expect(error.position.byteOffset == offset, "\(json), chunks of \(chunkSize)")
            }
        }
        // The drop-in decoder reads them, as Foundation's does; a comma that is not trailing is
        // still the parser's error, with its message.
        let decoder = StreamingJSONDecoder()
        #expect(try decoder.decode([Int].self, from: Data("[1, 2,]".utf8)) == [1, 2])
        let failure = try #require(throws: DecodingError.self) {
            try decoder.decode([Int].self, from: Data("[1,,2]".utf8))
        }
        guard case .dataCorrupted(let context) = failure else { throw failure }
        #expect(context.debugDescription.contains("Unexpected ',' where a value was expected"))
    }

    @Test("truncated input says what was left open and where it opened")
    func truncated() throws {
        var error = try parseError(parsing: "{\"data\": [\n  {\"id\": 1},\n  {\"id\": 2")
        #expect(error.kind == .unexpectedEndOfInput)
        #expect(
            error.message
                == "The input ended inside an object that opened at line 3, column 3 (3 arrays and objects were left open)."
        )
        #expect(error.position == JSONPosition(byteOffset: 34, line: 3, column: 11))

        error = try parseError(parsing: "[1, 2")
        #expect(error.message == "The input ended inside an array that opened at line 1, column 1.")

        error = try parseError(parsing: #"{"a": "#)
        #expect(
            error.message
                == "The input ended before the value of a member, in an object that opened at line 1, column 1."
        )

        error = try parseError(parsing: #"["abc"#)
        #expect(error.message == "The input ended inside a string that starts at line 1, column 2.")
        #expect(error.byteOffset == 5)

        error = try parseError(parsing: " \n ")
        #expect(error.message == "The input holds no JSON value; it is empty or only whitespace.")
        #expect(error.position == JSONPosition(byteOffset: 3, line: 2, column: 2))
    }

    @Test("invalid UTF-8 is reported at the first byte of the bad sequence")
    func invalidUTF8() throws {
        // yajl finds this one itself (0xFF can start nothing).
        var error = try parseError(parsing: Array("[\"ok\", \"ab".utf8) + [0xFF] + Array("\"]".utf8))
        #expect(error.kind == .invalidUTF8)
        #expect(error.message == "Invalid UTF-8 in a string: the sequence starting with byte 0xFF is ill-formed.")
        #expect(error.byteOffset == 10)
        // yajl lets an overlong form through; Sluice's own check does not.
        error = try parseError(parsing: Array("\"x".utf8) + [0xC0, 0xAF] + Array("\"".utf8))
        #expect(error.kind == .invalidUTF8)
        #expect(error.message == "Invalid UTF-8 in a string: the sequence starting with byte 0xC0 is ill-formed.")
        #expect(error.byteOffset == 2)
        // An encoded surrogate (U+D800 as ED A0 80).
        error = try parseError(parsing: Array("[\"\"".utf8) + [0x2C, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D])
        #expect(error.kind == .invalidUTF8)
        #expect(error.byteOffset == 5)
    }

    @Test("every three-byte sequence is judged as Unicode judges it, inside a run of text and at its end")
    func threeByteSequences() throws {
        // The tokenizer checks the common three-byte sequences a word at a time and the rest
        // through the table: both must agree with Unicode's table 3-7 (Swift's own validation).
        for lead in UInt8(0xE0)...0xEF {
            for second in UInt8(0x00)...0xFF where second >= 0x20 && second != 0x22 && second != 0x5C {
                for third: UInt8 in [0x80, 0xBF, 0x41, 0xC0] {
                    let sequence = [lead, second, third]
                    let valid = String(validating: sequence, as: UTF8.self) != nil
                    // Followed by more text (the word check) and right before the quote.
                    for tail in [Array("\u{3042}tail".utf8), []] {
                        let bytes = [0x22] + sequence + tail + [0x22]
                        if valid {
                            #expect(throws: Never.self) { try JSONParser.parse(bytes) }
                        } else {
                            let error = try parseError(parsing: bytes)
                            #expect(error.kind == .invalidUTF8, "\(sequence)")
                            #expect(error.byteOffset <= 3, "\(sequence)")
                        }
                    }
                }
            }
        }
    }

    @Test("a sequence anywhere in a long run of CJK text is judged as Unicode judges it")
    func sequencesInCJKRuns() throws {
        // A sentence of three-byte characters is checked twelve bytes at a time: a bad sequence
        // at any place of the run, in any lane of those twelve bytes, must still be found at its
        // first byte, and a good one read back unchanged.
        let character: [UInt8] = Array("\u{3042}".utf8)
        let sequences: [[UInt8]] =
            (UInt8(0xE0)...0xEF).flatMap { lead in
                [0x80, 0x9F, 0xA0, 0xBF, 0x41, 0xC0].flatMap { (second: UInt8) in
                    [0x80, 0xBF, 0x41].map { (third: UInt8) in [lead, second, third] }
                }
            } + [
                [0xC3, 0xA9], [0xC3, 0x41], [0x80, 0x80, 0x80], [0xF0, 0x9F, 0x8C, 0x8A], [0xF4, 0x90, 0x80, 0x80],
            ]
        for sequence in sequences {
            let valid = String(validating: sequence, as: UTF8.self)
            for place in 0..<20 {
                let run =
                    Array(repeating: character, count: place).joined() + sequence
                    + Array(repeating: character, count: 20 - place).joined()
                let bytes = [0x22] + run + [0x22]
                if let valid {
                    let tape = try JSONParser.parse(bytes)
                    let text = tape.text(of: tape[tape.startIndex])
                    let expected =
                        String(repeating: "\u{3042}", count: place) + valid
                        + String(repeating: "\u{3042}", count: 20 - place)
                    #expect(text == expected, "\(sequence) at \(place)")
                } else {
                    let error = try parseError(parsing: bytes)
                    #expect(error.kind == .invalidUTF8, "\(sequence) at \(place)")
                    #expect(error.byteOffset == 1 + 3 * place, "\(sequence) at \(place)")
                }
            }
        }
    }

    @Test("an unpaired surrogate escape is refused, not turned into '?'")
    func unpairedSurrogate() throws {
        let error = try parseError(parsing: #"{"k": "a\ud800b"}"#)
        #expect(error.kind == .unpairedSurrogate)
        #expect(error.message == "A \\u escape names half of a UTF-16 surrogate pair without the other half.")
        #expect(error.byteOffset == 8)
        // A proper pair is fine.
        let tape = try JSONParser.parse(Array(#""\ud83d\ude00""#.utf8))
        #expect(try tape.value(at: 0).string() == "😀")
    }

    @Test("a key over the byte limit names the limit and starts at the key's quote")
    func keyTooLong() throws {
        var limits = JSONLimits()
        limits.maxStringBytes = 4
        let error = try parseError(parsing: #"{"abcd": 1, "abcde": 2}"#, limits: limits)
        #expect(error.kind == .stringLimitExceeded)
        #expect(error.message == "A key is longer than the limit of 4 bytes.")
        #expect(error.position == JSONPosition(byteOffset: 12, line: 1, column: 13))
    }

    @Test("a string or number cut by a chunk's end is refused as soon as it passes the limit")
    func longTokenAcrossChunks() throws {
        var limits = JSONLimits()
        limits.maxStringBytes = 1000
        let parser = JSONParser(limits: limits)
        try parser.parse(Array("[\"".utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 600)
        try parser.parse(chunk)
        let error = try #require(throws: JSONError.self) { try parser.parse(chunk) }
        #expect(error.kind == .stringLimitExceeded)
        #expect(error.message == "A string is longer than the limit of 1000 bytes.")
        #expect(error.byteOffset == 1)
        // The parser is spent: the same error again.
        #expect(throws: error) { try parser.parse(chunk) }
        #expect(throws: error) { try parser.finish() }
    }

    @Test("100 000 levels of nesting stop at the depth limit, without a stack overflow")
    func deepNesting() throws {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        var error = try parseError(parsing: text)
        #expect(error.kind == .depthLimitExceeded)
        #expect(error.message == "Arrays and objects are nested more than 512 levels deep, the limit.")
        #expect(error.byteOffset == 512)
        error = try parseError(parsing: String(repeating: "{\"a\":", count: 100_000), limits: JSONLimits(maxDepth: 10))
        #expect(error.message == "Arrays and objects are nested more than 10 levels deep, the limit.")
        #expect(error.byteOffset == 50)
        // Exactly at the limit is fine.
        let tape = try JSONParser.parse(
            Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)
        )
        #expect(tape.count == 1024)
    }

    @Test("the document limit stops at the first byte past it")
    func documentTooLong() throws {
        var limits = JSONLimits()
        limits.maxDocumentBytes = 10
        let parser = JSONParser(limits: limits)
        try parser.parse(Array("[1, 2".utf8))
        let error = try #require(throws: JSONError.self) { try parser.parse(Array(", 3, 4]".utf8)) }
        #expect(error.kind == .documentLimitExceeded)
        #expect(error.message == "The document is longer than the limit of 10 bytes.")
        #expect(error.byteOffset == 10)
        // A fault before the limit is reported first, as it would be in smaller chunks.
        let early = try #require(throws: JSONError.self) {
            try JSONParser.parse(Array("[1,,2, 3, 4, 5]".utf8), limits: limits)
        }
        #expect(early.kind == .syntax)
        #expect(early.byteOffset == 3)
    }

    @Test(
        "each kind of syntax fault has its own sentence",
        arguments: [
            ("[1 2]", "Expected ',' or ']' after the array element, found '2'.", 3),
            (#"{"a" 1}"#, "Expected ':' after the object key, found '1'.", 5),
            (#"{"a": 1 "b": 2}"#, "Expected ',' or '}' after the object member, found '\"'.", 8),
            ("{1: 2}", "Expected a string as the object key, found '1'.", 1),
            ("[1] 2", "Unexpected '2' after the end of the JSON value.", 4),
            ("[x]", "Unexpected 'x' where a value was expected.", 1),
            ("[tru]", "Invalid literal: expected 'true', found ']'.", 4),
            ("[-]", "Malformed number: a digit must follow the minus sign, found ']'.", 2),
            ("[1.]", "Malformed number: a digit must follow the decimal point, found ']'.", 3),
            ("[1e]", "Malformed number: a digit must follow the exponent, found ']'.", 3),
            (#"["\x"]"#, "Invalid escape sequence: '\\' followed by 'x'.", 2),
            (#"["\u12G4"]"#, "Invalid \\u escape: expected four hexadecimal digits, found 'G'.", 6),
            ("[\"a\u{01}\"]", "Unescaped control character byte 0x01 in a string; write it as an escape.", 3),
            ("[1, // no\n2]", "Comments are not allowed in JSON.", 4),
            (
                "[\u{0C}1]",
                "Unexpected form feed (0x0C); JSON allows only space, tab, line feed and carriage return between tokens.",
                1
            ),
        ]
    )
    func syntaxMessages(text: String, message: String, offset: Int) throws {
        let error = try parseError(parsing: text)
        #expect(error.kind == .syntax)
        #expect(error.message == message)
        #expect(error.byteOffset == offset)
    }
}
