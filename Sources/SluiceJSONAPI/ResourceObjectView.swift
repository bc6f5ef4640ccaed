import SluiceJSON

/// The members of one resource object on the tape, found in one pass over its keys.
struct ResourceObjectView {
    let value: JSONTape.Value
    var type: JSONTape.Value?
    var id: JSONTape.Value?
    var lid: JSONTape.Value?
    var attributes: JSONTape.Value?
    var relationships: JSONTape.Value?
    var meta: JSONTape.Value?
    var links: JSONTape.Value?

    init(_ value: JSONTape.Value) {
        self.value = value
        guard let members = try? value.members() else { return }
        let tape = value.tape
        for member in members {
            tape.withUnsafeText(of: member.keyToken) { name in
                switch ResourceMember(name: name) {
                case .type: type = member.value
                case .id: id = member.value
                case .lid: lid = member.value
                case .attributes: attributes = member.value
                case .relationships: relationships = member.value
                case .meta: meta = member.value
                case .links: links = member.value
                case .data, .other: break
                }
            }
        }
    }

    /// The resource's `type`, if it is a string.
    var typeName: String? { try? type?.string() }

    /// Whether the `type` member's text is exactly `name`, compared without making a `String`.
    func hasType(_ name: String) -> Bool {
        guard let type, type.kind == .string else { return false }
        var name = name
        return name.withUTF8 { type.tape.text(of: type.token, equals: UnsafeRawBufferPointer($0)) }
    }

    /// The identity by `id`, else by `lid`, when `type` and that member are strings.
    var identity: ResourceIdentity? {
        guard let type = typeName else { return nil }
        if let id = try? id?.string() { return ResourceIdentity(type: type, id: id) }
        if let lid = try? lid?.string() { return ResourceIdentity(type: type, lid: lid) }
        return nil
    }

    /// The member of `attributes` or `relationships` named `name` under `strategy`.
    func field(_ name: String, strategy: JSONKeyStrategy) -> (value: JSONTape.Value, isRelationship: Bool)? {
        if let found = Self.member(of: attributes, matching: name, strategy: strategy) { return (found, false) }
        if let found = Self.member(of: relationships, matching: name, strategy: strategy) { return (found, true) }
        return nil
    }

    static func member(of object: JSONTape.Value?, matching name: String, strategy: JSONKeyStrategy) -> JSONTape.Value?
    {
        object?.firstMember { strategy.matches($0, key: name) }
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
