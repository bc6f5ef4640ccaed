/// Follows JSON text byte by byte and tells which bytes belong to strings, for the passes that
/// rewrite the structure around them (``TrailingCommas``, `FoundationLayout`): a comma, bracket
/// or colon inside a string is text, not structure. The text must be well formed enough that
/// quotes pair up; escapes (`\"`, `\\`) are followed.
struct JSONStringTracker {
    /// Where a byte stands.
    enum Place {
        /// Between strings: structure, whitespace, numbers and literals.
        case outside
        /// The quote that opens a string.
        case opening
        /// Inside a string, its closing quote included.
        case inside
    }

    private var inString = false
    private var escaped = false

    /// Where `byte`, the next byte of the text, stands.
    mutating func place(of byte: UInt8) -> Place {
        guard inString else {
            guard byte == UInt8(ascii: "\"") else { return .outside }
            inString = true
            return .opening
        }
        if escaped {
            escaped = false
        } else if byte == UInt8(ascii: "\\") {
            escaped = true
        } else if byte == UInt8(ascii: "\"") {
            inString = false
        }
        return .inside
    }
}
