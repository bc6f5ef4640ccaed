import SluiceJSON

extension RawResource {
    /// The resource as one line of `sluice flatten` output (without the line feed): an object with
    /// exactly `type`, `id` (or `lid` when there is no `id`), `attributes` as in the input (`{}`
    /// when absent, numbers with the input's digits) and `relationships`, each relationship that
    /// has `data` reduced to its linkage; then, only when some relationship has a `meta` object,
    /// `relationshipMeta` with each such relationship's `meta` by name (so lines without it keep
    /// the four members, and no relationship's meta is lost).
    public func writeFlattened(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"type":"#.utf8)
        JSONValue.writeString(type, into: &bytes)
        if let id {
            bytes.append(contentsOf: #","id":"#.utf8)
            JSONValue.writeString(id, into: &bytes)
        } else if let lid {
            bytes.append(contentsOf: #","lid":"#.utf8)
            JSONValue.writeString(lid, into: &bytes)
        }
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

    private static func writeLinkage(_ identifier: ResourceIdentifier, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"type":"#.utf8)
        JSONValue.writeString(identifier.type, into: &bytes)
        if let id = identifier.id {
            bytes.append(contentsOf: #","id":"#.utf8)
            JSONValue.writeString(id, into: &bytes)
        } else if let lid = identifier.lid {
            bytes.append(contentsOf: #","lid":"#.utf8)
            JSONValue.writeString(lid, into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
