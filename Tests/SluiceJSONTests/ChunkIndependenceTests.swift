import Foundation
import SluiceJSON
import Testing

/// The same input cut anywhere gives the same tokens, positions and errors: a stream's chunks
/// fall wherever the network or the file puts them, and no reader may depend on where.
@Suite("Chunk independence")
struct ChunkIndependenceTests {
    /// Inputs written to cut tokens in awkward places: escapes, surrogate pairs, multi-byte
    /// characters, numbers at the very end, line feeds and errors deep inside strings.
    static let handWritten: [String] = [
        #"{"name": "Ada Lovelace", "born": 1815, "tags": ["math", "poetry"], "alive": false, "note": null}"#,
        "{\n  \"a\": [\n    1,\n    -2.5e+10,\n    \"x\\ty\\u00e9\\ud83d\\ude00\"\n  ],\n  \"b\": {}\n}\n",
        #"  123456789012345678901234567890  "#,
        #"-0.000001e-7"#,
        #""caf\u00e9 na\u00efve \u6f22\u5b57 \ud834\udd1e""#,
        "[\"é\", \"漢字\", \"😀\", \"\u{10FFFF}\"]",
        #"[1, 2, 3,]"#,
        "{\"a\":\n\n  [tru]}",
        "[\"abc\u{01}def\"]",
        #"["a\qb"]"#,
        #"["ok", "\uD800x"]"#,
        "{\"key\": \"value\"} trailing",
        // Strings longer than sixteen bytes, copied as they are scanned: escapes, runs of
        // multi-byte characters longer than a sixteen-byte move, and each kind of fault, at
        // offsets before and after the first sixteen bytes.
        #"["a long string, then \"quoted\" words\n\ttabbed, a \u00e9 and \ud83d\ude00 at the end\\", "#
            + "\"naïve café 漢字漢字漢字漢字漢字漢字漢字漢字 über 🌊🌊🌊🌊🌊 tail\", \"漢字漢字漢字漢字漢字漢字\\n\"]",
        "[\"twenty bytes of text\u{01} then a control character\"]",
        #"["twenty bytes of text\x then a bad escape"]"#,
        #"["twenty bytes of text \udc00 a lone low surrogate"]"#,
        #"["twenty bytes of text \ud800\u0041 a broken pair"]"#,
        "[\"twenty bytes of text é",
        "[\"twenty bytes of text \\u00",
        "[[[[[[",
        "{\"a\": \"unterminated",
        "",
        // Indentation of every width around the 32 bytes the tokenizer's line-feed path looks at,
        // tabs and carriage returns after it, and a fault whose line and column count them.
        "{\n" + String(repeating: " ", count: 31) + "\"a\": [\n" + String(repeating: " ", count: 40) + "1,\n"
            + String(repeating: " ", count: 16) + "\t2,\n\r\n" + String(repeating: " ", count: 30) + "3\n]}\n"
            + String(repeating: " ", count: 20) + "x",
        // Lines where the indentation the grammar predicts holds and where it does not: a step of
        // two, members indented unevenly, a bracket out of place, a comma first, a tab where the
        // token was expected, nesting past 31 columns, and a bracket at column 0 before its time.
        "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n      \"c\": true,\n   \"d\": null\n        },\n"
            + "  \"e\": [\n    {\n      \"f\": \"g\"\n    }\n  ]\n  , \"h\": [\n    \t3,\n    4\n  ],\n"
            + "  \"i\": [[[[[[[[[[[[[[[[\n"
            + (1...16).map { String(repeating: " ", count: 2 * $0 + 2) + "[" }.joined(separator: "\n")
            + "\n" + String(repeating: "]", count: 32) + "\n}",
    ]

    static var splits: [ChunkingVerifier.Split] {
        [.byteByByte, .random(seed: 1), .random(seed: 2), .random(seed: 3)]
    }

    @Test("hand-written inputs: whole, byte by byte and random splits agree", arguments: handWritten)
    func handWrittenInputs(text: String) {
        verify(Array(text.utf8))
    }

    @Test("invalid UTF-8 in a string cut at every byte gives the same error")
    func invalidUTF8() {
        verify(Array("[\"abc".utf8) + [0xE2, 0x82] + Array("x\"]".utf8))
        verify(Array("[\"abc".utf8) + [0xC0, 0xAF] + Array("\"]".utf8))
        verify(Array("[\"abc".utf8) + [0xFF] + Array("\"]".utf8))
        // Past the first sixteen bytes, where the long string's copy meets them.
        let long = Array("[\"twenty bytes of text ".utf8)
        verify(long + [0xE2, 0x82] + Array("x and more text\"]".utf8))
        verify(long + [0xED, 0xA0, 0x80] + Array(" a surrogate's encoding\"]".utf8))
        verify(long + [0xF4, 0x90, 0x80, 0x80] + Array(" past U+10FFFF\"]".utf8))
    }

    /// Every byte pair, and every lead byte with the second bytes that bound its ranges and
    /// the third and fourth bytes that may follow, inside strings long enough for the tokenizer
    /// to check their text 32 or sixteen bytes at a time: it takes or leaves each exactly as yajl
    /// does, wherever the sequence falls against those blocks, their halves and the string's end,
    /// with each width of the check this processor has (its widest and every narrower one).
    @Test("every UTF-8 sequence up to four bytes is taken or refused as yajl does, by every width of the check")
    func utf8Sequences() {
        let edges: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xF0, 0xF4, 0xFF,
        ]
        var sequences: [[UInt8]] = []
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0x00)...0xFF where second != UInt8(ascii: "\\") && second != UInt8(ascii: "\"") {
                sequences.append([lead, second])
            }
            guard lead >= 0xE0 else { continue }
            for second in edges {
                for third in edges {
                    sequences.append([lead, second, third])
                    if lead >= 0xF0 { for fourth in edges { sequences.append([lead, second, third, fourth]) } }
                }
            }
        }
        // The widest check first; narrowing it for a while is safe for tests running beside this
        // one, since every width gives the same answers.
        defer { limitUTF8CheckVectors(to: 2) }
        for width in [2, 1, 0] {
            limitUTF8CheckVectors(to: width)
            var disagreements: [String] = []
            // Without vectors (where the processor has neither, and on other architectures),
            // every fourth sequence: that check is a sequence at a time, blind to blocks.
            for (index, sequence) in sequences.enumerated() where width > 0 || index % 4 == 0 {
                // Text before it of 13 to 44 bytes, so that it meets each place in 32 (and so each
                // half's edge); with a multi-byte character before it, and just before the closing
                // quote.
                let padding = Array(repeating: UInt8(ascii: "a"), count: 13 + index % 32)
                var texts = [padding + sequence + Array("tail".utf8), Array("é".utf8) + padding + sequence]
                // In a second block of 32, after one whole, for the widest check.
                if width == 2 { texts.append(Array("漢字".utf8) + padding + padding + sequence + Array("tail".utf8)) }
                for text in texts {
                    // Input after the string, so that the tokenizer copies it (and checks the copy)
                    // where it would otherwise only find its end, near the input's.
                    let bytes = Array("[\"".utf8) + text + Array("\", \"input after the string\"]".utf8)
                    let tokenizer = ChunkingVerifier.transcript(of: bytes, split: .whole, releasing: true)
                    let yajl = ChunkingVerifier.transcript(
                        of: bytes,
                        split: .whole,
                        releasing: true,
                        usesTokenizer: false
                    )
                    if tokenizer != yajl {
                        disagreements.append(sequence.map { String($0, radix: 16) }.joined(separator: " "))
                    }
                }
            }
            #expect(disagreements.isEmpty, "width \(width): tokenizer and yajl differ on: \(disagreements.prefix(20))")
        }
        #expect(sequences.count > 40_000)
    }

    @Test("every JSONTestSuite case agrees whole, byte by byte and in random splits", arguments: ["y_", "n_", "i_"])
    func jsonTestSuite(prefix: String) throws {
        for name in Fixtures.jsonTestSuite(prefix: prefix) {
            let bytes = try Fixtures.bytes(ofJSONTestSuiteCase: name)
            verify(bytes, name: name)
        }
    }

    /// The C fast path builds the tokens of an input parsed whole; cut byte by byte, every token is
    /// left pending at a chunk's end and built by the Swift callbacks instead. The corpora are
    /// large enough to grow every buffer the fast path hands back to Swift when full.
    @Test(
        "the corpora agree whole and in random splits (the C fast path against the Swift callbacks)",
        arguments: ["twitter.json", "citm_catalog.json", "canada.json"]
    )
    func corpora(name: String) throws {
        let bytes = try Fixtures.corpus(name)
        let whole = ChunkingVerifier.transcript(of: bytes, split: .whole, releasing: true)
        #expect(whole.outcome == "ok")
        let yajl = ChunkingVerifier.transcript(of: bytes, split: .whole, releasing: true, usesTokenizer: false)
        #expect(yajl == whole, "\(name): the tokenizer's tape differs from yajl's")
        for seed: UInt64 in [7, 8] {
            let cut = ChunkingVerifier.transcript(of: bytes, split: .random(seed: seed), releasing: true)
            #expect(cut == whole, "\(name) cut at random (seed \(seed))")
        }
        // A tenth of each, byte by byte: every token through the Swift callbacks.
        let prefix = Array(bytes.prefix(bytes.count / 10))
        let head = ChunkingVerifier.transcript(of: prefix, split: .whole, releasing: true)
        #expect(ChunkingVerifier.transcript(of: prefix, split: .byteByByte, releasing: true) == head)
    }

    @Test("the depth limit trips at the same bracket on both paths")
    func depthLimit() {
        var limits = JSONLimits()
        limits.maxDepth = 3
        verify(Array("[[[1]]]".utf8), limits: limits)
        verify(Array("[[[[1]]]]".utf8), limits: limits)
        verify(Array(#"{"a": {"b": {"c": {}}}}"#.utf8), limits: limits)
        verify(Array(#"{"a": {"b": [{}]}}"#.utf8), limits: limits)
    }

    @Test("limits trip at the same place however the input is cut")
    func limits() {
        var limits = JSONLimits()
        limits.maxStringBytes = 8
        verify(Array(#"{"short": "12345678", "long": "123456789"}"#.utf8), limits: limits)
        verify(Array(#"[1, 123456789]"#.utf8), limits: limits)
        verify(Array(#"{"a-very-long-key": 1}"#.utf8), limits: limits)
        // Too long and malformed after the limit: the limit wins either way.
        verify(Array("[\"1234567890\u{01}\"]".utf8), limits: limits)
        // A literal cut by a chunk's end is not a long token.
        limits.maxStringBytes = 2
        verify(Array(#"{"a":true, "b": false, "c": null}"#.utf8), limits: limits)
        // Strings of 17 to 32 bytes, which the tokenizer reads in two sixteen-byte halves, and
        // numbers, about a limit that falls between the halves (space after them, so that the
        // tokenizer reads them whole rather than near the input's end). Limits under sixteen
        // bytes, above, are yajl's alone.
        limits = JSONLimits(maxStringBytes: 20)
        for length in [17, 20, 21, 31, 32, 33] {
            let text = String(repeating: "x", count: length)
            let number = String(repeating: "7", count: length)
            let bytes = Array("[\"\(text)\", {\"\(text)\": \(number)}\(String(repeating: " ", count: 64))]".utf8)
            verify(bytes, limits: limits)
            verify(bytes)
        }
        limits = JSONLimits(maxDepth: 3)
        verify(Array("[[[1]]]".utf8), limits: limits)
        verify(Array("[[[[1]]]]".utf8), limits: limits)
        // A document limit shorter than a byte order mark: the mark alone passes it.
        for maxDocumentBytes in 0...5 {
            let bytes = Array("\u{FEFF}{}".utf8)
            verify(bytes, limits: JSONLimits(maxDocumentBytes: maxDocumentBytes))
            do {
                _ = try JSONParser.parse(bytes, limits: JSONLimits(maxDocumentBytes: maxDocumentBytes))
                #expect(maxDocumentBytes == 5)
            } catch {
                #expect(error.kind == .documentLimitExceeded && maxDocumentBytes < 5, "\(error)")
            }
        }
    }

    @Test("a fault reported after a long token names its byte, cut anywhere")
    func faultsAfterLongTokens() {
        let first = Array(#""""#.utf8) + Array(repeating: UInt8(ascii: "2"), count: 40) + Array(#"""#.utf8)
        verify(first)
        let whole = ChunkingVerifier.transcript(of: first, split: .whole, releasing: false)
        #expect(whole.outcome.contains("Unexpected '2' after the end of the JSON value."))
        let second =
            [UInt8(ascii: "\""), 0xC0, 0xAF, UInt8(ascii: "w")] + Array(repeating: UInt8(ascii: "("), count: 40)
            + Array("tail".utf8) + [0xFF]
        verify(second)
        #expect(
            ChunkingVerifier.transcript(of: second, split: .byteByByte, releasing: true).outcome.contains(
                "the sequence starting with byte 0xC0 is ill-formed."
            )
        )
    }

    /// Long keys, strings and numbers (past the 32 bytes kept from earlier chunks) before each
    /// kind of fault that is reported at or after them.
    static let longTokenFaults: [String] = {
        let key = "k" + String(repeating: "e", count: 45)
        let text = "s" + String(repeating: "x", count: 45)
        let number = "1" + String(repeating: "2", count: 45)
        return [
            #"{"\#(key)" 1}"#,  // Expected ':'
            #"{"\#(key)": 1 2}"#,  // Expected ',' or '}'
            #"{"\#(key)": "\#(text)" "x"}"#,
            #"["\#(text)" 1]"#,  // Expected ',' or ']'
            #"[\#(number) 1]"#,
            #"{\#(number): 1}"#,  // Expected a string as the object key
            #"{"a": 1, \#(number)}"#,
            #""\#(text)" \#(number)"#,  // after the end of the JSON value
            #"\#(number) "\#(text)""#,
            #"[\#(number)x]"#,
            #"["\#(text)\u12"]"#,
            "[\"\(text)\u{01}\"]",
        ]
    }()

    @Test(
        "a fault after a long token: every split in two and three gives the whole input's error",
        arguments: longTokenFaults
    )
    func longTokenFaultsAtEverySplit(text: String) {
        let bytes = Array(text.utf8)
        let whole = ChunkingVerifier.transcript(of: bytes, split: .whole, releasing: true)
        #expect(whole.outcome != "ok")
        for cut in 1..<bytes.count {
            for second in [cut + 1, bytes.count] where second <= bytes.count {
                let parser = JSONParser()
                var outcome = "ok"
                do {
                    for range in [0..<cut, cut..<second, second..<bytes.count] where !range.isEmpty {
                        try bytes[range].withUnsafeBytes { try parser.parse($0) }
                        parser.removeAllTokens()
                    }
                    try parser.finish()
                } catch let error as JSONError {
                    outcome =
                        "\(error.kind) \(error.position): \(error.message) | \(error.excerpt) | ^\(error.excerptColumn)"
                } catch {
                    outcome = "\(error)"
                }
                #expect(outcome == whole.outcome, "cut at \(cut) and \(second)")
            }
        }
        verify(bytes)
    }

    /// Inputs `make fuzz` found (Fuzz/Regressions/FuzzParser), where a long token that breaks
    /// the grammar gave one error whole and another cut into chunks.
    @Test(
        "a token that breaks the grammar past the limit: the same error however the input is cut",
        arguments: [
            // A number where a key belongs is a fault of place, whatever its length.
            (
                Array("[{".utf8) + Array(repeating: UInt8(ascii: "8"), count: 65) + Array(#""a[]"]"#.utf8),
                JSONLimits(maxDepth: 8, maxStringBytes: 15), "syntax",
                "Expected a string as the object key, found '8'."
            ),
            // So is a string where the ':' belongs, even one with invalid UTF-8 inside.
            (
                Array(#"{"a""#.utf8) + [0x22] + Array(repeating: 0xEF, count: 20) + Array(#"" b}"#.utf8),
                JSONLimits(maxDepth: 8, maxStringBytes: 6), "syntax",
                "Expected ':' after the object key, found '\"'."
            ),
            // An ill-formed sequence is decided by the byte that breaks it, past the limit here.
            (
                Array(#""asd"#.utf8) + [0xE6] + Array(#"sddddf"}"#.utf8),
                JSONLimits(maxDepth: 4, maxStringBytes: 3), "stringLimitExceeded",
                "A string is longer than the limit of 3 bytes."
            ),
            // A value after its ':' is in its place: the limit decides, not the fault inside it.
            (
                Array(#"{"title":"\u041f\u043e\u043b\u0442\u043e\u04$0\u0430"}"#.utf8),
                JSONLimits(maxDepth: 7, maxStringBytes: 9), "stringLimitExceeded",
                "A string is longer than the limit of 9 bytes."
            ),
            (
                Array(#"{ "min": -1.0e+ "max": 1}"#.utf8), JSONLimits(maxDepth: 7, maxStringBytes: 3),
                "stringLimitExceeded", "A number is longer than the limit of 3 bytes."
            ),
            // A bad escape is decided by the byte after its backslash.
            (
                Array(#"["\x001]"#.utf8), JSONLimits(maxDepth: 1, maxStringBytes: 0), "stringLimitExceeded",
                "A string is longer than the limit of 0 bytes."
            ),
        ]
    )
    func fuzzerFindings(bytes: [UInt8], limits: JSONLimits, kind: String, message: String) {
        let whole = ChunkingVerifier.transcript(of: bytes, split: .whole, releasing: true, limits: limits)
        #expect(whole.outcome.hasPrefix(kind + " "), "\(whole.outcome)")
        #expect(whole.outcome.contains(": " + message + " |"), "\(whole.outcome)")
        for size in 1...bytes.count {
            let cut = ChunkingVerifier.transcript(of: bytes, split: .fixed(size), releasing: true, limits: limits)
            #expect(
                cut.outcome.split(separator: "|").first == whole.outcome.split(separator: "|").first,
                "chunks of \(size)"
            )
        }
        verify(bytes, limits: limits)
    }

    private func verify(
        _ bytes: [UInt8],
        name: String = "",
        limits: JSONLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for releasing in [false, true] {
            let reference = ChunkingVerifier.transcript(of: bytes, split: .whole, releasing: releasing, limits: limits)
            // yajl alone, whole and byte by byte: what the tokenizer must give, token for token.
            for split in [ChunkingVerifier.Split.whole, .byteByByte] {
                let yajl = ChunkingVerifier.transcript(
                    of: bytes,
                    split: split,
                    releasing: releasing,
                    limits: limits,
                    usesTokenizer: false
                )
                #expect(
                    yajl == reference,
                    "\(name) by yajl alone, \(split):\n\(yajl)\ntokenizer:\n\(reference)",
                    sourceLocation: sourceLocation
                )
            }
            for split in Self.splits {
                let other = ChunkingVerifier.transcript(of: bytes, split: split, releasing: releasing, limits: limits)
                #expect(
                    other == reference,
                    "\(name) cut \(split)\(releasing ? ", releasing" : ""):\n\(other)\nwhole:\n\(reference)",
                    sourceLocation: sourceLocation
                )
            }
        }
    }
}
