extension JSONValue {
    /// The value as compact JSON text: numbers with their original digits, members in order,
    /// strings escaped as RFC 8259 requires (quote, backslash and control characters) and otherwise
    /// written as UTF-8.
    public var jsonText: String {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the value as compact JSON text to `bytes`.
    public func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): JSONValue.writeString(text, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in zip(object.keys, object.values).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.0, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.1.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `text` as a JSON string literal.
    public static func writeString(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { writeString(utf8: UnsafeRawBufferPointer($0), into: &bytes) }
    }

    /// Appends the UTF-8 `utf8` as a JSON string literal, escaped as ``writeString(_:into:)``
    /// escapes: the importers write tape text this way without making a `String`.
    package static func writeString(utf8: UnsafeRawBufferPointer, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Copy runs of bytes that need no escape in one append each.
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart...]))
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONTape.Value {
    /// Appends the value as compact JSON text, exactly as ``JSONValue/write(into:)`` writes the
    /// value's ``JSONValue`` (members in order, numbers with their input digits, the same escapes),
    /// without building that tree: the importers store objects and arrays this way.
    package func writeJSON(into bytes: inout [UInt8]) {
        let tape = self.tape
        // A comma goes before a token that starts a value or key when the token before it ended
        // one; a key's colon is written with the key.
        var endedValue = false
        for index in self.index..<endIndex {
            let token = tape[index]
            switch token.kind {
            case .objectEnd, .arrayEnd:
                bytes.append(token.kind == .objectEnd ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                endedValue = true
                continue
            default:
                break
            }
            if endedValue { bytes.append(UInt8(ascii: ",")) }
            switch token.kind {
            case .objectStart:
                bytes.append(UInt8(ascii: "{"))
                endedValue = false
            case .arrayStart:
                bytes.append(UInt8(ascii: "["))
                endedValue = false
            case .key:
                tape.withUnsafeText(of: token) { JSONValue.writeString(utf8: $0, into: &bytes) }
                bytes.append(UInt8(ascii: ":"))
                endedValue = false
            case .string:
                tape.withUnsafeText(of: token) { JSONValue.writeString(utf8: $0, into: &bytes) }
                endedValue = true
            case .number:
                tape.withUnsafeText(of: token) { bytes.append(contentsOf: $0) }
                endedValue = true
            case .true:
                bytes.append(contentsOf: "true".utf8)
                endedValue = true
            case .false:
                bytes.append(contentsOf: "false".utf8)
                endedValue = true
            case .null:
                bytes.append(contentsOf: "null".utf8)
                endedValue = true
            case .objectEnd, .arrayEnd:
                break
            }
        }
    }
}
