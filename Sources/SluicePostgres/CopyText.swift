// Rows in COPY's text format, written field by field straight from import records' bytes.

import SluiceImport
import SluiceJSON

/// Rows for `COPY ... FROM STDIN` (text format): fields separated by tabs, rows ended by line
/// feeds, `\N` for NULL, and backslash, tab, line feed and carriage return escaped in text.
struct CopyText {
    private(set) var bytes: [UInt8] = []
    /// Rows ended so far.
    private(set) var rows = 0
    /// Whether a field of the current row has been written (the next one needs a tab).
    private var inRow = false

    var isEmpty: Bool { rows == 0 }

    private mutating func separate() {
        if inRow { bytes.append(0x09) }
        inRow = true
    }

    /// A text field, escaped.
    mutating func text(_ text: UnsafeRawBufferPointer) {
        separate()
        var runStart = 0
        for index in text.indices {
            let byte = text[index]
            guard byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D else { continue }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart..<index]))
            runStart = index + 1
            bytes.append(0x5C)
            switch byte {
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default: bytes.append(0x5C)
            }
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart...]))
    }

    /// A field that needs no escape (a number's digits).
    mutating func verbatim(_ text: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: text)
    }

    /// An integer's decimal digits, written without making a `String`.
    mutating func integer(_ value: Int) {
        separate()
        withDecimalDigits(of: UInt64(value.magnitude), negative: value < 0) { bytes.append(contentsOf: $0) }
    }

    mutating func null() {
        verbatim(#"\N"#.utf8)
    }

    /// A text field, or NULL.
    mutating func text(orNull text: UnsafeRawBufferPointer?) {
        if let text { self.text(text) } else { null() }
    }

    /// An attribute's value for a column of `type`: numbers as written, except into `double
    /// precision`, which gets the double's own shortest digits (PostgreSQL refuses `1e-400`, which a
    /// double holds as 0); Booleans as 0 and 1.
    mutating func value(_ value: ImportRecord.Value, for type: ImportColumnType) {
        switch value {
        case .null: null()
        case .bool(let flag): verbatim(flag ? "1".utf8 : "0".utf8)
        case .real(let real, _) where type == .real: verbatim("\(real)".utf8)
        case .integer(_, let text), .real(_, let text), .bigNumber(let text): verbatim(text)
        case .string(let text), .json(let text): self.text(text)
        }
    }

    mutating func endRow() {
        bytes.append(0x0A)
        inRow = false
        rows += 1
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        rows = 0
        inRow = false
    }
}
