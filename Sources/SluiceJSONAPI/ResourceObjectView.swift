import SluiceJSON

/// The members of one resource object on the tape, found in one pass over its keys.
///
/// It keeps token indices rather than views, so copying it (every keyed container holds one)
/// retains one tape, not eight; views are made when a member is asked for.
struct ResourceObjectView {
    let value: JSONTape.Value
    private var typeIndex = -1
    private var idIndex = -1
    private var lidIndex = -1
    private var attributesIndex = -1
    private var relationshipsIndex = -1
    private var metaIndex = -1
    private var linksIndex = -1

    init(_ value: JSONTape.Value) {
        self.value = value
        guard value.kind == .objectStart else { return }
        let tape = value.tape
        var cursor = value.index + 1
        let end = value.endIndex - 1
        while cursor < end {
            let valueIndex = cursor + 1
            switch tape.withUnsafeText(of: tape[cursor], { ResourceMember(name: $0) }) {
            case .type: typeIndex = valueIndex
            case .id: idIndex = valueIndex
            case .lid: lidIndex = valueIndex
            case .attributes: attributesIndex = valueIndex
            case .relationships: relationshipsIndex = valueIndex
            case .meta: metaIndex = valueIndex
            case .links: linksIndex = valueIndex
            case .data, .other: break
            }
            cursor = tape.endOfValue(at: valueIndex) ?? end
        }
    }

    private func member(_ index: Int) -> JSONTape.Value? {
        index < 0 ? nil : try? value.tape.value(at: index)
    }

    var type: JSONTape.Value? { member(typeIndex) }
    var id: JSONTape.Value? { member(idIndex) }
    var lid: JSONTape.Value? { member(lidIndex) }
    var attributes: JSONTape.Value? { member(attributesIndex) }
    var relationships: JSONTape.Value? { member(relationshipsIndex) }
    var meta: JSONTape.Value? { member(metaIndex) }
    var links: JSONTape.Value? { member(linksIndex) }

    /// The resource's `type`, if it is a string.
    var typeName: String? { try? type?.string() }

    /// The identity by `id`, else by `lid`, when `type` and that member are strings.
    var identity: ResourceIdentity? {
        guard let type = typeName else { return nil }
        if let id = try? id?.string() { return ResourceIdentity(type: type, id: id) }
        if let lid = try? lid?.string() { return ResourceIdentity(type: type, lid: lid) }
        return nil
    }

    /// The member of `attributes` or `relationships` named `name` under `strategy`.
    func field(_ name: String, strategy: JSONKeyStrategy) -> (value: JSONTape.Value, isRelationship: Bool)? {
        // One matcher for both objects: the key's bytes are prepared once per lookup.
        strategy.withMatcher(forKey: name) { matches in
            if let found = attributes?.firstMember(where: matches) { return (found, false) }
            if let found = relationships?.firstMember(where: matches) { return (found, true) }
            return nil
        }
    }
}

/// The members a resource object may have.
enum ResourceMember {
    case type, id, lid, attributes, relationships, meta, links
    /// `data`, which relationship objects have.
    case data
    case other

    init(name: UnsafeRawBufferPointer) {
        let equals = name.isLiteral
        switch name.count {
        case 2 where equals("id"): self = .id
        case 3 where equals("lid"): self = .lid
        case 4 where equals("type"): self = .type
        case 4 where equals("meta"): self = .meta
        case 4 where equals("data"): self = .data
        case 5 where equals("links"): self = .links
        case 10 where equals("attributes"): self = .attributes
        case 13 where equals("relationships"): self = .relationships
        default: self = .other
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the bytes are exactly the literal's UTF-8: how member names are recognised without
    /// making a `String`.
    func isLiteral(_ literal: StaticString) -> Bool {
        elementsEqual(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
