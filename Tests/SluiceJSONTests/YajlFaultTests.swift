import CYajl
import Foundation
import SluiceJSON
import Testing

/// yajl's fault messages, as the linked library words them, against the table that turns them
/// into Sluice's: a yajl that words one differently fails here, not in users' error messages.
@Suite("yajl's fault messages")
struct YajlFaultTests {
    /// An input for each fault yajl reports, as yajl alone reads it.
    static let inputs: [(fault: YajlFault, input: [UInt8])] = [
        (.prematureEnd, Array("[1, 2".utf8)),
        (.trailingGarbage, Array("[] []".utf8)),
        (.unallowedToken, Array("[1, ]".utf8)),
        (.invalidKey, Array("{1: 2}".utf8)),
        (.missingColon, Array(#"{"a" 1}"#.utf8)),
        (.missingMemberSeparator, Array(#"{"a": 1 "b": 2}"#.utf8)),
        (.missingElementSeparator, Array("[1 2]".utf8)),
        (.invalidUTF8, [UInt8(ascii: "["), UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\""), UInt8(ascii: "]")]),
        (.invalidEscape, Array(#"["\x"]"#.utf8)),
        (.controlCharacter, Array("[\"a\u{01}b\"]".utf8)),
        (.invalidUnicodeEscape, Array(#"["\u12G4"]"#.utf8)),
        (.invalidCharacter, Array("[@]".utf8)),
        (.invalidLiteral, Array("[trux]".utf8)),
        (.missingExponentDigit, Array("[1ex]".utf8)),
        (.missingFractionDigit, Array("[1.x]".utf8)),
        (.missingIntegerDigit, Array("[-x]".utf8)),
        (.comment, Array("[1 /* note */]".utf8)),
    ]

    /// yajl's own message for `input`, without its "lexical error:" or "parse error:" prefix.
    static func yajlMessage(_ input: [UInt8]) -> String? {
        var callbacks = yajl_callbacks()
        guard let handle = yajl_alloc(&callbacks, nil, nil) else { return nil }
        defer { yajl_free(handle) }
        var status = input.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, $0.count) }
        if status == yajl_status_ok { status = yajl_complete_parse(handle) }
        guard status == yajl_status_error, let text = yajl_get_error(handle, 0, nil, 0) else { return nil }
        defer { yajl_free_error(handle, text) }
        let message = String(cString: text)
        guard let colon = message.firstIndex(of: ":") else { return message }
        return message[message.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("every fault in the table is one the linked yajl words that way")
    func tableMatchesYajl() {
        #expect(Set(Self.inputs.map(\.fault)) == Set(YajlFault.allCases))
        for (fault, input) in Self.inputs {
            #expect(Self.yajlMessage(input) == fault.rawValue, "\(String(decoding: input, as: UTF8.self))")
        }
    }

    @Test("no fault of the table reaches users in yajl's words")
    func noFallbackMessages() {
        for (_, input) in Self.inputs {
            #expect(throws: JSONError.self) { try JSONParser.parse(input) }
            do {
                _ = try JSONParser.parse(input)
            } catch {
                #expect(!error.message.contains("yajl"), "\(String(decoding: input, as: UTF8.self)): \(error.message)")
            }
        }
    }
}
