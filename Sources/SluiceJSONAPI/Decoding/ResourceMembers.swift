package import SluiceJSON

/// Where the members the specification names stand in one resource object on the tape, found in
/// one pass over its keys: the token index of each one's value, `-1` when absent.
///
/// The one scan every reader of resource objects starts from: the decoder's
/// ``ResourceObjectView``, the import's records and `sluice flatten`'s lines. Indices rather than
/// views, so that a scan retains nothing.
package struct ResourceMembers {
    package private(set) var type = -1
    package private(set) var id = -1
    package private(set) var lid = -1
    package private(set) var attributes = -1
    package private(set) var relationships = -1
    package private(set) var meta = -1
    package private(set) var links = -1
    /// Whether a member the specification names is given twice (the later one's index is kept).
    /// Readers that write straight from the tape then step aside: the general reader's order of
    /// overrides decides what such an object means.
    package private(set) var repeats = false

    /// Scans the resource object `value`; nothing is found in a value that is no object.
    @inline(__always)
    package init(_ value: borrowing JSONTape.Value) {
        guard value.kind == .objectStart else { return }
        let start = value.index + 1
        let end = value.endIndex - 1
        // Every resource of a document passes here: its members are read by plain pointers.
        self = value.tape.withTokens { tokens in
            var members = ResourceMembers()
            var seen: UInt8 = 0
            var cursor = start
            while cursor < end {
                let valueIndex = cursor + 1
                let bit: UInt8
                switch ResourceMember(name: tokens.text(of: tokens[cursor])) {
                case .type: (bit, members.type) = (1, valueIndex)
                case .id: (bit, members.id) = (2, valueIndex)
                case .lid: (bit, members.lid) = (4, valueIndex)
                case .attributes: (bit, members.attributes) = (8, valueIndex)
                case .relationships: (bit, members.relationships) = (16, valueIndex)
                case .meta: (bit, members.meta) = (32, valueIndex)
                case .links: (bit, members.links) = (64, valueIndex)
                case .data, .other: bit = 0
                }
                if seen & bit != 0 { members.repeats = true }
                seen |= bit
                cursor = tokens.end(ofValue: tokens[valueIndex], at: valueIndex) ?? end
            }
            return members
        }
    }

    private init() {}

    /// The scan of `value` when a reader that writes straight from the tape may take it: an
    /// object, no member given twice, `links` that read as links. `nil` otherwise: the general
    /// reader then decodes a `RawResource`, which words the fault or decides which copy of a
    /// member counts.
    @inline(__always)
    package static func writable(_ value: borrowing JSONTape.Value, context: TapeDecodingContext) -> ResourceMembers? {
        guard value.kind == .objectStart else { return nil }
        let members = ResourceMembers(value)
        guard !members.repeats else { return nil }
        if members.links >= 0 && !Links.isValidMember(value.tape, at: members.links, context: context) { return nil }
        return members
    }
}

extension Links {
    /// Whether the `links` member whose value is at `index` reads as links, as the general reader
    /// would take it: `null`, or an object that ``Links`` decodes. Every link a URL or `null` (the
    /// common case, which always decodes) is judged on the tokens, with no `Links` and no string
    /// made; anything else is decoded to see. The one judge of the readers that write straight
    /// from the tape (import records, `sluice flatten` lines), for resources and relationships.
    package static func isValidMember(_ tape: JSONTape, at index: Int, context: TapeDecodingContext) -> Bool {
        let kind = tape[index].kind
        if kind == .null { return true }
        guard kind == .objectStart, let end = tape.endOfValue(at: index) else { return false }
        // Keys and values alternate; a value that is one token (a string or `null`) is a link
        // that always decodes.
        var cursor = index + 2
        while cursor < end - 1 {
            let linkKind = tape[cursor].kind
            guard linkKind == .string || linkKind == .null else {
                return (try? tape.value(at: index)).flatMap { try? Links(from: $0, context: context) } != nil
            }
            cursor += 2
        }
        return true
    }
}
