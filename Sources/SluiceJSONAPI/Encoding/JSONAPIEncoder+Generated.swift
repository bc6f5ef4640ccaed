// The JSON:API encoder's generated path: resources with `@JSONModel` writers are written straight
// into the output as resource objects, with no tree and no yajl.
//
// Why it can: the macro's table knows each member's written name under every built-in key strategy
// and the type of its value, so a resource's members are sorted into roles once per type (`id`,
// `lid`, `meta`, `links` by their names, as the general path files them; relationships by their
// types, which tag themselves; attributes the rest), and the resource object is written section by
// section from the generated per-member function: `type`, `id`, `lid`, then `attributes` and
// `relationships` opened only when a member is written into them, then `links` and `meta`; under
// `.sortedKeys` the same sections in the order of their names. The general path's rules hold: a
// relationship with nothing to say is left out, an absent `Field` is not written, `included`
// resources are deduplicated by identity and those primary data holds are not repeated.

import Foundation
import SluiceJSON

// MARK: Relationship and field members

@_documentation(visibility: internal)
extension JSONModelWriter {
    /// The writer's scope while it writes a resource's `relationships` object.
    static let relationshipsScope = 1

    /// Whether a relationship with nothing to say is left out: inside a resource's
    /// `relationships`; anywhere else it is written as `{}`, as the general path does.
    var omitsEmptyRelationships: Bool { scope == Self.relationshipsScope }

    /// Writes a to-one relationship member: its relationship object, or nothing when it has no
    /// linkage, `meta` or `links` inside a resource's `relationships` (as the general path).
    public func write<Target>(_ relationship: ToOne<Target>, field: Int) throws {
        try writeRelationship(
            field: field,
            hasLinkage: relationship.hasLinkage,
            meta: relationship.meta,
            links: relationship.links
        ) {
            if let identifier = relationship.identifier {
                try writeIdentifier(identifier)
            } else {
                null()
            }
        }
    }

    /// Writes a to-one relationship member when it is not `nil`.
    public func writeIfPresent<Target>(_ relationship: ToOne<Target>?, field: Int) throws {
        guard let relationship else { return }
        try write(relationship, field: field)
    }

    /// Writes a to-many relationship member (see ``write(_:field:)-(ToOne<Target>,_)``).
    public func write<Target>(_ relationship: ToMany<Target>, field: Int) throws {
        try writeRelationship(
            field: field,
            hasLinkage: relationship.hasLinkage,
            meta: relationship.meta,
            links: relationship.links
        ) {
            try beginArray()
            for identifier in relationship.identifiers { try writeIdentifier(identifier) }
            endArray()
        }
    }

    /// Writes a to-many relationship member when it is not `nil`.
    public func writeIfPresent<Target>(_ relationship: ToMany<Target>?, field: Int) throws {
        guard let relationship else { return }
        try write(relationship, field: field)
    }

    /// Writes a relationship member given as a JSON value; an empty object inside a resource's
    /// `relationships` says nothing and is left out.
    public func write(_ relationship: CustomRelationship, field: Int) throws {
        if omitsEmptyRelationships, case .object(let body) = relationship.payload, body.keys.isEmpty { return }
        key(field: field)
        try value(relationship.payload, key: nil)
    }

    /// Writes an attribute that tells absent from `null`: nothing when absent.
    public func write<Value: JSONModelValue>(_ attribute: Field<Value>, field: Int) throws {
        switch attribute {
        case .absent: return
        case .null:
            key(field: field)
            null()
        case .value(let value):
            key(field: field)
            try value.writeJSONModelValue(to: self)
        }
    }

    /// Writes an attribute that tells absent from `null`, of a type written through the
    /// encoder's strategies (a date, data, a type with its own `encode(to:)`).
    public func write<Value: Encodable>(_ attribute: Field<Value>, field: Int) throws {
        switch attribute {
        case .absent: return
        case .null:
            key(field: field)
            null()
        case .value(let value):
            key(field: field)
            try self.value(value, key: codingKey(field: field))
        }
    }

    /// Member `field` as the general path writes a relationship: `{"data": ..., "meta": ...,
    /// "links": ...}`, `data` only with linkage, fixed member names, in name order under
    /// `.sortedKeys`; nothing at all for one with nothing to say inside `relationships`.
    private func writeRelationship(
        field: Int,
        hasLinkage: Bool,
        meta: JSONValue?,
        links: Links?,
        data: () throws -> Void
    ) throws {
        if omitsEmptyRelationships, !hasLinkage, meta == nil, links == nil { return }
        key(field: field)
        try beginObject()
        if hasLinkage {
            key(raw: "\"data\":")
            try data()
        }
        if sortsKeys {
            if let links { try writeLinks(links) }
            if let meta { try writeMeta(meta) }
        } else {
            if let meta { try writeMeta(meta) }
            if let links { try writeLinks(links) }
        }
        endObject()
    }

    private func writeMeta(_ meta: JSONValue) throws {
        key(raw: "\"meta\":")
        try value(meta, key: nil)
    }

    private func writeLinks(_ links: Links) throws {
        key(raw: "\"links\":")
        try value(links, key: nil)
    }

    /// A resource identifier object: `type`, `id`, `lid`, `meta` (in name order when sorted).
    func writeIdentifier(_ identifier: ResourceIdentifier) throws {
        try beginObject()
        if !sortsKeys {
            key(raw: "\"type\":")
            string(identifier.type)
        }
        if let id = identifier.id {
            key(raw: "\"id\":")
            string(id)
        }
        if let lid = identifier.lid {
            key(raw: "\"lid\":")
            string(lid)
        }
        if let meta = identifier.meta { try writeMeta(meta) }
        if sortsKeys {
            key(raw: "\"type\":")
            string(identifier.type)
        }
        endObject()
    }
}

// MARK: Resource objects

/// How a resource type's members are laid out, worked out once per type per document.
struct ResourcePlan {
    var id: Int32 = -1
    var lid: Int32 = -1
    var meta: Int32 = -1
    var links: Int32 = -1
    /// Attribute and relationship members in writing order (declaration or name order), with
    /// sparse fieldsets applied.
    var attributes: [Int32] = []
    var relationships: [Int32] = []

    init(keys: JSONModelKeys, strategy: Int, sorted: Bool, fields: Set<String>?) {
        let names = keys.writtenNames[strategy]
        let order = keys.view(strategy: strategy, escapesSlashes: false, sorted: sorted)
        withExtendedLifetime(keys) {
            for position in 0..<order.count {
                let field = order.order[position]
                let name = names[Int(field)]
                switch name {
                case "type": continue
                case "id": id = field
                case "lid": lid = field
                case "meta": meta = field
                case "links": links = field
                default:
                    if let fields, !fields.contains(name) { continue }
                    if encodingTag(of: keys.valueTypes[Int(field)]) == relationshipTag {
                        relationships.append(field)
                    } else {
                        attributes.append(field)
                    }
                }
            }
        }
    }
}

/// Writes resource objects of `@JSONModel` resources under one document's settings (the key
/// strategy and sorting are the writer's).
final class GeneratedResourceWriter {
    private let fields: [String: Set<String>]
    private var plans: [ObjectIdentifier: ResourcePlan] = [:]

    init(fields: [String: Set<String>]) {
        self.fields = fields
    }

    private func plan<M: Resource & JSONModelEncodable>(for type: M.Type, _ writer: JSONModelWriter) -> ResourcePlan {
        if let plan = plans[ObjectIdentifier(type)] { return plan }
        let plan = ResourcePlan(
            keys: M.jsonModelKeys,
            strategy: writer.keyStrategy,
            sorted: writer.sortsKeys,
            fields: fields[M.resourceType]
        )
        plans[ObjectIdentifier(type)] = plan
        return plan
    }

    /// Writes `model` as a resource object and returns its identity.
    ///
    /// - Throws: ``JSONModelWriterFault`` where the general path would refuse the resource (an
    ///   `id` that is not a string); the caller asks the general path for its exact error.
    func write<M: Resource & JSONModelEncodable>(_ model: M, to writer: JSONModelWriter) throws -> ResourceIdentity? {
        let plan = plan(for: M.self, writer)
        var id: String?
        var lid: String?
        try writer.beginObject()
        if !writer.sortsKeys {
            writer.key(raw: "\"type\":")
            writer.string(M.resourceType)
            id = try identifier(plan.id, of: model, to: writer)
            lid = try identifier(plan.lid, of: model, to: writer)
            try section("\"attributes\":{", plan.attributes, of: model, to: writer, relationships: false)
            try section("\"relationships\":{", plan.relationships, of: model, to: writer, relationships: true)
            try member(plan.links, of: model, to: writer)
            try member(plan.meta, of: model, to: writer)
        } else {
            try section("\"attributes\":{", plan.attributes, of: model, to: writer, relationships: false)
            id = try identifier(plan.id, of: model, to: writer)
            lid = try identifier(plan.lid, of: model, to: writer)
            try member(plan.links, of: model, to: writer)
            try member(plan.meta, of: model, to: writer)
            try section("\"relationships\":{", plan.relationships, of: model, to: writer, relationships: true)
            writer.key(raw: "\"type\":")
            writer.string(M.resourceType)
        }
        writer.endObject()
        return ResourceIdentity(type: M.resourceType, id: id, lid: lid)
    }

    private func member<M: JSONModelEncodable>(_ field: Int32, of model: M, to writer: JSONModelWriter) throws {
        guard field >= 0 else { return }
        try writer.member(field, of: model)
    }

    /// Writes the `id` or `lid` member and returns its text; a member written as anything but a
    /// string is a fault (the general path refuses it with its own message).
    private func identifier<M: JSONModelEncodable>(
        _ field: Int32,
        of model: M,
        to writer: JSONModelWriter
    ) throws
        -> String?
    {
        guard field >= 0 else { return nil }
        let before = writer.keysWritten
        writer.startCapturing()
        try member(field, of: model, to: writer)
        let text = writer.stopCapturing()
        if writer.keysWritten != before, text == nil { throw JSONModelWriterFault() }
        return text
    }

    private func section<M: JSONModelEncodable>(
        _ opening: StaticString,
        _ members: [Int32],
        of model: M,
        to writer: JSONModelWriter,
        relationships: Bool
    ) throws {
        guard !members.isEmpty else { return }
        try writer.openWhenNeeded(opening)
        let outer = writer.scope
        writer.scope = relationships ? JSONModelWriter.relationshipsScope : 0
        defer { writer.scope = outer }
        try members.withUnsafeBufferPointer { try writer.members(of: model, fields: $0) }
        writer.closePending()
    }
}
