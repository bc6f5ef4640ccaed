/// RFC 3986 percent-encoding, shared by query parameters and path segments (they differ only in
/// which characters may stand as they are).
enum PercentEncoding {
    /// The unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// What a path segment may hold besides the unreserved characters: the sub-delimiters, `:`
    /// and `@`.
    static func isSegmentCharacter(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        return "!$'()*,;=:@".utf8.contains(byte)
    }

    /// `text` with every UTF-8 byte that `keeps` refuses written as `%XX`.
    static func encode(_ text: String, keeping keeps: (UInt8) -> Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeps(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
