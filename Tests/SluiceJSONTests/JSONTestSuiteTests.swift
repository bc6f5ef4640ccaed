import SluiceJSON
import Testing

/// JSONTestSuite's `test_parsing` cases: `y_` must parse, `n_` must fail with a position, `i_` may
/// go either way but must not crash, and must go the way recorded here (and in the README).
@Suite("JSONTestSuite")
struct JSONTestSuiteTests {
    @Test("the suite is all there: 95 y_, 188 n_ and 35 i_ cases")
    func caseCounts() {
        #expect(Fixtures.jsonTestSuite(prefix: "y_").count == 95)
        #expect(Fixtures.jsonTestSuite(prefix: "n_").count == 188)
        #expect(Fixtures.jsonTestSuite(prefix: "i_").count == 35)
    }

    @Test("every y_ case parses", arguments: Fixtures.jsonTestSuite(prefix: "y_"))
    func accepts(name: String) throws {
        let bytes = try Fixtures.bytes(ofJSONTestSuiteCase: name)
        let tape = try JSONParser.parse(bytes)
        #expect(!tape.isEmpty)
        #expect(tape.endOfValue(at: tape.startIndex) == tape.endIndex, "one value spans the whole tape")
    }

    @Test("every n_ case is rejected with a position inside the input", arguments: Fixtures.jsonTestSuite(prefix: "n_"))
    func rejects(name: String) throws {
        let bytes = try Fixtures.bytes(ofJSONTestSuiteCase: name)
        let error = try #require(throws: JSONError.self) { try JSONParser.parse(bytes) }
        #expect(error.byteOffset >= 0 && error.byteOffset <= bytes.count)
        #expect(error.line >= 1 && error.column >= 1)
        let lineFeedsBefore = bytes.prefix(error.byteOffset).filter { $0 == UInt8(ascii: "\n") }.count
        #expect(error.line == lineFeedsBefore + 1, "line agrees with the offset")
        #expect(error.message.hasSuffix("."), "the message is a sentence: \(error.message)")
    }

    /// How each implementation-defined case goes; the README's table lists the same.
    static let implementationDefined: [String: Bool] = [
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": true,
        "i_number_neg_int_huge_exp.json": true,
        "i_number_pos_double_huge_exp.json": true,
        "i_number_real_neg_overflow.json": true,
        "i_number_real_pos_overflow.json": true,
        "i_number_real_underflow.json": true,
        "i_number_too_big_neg_int.json": true,
        "i_number_too_big_pos_int.json": true,
        "i_number_very_big_negative_int.json": true,
        "i_object_key_lone_2nd_surrogate.json": false,
        "i_string_1st_surrogate_but_2nd_missing.json": false,
        "i_string_1st_valid_surrogate_2nd_invalid.json": false,
        "i_string_UTF-16LE_with_BOM.json": false,
        "i_string_UTF-8_invalid_sequence.json": false,
        "i_string_UTF8_surrogate_U+D800.json": false,
        "i_string_incomplete_surrogate_and_escape_valid.json": false,
        "i_string_incomplete_surrogate_pair.json": false,
        "i_string_incomplete_surrogates_escape_valid.json": false,
        "i_string_invalid_lonely_surrogate.json": false,
        "i_string_invalid_surrogate.json": false,
        "i_string_invalid_utf-8.json": false,
        "i_string_inverted_surrogates_U+1D11E.json": false,
        "i_string_iso_latin_1.json": false,
        "i_string_lone_second_surrogate.json": false,
        "i_string_lone_utf8_continuation_byte.json": false,
        "i_string_not_in_unicode_range.json": false,
        "i_string_overlong_sequence_2_bytes.json": false,
        "i_string_overlong_sequence_6_bytes.json": false,
        "i_string_overlong_sequence_6_bytes_null.json": false,
        "i_string_truncated-utf-8.json": false,
        "i_string_utf16BE_no_BOM.json": false,
        "i_string_utf16LE_no_BOM.json": false,
        "i_structure_500_nested_arrays.json": true,
        "i_structure_UTF-8_BOM_empty_object.json": true,
    ]

    @Test("every i_ case goes the recorded way without crashing", arguments: Fixtures.jsonTestSuite(prefix: "i_"))
    func implementationDefined(name: String) throws {
        let bytes = try Fixtures.bytes(ofJSONTestSuiteCase: name)
        guard let expected = Self.implementationDefined[name] else {
            Issue.record("no recorded outcome for \(name)")
            return
        }
        let accepted: Bool
        do {
            _ = try JSONParser.parse(bytes)
            accepted = true
        } catch {
            accepted = false
            #expect(error.byteOffset <= bytes.count)
        }
        #expect(accepted == expected)
    }
}
