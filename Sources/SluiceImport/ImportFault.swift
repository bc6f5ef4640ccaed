// Records set aside instead of stopping the import: with `ImportOptions.onFault = .skip`, a fault
// that leaves the rest of the input readable (a resource the format rejects, a record that cannot
// be keyed, a line of JSON Lines that is not JSON) becomes an `ImportFault`, written beside the
// batch it falls in and counted in the summary, and the import goes on. A fault after which
// nothing can be trusted (broken syntax inside one document, a limit crossed) still stops it.

public import SluiceJSON

/// What an import does with a fault of one record.
public enum ImportFaultPolicy: String, Sendable, CaseIterable {
    /// The first fault stops the document (what was committed before it stays).
    case stop
    /// Faults that leave the rest of the input readable are set aside as ``ImportFault``s and
    /// the import goes on; the others still stop it.
    case skip
}

/// A record an import set aside (``ImportOptions/onFault`` `.skip`): where it was, why, and its
/// text up to ``ImportOptions/faultRecordBytes``.
public struct ImportFault: Sendable, Hashable, CustomStringConvertible {
    /// The document, as the import names it (a path, `-`, or a page's URL).
    public var source: String
    /// Where the fault is (byte offset, line and column): for a line of JSON Lines, on its line.
    public var position: JSONPosition
    /// The JSON Pointer of what was wrong within the document (`/data/3/id`), when the format
    /// names one; `nil` for a line of JSON Lines that is not JSON.
    public var pointer: String?
    /// Why it was set aside.
    public var message: String
    /// The record's text as compact JSON (for a value that is not JSON, its bytes as they were),
    /// cut at ``ImportOptions/faultRecordBytes``; `nil` when none was kept.
    public var record: String?
    /// Whether ``record`` was cut short.
    public var recordTruncated: Bool

    /// A fault with these details.
    public init(
        source: String,
        position: JSONPosition,
        pointer: String?,
        message: String,
        record: String?,
        recordTruncated: Bool = false
    ) {
        self.source = source
        self.position = position
        self.pointer = pointer
        self.message = message
        self.record = record
        self.recordTruncated = recordTruncated
    }

    /// `SOURCE:LINE:COLUMN: POINTER: message`, as the import's other faults are worded.
    public var description: String {
        var text = "\(source):\(position.line):\(position.column): "
        if let pointer, !pointer.isEmpty { text += "\(pointer): " }
        return text + message
    }
}

extension ImportFault {
    /// A fault whose record's text is `text` (its compact JSON, or the bytes of a value that is
    /// not JSON), kept up to `limit` bytes: cut at a character boundary, with bytes that are not
    /// UTF-8, and NUL (which PostgreSQL's text cannot hold), as U+FFFD. The source is left empty:
    /// the import names it when the fault reaches it, since a reader may not know it.
    package init<Text: BidirectionalCollection<UInt8>>(
        position: JSONPosition,
        pointer: String?,
        message: String,
        text: Text?,
        limit: Int
    ) {
        var record: String?
        var truncated = false
        if let text, limit > 0 {
            var end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex) ?? text.endIndex
            truncated = end != text.endIndex
            // Back off continuation bytes (10xxxxxx) so that a character is never cut in two.
            while truncated, end > text.startIndex, text[end] & 0xC0 == 0x80 { text.formIndex(before: &end) }
            // 0xFF is never UTF-8, so decoding turns a NUL mapped to it into U+FFFD.
            record = String(decoding: text[..<end].lazy.map { $0 == 0 ? 0xFF : $0 }, as: UTF8.self)
        }
        self.init(
            source: "",
            position: position,
            pointer: pointer,
            message: message,
            record: record,
            recordTruncated: truncated
        )
    }
}

/// More records were set aside than ``ImportOptions/maxFaults`` allows: so many faults say the
/// input is not what the import takes, and the import stops rather than list them all.
public struct ImportTooManyFaults: Error, Sendable, CustomStringConvertible {
    /// The limit that was passed.
    public var limit: Int
    /// The fault that passed it.
    public var last: ImportFault

    /// The limit and the fault that passed it.
    public init(limit: Int, last: ImportFault) {
        self.limit = limit
        self.last = last
    }

    /// The fault, as one sentence.
    public var description: String {
        "More than \(limit) records were set aside (the limit of faults); the last: \(last)"
    }
}

extension ImportRecord {
    /// Why a record with U+0000 is refused by a destination that cannot store it.
    package static let nulMessage =
        "The text holds the character U+0000 (\\u0000), which the destination cannot store."

    /// The fault of a record holding U+0000 in `holder` (a string, or an object with such a
    /// member name) at `pointer`, for a destination that cannot store it.
    static func nulFault(at holder: JSONTape.Value, pointer: String) -> JSONError {
        var error = JSONError(kind: .typeMismatch, message: nulMessage, position: holder.position)
        error.pointer = pointer
        return error
    }
}
