/// RFC 3986 percent-encoding, shared by query parameters and path segments (they differ only in
/// which characters may stand as they are).
package enum PercentEncoding {
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

    /// `text` with each byte a URL may not hold written as `%XX`, and a `%` that does not start
    /// an escape written as `%25`, for URLs as people write them and servers send them (raw `[`
    /// and `]` in a query, spaces). The authority (`//host:port`) is left alone: its brackets
    /// enclose an IPv6 address.
    ///
    /// Why before `URL(string:)`: given any character it must encode, Foundation encodes every
    /// `%` too, so `filter[name]=Author%200013` went out as `filter%5Bname%5D=Author%25200013`
    /// and matched nothing.
    package static func encodingInvalidCharacters(in text: String) -> String {
        let bytes = Array(text.utf8)
        var authorityEnd = 0
        if let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[schemeEnd...].starts(with: Array("://".utf8))
        {
            authorityEnd = schemeEnd + 3
            while authorityEnd < bytes.count, !"/?#".utf8.contains(bytes[authorityEnd]) { authorityEnd += 1 }
        }
        var out = Array(bytes[..<authorityEnd])
        out.reserveCapacity(bytes.count + 16)
        var index = authorityEnd
        var seenFragment = false
        while index < bytes.count {
            let byte = bytes[index]
            let keeps: Bool
            if byte == UInt8(ascii: "%") {
                keeps = index + 2 < bytes.count && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2])
            } else if byte == UInt8(ascii: "#") {
                // The first `#` starts the fragment; any later one is data.
                keeps = !seenFragment
                seenFragment = true
            } else {
                // RFC 3986's path and query characters: a segment's, `&` and `+`, `/` and `?`.
                keeps = isSegmentCharacter(byte) || "&+/?".utf8.contains(byte)
            }
            if keeps {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
