internal import CSluiceTape

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
    ///
    /// The check is written once, in C (`sluice_first_invalid_utf8`), because the tape's C fast
    /// path runs it on every string it builds; the Swift callbacks and the writer call the same
    /// function, so the two paths cannot disagree on what is well formed.
    static func firstInvalidSequence(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let index = sluice_first_invalid_utf8(base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return index < 0 ? nil : index
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
