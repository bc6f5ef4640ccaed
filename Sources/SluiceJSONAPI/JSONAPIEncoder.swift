// The JSON:API encoder: the same resource models that decode, written as resource objects.
//
// A model encodes itself flat (as it decodes: `id`, `lid`, attributes and relationships in one
// namespace) into StreamingJSONEncoder's tree; the encoder then files each member where the
// specification puts it: `id`/`lid` on the resource object, relationships (which tag themselves)
// under `relationships`, the resource's own `meta`/`links` beside them, the rest under
// `attributes`. The document is written through the chunked JSONWriter, so a large collection
// streams out in constant memory.

public import Foundation
public import SluiceJSON

/// Encodes resource models as JSON:API documents.
///
/// ```swift
/// let encoder = JSONAPIEncoder()
/// let body = try encoder.encode(article, included: [author])
/// // {"data":{"type":"articles","id":"1","attributes":{...},"relationships":{"author":{"data":{...}}}},
/// //  "included":[{"type":"people","id":"9",...}]}
/// ```
///
/// - `type` comes from the model's `resourceType`; `id` or `lid` from its properties (a resource
///   not yet created has a `lid` and no `id`).
/// - ``ToOne`` and ``ToMany`` properties become relationships with linkage and their own `meta`
///   and `links`; `.unchanged` leaves a relationship out, `.null` writes `null` linkage.
/// - ``Field`` properties tell an absent member from an explicit `null`.
/// - ``fields`` writes sparse fieldsets; ``included`` resources are deduplicated by type and id.
public final class JSONAPIEncoder: Sendable {
    private let settings = LockedSettings(Settings())

    private struct Settings {
        var fields: [String: Set<String>] = [:]
        var jsonapi: JSONAPIObject?
    }

    /// The encoder that records attribute values: its key, date, data and float strategies and
    /// output formatting apply.
    public let valueEncoder = StreamingJSONEncoder()

    /// Creates an encoder.
    public init() {}

    /// Sparse fieldsets: for a resource type, the attribute and relationship names to write (as
    /// written in the output). Types not named are written whole.
    public var fields: [String: Set<String>] {
        get { settings[\.fields] }
        set { settings[\.fields] = newValue }
    }

    /// The top-level `jsonapi` object, written when set.
    public var jsonapi: JSONAPIObject? {
        get { settings[\.jsonapi] }
        set { settings[\.jsonapi] = newValue }
    }

    // MARK: Documents

    /// A document whose primary data is one resource.
    public func encode<R: Resource & Encodable>(
        _ resource: R,
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil
    ) throws -> Data {
        var data = Data()
        try write(primary: .one(resource), included: included, meta: meta, links: links) { data.append(contentsOf: $0) }
        return data
    }

    /// A document whose primary data is a collection.
    public func encode<R: Resource & Encodable>(
        _ resources: [R],
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil
    ) throws -> Data {
        var data = Data()
        try write(primary: .many(resources), included: included, meta: meta, links: links) {
            data.append(contentsOf: $0)
        }
        return data
    }

    /// A collection document written to `sink` in chunks as the resources arrive: constant memory
    /// whatever the number of resources.
    public func encodeCollection<Resources: AsyncSequence>(
        _ resources: Resources,
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil,
        chunkSize: Int = 64 * 1024,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) async throws where Resources.Element: Resource & Encodable {
        let session = try Session(encoder: self, chunkSize: chunkSize, sink: sink)
        // Only identities that `included` could repeat are remembered, so memory stays that of
        // the included resources however many resources stream through.
        try session.limitRemembered(to: included)
        try session.writer.beginObject()
        try session.writer.key("data")
        try session.writer.beginArray()
        for try await resource in resources {
            try session.resourceNode(resource).write(to: session.writer, sortingKeys: session.sortsKeys)
        }
        try session.writer.endArray()
        try session.finish(included: included, meta: meta, links: links)
    }

    /// The primary data of a document.
    enum Primary<R: Resource & Encodable> {
        case one(R)
        case many([R])
    }

    func write<R>(
        primary: Primary<R>,
        included: [any Resource & Encodable],
        meta: JSONValue?,
        links: Links?,
        chunkSize: Int = 64 * 1024,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let session = try Session(encoder: self, chunkSize: chunkSize, sink: sink)
        try session.writer.beginObject()
        try session.writer.key("data")
        switch primary {
        case .one(let resource):
            try session.resourceNode(resource).write(to: session.writer, sortingKeys: session.sortsKeys)
        case .many(let resources):
            try session.writer.beginArray()
            for resource in resources {
                try session.resourceNode(resource).write(to: session.writer, sortingKeys: session.sortsKeys)
            }
            try session.writer.endArray()
        }
        try session.finish(included: included, meta: meta, links: links)
    }

    /// One document being written.
    final class Session {
        let writer: JSONWriter
        let tree: EncodingTree
        let sortsKeys: Bool
        let fields: [String: Set<String>]
        let jsonapi: JSONAPIObject?
        /// The identities written so far, so `included` repeats none.
        var written = Set<ResourceIdentity>()
        /// When set, the only identities worth remembering in `written`: those of the included
        /// resources (see `limitRemembered(to:)`).
        private var remembered: Set<ResourceIdentity>?

        init(encoder: JSONAPIEncoder, chunkSize: Int, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
            let made = encoder.valueEncoder.makeTree(chunkSize: chunkSize)
            tree = made.tree
            sortsKeys = made.sortsKeys
            writer = JSONWriter(options: made.writerOptions, sink: sink)
            let settings = encoder.settings.snapshot
            (fields, jsonapi) = (settings.fields, settings.jsonapi)
        }

        /// The resource object for `resource`.
        func resourceNode<R: Resource & Encodable>(_ resource: R) throws -> EncodedNode {
            let type = R.resourceType
            let recorded = try tree.node(for: resource, path: [])
            guard case .object(let members) = recorded else {
                throw EncodingError.invalidValue(
                    resource,
                    EncodingError.Context(
                        codingPath: [],
                        debugDescription: "A \(R.self) resource must encode as an object."
                    )
                )
            }
            let object = EncodedObject()
            object.append("type", .string(type))
            let attributes = EncodedObject()
            let relationships = EncodedObject()
            var meta: EncodedNode?
            var links: EncodedNode?
            var id: String?
            var lid: String?
            let sparse = fields[type]
            for (name, value) in zip(members.keys, members.values) {
                switch name {
                case "type":
                    continue
                case "id", "lid":
                    guard case .string(let text) = value else {
                        throw EncodingError.invalidValue(
                            resource,
                            EncodingError.Context(
                                codingPath: [AnyCodingKey(name)],
                                debugDescription: "A resource's \(name) must be a string."
                            )
                        )
                    }
                    if name == "id" { id = text } else { lid = text }
                case "meta": meta = value
                case "links": links = value
                default:
                    if let sparse, !sparse.contains(name) { continue }
                    if case .tagged(relationshipTag, let relationship) = value {
                        // A relationship without linkage, meta or links says nothing: left out.
                        if case .object(let body) = relationship, body.keys.isEmpty { continue }
                        relationships.append(name, relationship)
                    } else {
                        attributes.append(name, value)
                    }
                }
            }
            if let id { object.append("id", .string(id)) }
            if let lid { object.append("lid", .string(lid)) }
            if !attributes.keys.isEmpty { object.append("attributes", .object(attributes)) }
            if !relationships.keys.isEmpty { object.append("relationships", .object(relationships)) }
            if let links { object.append("links", links) }
            if let meta { object.append("meta", meta) }
            if let identity = ResourceIdentity(type: type, id: id, lid: lid),
                remembered.map({ $0.contains(identity) }) ?? true
            {
                written.insert(identity)
            }
            return .object(object)
        }

        /// Remembers only the identities of `included` from now on.
        func limitRemembered(to included: [any Resource & Encodable]) throws {
            var identities = Set<ResourceIdentity>()
            for resource in included {
                if let identity = Self.identity(
                    of: try tree.node(for: resource, path: []),
                    type: type(of: resource).resourceType
                ) {
                    identities.insert(identity)
                }
            }
            remembered = identities
        }

        /// The identity a recorded model's `id` or `lid` gives it.
        private static func identity(of node: EncodedNode, type: String) -> ResourceIdentity? {
            guard case .object(let members) = node else { return nil }
            var id: String?
            var lid: String?
            for (name, value) in zip(members.keys, members.values) {
                if case .string(let text) = value {
                    if name == "id" { id = text } else if name == "lid" { lid = text }
                }
            }
            return ResourceIdentity(type: type, id: id, lid: lid)
        }

        /// Writes `included` (skipping resources already written), `meta`, `links` and `jsonapi`,
        /// closes the document and hands over the last chunk.
        func finish(included: [any Resource & Encodable], meta: JSONValue?, links: Links?) throws {
            if !included.isEmpty {
                var nodes: [EncodedNode] = []
                for resource in included {
                    let before = written.count
                    let node = try resourceNode(resource)
                    // A resource whose identity was already written is a duplicate; one without
                    // identity (no id, no lid) cannot be told apart and is kept.
                    if written.count > before || !hasIdentity(node) { nodes.append(node) }
                }
                if !nodes.isEmpty {
                    try writer.key("included")
                    try writer.beginArray()
                    for node in nodes { try node.write(to: writer, sortingKeys: sortsKeys) }
                    try writer.endArray()
                }
            }
            if let meta {
                try writer.key("meta")
                try writer.value(meta)
            }
            if let links {
                try writer.key("links")
                try tree.node(for: links, path: [AnyCodingKey("links")]).write(to: writer, sortingKeys: sortsKeys)
            }
            if let jsonapi {
                try writer.key("jsonapi")
                try tree.node(for: jsonapi, path: [AnyCodingKey("jsonapi")]).write(to: writer, sortingKeys: sortsKeys)
            }
            try writer.endObject()
            try writer.finish()
        }

        private func hasIdentity(_ node: EncodedNode) -> Bool {
            guard case .object(let object) = node else { return false }
            return object.keys.contains("id") || object.keys.contains("lid")
        }
    }
}
