/// Commas just before a closing `]` or `}`, which Foundation's decoder accepts (`[1, 2,]`,
/// `{"a": 1,}`) and JSON does not.
///
/// Why a second pass instead of a parser mode: the tokenizer and yajl stay strict for every other
/// reader (JSONTestSuite's `n_` cases refuse these commas), and a document with such a comma fails
/// there quickly. ``StreamingJSONDecoder`` then blanks every such comma, a space for each, and
/// parses again: offsets, lines and columns stay those of the input, and a document without them
/// pays nothing.
enum TrailingCommas {
    /// Whether `fault` is the parser's refusal of a closing bracket after a comma in `bytes`.
    static func explains(_ fault: JSONError, in bytes: UnsafeRawBufferPointer) -> Bool {
        let offset = fault.position.byteOffset
        guard fault.kind == .syntax, offset > 0, offset < bytes.count,
            bytes[offset] == UInt8(ascii: "]") || bytes[offset] == UInt8(ascii: "}")
        else { return false }
        var index = offset - 1
        while index > 0, isSpace(bytes[index]) { index -= 1 }
        return bytes[index] == UInt8(ascii: ",")
    }

    /// `bytes` with every comma that comes, whitespace aside, just before a `]` or `}` outside a
    /// string replaced by a space.
    static func blanked(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var result = Array(bytes)
        var strings = JSONStringTracker()
        // The comma met since the last byte that was neither whitespace nor a comma, if any.
        var pendingComma = -1
        for index in result.indices {
            let byte = result[index]
            guard strings.place(of: byte) == .outside else {
                pendingComma = -1
                continue
            }
            if isSpace(byte) { continue }
            if byte == UInt8(ascii: ",") {
                pendingComma = index
                continue
            }
            if pendingComma >= 0, byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                result[pendingComma] = UInt8(ascii: " ")
            }
            pendingComma = -1
        }
        return result
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
