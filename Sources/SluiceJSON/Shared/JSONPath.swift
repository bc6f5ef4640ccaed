// A path into a document and JSON Pointer's escaping: the element streamer, the parallel path's
// splitter and the parser's parallel validation all name arrays by path, so it sits below them.

/// A path to a value: member names and array indices from the root.
///
/// Written either with dots (`data.items`, `results.0.rows`) or as a JSON Pointer (`/data/items`,
/// where `~1` stands for `/` and `~0` for `~`). A step made of digits also selects an array element
/// by index. The empty path names the root.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The steps: member names as written in the input (no key strategy applies).
    public let steps: [String]

    /// Parses a dotted path or a JSON Pointer.
    public init(_ text: String) {
        if text.unicodeScalars.first == "/" {
            steps = text.components(separatedByScalar: "/").dropFirst().map {
                jsonPointerUnescaped($0)
            }
        } else if text.isEmpty || text == "." {
            steps = []
        } else {
            steps = text.components(separatedByScalar: ".").map(String.init)
        }
    }

    /// A path of the given steps.
    public init(steps: [String]) {
        self.steps = steps
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The path as a JSON Pointer: `/data/items`.
    public var description: String {
        steps.map { "/" + jsonPointerEscaped($0) }.joined()
    }
}

/// A member name as one reference token of a JSON Pointer (RFC 6901): `~` as `~0`, `/` as `~1`.
/// Names without either, nearly all of them, are returned as they are. Scalar by scalar, as
/// `components(separatedByScalar:)` splits: a `~` with a combining mark after it is one
/// `Character`, which a replacement by characters would miss.
package func jsonPointerEscaped(_ token: String) -> String {
    guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
    var escaped = String.UnicodeScalarView()
    for scalar in token.unicodeScalars {
        switch scalar {
        case "~": escaped.append(contentsOf: "~0".unicodeScalars)
        case "/": escaped.append(contentsOf: "~1".unicodeScalars)
        default: escaped.append(scalar)
        }
    }
    return String(escaped)
}

/// One reference token of a JSON Pointer as the member name it stands for: `~1` as `/`, `~0`
/// as `~`, scalar by scalar.
package func jsonPointerUnescaped(_ token: Substring) -> String {
    guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
    var name = String.UnicodeScalarView()
    var scalars = token.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
        guard scalar == "~" else {
            name.append(scalar)
            continue
        }
        switch scalars.next() {
        case "0": name.append("~")
        case "1": name.append("/")
        case let other?: name.append(contentsOf: ["~", other])
        case nil: name.append("~")
        }
    }
    return String(name)
}

extension String {
    /// The parts between the `separator`s, empty ones included, split scalar by scalar. Splitting
    /// by `Character` misses a separator that a combining mark after it joins into one character
    /// (`/\u{A67D}r` is two characters, not three), so a member name that starts with one would
    /// not be found.
    package func components(separatedByScalar separator: Unicode.Scalar) -> [Substring] {
        let scalars = unicodeScalars
        var parts: [Substring] = []
        var start = scalars.startIndex
        var index = start
        while index < scalars.endIndex {
            if scalars[index] == separator {
                parts.append(Substring(scalars[start..<index]))
                start = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        parts.append(Substring(scalars[start...]))
        return parts
    }
}
