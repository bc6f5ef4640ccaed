import SluiceJSON
public import SluiceJSONAPI

extension RawResource {
    /// The resource as one line of `sluice flatten` output (without the line feed): an object with
    /// exactly `type`, `id` (or `lid` when there is no `id`), `attributes` as in the input (`{}`
    /// when absent, numbers with the input's digits) and `relationships`, each relationship that
    /// has `data` reduced to its linkage; then, only when some relationship has a `meta` object,
    /// `relationshipMeta` with each such relationship's `meta` by name (so lines without it keep
    /// the four members, and no relationship's meta is lost).
    public func writeFlattened(into bytes: inout [UInt8]) {
        Self.writeIdentity(type: type, id: id, lid: lid, into: &bytes)
        bytes.append(contentsOf: #","attributes":"#.utf8)
        JSONValue.object(attributes).write(into: &bytes)
        bytes.append(contentsOf: #","relationships":{"#.utf8)
        var first = true
        // The stored pairs, not `relationships`, which builds an array on every access.
        for (name, relationship) in zip(relationshipNames, relationshipValues) {
            guard let linkage = relationship.data else { continue }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.writeString(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch linkage {
            case .null:
                bytes.append(contentsOf: "null".utf8)
            case .one(let identifier):
                Self.writeLinkage(identifier, into: &bytes)
            case .many(let identifiers):
                bytes.append(UInt8(ascii: "["))
                for (index, identifier) in identifiers.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    Self.writeLinkage(identifier, into: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            }
        }
        bytes.append(UInt8(ascii: "}"))
        var wroteMeta = false
        for (name, relationship) in zip(relationshipNames, relationshipValues) {
            guard let meta = relationship.meta else { continue }
            bytes.append(contentsOf: wroteMeta ? #","#.utf8 : #","relationshipMeta":{"#.utf8)
            wroteMeta = true
            JSONValue.writeString(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            meta.write(into: &bytes)
        }
        if wroteMeta { bytes.append(UInt8(ascii: "}")) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The resource as a resource identifier, on one line: `type`, `id` (or `lid`) and `meta`,
    /// as the linkage a relationship endpoint answers with is printed.
    public func writeIdentifier(into bytes: inout [UInt8]) {
        Self.writeIdentity(type: type, id: id, lid: lid, into: &bytes)
        if let meta {
            bytes.append(contentsOf: #","meta":"#.utf8)
            meta.write(into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func writeLinkage(_ identifier: ResourceIdentifier, into bytes: inout [UInt8]) {
        writeIdentity(type: identifier.type, id: identifier.id, lid: identifier.lid, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// `{"type":…,"id":…` (or `"lid"`), the object left open for more members.
    private static func writeIdentity(type: String, id: String?, lid: String?, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"type":"#.utf8)
        JSONValue.writeString(type, into: &bytes)
        if let id {
            bytes.append(contentsOf: #","id":"#.utf8)
            JSONValue.writeString(id, into: &bytes)
        } else if let lid {
            bytes.append(contentsOf: #","lid":"#.utf8)
            JSONValue.writeString(lid, into: &bytes)
        }
    }
}

/// The `sluice flatten` line of each resource (with its line feed), written by a decoder straight
/// from the tape: what ``RawResource/writeFlattened(into:)`` writes of the `RawResource` the
/// resource object decodes to, without building it.
enum FlattenedLine {
    static let encoding = RawResourceEncoding(
        fromTape: { value, context, bytes in write(resourceObject: value, context: context, into: &bytes) },
        fromRawResource: { resource, bytes in
            resource.writeFlattened(into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
    )

    /// Writes the line of the resource object `value`; `false` for a shape the general reader
    /// must judge (a member given twice, a relationship or identifier of the wrong kind, links to
    /// check link by link), which the `RawResource` route then reads or reports.
    static func write(
        resourceObject value: JSONTape.Value,
        context: TapeDecodingContext,
        into bytes: inout [UInt8]
    ) -> Bool {
        let tape = value.tape
        guard let members = ResourceMembers.writable(value, context: context) else { return false }
        let (type, id, lid) = (members.type, members.id, members.lid)
        let (attributes, relationships) = (members.attributes, members.relationships)
        guard type >= 0, tape[type].kind == .string else { return false }
        bytes.append(contentsOf: #"{"type":"#.utf8)
        writeString(tape, at: type, into: &bytes)
        guard writeKey(tape, id: id, lid: lid, into: &bytes) else { return false }
        bytes.append(contentsOf: #","attributes":"#.utf8)
        if attributes >= 0, tape[attributes].kind == .objectStart, let object = try? tape.value(at: attributes) {
            object.writeJSON(into: &bytes)
        } else {
            // What the general reader keeps of attributes that are not an object.
            bytes.append(contentsOf: "{}".utf8)
        }
        bytes.append(contentsOf: #","relationships":{"#.utf8)
        guard relationships < 0 || writeLinkages(tape, of: relationships, context: context, into: &bytes) else {
            return false
        }
        bytes.append(UInt8(ascii: "}"))
        if relationships >= 0 { writeRelationshipMeta(tape, of: relationships, into: &bytes) }
        bytes.append(contentsOf: "}\n".utf8)
        return true
    }

    private static func writeString(_ tape: JSONTape, at index: Int, into bytes: inout [UInt8]) {
        tape.withUnsafeText(of: tape[index]) { JSONValue.writeString(utf8: $0, into: &bytes) }
    }

    /// `,"id":...` or `,"lid":...` (by `id` first) for members that are strings or `null`;
    /// `false` for any other kind.
    private static func writeKey(_ tape: JSONTape, id: Int, lid: Int, into bytes: inout [UInt8]) -> Bool {
        let idKind = id >= 0 ? tape[id].kind : .null
        let lidKind = lid >= 0 ? tape[lid].kind : .null
        guard idKind == .string || idKind == .null, lidKind == .string || lidKind == .null else { return false }
        if idKind == .string {
            bytes.append(contentsOf: #","id":"#.utf8)
            writeString(tape, at: id, into: &bytes)
        } else if lidKind == .string {
            bytes.append(contentsOf: #","lid":"#.utf8)
            writeString(tape, at: lid, into: &bytes)
        }
        return true
    }

    /// Each relationship that has `data`, by name, reduced to its linkage: `"name":linkage,...`.
    private static func writeLinkages(
        _ tape: JSONTape,
        of relationships: Int,
        context: TapeDecodingContext,
        into bytes: inout [UInt8]
    ) -> Bool {
        guard tape[relationships].kind == .objectStart, let end = tape.endOfValue(at: relationships) else {
            return false
        }
        var cursor = relationships + 1
        var first = true
        while cursor < end - 1 {
            let name = cursor
            let relationship = cursor + 1
            guard tape[relationship].kind == .objectStart, let next = tape.endOfValue(at: relationship) else {
                return false
            }
            var data = -1
            var seen: UInt8 = 0
            var member = relationship + 1
            while member < next - 1 {
                let bit: UInt8
                switch tape.withUnsafeText(of: tape[member], { ResourceMember(name: $0) }) {
                case .data: (bit, data) = (1, member + 1)
                case .meta: bit = 2
                case .links:
                    bit = 4
                    guard Links.isValidMember(tape, at: member + 1, context: context) else { return false }
                default: bit = 0
                }
                guard seen & bit == 0, let after = tape.endOfValue(at: member + 1) else { return false }
                seen |= bit
                member = after
            }
            if data >= 0 {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                writeString(tape, at: name, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                switch tape[data].kind {
                case .null:
                    bytes.append(contentsOf: "null".utf8)
                case .objectStart:
                    guard writeIdentifier(tape, at: data, into: &bytes) else { return false }
                case .arrayStart:
                    guard let dataEnd = tape.endOfValue(at: data) else { return false }
                    bytes.append(UInt8(ascii: "["))
                    var element = data + 1
                    while element < dataEnd - 1 {
                        if element > data + 1 { bytes.append(UInt8(ascii: ",")) }
                        guard writeIdentifier(tape, at: element, into: &bytes),
                            let after = tape.endOfValue(at: element)
                        else { return false }
                        element = after
                    }
                    bytes.append(UInt8(ascii: "]"))
                default:
                    return false
                }
            }
            cursor = next
        }
        return true
    }

    /// A resource identifier as `{"type":...,"id":...}`: `type` a string, `id` and `lid` strings
    /// or `null`, each given once; `false` otherwise.
    private static func writeIdentifier(_ tape: JSONTape, at index: Int, into bytes: inout [UInt8]) -> Bool {
        guard tape[index].kind == .objectStart, let end = tape.endOfValue(at: index) else { return false }
        var type = -1
        var id = -1
        var lid = -1
        var cursor = index + 1
        while cursor < end - 1 {
            switch tape.withUnsafeText(of: tape[cursor], { ResourceMember(name: $0) }) {
            case .type:
                guard type < 0 else { return false }
                type = cursor + 1
            case .id:
                guard id < 0 else { return false }
                id = cursor + 1
            case .lid:
                guard lid < 0 else { return false }
                lid = cursor + 1
            default: break
            }
            guard let after = tape.endOfValue(at: cursor + 1) else { return false }
            cursor = after
        }
        guard type >= 0, tape[type].kind == .string else { return false }
        bytes.append(contentsOf: #"{"type":"#.utf8)
        writeString(tape, at: type, into: &bytes)
        guard writeKey(tape, id: id, lid: lid, into: &bytes) else { return false }
        bytes.append(UInt8(ascii: "}"))
        return true
    }

    /// `,"relationshipMeta":{...}` with the `meta` of each relationship that has one, by name;
    /// nothing when none has. (The relationships were checked by `writeLinkages`.)
    private static func writeRelationshipMeta(_ tape: JSONTape, of relationships: Int, into bytes: inout [UInt8]) {
        guard let end = tape.endOfValue(at: relationships) else { return }
        var wroteMeta = false
        var cursor = relationships + 1
        while cursor < end - 1 {
            let name = cursor
            guard let next = tape.endOfValue(at: cursor + 1) else { return }
            var member = cursor + 2
            while member < next - 1 {
                let meta = member + 1
                if tape.withUnsafeText(of: tape[member], { ResourceMember(name: $0) }) == .meta,
                    tape[meta].kind != .null, let value = try? tape.value(at: meta)
                {
                    bytes.append(contentsOf: wroteMeta ? #","#.utf8 : #","relationshipMeta":{"#.utf8)
                    wroteMeta = true
                    writeString(tape, at: name, into: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    value.writeJSON(into: &bytes)
                }
                member = tape.endOfValue(at: meta) ?? next
            }
            cursor = next
        }
        if wroteMeta { bytes.append(UInt8(ascii: "}")) }
    }
}
