/// Strict checks of a string's bytes as written in the input, run after yajl has accepted them.
///
/// yajl's own UTF-8 check looks only at the shape of each sequence: it lets overlong forms
/// (`C0 AF`), encoded surrogates (`ED A0 80`) and code points above U+10FFFF through, and it turns an
/// unpaired `\uD800` escape into `?` without a word. Passing those on would either corrupt data
/// silently or let Swift's `String` repair it silently, so Sluice checks the raw bytes again here,
/// to the letter of Unicode's table of well-formed UTF-8 (Unicode 15, table 3-7).
enum UTF8Validation {
    /// The index of the first byte of the first ill-formed UTF-8 sequence in `bytes`, or `nil`
    /// when every byte belongs to a well-formed sequence.
    static func firstInvalidSequence(in bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        var index = 0
        while index < count {
            // Fast path: eight ASCII bytes at a time, the common case for JSON text.
            while index + 8 <= count {
                // Safe because index + 8 <= count keeps the load inside the buffer.
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                guard word & 0x8080_8080_8080_8080 == 0 else { break }
                index += 8
            }
            guard index < count else { return nil }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                secondRange = 0x80...0x9F
            case 0xF0:
                length = 4
                secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                secondRange = 0x80...0x8F
            default: return index
            }
            guard index + length <= count, secondRange.contains(bytes[index + 1]) else { return index }
            for continuation in (index + 2)..<(index + length) where bytes[continuation] & 0xC0 != 0x80 {
                return index
            }
            index += length
        }
        return nil
    }

    /// The index of the backslash of the first `\u` escape in `content` (a string's bytes between
    /// its quotes, escapes already checked by yajl) that names one half of a surrogate pair without
    /// the other, or `nil` when there is none.
    static func firstUnpairedSurrogate(in content: UnsafeRawBufferPointer) -> Int? {
        let backslash = UInt8(ascii: "\\")
        let count = content.count
        var index = 0
        while index < count {
            guard content[index] == backslash else {
                index += 1
                continue
            }
            guard index + 5 < count, content[index + 1] == UInt8(ascii: "u") else {
                index += 2
                continue
            }
            let unit = hexValue(content, at: index + 2)
            if unit & 0xFC00 == 0xDC00 { return index }  // a low half with no high half before it
            if unit & 0xFC00 == 0xD800 {
                let next = index + 6
                guard next + 6 <= count, content[next] == backslash, content[next + 1] == UInt8(ascii: "u"),
                    hexValue(content, at: next + 2) & 0xFC00 == 0xDC00
                else { return index }
                index = next + 6
                continue
            }
            index += 6
        }
        return nil
    }

    /// The value of the four hexadecimal digits at `index` (yajl has checked they are hex digits).
    private static func hexValue(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: digit = byte &- UInt8(ascii: "A") &+ 10
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
