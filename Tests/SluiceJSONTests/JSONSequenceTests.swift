import Foundation
import Testing

@testable import SluiceJSON

/// Inputs of several values (JSON Lines, RFC 7464 text sequences) and a byte order mark at the
/// start of any input.
@Suite("JSON Lines, text sequences and byte order marks")
struct JSONSequenceTests {
    /// What a reader hands over: each value's compact text and where it stands, then the outcome.
    static func transcript(
        _ bytes: [UInt8],
        format: JSONSequenceFormat,
        split: ChunkingVerifier.Split,
        limits: JSONLimits = .streaming
    ) -> [String] {
        let reader = JSONSequenceReader(format: format, limits: limits)
        var seen: [String] = []
        let take = { (value: JSONTape.Value, at: JSONSequenceIndex) in
            var text: [UInt8] = []
            value.writeJSON(into: &text)
            seen.append(
                "\(at.index) \(at.position.line):\(at.position.column)@\(at.position.byteOffset) \(String(decoding: text, as: UTF8.self))"
            )
        }
        do {
            for range in split.chunks(of: bytes.count) {
                try bytes[range].withUnsafeBytes { try reader.feed($0, take) }
            }
            try reader.finish(take)
            seen.append("ok")
        } catch let error as JSONError {
            seen.append("\(error.kind) \(error.position): \(error.message)")
        } catch {
            seen.append("\(error)")
        }
        return seen
    }

    static let splits: [ChunkingVerifier.Split] = [.whole, .byteByByte, .random(seed: 7), .random(seed: 8)]

    @Test("JSON Lines: CRLF, blank lines, a last line without a line feed, each value at its line")
    func lines() {
        let text = "{\"a\":1}\r\n\n  \n[true, \"x\"]\n  {\"b\": {\"c\": null}}\r\n42"
        let expected = [
            #"0 1:1@0 {"a":1}"#,
            #"1 4:1@13 [true,"x"]"#,
            #"2 5:3@27 {"b":{"c":null}}"#,
            "3 6:1@47 42",
            "ok",
        ]
        for split in Self.splits {
            #expect(Self.transcript(Array(text.utf8), format: .lines, split: split) == expected, "\(split)")
        }
    }

    @Test("JSON Lines: a bad line fails at its own line, column and byte, after the lines before it")
    func badLine() {
        let text = "{\"a\":1}\n{\"a\":2}\n{\"a\": tru}\n{\"a\":4}\n"
        for split in Self.splits {
            let seen = Self.transcript(Array(text.utf8), format: .lines, split: split)
            #expect(seen.count == 3, "\(split): \(seen)")
            #expect(seen.last?.hasPrefix("syntax line 3, column ") == true, "\(split): \(seen)")
            #expect(seen.last?.contains("(byte 2") == true, "\(split): \(seen)")
        }
        // Two values on one line: the second is the fault, where it starts.
        let two = Self.transcript(Array("{\"a\":1}\n{\"a\":2} {\"a\":3}\n".utf8), format: .lines, split: .whole)
        #expect(
            two.last == "syntax line 2, column 9 (byte 16): Unexpected '{' after the end of the JSON value.",
            "\(two)"
        )
    }

    @Test("JSON Lines: a value longer than the held-bytes limit is refused, not gathered")
    func longLine() {
        var limits = JSONLimits.streaming
        limits.maxHeldBytes = 64
        let long = "{\"a\":\"" + String(repeating: "x", count: 200) + "\"}\n"
        let seen = Self.transcript(Array(("{}\n" + long).utf8), format: .lines, split: .fixed(16), limits: limits)
        #expect(seen.first == "0 1:1@0 {}")
        #expect(seen.last?.hasPrefix("heldBytesLimitExceeded line 2, column 1 (byte 3)") == true, "\(seen)")
    }

    @Test("RFC 7464: values after record separators, across lines, with positions")
    func textSequence() {
        let text = "\u{1E}{\"a\":1}\n\u{1E}[\n  1,\n  2\n]\n\u{1E}\"s\"\n"
        let expected = [#"0 1:2@1 {"a":1}"#, "1 2:2@10 [1,2]", #"2 6:2@24 "s""#, "ok"]
        for split in Self.splits {
            #expect(Self.transcript(Array(text.utf8), format: .textSequence, split: split) == expected, "\(split)")
        }
        let missing = Self.transcript(Array("{\"a\":1}\n".utf8), format: .textSequence, split: .whole)
        #expect(missing.last?.hasPrefix("syntax line 1, column 1 (byte 0): A JSON text sequence starts") == true)
    }

    @Test("a UTF-8 byte order mark is skipped, cut anywhere; offsets stay the file's")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"a": [1, 2]}"#.utf8)
        for split in [ChunkingVerifier.Split.whole, .byteByByte, .fixed(2)] {
            let parser = JSONParser()
            for range in split.chunks(of: bytes.count) { try parser.parse(Array(bytes[range])) }
            try parser.finish()
            let tape = parser.tape
            let root = try tape.value(at: tape.startIndex)
            #expect(root.position == JSONPosition(byteOffset: 3, line: 1, column: 1), "\(split)")
            #expect(try root["a"]?.elements().map { try $0.integer(as: Int.self) } == [1, 2])
        }
        let lines = Self.transcript([0xEF, 0xBB, 0xBF] + Array("{}\n{}".utf8), format: .lines, split: .byteByByte)
        #expect(lines == ["0 1:1@3 {}", "1 2:1@6 {}", "ok"])
    }

    @Test(
        "what only starts like a byte order mark is input, and fails as such",
        arguments: [[0xEF] as [UInt8], [0xEF, 0xBB], [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF], [0xEF, 0x7B, 0x7D]]
    )
    func notAByteOrderMark(bytes: [UInt8]) {
        for split in [ChunkingVerifier.Split.whole, .byteByByte] {
            let parser = JSONParser()
            #expect(throws: JSONError.self, "\(split)") {
                for range in split.chunks(of: bytes.count) { try parser.parse(Array(bytes[range])) }
                try parser.finish()
            }
        }
    }

    @Test("a byte order mark alone is an input without a value")
    func byteOrderMarkAlone() {
        let parser = JSONParser()
        do {
            try parser.parse([0xEF, 0xBB, 0xBF, 0x20])
            try parser.finish()
            Issue.record("accepted an input with no value")
        } catch {
            #expect(error.kind == .unexpectedEndOfInput)
        }
    }

    struct Event: Decodable, Equatable {
        var id: Int
        var userName: String
    }

    static let eventLines = "{\"id\": 1, \"user_name\": \"ada\"}\r\n\n{\"id\": 2, \"user_name\": \"bob\"}"

    @Test("the decoder reads JSON Lines with its strategies, from memory and from chunks")
    func decoderValues() async throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var events: [Event] = []
        try decoder.forEachValue(of: Event.self, in: Data(Self.eventLines.utf8)) { events.append($0) }
        let expected = [Event(id: 1, userName: "ada"), Event(id: 2, userName: "bob")]
        #expect(events == expected)
        let bytes = Array(Self.eventLines.utf8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            for byte in bytes { continuation.yield([byte]) }
            continuation.finish()
        }
        var streamed: [Event] = []
        for try await event in decoder.values(of: Event.self, from: chunks) { streamed.append(event) }
        #expect(streamed == expected)
    }

    @Test("a value that fails to decode names its index and line; bad JSON names its line")
    func decoderErrors() throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let wrongType = "{\"id\": 1, \"user_name\": \"a\"}\n{\"id\": \"two\", \"user_name\": \"b\"}\n"
        var decoded = 0
        do {
            try decoder.forEachValue(of: Event.self, in: Data(wrongType.utf8)) { _ in decoded += 1 }
            Issue.record("decoded a string as an Int")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(
                context.codingPath.map(\.stringValue) == ["Index 1", "id"]
                    || context.codingPath.map(\.stringValue) == ["1", "id"]
            )
            #expect(context.debugDescription.contains("line 2"), "\(context.debugDescription)")
        }
        #expect(decoded == 1)
        do {
            try decoder.forEachValue(of: Event.self, in: Data("{\"id\": 1, \"user_name\": \"a\"}\n{\"id\": 2,\n".utf8))
            { _ in }
            Issue.record("accepted a cut line")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("line 2, column "), "\(context.debugDescription)")
        }
    }
}
