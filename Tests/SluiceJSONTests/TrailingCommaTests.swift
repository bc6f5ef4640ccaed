import Foundation
import Testing

@testable import SluiceJSON

/// Foundation's decoder accepts a comma before a closing bracket; so must its drop-in replacement,
/// while the parser itself stays strict for everything else that reads JSON.
@Suite("Trailing commas")
struct TrailingCommaTests {
    @Test(
        "documents with trailing commas decode to Foundation's values, from memory and from a file",
        arguments: [
            #"{"key" : [ true, ],}"#,
            "[1, 2, 3,]",
            "[[1,], {\"a\": [2 , ] ,\n} ,\t]",
            #"["a,]", "b,}",]"#,
            #"["\\", ",]",]"#,
            #"{"nested": {"deep": [[],],},}"#,
        ]
    )
    func sameAsFoundation(text: String) throws {
        let data = Data(text.utf8)
        let expected = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(try StreamingJSONDecoder().decode(JSONValue.self, from: data) == expected)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("commas-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: data))
        #expect(try StreamingJSONDecoder().decode(JSONValue.self, fromFileAt: path) == expected)
        // UTF-16 too: the commas are found in its UTF-8 form.
        let utf16 = text.data(using: .utf16LittleEndian)!
        #expect(try StreamingJSONDecoder().decode(JSONValue.self, from: utf16) == expected)
        // The parser alone still refuses them.
        #expect(throws: JSONError.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test("strings keep their commas and brackets")
    func stringsUntouched() throws {
        let decoded = try StreamingJSONDecoder().decode([String].self, from: Data(#"["a,]", "b , }",]"#.utf8))
        #expect(decoded == ["a,]", "b , }"])
    }

    @Test("a fault after a trailing comma is reported where it is in the input", arguments: [true, false])
    func positionsKept(fromFile: Bool) throws {
        let text = "[1,\n 2,]\n[3]"
        let data = Data(text.utf8)
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Int].self, from: data) }
        do {
            if fromFile {
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("commas-\(UUID()).json").path
                defer { try? FileManager.default.removeItem(atPath: path) }
                #expect(FileManager.default.createFile(atPath: path, contents: data))
                _ = try StreamingJSONDecoder().decode([Int].self, fromFileAt: path)
            } else {
                _ = try StreamingJSONDecoder().decode([Int].self, from: data)
            }
            Issue.record("decoded two documents as one")
        } catch let DecodingError.dataCorrupted(context) {
            let fault = try #require(context.underlyingError as? JSONError)
            #expect(fault.position.byteOffset == 9)
            #expect(fault.position.line == 3)
            #expect(fault.position.column == 1)
        }
    }

    @Test("two commas, or a comma alone, are still faults")
    func notTrailing() {
        for text in ["[1,,]", "[,]", "{,}", "[1,,2]"] {
            #expect(throws: DecodingError.self, "\(text)") {
                try StreamingJSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            }
            #expect(throws: (any Error).self, "\(text)") {
                try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            }
        }
    }
}
