import Foundation
import Testing

@testable import SluiceJSON

/// Documents in UTF-16 and UTF-32, and UTF-8 with a byte order mark: Foundation's decoder tells the
/// encoding from the first bytes and reads them all, so a drop-in replacement must too.
@Suite("Text encodings")
struct TextEncodingTests {
    struct Record: Codable, Equatable {
        var key: String
        var numbers: [Double]
        var flag: Bool
    }

    static let text = #"{"key": "välue 😀 \u00e9", "numbers": [1, 2.5, -3e2], "flag": true}"#

    struct Encoded: CustomStringConvertible, Sendable {
        let description: String
        let bytes: [UInt8]
    }

    static func encoded(_ text: String, _ encoding: String.Encoding, mark: [UInt8]) -> [UInt8] {
        mark + Array(text.data(using: encoding)!)
    }

    static let documents: [Encoded] = [
        Encoded(description: "UTF-8 with a mark", bytes: [0xEF, 0xBB, 0xBF] + Array(text.utf8)),
        Encoded(description: "UTF-16LE", bytes: encoded(text, .utf16LittleEndian, mark: [])),
        Encoded(description: "UTF-16BE", bytes: encoded(text, .utf16BigEndian, mark: [])),
        Encoded(description: "UTF-16LE with a mark", bytes: encoded(text, .utf16LittleEndian, mark: [0xFF, 0xFE])),
        Encoded(description: "UTF-16BE with a mark", bytes: encoded(text, .utf16BigEndian, mark: [0xFE, 0xFF])),
        Encoded(description: "UTF-32LE", bytes: encoded(text, .utf32LittleEndian, mark: [])),
        Encoded(description: "UTF-32BE", bytes: encoded(text, .utf32BigEndian, mark: [])),
        Encoded(
            description: "UTF-32LE with a mark",
            bytes: encoded(text, .utf32LittleEndian, mark: [0xFF, 0xFE, 0, 0])
        ),
        Encoded(description: "UTF-32BE with a mark", bytes: encoded(text, .utf32BigEndian, mark: [0, 0, 0xFE, 0xFF])),
    ]

    @Test(
        "every encoding Foundation reads decodes to Foundation's value, from memory and from a file",
        arguments: documents
    )
    func sameAsFoundation(document: Encoded) throws {
        let expected = try JSONDecoder().decode(Record.self, from: Data(Self.text.utf8))
        #expect(expected.key == "välue 😀 é")
        if document.description == "UTF-32LE with a mark" {
            // Foundation's decoder looks for this mark as FE FF 00 00 and takes FF FE 00 00 for
            // UTF-16LE, so it fails here; Sluice reads the mark as Unicode defines it.
            #expect(throws: (any Error).self) { try JSONDecoder().decode(Record.self, from: Data(document.bytes)) }
        } else {
            #expect(try JSONDecoder().decode(Record.self, from: Data(document.bytes)) == expected)
        }
        #expect(try StreamingJSONDecoder().decode(Record.self, from: Data(document.bytes)) == expected)
        #expect(try StreamingJSONDecoder().decode(Record.self, from: document.bytes) == expected)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("encoding-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(document.bytes)))
        #expect(try StreamingJSONDecoder().decode(Record.self, fromFileAt: path) == expected)
    }

    @Test("FE FF 00 00, which Foundation's decoder reads as UTF-32LE's mark, is read so too")
    func foundationsUTF32Mark() throws {
        let json = #""👍🏻""#
        let bytes = [0xFE, 0xFF, 0, 0] + Array(json.data(using: .utf32LittleEndian)!)
        #expect(try JSONDecoder().decode(String.self, from: Data(bytes)) == "👍🏻")
        #expect(try StreamingJSONDecoder().decode(String.self, from: Data(bytes)) == "👍🏻")
        // A mark for one encoding before text in another is an error, as with Foundation.
        let mismatched = [0xFE, 0xFF, 0, 0] + Array(json.data(using: .utf32BigEndian)!)
        #expect(throws: DecodingError.self) { try StreamingJSONDecoder().decode(String.self, from: Data(mismatched)) }
        let utf16Mark = [0xFE, 0xFF] + Array(json.data(using: .utf32LittleEndian)!)
        #expect(throws: DecodingError.self) { try StreamingJSONDecoder().decode(String.self, from: Data(utf16Mark)) }
    }

    @Test("a one-digit document in UTF-16, two bytes in all")
    func shortestUTF16() throws {
        #expect(try StreamingJSONDecoder().decode(Int.self, from: Data([0x37, 0])) == 7)
        #expect(try StreamingJSONDecoder().decode(Int.self, from: Data([0, 0x37])) == 7)
        #expect(try JSONDecoder().decode(Int.self, from: Data([0x37, 0])) == 7)
    }

    @Test(
        "ill-formed UTF-16 and UTF-32 is an error naming the code unit and where it is",
        arguments: [
            // [" then a lone low surrogate, in UTF-16LE: the third code unit, byte 4.
            ([0x5B, 0, 0x22, 0, 0x00, 0xDC, 0x22, 0, 0x5D, 0], 4, "surrogate without its pair"),
            // A high surrogate followed by a quote, in UTF-16BE.
            ([0, 0x5B, 0, 0x22, 0xD8, 0x3D, 0, 0x22, 0, 0x5D], 4, "not followed by a low surrogate"),
            // A last code unit cut short, in UTF-16LE.
            ([0x5B, 0, 0x31, 0, 0x5D], 4, "ends inside a UTF-16 code unit"),
            // A value beyond U+10FFFF, in UTF-32LE.
            ([0x5B, 0, 0, 0, 0x00, 0x00, 0x11, 0x00, 0x5D, 0, 0, 0], 4, "beyond Unicode's last code point"),
        ] as [([UInt8], Int, String)]
    )
    func illFormed(bytes: [UInt8], offset: Int, message: String) {
        do {
            _ = try StreamingJSONDecoder().decode([String].self, from: bytes)
            Issue.record("decoded ill-formed input")
        } catch let DecodingError.dataCorrupted(context) {
            let error = context.underlyingError as? JSONError
            #expect(error?.kind == .invalidUnicode)
            #expect(error?.position.byteOffset == offset)
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: (any Error).self) { try JSONDecoder().decode([String].self, from: Data(bytes)) }
    }
}

/// Strings of up to fifteen bytes are made straight as the standard library lays them out
/// (`UTF8Validation.smallString`): every length, ASCII or not, escaped or not, must come out as
/// the string Foundation reads, equal, hashed and counted alike.
@Suite("Short strings")
struct ShortStringTests {
    static let samples: [String] = {
        var samples: [String] = []
        let pieces = ["a", "é", "日", "😀", "\\n", "e\u{301}", "~"]
        for piece in pieces {
            for length in 0...17 { samples.append(String(repeating: piece, count: length)) }
        }
        samples += [
            "0123456789abcde", "0123456789abcdef", "ab\\\"c", "\\u00e9t\\u00e9", "x\\ud83d\\ude00y",
            "caf\\u0065\\u0301",
        ]
        // Once each: they are an object's keys too.
        var seen: Set<String> = []
        return samples.filter { seen.insert($0).inserted }
    }()

    @Test("the layout check holds here, so the short path is the one tested")
    func layoutMatches() {
        #expect(UTF8Validation.smallStringsMatch)
    }

    @Test("every short string reads as Foundation reads it, as a value and as a key")
    func sameAsFoundation() throws {
        let array = "[" + Self.samples.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let object = "{" + Self.samples.enumerated().map { "\"\($1)\": \($0)" }.joined(separator: ",") + "}"
        let values = try StreamingJSONDecoder().decode([String].self, from: Data(array.utf8))
        let expected = try JSONDecoder().decode([String].self, from: Data(array.utf8))
        #expect(values == expected)
        for (value, known) in zip(values, expected) {
            #expect(value.hashValue == known.hashValue, "\(known)")
            #expect(value.count == known.count, "\(known)")
            #expect(Array(value.utf8) == Array(known.utf8), "\(known)")
            #expect(value + "!" == known + "!", "\(known)")
        }
        let keyed = try StreamingJSONDecoder().decode([String: Int].self, from: Data(object.utf8))
        #expect(keyed == (try JSONDecoder().decode([String: Int].self, from: Data(object.utf8))))
    }
}
