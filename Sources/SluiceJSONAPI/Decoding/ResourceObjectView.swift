import SluiceJSON

/// The members of one resource object on the tape, found by the one scan of ``ResourceMembers``.
///
/// It keeps token indices rather than views, so copying it (every keyed container holds one)
/// retains one tape, not eight; views are made when a member is asked for.
struct ResourceObjectView {
    let value: JSONTape.Value
    let members: ResourceMembers

    /// Consuming `value`: the view takes its reference to the tape, where a borrowed value was
    /// retained for the view and released after, two atomic operations for every resource.
    init(_ value: consuming JSONTape.Value) {
        members = ResourceMembers(value)
        self.value = value
    }

    private func member(_ index: Int) -> JSONTape.Value? {
        index < 0 ? nil : try? value.tape.value(at: index)
    }

    var type: JSONTape.Value? { member(members.type) }
    var id: JSONTape.Value? { member(members.id) }
    var lid: JSONTape.Value? { member(members.lid) }
    var attributes: JSONTape.Value? { member(members.attributes) }
    var relationships: JSONTape.Value? { member(members.relationships) }
    var meta: JSONTape.Value? { member(members.meta) }
    var links: JSONTape.Value? { member(members.links) }

    /// The identity by `id`, else by `lid`, for the resource's `type` already read as `type`.
    func identity(type: String) -> ResourceIdentity? {
        // Every resource makes one: its key is read straight from the tokens.
        let (id, lid) = (members.id, members.lid)
        return value.tape.withTokens { tokens in
            func key(_ index: Int) -> String? {
                guard index >= 0 else { return nil }
                let token = tokens[index]
                return token.kind == .string ? tokens.string(of: token) : nil
            }
            if let key = key(id) { return ResourceIdentity(type: type, id: key) }
            return key(lid).map { ResourceIdentity(type: type, lid: $0) }
        }
    }

    /// The member at `index` when it is there and not a string: how `id` and `lid` are checked
    /// without making a view of either when they are strings, as they nearly always are.
    func nonString(at index: Int) -> JSONTape.Value? {
        guard index >= 0, value.tape[index].kind != .string else { return nil }
        return member(index)
    }

    /// Calls `body` with each member of `attributes`, then of `relationships`: its key token, the
    /// absolute index of its value, and whether it is a relationship.
    func forEachField(_ body: (JSONToken, Int, Bool) -> Void) {
        let tape = value.tape
        func walk(_ objectIndex: Int, isRelationship: Bool) {
            guard objectIndex >= 0, tape[objectIndex].kind == .objectStart,
                let objectEnd = tape.endOfValue(at: objectIndex)
            else { return }
            var cursor = objectIndex + 1
            while cursor < objectEnd - 1 {
                let valueEnd = tape.endOfValue(at: cursor + 1) ?? objectEnd - 1
                body(tape[cursor], cursor + 1, isRelationship)
                cursor = valueEnd
            }
        }
        walk(members.attributes, isRelationship: false)
        walk(members.relationships, isRelationship: true)
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

/// The attributes and relationships of the resource being decoded, listed once so that each
/// property lookup compares names in a short table rather than walking two objects on the tape.
///
/// Why a class owned by the engine and reloaded for every resource: the table's storage is reused,
/// so a resource costs no allocation for it. Why `hint`: models usually declare their properties
/// in the order documents write them, so starting each search just after the previous match
/// makes most lookups a single comparison instead of a scan.
final class ResourceFields {
    private struct Field {
        let key: JSONToken
        let valueIndex: Int
        let isRelationship: Bool
    }

    private var fields: [Field] = []
    private var hint = 0
    /// Off when two members have the same name: then only a scan from the start keeps the rule
    /// that the first one wins (attributes before relationships).
    private var usesHint = true
    /// Bumped by every load, so a decoder kept past its resource can tell the table moved on.
    private(set) var generation = 0

    /// Lists the fields of `view`'s resource, replacing the previous resource's.
    func load(_ view: ResourceObjectView) {
        generation &+= 1
        fields.removeAll(keepingCapacity: true)
        hint = 0
        view.forEachField { key, valueIndex, isRelationship in
            fields.append(Field(key: key, valueIndex: valueIndex, isRelationship: isRelationship))
        }
        usesHint = !Self.hasDuplicateNames(fields, on: view.value.tape)
    }

    private static func hasDuplicateNames(_ fields: [Field], on tape: JSONTape) -> Bool {
        for later in fields.indices.dropFirst() {
            for earlier in 0..<later where fields[earlier].key.length == fields[later].key.length {
                let same = tape.withUnsafeText(of: fields[earlier].key) { first in
                    tape.withUnsafeText(of: fields[later].key) { first.hasSameBytes(as: $0) }
                }
                if same { return true }
            }
        }
        return false
    }

    /// The field named `name` under `strategy`, read from `tape` (the loaded resource's).
    func field(
        _ name: String,
        strategy: JSONKeyStrategy,
        on tape: JSONTape
    ) -> (value: JSONTape.Value, isRelationship: Bool)? {
        let count = fields.count
        guard count > 0 else { return nil }
        return strategy.withMatcher(forKey: name) { matches in
            var position = usesHint && hint < count ? hint : 0
            for _ in 0..<count {
                let field = fields[position]
                position = position + 1 == count ? 0 : position + 1
                // The resource has closed, so its values are complete and `value(at:)` cannot fail.
                if tape.withUnsafeText(of: field.key, matches), let value = try? tape.value(at: field.valueIndex) {
                    hint = position
                    return (value, field.isRelationship)
                }
            }
            return nil
        }
    }
}

/// The members of a resource object, and `data`: the validator's lists of what a resource
/// object, an identifier and a relationship object may hold are made from their names, and a test
/// checks `init(name:)` against them. No `String` raw values: comparing cases would then compare
/// strings.
package enum ResourceMember: CaseIterable {
    case type, id, lid, attributes, relationships, links, meta
    /// `data`, which relationship objects have.
    case data
    case other

    /// The member's name; empty for `other`.
    package var name: String {
        switch self {
        case .type: "type"
        case .id: "id"
        case .lid: "lid"
        case .attributes: "attributes"
        case .relationships: "relationships"
        case .links: "links"
        case .meta: "meta"
        case .data: "data"
        case .other: ""
        }
    }

    @inline(__always)
    package init(name: UnsafeRawBufferPointer) {
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
    @inline(__always)
    func isLiteral(_ literal: StaticString) -> Bool {
        hasSameBytes(as: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
