/// The Unicode encoding of a JSON document given whole, told from its first four bytes.
///
/// JSON is UTF-8 on the wire (RFC 8259), but older producers wrote UTF-16 and UTF-32, with or
/// without a byte order mark, and Foundation's decoder reads them. A JSON text starts with an ASCII
/// character (after any mark), so the pattern of zero bytes among the first four tells the
/// encoding: `00 xx 00 xx` is UTF-16 big-endian, `xx 00 00 00` UTF-32 little-endian, and so on.
/// The parser itself reads UTF-8 only (and skips a UTF-8 mark); a document in another encoding is
/// transcoded to UTF-8 first, so its positions count the bytes of its UTF-8 form.
enum JSONTextEncoding: Equatable {
    case utf8
    case utf16(bigEndian: Bool)
    case utf32(bigEndian: Bool)

    /// The encoding of `bytes` and the length of its byte order mark (0 when it has none). A UTF-8
    /// mark is reported as UTF-8 with no mark: the parser skips it itself, keeping positions exact.
    static func detect(_ bytes: UnsafeRawBufferPointer) -> (encoding: JSONTextEncoding, markLength: Int) {
        let count = bytes.count
        func byte(_ index: Int) -> UInt8? { index < count ? bytes[index] : nil }
        let (b0, b1, b2, b3) = (byte(0), byte(1), byte(2), byte(3))
        // Marks first: FE FF and FF FE are not ASCII, so they cannot start a text of another kind.
        if b0 == 0, b1 == 0, b2 == 0xFE, b3 == 0xFF { return (.utf32(bigEndian: true), 4) }
        if b0 == 0xFF, b1 == 0xFE, b2 == 0, b3 == 0 { return (.utf32(bigEndian: false), 4) }
        // Foundation's decoder takes FE FF 00 00 for UTF-32LE's mark (its tests write it so), and
        // as UTF-16BE's mark it would be followed by U+0000, which cannot start a JSON text.
        if b0 == 0xFE, b1 == 0xFF, b2 == 0, b3 == 0 { return (.utf32(bigEndian: false), 4) }
        if b0 == 0xFE, b1 == 0xFF { return (.utf16(bigEndian: true), 2) }
        if b0 == 0xFF, b1 == 0xFE { return (.utf16(bigEndian: false), 2) }
        // No mark: where the zero bytes of the first ASCII characters fall.
        switch (b0, b1, b2, b3) {
        case (0, 0, 0, .some(let last)) where last != 0: return (.utf32(bigEndian: true), 0)
        case (.some(let first), 0, 0, 0) where first != 0: return (.utf32(bigEndian: false), 0)
        case (0, .some(let first), 0, .some(let second)) where first != 0 && second != 0:
            return (.utf16(bigEndian: true), 0)
        case (.some(let first), 0, .some(let second), 0) where first != 0 && second != 0:
            return (.utf16(bigEndian: false), 0)
        // A two-byte document (one digit, with fragments allowed) in UTF-16.
        case (0, .some(let only), nil, nil) where only != 0: return (.utf16(bigEndian: true), 0)
        case (.some(let only), 0, nil, nil) where only != 0: return (.utf16(bigEndian: false), 0)
        default: return (.utf8, 0)
        }
    }

    /// The bytes of the code unit sequence `bytes` (after its mark), in this encoding, as UTF-8.
    ///
    /// - Throws: ``JSONError/Kind/invalidUnicode`` naming the first code unit that is not part
    ///   of a Unicode scalar, at its byte offset in `bytes` counted from `base`, with its line and
    ///   its column in code units.
    func transcoded(_ bytes: UnsafeRawBufferPointer, base: Int) throws(JSONError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let width: Int
        let bigEndian: Bool
        switch self {
        case .utf8: return Array(bytes)
        case .utf16(let big): (width, bigEndian) = (2, big)
        case .utf32(let big): (width, bigEndian) = (4, big)
        }
        let name = width == 2 ? "UTF-16" : "UTF-32"
        var line = 1
        var lineStart = 0
        func fault(at offset: Int, _ message: String) -> JSONError {
            JSONError(
                kind: .invalidUnicode,
                message: message,
                position: JSONPosition(
                    byteOffset: base + offset,
                    line: line,
                    column: (offset - lineStart) / width + 1
                )
            )
        }
        func unit(at offset: Int) -> UInt32 {
            var value: UInt32 = 0
            for index in 0..<width {
                let byte = UInt32(bytes[bigEndian ? offset + index : offset + width - 1 - index])
                value = value << 8 | byte
            }
            return value
        }
        var offset = 0
        while offset < bytes.count {
            guard offset + width <= bytes.count else {
                throw fault(
                    at: offset,
                    "The document ends inside a \(name) code unit (\(bytes.count - offset) of its \(width) bytes)."
                )
            }
            var scalar = unit(at: offset)
            let start = offset
            offset += width
            if width == 2, scalar >= 0xD800, scalar <= 0xDBFF {
                let low = offset + 2 <= bytes.count ? unit(at: offset) : 0
                guard low >= 0xDC00, low <= 0xDFFF else {
                    throw fault(
                        at: start,
                        "The \(name) high surrogate \(Self.hex(scalar)) is not followed by a low surrogate."
                    )
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                offset += 2
            } else if scalar >= 0xD800, scalar <= 0xDFFF {
                throw fault(at: start, "The \(name) code unit \(Self.hex(scalar)) is a surrogate without its pair.")
            } else if scalar > 0x10FFFF {
                throw fault(
                    at: start,
                    "The \(name) code unit \(Self.hex(scalar)) is beyond Unicode's last code point, U+10FFFF."
                )
            }
            if scalar == 0x0A {
                line += 1
                lineStart = offset
            }
            Self.appendUTF8(scalar, to: &output)
        }
        return output
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            output.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
