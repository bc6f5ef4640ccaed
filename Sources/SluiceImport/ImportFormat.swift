// What an import reads its input as: a JSON:API document, or plain JSON records (an array, the
// array at a JSON Pointer, one object, JSON Lines, a JSON text sequence), and how plain records
// become rows. The choice is made once per source, by name and by a look at its first bytes,
// before the reading starts; the summary says what was chosen.

public import SluiceJSON

/// The format of an import's input.
public enum ImportFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Decided per source: JSON Lines by name (`.jsonl`, `.ndjson`, `.json-seq` for a text
    /// sequence, before any `.gz`), otherwise by content: a record separator first makes a JSON
    /// text sequence, an array an array of records; an object whose first member is one of the
    /// document reader's ``ImportDocumentReader/leadingMembers`` (for JSON:API: `data`, `errors`,
    /// `included`, `meta`, `links`, `jsonapi`) makes a document, decided at once; any other object
    /// followed by another value makes a JSON Lines file, and otherwise one record, unless it has
    /// one of the reader's ``ImportDocumentReader/distinctiveMembers`` (`data`, `errors` or
    /// `included`: a JSON:API document after all). A JSON Lines file whose first record starts
    /// with one of those members, without a `.jsonl` or `.ndjson` name, needs ``lines`` said.
    case automatic
    /// A JSON:API document: its resources go into a table per type, linkage into
    /// `relationships`.
    case jsonAPI = "jsonapi"
    /// One plain JSON value: the array at ``PlainRecordOptions/recordsAt`` (an array of
    /// records), or one record.
    case json
    /// JSON Lines (NDJSON): a record per line.
    case lines
    /// An RFC 7464 JSON text sequence: a record after each record separator (0x1E).
    case textSequence = "json-seq"

    /// `JSON:API`, `JSON`, `JSON Lines`, ...
    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .jsonAPI: "JSON:API"
        case .json: "JSON"
        case .lines: "JSON Lines"
        case .textSequence: "JSON text sequence"
        }
    }

    /// Whether the input holds plain records rather than a JSON:API document.
    public var isPlain: Bool { self == .json || self == .lines || self == .textSequence }
}

/// What a plain record's nested objects and arrays become.
public enum NestedValues: String, Sendable, Hashable, CaseIterable {
    /// Objects and arrays are kept whole as JSON text (`jsonb` in PostgreSQL), in a column named
    /// as their member.
    case json
    /// An object's members become columns of their own, named by the path joined with `_`
    /// (`actor.login` is `actor_login`), at any depth; arrays are kept as JSON text.
    case flatten
    /// Objects are flattened as with ``flatten``; each array becomes rows of a child table named
    /// `TABLE_MEMBER` (`events_payload_commits`), with `_parent_id` (the parent row's `id`),
    /// `_position` (the element's index) and the element's members, flattened, or its value in
    /// `value` when it is not an object; arrays in those elements become grandchild tables the
    /// same way. A child row's `id` is its parent's `id`, `/` and its position.
    case tables
}

/// How plain JSON records become rows: the table, the key, nested values.
public struct PlainRecordOptions: Sendable, Hashable {
    /// The table the records go into. Default (`nil`): the source's file name without its
    /// directory and extensions (`events` for `exports/events.ndjson.gz`), `records` for
    /// standard input or a name without one.
    public var table: String?
    /// The top-level members whose values key a record (`id`, or `tenant`, `id`): a re-import
    /// then updates the rows of records it meets again. With one member, the `id` column holds its
    /// value (a member named `id` is not repeated as a column); with several, a JSON array of
    /// their values (`["acme",42]`), the members staying columns too. Each must be a string or a
    /// number in every record. Default (empty): a record is keyed by its source and place
    /// (`events.ndjson:17`, the line of a JSON Lines record, the index of an array element, or the
    /// position of a sequence's value), so importing the same file again still updates rather
    /// than duplicates, and an interrupted import resumes.
    public var primaryKey: [String] = []
    /// What nested objects and arrays become. Default: ``NestedValues/flatten``, the columns a SQL
    /// query reaches without JSON functions, arrays kept whole.
    public var nested = NestedValues.flatten
    /// Where the array of records is, for ``ImportFormat/json`` input: a JSON Pointer (`/results`)
    /// or a dotted path. Default (`nil`): the top-level value, which is an array of records, or one
    /// record.
    public var recordsAt: JSONPath?

    /// The defaults.
    public init() {}

    /// The table for records of `source`.
    func table(for source: String) -> String {
        if let table, !table.isEmpty { return table }
        var name = Substring(source.split(separator: "/").last ?? "")
        if name.hasPrefix("<") { return "records" }
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        if let dot = name.firstIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return name.isEmpty ? "records" : String(name)
    }
}

extension ImportFormat {
    /// The format a source's name asks for, when it asks for one.
    static func byName(_ source: String) -> ImportFormat? {
        JSONSequenceFormat(fileName: source).map { $0 == .lines ? .lines : .textSequence }
    }
}

/// Decides an input's format from its first bytes, chunk by chunk: the `automatic` rules of
/// ``ImportFormat``. Looks at most at ``maximumBytes``; an object still open there is one value.
final class FormatSniffer {
    static let maximumBytes = 1 << 20
    private let parser = JSONParser(limits: .streaming)
    /// The reader of the format of documents the input may be, whose members tell it.
    private let documents: (any ImportDocumentReader)?
    private var seen = 0
    private var depth = 0
    private var cursor: Int?
    /// Top-level member names of the first object that a document has and plain records rarely do.
    private let documentMembers: Set<String>
    /// The members a document's first member is one of.
    private let leadingDocumentMembers: Set<String>
    private(set) var decided: ImportFormat?
    private var sawDocumentMember = false
    private var sawFirstKey = false
    private var leading = true

    init(documents: (any ImportDocumentReader)?) {
        self.documents = documents
        documentMembers = documents?.distinctiveMembers ?? []
        leadingDocumentMembers = documents?.leadingMembers ?? []
    }

    /// Looks at the next chunk; `true` once the format is decided.
    func look(at chunk: UnsafeRawBufferPointer) -> Bool {
        guard decided == nil else { return true }
        var valueBytes = chunk
        if leading {
            // The first byte that is not a byte order mark or whitespace tells most formats.
            var index = 0
            if seen == 0, chunk.count >= 3, chunk[0] == 0xEF, chunk[1] == 0xBB, chunk[2] == 0xBF { index = 3 }
            while index < chunk.count, [0x20, 0x0A, 0x0D, 0x09].contains(chunk[index]) { index += 1 }
            if index < chunk.count {
                leading = false
                valueBytes = UnsafeRawBufferPointer(rebasing: chunk[index...])
                switch chunk[index] {
                case 0x1E: decided = .textSequence
                case UInt8(ascii: "{"): break
                default: decided = .json
                }
                if decided != nil { return true }
            } else {
                valueBytes = UnsafeRawBufferPointer(start: nil, count: 0)
            }
        }
        seen += chunk.count
        do {
            try parser.parse(chunk)
        } catch {
            // A second value after a whole first one: a file of lines. Any other fault is the
            // reader's to report, after the members before it have had their say.
            scanKeys()
            if decided == nil { decided = parser.isComplete ? .lines : documentOrRecord }
            return true
        }
        scanKeys()
        if decided != nil { return true }
        if !parser.isComplete, !leading, valueBytes.contains(0x0A) {
            // The first value spans lines: not JSON Lines.
            decided = documentOrRecord
            return true
        }
        if seen >= Self.maximumBytes {
            decided = documentOrRecord
            return true
        }
        return false
    }

    /// The format when the input ended before a decision.
    func decideAtEnd() -> ImportFormat {
        decided ?? documentOrRecord
    }

    /// One object: a document if it has a member only documents have, else a record.
    private var documentOrRecord: ImportFormat {
        if sawDocumentMember, let documents { return documents.format }
        return .json
    }

    /// Reads the new tokens, noting a top-level member that says the input is a document.
    private func scanKeys() {
        let tape = parser.tape
        var index = cursor ?? tape.startIndex
        while index < tape.endIndex {
            let token = tape[index]
            switch token.kind {
            case .objectStart, .arrayStart: depth += 1
            case .objectEnd, .arrayEnd: depth -= 1
            case .key where depth == 1:
                let name = tape.text(of: token)
                if !sawFirstKey {
                    sawFirstKey = true
                    // Decided at once, so an import of a stream starts writing as soon as its
                    // first chunk is in rather than after a look at its whole first value.
                    if let documents, leadingDocumentMembers.contains(name) {
                        decided = documents.format
                        return
                    }
                }
                if documentMembers.contains(name) { sawDocumentMember = true }
            default: break
            }
            index += 1
        }
        cursor = index
        parser.removeTokens(before: index)
    }
}
