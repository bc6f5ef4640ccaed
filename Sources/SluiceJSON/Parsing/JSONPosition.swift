/// A place in the input: a byte offset and the line and column it falls on.
///
/// Lines and columns start at 1. Columns count UTF-8 bytes, not characters, the same convention
/// compilers use for their diagnostics: a column is exact for any input, whatever its script, and
/// an editor can jump to it by byte. A line ends at each line feed (`\n`, 0x0A).
public struct JSONPosition: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes of input before this position.
    public var byteOffset: Int
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in UTF-8 bytes from the start of the line.
    public var column: Int

    /// Creates a position from its parts.
    public init(byteOffset: Int, line: Int, column: Int) {
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
    }

    /// `line 3, column 14 (byte 57)`.
    public var description: String {
        "line \(line), column \(column) (byte \(byteOffset))"
    }

    /// The place as a decoder's sentences end: `at line 3, column 14`; `in the replayed value`
    /// for the positions of values replayed from Foundation containers (line 0), which have no
    /// place in any input.
    package var phrase: String {
        line > 0 ? "at line \(line), column \(column)" : "in the replayed value"
    }
}
