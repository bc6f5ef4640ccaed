// Some destinations cannot store U+0000 (PostgreSQL's `text` and `jsonb` refuse it). JSON can
// write it (`\u0000`), so an import that writes there looks for it on the tape, where a record
// is still whole and its position known, instead of learning it from the server mid-batch.

extension JSONTape.Value {
    /// The first string inside this value whose text holds U+0000, or the object that has a
    /// member whose name does: the value to report, and its JSON Pointer relative to this value
    /// (a name is never put in the pointer: it would carry the NUL along). `nil` when none does,
    /// the common case, found with one scan of each string's bytes.
    package func firstTextHoldingNUL() -> (value: JSONTape.Value, pointer: String)? {
        var found: Int?
        for index in index..<endIndex {
            let token = tape[index]
            guard token.kind == .string || token.kind == .key, token.length > 0 else { continue }
            let holds = tape.withUnsafeText(of: token) { text in
                text.withMemoryRebound(to: UInt8.self) { $0.contains(0) }
            }
            if holds {
                found = index
                break
            }
        }
        guard let found else { return nil }
        return locate(found, pointer: "")
    }

    /// Walks down to the token at `target`: the value it is (a string), or the object whose
    /// member name it is (a key).
    private func locate(_ target: Int, pointer: String) -> (value: JSONTape.Value, pointer: String) {
        switch kind {
        case .objectStart:
            var cursor = index + 1
            while cursor < endIndex - 1 {
                if cursor == target { return (self, pointer) }
                let valueEnd = tape.endOfValue(at: cursor + 1) ?? endIndex
                if target < valueEnd {
                    let name = jsonPointerEscaped(tape.text(of: tape[cursor]))
                    return JSONTape.Value(tape, from: cursor + 1, to: valueEnd)
                        .locate(target, pointer: pointer + "/" + name)
                }
                cursor = valueEnd
            }
        case .arrayStart:
            var cursor = index + 1
            var offset = 0
            while cursor < endIndex - 1 {
                let valueEnd = tape.endOfValue(at: cursor) ?? endIndex
                if target < valueEnd {
                    return JSONTape.Value(tape, from: cursor, to: valueEnd).locate(
                        target,
                        pointer: pointer + "/\(offset)"
                    )
                }
                cursor = valueEnd
                offset += 1
            }
        default:
            break
        }
        return (self, pointer)
    }
}
