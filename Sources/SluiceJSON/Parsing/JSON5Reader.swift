/// Reads a whole document in JSON5, or in JSON whose top level is an object's members without
/// its braces, into the same tape the JSON parser writes, so that every decoder reads it alike.
///
/// JSON5 (<https://spec.json5.org>) adds to JSON: `//` and `/* */` comments; keys written as
/// identifiers; strings in single quotes, with more escapes (`\x41`, `\v`, any other character
/// standing for itself) and lines continued by a backslash; numbers with a `+` sign, a leading or
/// trailing point, in hexadecimal (`0x1F`), and `Infinity` and `NaN`; a comma after the last
/// element or member; and Unicode's spaces as whitespace. As Foundation's decoder does, it
/// refuses a NUL character written as an escape (`\0`, `\x00`, `\u0000`) in JSON5.
///
/// Why a reader of its own rather than a mode of the tokenizer or of yajl: both stay strict JSON
/// for every other reader, and their inner loops pay nothing for JSON5. Documents in JSON5 are
/// configuration and fixtures, read whole; this reader keeps the whole input at hand, so its
/// errors show the text on both sides of the fault. One file of some 700 lines: it is one
/// recursive-descent reader whose grammar, number forms and messages read best side by side.
///
/// The tape's numbers are written in JSON's form (`+.5` as `0.5`, `0x1F` as `31`), each token
/// placed where its text starts in the input; `Infinity` and `NaN` keep their names, with the
/// value in the token's trailer.
struct JSON5Reader {
    /// What the input may be beyond JSON.
    struct Syntax: Hashable, Sendable {
        /// JSON5's additions to JSON.
        var json5 = false
        /// The top level is an object, its braces optional: `a: 1, b: 2` (or `"a": 1` without
        /// JSON5) reads as `{"a": 1, "b": 2}`, and an empty document as `{}`.
        var assumesTopLevelDictionary = false

        /// Whether any of it is asked for, so that the JSON parser cannot read the input.
        var isExtended: Bool { json5 || assumesTopLevelDictionary }
    }

    private let bytes: UnsafeRawBufferPointer
    private let json5: Bool
    private let limits: JSONLimits
    private var offset = 0
    private var line = 1
    /// The offset of the first byte of the current line.
    private var lineStart = 0
    private var depth = 0
    private var builder = JSONTape.Builder()
    /// A string's or number's text as the tape stores it, escapes resolved.
    private var text: [UInt8] = []

    private init(bytes: UnsafeRawBufferPointer, json5: Bool, limits: JSONLimits) {
        self.bytes = bytes
        self.json5 = json5
        self.limits = limits
    }

    /// The tape of the document in `bytes`, UTF-8 without a byte order mark.
    ///
    /// - Throws: ``JSONError`` at the first fault, with its position and an excerpt.
    static func read(_ bytes: UnsafeRawBufferPointer, syntax: Syntax, limits: JSONLimits) throws(JSONError) -> JSONTape
    {
        var reader = JSON5Reader(bytes: bytes, json5: syntax.json5, limits: limits)
        try reader.readDocument(assumingDictionary: syntax.assumesTopLevelDictionary)
        return reader.builder.result
    }

    private mutating func readDocument(assumingDictionary: Bool) throws(JSONError) {
        guard bytes.count <= limits.maxDocumentBytes else {
            offset = limits.maxDocumentBytes
            throw fault(
                .documentLimitExceeded,
                "The document is longer than the limit of \(limits.maxDocumentBytes) bytes."
            )
        }
        // A UTF-8 byte order mark, which Foundation's decoder passes over too.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        let first = try skipSpace()
        if assumingDictionary, first != UInt8(ascii: "{") {
            try readMembers(braced: false)
        } else {
            guard first != nil else {
                throw fault(
                    .unexpectedEndOfInput,
                    "The input holds no value: it is empty or only whitespace and comments."
                )
            }
            try readValue()
        }
        if let byte = try skipSpace() {
            throw fault(.syntax, "Unexpected \(describe(byte)) after the top-level value.")
        }
    }

    // MARK: Values

    /// Reads the value at `offset`, which is not whitespace.
    private mutating func readValue() throws(JSONError) {
        let byte = bytes[offset]
        switch byte {
        case UInt8(ascii: "{"):
            try open()
            try readMembers(braced: true)
        case UInt8(ascii: "["):
            try open()
            try readElements()
        case UInt8(ascii: "\""):
            try readString(quote: byte, kind: .string)
        case UInt8(ascii: "'") where json5:
            try readString(quote: byte, kind: .string)
        case UInt8(ascii: "t"):
            try readLiteral("true", .true)
        case UInt8(ascii: "f"):
            try readLiteral("false", .false)
        case UInt8(ascii: "n"):
            try readLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try readNumber()
        case UInt8(ascii: "+") where json5, UInt8(ascii: ".") where json5, UInt8(ascii: "I") where json5,
            UInt8(ascii: "N") where json5:
            try readNumber()
        default:
            throw fault(.syntax, "Unexpected \(describe(byte)) where a value was expected.")
        }
    }

    /// Steps into the array or object whose bracket is at `offset`.
    private mutating func open() throws(JSONError) {
        guard depth < limits.maxDepth else {
            throw fault(
                .depthLimitExceeded,
                "Arrays and objects are nested deeper than the limit of \(limits.maxDepth)."
            )
        }
        depth += 1
        place()
        builder.beginContainer(isObject: bytes[offset] == UInt8(ascii: "{"))
        offset += 1
    }

    private mutating func close() {
        depth -= 1
        place()
        builder.endContainer()
    }

    /// Reads an array's elements, after its `[`, through its `]`. A comma may follow the last.
    private mutating func readElements() throws(JSONError) {
        let start = offset - 1
        while true {
            guard let byte = try skipSpace() else { throw unexpectedEnd(in: "the array", openedAt: start) }
            if byte == UInt8(ascii: "]") { break }
            try readValue()
            guard let next = try skipSpace() else { throw unexpectedEnd(in: "the array", openedAt: start) }
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else {
                throw fault(.syntax, "Unexpected \(describe(next)) after an array element: expected ',' or ']'.")
            }
            offset += 1
            // `[,]` and `[1,,2]`: a comma needs an element before it.
            if try skipSpace() == UInt8(ascii: ",") {
                throw fault(.syntax, "Unexpected ',' where an array element was expected.")
            }
        }
        close()
        offset += 1
    }

    /// Reads an object's members through its `}`, after its `{`; or, not `braced`, the members
    /// of the top level through the end of the input. A comma may follow the last member.
    private mutating func readMembers(braced: Bool) throws(JSONError) {
        let start = offset - 1
        if !braced {
            depth += 1
            place()
            builder.beginContainer(isObject: true)
        }
        while true {
            guard let byte = try skipSpace() else {
                if braced { throw unexpectedEnd(in: "the object", openedAt: start) }
                break
            }
            if byte == UInt8(ascii: "}") {
                guard braced else {
                    throw fault(.syntax, "Unexpected '}': the top-level members have no opening brace.")
                }
                break
            }
            try readKey()
            guard let colon = try skipSpace() else { throw unexpectedEnd(in: "the object", openedAt: start) }
            guard colon == UInt8(ascii: ":") else {
                throw fault(.syntax, "Unexpected \(describe(colon)) after a key: expected ':'.")
            }
            offset += 1
            guard try skipSpace() != nil else { throw unexpectedEnd(in: "the object", openedAt: start) }
            try readValue()
            guard let next = try skipSpace() else {
                if braced { throw unexpectedEnd(in: "the object", openedAt: start) }
                break
            }
            if next == UInt8(ascii: "}") {
                guard braced else {
                    throw fault(.syntax, "Unexpected '}': the top-level members have no opening brace.")
                }
                break
            }
            guard next == UInt8(ascii: ",") else {
                throw fault(.syntax, "Unexpected \(describe(next)) after an object member: expected ',' or '}'.")
            }
            offset += 1
        }
        close()
        if braced { offset += 1 }
    }

    private mutating func readKey() throws(JSONError) {
        let byte = bytes[offset]
        if byte == UInt8(ascii: "\"") || (json5 && byte == UInt8(ascii: "'")) {
            return try readString(quote: byte, kind: .key)
        }
        if json5, let (scalar, _) = scalar(at: offset), Self.startsIdentifier(scalar) {
            return try readIdentifier()
        }
        let expected = json5 ? "a key (a string or an identifier)" : "a key (a string)"
        throw fault(.syntax, "Unexpected \(describe(byte)) where \(expected) was expected.")
    }

    private mutating func readLiteral(_ word: StaticString, _ kind: JSONToken.Kind) throws(JSONError) {
        place()
        try expectWord(word, "literal")
        builder.appendLiteral(kind)
    }

    // MARK: Strings and keys

    /// Reads a string or a quoted key, from its opening quote through its closing one.
    private mutating func readString(quote: UInt8, kind: JSONToken.Kind) throws(JSONError) {
        let start = offset
        let startLine = line
        let startLineStart = lineStart
        offset += 1
        text.removeAll(keepingCapacity: true)
        while true {
            guard offset < bytes.count else {
                offset = start
                line = startLine
                lineStart = startLineStart
                throw fault(.unexpectedEndOfInput, "The input ended inside the string that opened here.")
            }
            // The bytes after the opening quote so far, escapes at their written length.
            guard offset - start - 1 <= limits.maxStringBytes else {
                throw fault(
                    .stringLimitExceeded,
                    "A string is longer than the limit of \(limits.maxStringBytes) bytes."
                )
            }
            let byte = bytes[offset]
            if byte == quote { break }
            if byte == UInt8(ascii: "\\") {
                try readEscape()
            } else if byte < 0x20 {
                let what = byte == 0x0A || byte == 0x0D ? "a line break" : "the control character \(describe(byte))"
                let remedy = json5 ? "escape it, or end the line with '\\' to continue the string" : "escape it"
                throw fault(.syntax, "A string holds \(what) as it is: \(remedy).")
            } else if byte < 0x80 {
                text.append(byte)
                offset += 1
            } else {
                try copyScalar()
            }
        }
        offset += 1
        placeToken(at: start, line: startLine, lineStart: startLineStart)
        text.withUnsafeBytes { builder.appendText(kind, $0) }
    }

    /// Reads an unquoted key: an ECMAScript identifier name, `\u` escapes allowed.
    private mutating func readIdentifier() throws(JSONError) {
        let start = offset
        text.removeAll(keepingCapacity: true)
        while offset < bytes.count {
            guard offset - start <= limits.maxStringBytes else {
                throw fault(.stringLimitExceeded, "A key is longer than the limit of \(limits.maxStringBytes) bytes.")
            }
            if bytes[offset] == UInt8(ascii: "\\") {
                guard offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
                    offset += 1
                    throw fault(.syntax, "An unquoted key may hold only '\\u' escapes.")
                }
                try readEscape()
                continue
            }
            guard let (scalar, length) = scalar(at: offset), Self.continuesIdentifier(scalar) else { break }
            text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            offset += length
        }
        placeToken(at: start, line: line, lineStart: lineStart)
        text.withUnsafeBytes { builder.appendText(.key, $0) }
    }

    /// Copies the UTF-8 sequence at `offset` to `text`, or throws if it is ill-formed.
    private mutating func copyScalar() throws(JSONError) {
        guard let (_, length) = scalar(at: offset) else {
            throw fault(
                .invalidUTF8,
                "Invalid UTF-8 in a string: the sequence starting with \(describe(bytes[offset])) is ill-formed."
            )
        }
        text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
        offset += length
    }

    /// Reads the escape sequence at `offset` (its backslash) into `text`.
    private mutating func readEscape() throws(JSONError) {
        let backslash = offset
        offset += 1
        guard offset < bytes.count else {
            throw fault(.unexpectedEndOfInput, "The input ended inside an escape sequence.")
        }
        let byte = bytes[offset]
        var resolved: UInt8?
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): resolved = byte
        case UInt8(ascii: "b"): resolved = 0x08
        case UInt8(ascii: "f"): resolved = 0x0C
        case UInt8(ascii: "n"): resolved = 0x0A
        case UInt8(ascii: "r"): resolved = 0x0D
        case UInt8(ascii: "t"): resolved = 0x09
        case UInt8(ascii: "u"):
            offset += 1
            return try readUnicodeEscape(backslash: backslash)
        default:
            guard json5 else {
                throw fault(.syntax, "Invalid escape sequence '\\\(describeRaw(byte))' in a string.")
            }
        }
        if let resolved {
            text.append(resolved)
            offset += 1
            return
        }
        // JSON5's escapes beyond JSON's.
        switch byte {
        case UInt8(ascii: "v"):
            text.append(0x0B)
            offset += 1
        case UInt8(ascii: "x"):
            offset += 1
            let value = try hexDigits(2, escapeAt: backslash)
            guard value != 0 else {
                offset = backslash
                throw fault(.syntax, "A NUL character ('\\x00') is not allowed in a JSON5 string.")
            }
            append(Unicode.Scalar(UInt8(value)))
        case UInt8(ascii: "0"):
            offset = backslash
            throw fault(.syntax, "A NUL character ('\\0') is not allowed in a JSON5 string.")
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            throw fault(.syntax, "Invalid escape sequence '\\\(describeRaw(byte))': JSON5 has no octal escapes.")
        case 0x0A:
            // A line continued: the backslash and the line break stand for nothing.
            offset += 1
            newLine()
        case 0x0D:
            offset += 1
            if offset < bytes.count, bytes[offset] == 0x0A { offset += 1 }
            newLine()
        default:
            guard let (scalar, length) = scalar(at: offset) else {
                throw fault(
                    .invalidUTF8,
                    "Invalid UTF-8 in a string: the sequence starting with \(describe(byte)) is ill-formed."
                )
            }
            // U+2028 and U+2029 end lines in JSON5 as in ECMAScript: a continuation, too.
            if scalar.value != 0x2028 && scalar.value != 0x2029 {
                text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            }
            offset += length
        }
    }

    /// Reads the four hexadecimal digits after `\u` (and a low surrogate's escape after a high
    /// one's) into `text`.
    private mutating func readUnicodeEscape(backslash: Int) throws(JSONError) {
        let unit = try hexDigits(4, escapeAt: backslash)
        var value = unit
        if (0xD800..<0xDC00).contains(unit) {
            let second = offset
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else {
                offset = backslash
                throw fault(.unpairedSurrogate, "The escape of a high surrogate is not followed by a low surrogate's.")
            }
            offset += 2
            let low = try hexDigits(4, escapeAt: second)
            guard (0xDC00..<0xE000).contains(low) else {
                offset = backslash
                throw fault(.unpairedSurrogate, "The escape of a high surrogate is not followed by a low surrogate's.")
            }
            value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(unit) {
            offset = backslash
            throw fault(.unpairedSurrogate, "The escape of a low surrogate has no high surrogate before it.")
        }
        if value == 0, json5 {
            offset = backslash
            throw fault(.syntax, "A NUL character ('\\u0000') is not allowed in a JSON5 string.")
        }
        append(Unicode.Scalar(value)!)
    }

    /// The value of `count` hexadecimal digits at `offset`, which it passes.
    private mutating func hexDigits(_ count: Int, escapeAt backslash: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard offset < bytes.count else {
                throw fault(.unexpectedEndOfInput, "The input ended inside an escape sequence.")
            }
            guard let digit = Self.hexValue(bytes[offset]) else {
                throw fault(
                    .syntax,
                    "Unexpected \(describe(bytes[offset])) in an escape sequence: expected a hexadecimal digit."
                )
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { text.append($0) }
    }

    // MARK: Numbers

    /// Reads a number: JSON's grammar, and with JSON5 a `+` sign, a point with no digits on one
    /// side, hexadecimal digits after `0x`, `Infinity` and `NaN`.
    private mutating func readNumber() throws(JSONError) {
        let start = offset
        text.removeAll(keepingCapacity: true)
        var sign = bytes[offset]
        if sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            guard json5 || sign == UInt8(ascii: "-") else { throw unexpectedInNumber() }
            offset += 1
        } else {
            sign = 0
        }
        let negative = sign == UInt8(ascii: "-")
        guard offset < bytes.count else {
            throw fault(.unexpectedEndOfInput, "The input ended inside a number.")
        }
        let first = bytes[offset]
        if json5 && (first == UInt8(ascii: "I") || first == UInt8(ascii: "N")) {
            let isInfinity = first == UInt8(ascii: "I")
            try expectWord(isInfinity ? "Infinity" : "NaN", "number")
            placeToken(at: start, line: line, lineStart: lineStart)
            let name = (negative ? "-" : "") + (isInfinity ? "Infinity" : "NaN")
            let magnitude = isInfinity ? Double.infinity : Double.nan
            builder.appendNumber(name, converted: negative ? -magnitude : magnitude)
            return
        }
        if json5, first == UInt8(ascii: "0"), offset + 1 < bytes.count,
            bytes[offset + 1] | 0x20 == UInt8(ascii: "x")
        {
            offset += 2
            return try readHexadecimal(start: start, negative: negative)
        }
        if negative { text.append(UInt8(ascii: "-")) }
        let integerStart = offset
        while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
        let integerDigits = offset - integerStart
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            offset = integerStart
            throw fault(.syntax, "A number starts with a zero followed by more digits (leading zeros are not allowed).")
        }
        if integerDigits == 0 && !(json5 && offset < bytes.count && bytes[offset] == UInt8(ascii: ".")) {
            throw unexpectedInNumber()
        }
        if integerDigits == 0 { text.append(UInt8(ascii: "0")) }
        text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[integerStart..<offset]))
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            let fractionStart = offset
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
            // JSON5 allows `1.` and `.5`, not a point alone.
            if offset == fractionStart && (!json5 || integerDigits == 0) { throw unexpectedInNumber() }
            if offset > fractionStart {
                text.append(UInt8(ascii: "."))
                text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[fractionStart..<offset]))
            }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            let exponentStart = offset
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            let digitsStart = offset
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
            if offset == digitsStart { throw unexpectedInNumber() }
            text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[exponentStart..<offset]))
        }
        guard offset - start <= limits.maxStringBytes else {
            offset = start
            throw fault(.stringLimitExceeded, "A number is longer than the limit of \(limits.maxStringBytes) bytes.")
        }
        placeToken(at: start, line: line, lineStart: lineStart)
        text.withUnsafeBytes { builder.appendText(.number, $0) }
    }

    /// Reads the digits after `0x`, as an integer of at most 64 bits (a negative one, of 63 and
    /// its sign), which the tape holds in decimal.
    private mutating func readHexadecimal(start: Int, negative: Bool) throws(JSONError) {
        let digitsStart = offset
        var magnitude: UInt64 = 0
        var overflow = false
        while offset < bytes.count, let digit = Self.hexValue(bytes[offset]) {
            if magnitude >> 60 != 0 { overflow = true }
            magnitude = magnitude << 4 | UInt64(digit)
            offset += 1
        }
        if offset == digitsStart { throw unexpectedInNumber() }
        if overflow || (negative && magnitude > UInt64(Int64.max) + 1) {
            let written = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            offset = start
            throw fault(.numberOutOfRange, "The hexadecimal number \(written) is beyond 64-bit integers.")
        }
        text.append(contentsOf: ((negative && magnitude != 0 ? "-" : "") + String(magnitude)).utf8)
        placeToken(at: start, line: line, lineStart: lineStart)
        text.withUnsafeBytes { builder.appendHexadecimalNumber($0) }
    }

    /// Passes `word` (a literal, or JSON5's `Infinity` or `NaN`: the `what`), or throws at the
    /// first byte that differs.
    private mutating func expectWord(_ word: StaticString, _ what: String) throws(JSONError) {
        for expected in UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard offset < bytes.count else {
                throw fault(.unexpectedEndOfInput, "The input ended inside the \(what) '\(word)'.")
            }
            guard bytes[offset] == expected else {
                throw fault(.syntax, "Unexpected \(describe(bytes[offset])) in what began as the \(what) '\(word)'.")
            }
            offset += 1
        }
    }

    private mutating func unexpectedInNumber() -> JSONError {
        guard offset < bytes.count else {
            return fault(.unexpectedEndOfInput, "The input ended inside a number.")
        }
        return fault(.syntax, "Unexpected \(describe(bytes[offset])) in a number.")
    }

    // MARK: Whitespace and comments

    /// Passes whitespace and, with JSON5, comments; returns the byte after them, or `nil` at the
    /// end of the input.
    private mutating func skipSpace() throws(JSONError) -> UInt8? {
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case 0x20, 0x09, 0x0D:
                offset += 1
            case 0x0A:
                offset += 1
                newLine()
            case 0x0B where json5, 0x0C where json5:
                offset += 1
            case UInt8(ascii: "/") where json5:
                guard offset + 1 < bytes.count else { return byte }
                if bytes[offset + 1] == UInt8(ascii: "/") {
                    offset += 2
                    while offset < bytes.count, bytes[offset] != 0x0A, bytes[offset] != 0x0D { offset += 1 }
                } else if bytes[offset + 1] == UInt8(ascii: "*") {
                    try skipBlockComment()
                } else {
                    return byte
                }
            case 0x80... where json5:
                guard let (scalar, length) = scalar(at: offset), Self.isSpace(scalar) else { return byte }
                offset += length
            default:
                return byte
            }
        }
        return nil
    }

    private mutating func skipBlockComment() throws(JSONError) {
        let start = offset
        let startLine = line
        let startLineStart = lineStart
        offset += 2
        while offset + 1 < bytes.count {
            if bytes[offset] == UInt8(ascii: "*") && bytes[offset + 1] == UInt8(ascii: "/") {
                offset += 2
                return
            }
            offset += 1
            if bytes[offset - 1] == 0x0A { newLine() }
        }
        offset = start
        line = startLine
        lineStart = startLineStart
        throw fault(.unexpectedEndOfInput, "The input ended inside the comment that opened here: '/*' needs a '*/'.")
    }

    private mutating func newLine() {
        line += 1
        lineStart = offset
    }

    // MARK: Characters

    /// The Unicode scalar whose UTF-8 starts at `index`, and its length; `nil` if the bytes there
    /// are not well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
    private func scalar(at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, value) = (3, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, value) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for position in index + 1..<index + length {
            let byte = bytes[position]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= smallest, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    /// JSON5's whitespace beyond ASCII's: no-break space, the byte order mark, the line and
    /// paragraph separators, and Unicode's other space separators.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xA0, 0xFEFF, 0x2028, 0x2029: return true
        default: return scalar.properties.generalCategory == .spaceSeparator
        }
    }

    private static func startsIdentifier(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x24, 0x5F, 0x5C: return true  // $ _ and a backslash's escape
        case 0x41...0x5A, 0x61...0x7A: return true
        case 0..<0x80: return false
        default:
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber:
                return true
            default:
                return false
            }
        }
    }

    private static func continuesIdentifier(_ scalar: Unicode.Scalar) -> Bool {
        if startsIdentifier(scalar) { return scalar.value != 0x5C }
        switch scalar.value {
        case 0x30...0x39, 0x200C, 0x200D: return true  // digits, zero-width non-joiner and joiner
        case 0..<0x80: return false
        default:
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: return true
            default: return false
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    // MARK: Positions and faults

    /// Places the next token at `offset`.
    private mutating func place() {
        placeToken(at: offset, line: line, lineStart: lineStart)
    }

    private mutating func placeToken(at start: Int, line: Int, lineStart: Int) {
        builder.position = JSONPosition(byteOffset: start, line: line, column: start - lineStart + 1)
    }

    private func describe(_ byte: UInt8) -> String { JSONError.describe(byte: byte) }

    private func describeRaw(_ byte: UInt8) -> String {
        byte >= 0x21 && byte <= 0x7E ? String(Character(Unicode.Scalar(byte))) : describe(byte)
    }

    private func unexpectedEnd(in container: String, openedAt start: Int) -> JSONError {
        fault(.unexpectedEndOfInput, "The input ended inside \(container) that opened at byte \(start).")
    }

    /// An error at `offset`, with up to 24 bytes of its line on each side of it.
    private func fault(_ kind: JSONError.Kind, _ message: String) -> JSONError {
        let at = min(offset, bytes.count)
        var from = max(at - 24, lineStart, 0)
        while from < at, bytes[from] & 0xC0 == 0x80 { from += 1 }
        var to = at
        while to < min(at + 24, bytes.count), bytes[to] != 0x0A, bytes[to] != 0x0D { to += 1 }
        while to < bytes.count, to > at, bytes[to] & 0xC0 == 0x80 { to += 1 }
        func render(_ range: Range<Int>) -> String {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            return String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        }
        return JSONError(
            kind: kind,
            message: message,
            position: JSONPosition(byteOffset: at, line: line, column: at - lineStart + 1),
            excerpt: render(from..<to),
            excerptColumn: render(from..<at).count
        )
    }
}
