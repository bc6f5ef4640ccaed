// JSON:API resources as the import's records: a resource object's type, `id` or `lid`,
// attributes and relationship linkage, written into an `ImportRecord` on the reading threads.
// The tape path reads the resource object straight from the tape; the shapes it leaves to the
// general reader (a member given twice, links to check member by member) come as a `RawResource`.

import SluiceImport
import SluiceJSON
package import SluiceJSONAPI

extension ImportRecord {
    /// What a decoder makes of each resource for an import: its record's bytes, written on the
    /// reading threads.
    package static let jsonAPIEncoding = RawResourceEncoding(
        fromTape: { value, context, bytes in
            guard let record = ImportRecord(resourceObject: value, context: context) else { return false }
            bytes = record.bytes
            return true
        },
        fromRawResource: { resource, bytes in bytes = ImportRecord(resource).bytes }
    )
}

// MARK: Writing a record from the tape

extension ImportRecord {
    /// The record of the resource object `value`, read straight from the tape; `nil` when the
    /// object has a shape only the general reader handles (a member given twice, a relationship
    /// that is not an object, an `id` that is not a string, links to check member by member...):
    /// the caller then decodes a ``RawResource``, which throws the fault a decoder reports, and
    /// makes the record from it. So a record says exactly what the `RawResource` would.
    init?(resourceObject value: JSONTape.Value, context: TapeDecodingContext) {
        let tape = value.tape
        guard let members = ResourceMembers.writable(value, context: context) else { return nil }
        func member(_ index: Int) -> JSONTape.Value? { index < 0 ? nil : try? tape.value(at: index) }
        let (type, id, lid) = (member(members.type), member(members.id), member(members.lid))
        let (attributes, relationships) = (member(members.attributes), member(members.relationships))
        guard let type, type.kind == .string else { return nil }
        self.init()
        tape.withUnsafeText(of: type.token) { appendText($0) }
        guard appendKey(id: id, lid: lid) else { return nil }
        // Attributes: an object's members; anything else (null, or what the general reader
        // ignores) makes none.
        let attributeCount = bytes.count
        append(UInt32(0))
        if let attributes, attributes.kind == .objectStart {
            guard let members = try? attributes.members() else { return nil }
            var count: UInt32 = 0
            for member in members {
                tape.withUnsafeText(of: member.keyToken) { appendText($0) }
                appendValue(member.value)
                count += 1
            }
            patch(count, at: attributeCount)
        } else if let attributes, !attributes.isNull {
            return nil
        }
        let relationshipCount = bytes.count
        append(UInt32(0))
        if let relationships {
            guard relationships.kind == .objectStart else { return nil }
            guard let members = try? relationships.members() else { return nil }
            var count: UInt32 = 0
            for member in members {
                tape.withUnsafeText(of: member.keyToken) { appendText($0) }
                guard appendRelationship(member.value, context: context) else { return nil }
                count += 1
            }
            patch(count, at: relationshipCount)
        }
    }

    /// The key kind and key of `id`/`lid` members (each a string or `null`); `false` for any other kind.
    private mutating func appendKey(id: JSONTape.Value?, lid: JSONTape.Value?) -> Bool {
        if let id, !id.isNull {
            guard id.kind == .string else { return false }
            if let lid, !lid.isNull, lid.kind != .string { return false }
            append(KeyKind.id.rawValue)
            id.tape.withUnsafeText(of: id.token) { appendText($0) }
        } else if let lid, !lid.isNull {
            guard lid.kind == .string else { return false }
            append(KeyKind.lid.rawValue)
            lid.tape.withUnsafeText(of: lid.token) { appendText($0) }
        } else {
            append(KeyKind.none.rawValue)
        }
        return true
    }

    /// A relationship object; `false` for a shape the general reader must judge.
    private mutating func appendRelationship(_ value: JSONTape.Value, context: TapeDecodingContext) -> Bool {
        guard value.kind == .objectStart else { return false }
        let tape = value.tape
        var data: JSONTape.Value?
        var meta: JSONTape.Value?
        var seen: UInt8 = 0
        guard let members = try? value.members() else { return false }
        for member in members {
            let bit: UInt8
            switch tape.withUnsafeText(of: member.keyToken, { ResourceMember(name: $0) }) {
            case .data: (bit, data) = (1, member.value)
            case .meta: (bit, meta) = (2, member.value)
            case .links:
                bit = 4
                guard Links.isValidMember(tape, at: member.value.index, context: context) else { return false }
            default: bit = 0
            }
            guard seen & bit == 0 else { return false }
            seen |= bit
        }
        let linkageAt = bytes.count
        append(Linkage.absent.rawValue)
        if let meta, !meta.isNull {
            let at = beginText()
            meta.writeJSON(into: &bytes)
            endText(at)
        } else {
            append(UInt32(bitPattern: -1))
        }
        let countAt = bytes.count
        append(UInt32(0))
        guard let data else { return true }
        switch data.kind {
        case .null:
            bytes[linkageAt] = Linkage.null.rawValue
        case .objectStart:
            bytes[linkageAt] = Linkage.one.rawValue
            guard appendIdentifier(data) else { return false }
            patch(1, at: countAt)
        case .arrayStart:
            bytes[linkageAt] = Linkage.many.rawValue
            guard let elements = try? data.elements() else { return false }
            var count: UInt32 = 0
            for element in elements {
                guard appendIdentifier(element) else { return false }
                count += 1
            }
            patch(count, at: countAt)
        default:
            return false
        }
        return true
    }

    /// A resource identifier: `type` a string, `id` and `lid` strings or `null`, each once.
    private mutating func appendIdentifier(_ value: JSONTape.Value) -> Bool {
        guard value.kind == .objectStart else { return false }
        let tape = value.tape
        var type: JSONTape.Value?
        var id: JSONTape.Value?
        var lid: JSONTape.Value?
        guard let members = try? value.members() else { return false }
        for member in members {
            switch tape.withUnsafeText(of: member.keyToken, { ResourceMember(name: $0) }) {
            case .type:
                guard type == nil else { return false }
                type = member.value
            case .id:
                guard id == nil else { return false }
                id = member.value
            case .lid:
                guard lid == nil else { return false }
                lid = member.value
            default: break
            }
        }
        guard let type, type.kind == .string else { return false }
        tape.withUnsafeText(of: type.token) { appendText($0) }
        return appendKey(id: id, lid: lid)
    }
}

// MARK: Writing a record from a RawResource

extension ImportRecord {
    /// The record of a resource the general reader decoded (the shapes the tape reader leaves to it).
    init(_ resource: RawResource) {
        self.init()
        appendText(resource.type)
        appendKey(id: resource.id, lid: resource.lid)
        append(UInt32(resource.attributes.count))
        for (name, value) in zip(resource.attributes.keys, resource.attributes.values) {
            appendText(name)
            switch value {
            case .null: append(ValueTag.null.rawValue)
            case .bool(let flag): append(flag ? ValueTag.true.rawValue : ValueTag.false.rawValue)
            case .number(var text): text.withUTF8 { appendNumber(UnsafeRawBufferPointer($0)) }
            case .string(let text):
                append(ValueTag.string.rawValue)
                appendText(text)
            case .array, .object:
                append(ValueTag.json.rawValue)
                let at = beginText()
                value.write(into: &bytes)
                endText(at)
            }
        }
        append(UInt32(resource.relationshipNames.count))
        for (name, relationship) in zip(resource.relationshipNames, resource.relationshipValues) {
            appendText(name)
            let identifiers: [ResourceIdentifier]
            switch relationship.data {
            case nil:
                append(Linkage.absent.rawValue)
                identifiers = []
            case .null?:
                append(Linkage.null.rawValue)
                identifiers = []
            case .one(let identifier)?:
                append(Linkage.one.rawValue)
                identifiers = [identifier]
            case .many(let many)?:
                append(Linkage.many.rawValue)
                identifiers = many
            }
            if let meta = relationship.meta {
                let at = beginText()
                meta.write(into: &bytes)
                endText(at)
            } else {
                append(UInt32(bitPattern: -1))
            }
            append(UInt32(identifiers.count))
            for identifier in identifiers {
                appendText(identifier.type)
                appendKey(id: identifier.id, lid: identifier.lid)
            }
        }
    }

    private mutating func appendKey(id: String?, lid: String?) {
        if let id {
            append(KeyKind.id.rawValue)
            appendText(id)
        } else if let lid {
            append(KeyKind.lid.rawValue)
            appendText(lid)
        } else {
            append(KeyKind.none.rawValue)
        }
    }
}
