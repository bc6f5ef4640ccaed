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
/// - ``fields`` writes sparse fieldsets; `included` resources are deduplicated by type and id.
public final class JSONAPIEncoder: Sendable {
    private let settings = LockedSettings(Settings())

    private struct Settings {
        var fields: [String: Set<String>] = [:]
        var jsonapi: JSONAPIObject?
    }

    /// The encoder that records attribute values. The strategies below are its own, under the
    /// names ``JSONAPIDecoder`` uses; set them here or there.
    public let valueEncoder = StreamingJSONEncoder()

    /// Creates an encoder.
    public init() {}

    /// How property names become attribute and relationship names (and the members of attribute
    /// values): `.convertToKebabCase` writes what a decoder with `.convertFromKebabCase` reads.
    /// The specification's own members (`type`, `id`, `attributes`, ...) keep their names.
    /// Default: as they are.
    public var keyEncodingStrategy: StreamingJSONEncoder.KeyEncodingStrategy {
        get { valueEncoder.keyEncodingStrategy }
        set { valueEncoder.keyEncodingStrategy = newValue }
    }

    /// How `Date` attributes are written. Default: `Date`'s own conformance (seconds since 2001,
    /// as Foundation); `.iso8601` is what JSON:API servers usually expect.
    public var dateEncodingStrategy: StreamingJSONEncoder.DateEncodingStrategy {
        get { valueEncoder.dateEncodingStrategy }
        set { valueEncoder.dateEncodingStrategy = newValue }
    }

    /// How `Data` attributes are written. Default: Base64.
    public var dataEncodingStrategy: StreamingJSONEncoder.DataEncodingStrategy {
        get { valueEncoder.dataEncodingStrategy }
        set { valueEncoder.dataEncodingStrategy = newValue }
    }

    /// How infinities and NaN are written. Default: they are errors.
    public var nonConformingFloatEncodingStrategy: StreamingJSONEncoder.NonConformingFloatEncodingStrategy {
        get { valueEncoder.nonConformingFloatEncodingStrategy }
        set { valueEncoder.nonConformingFloatEncodingStrategy = newValue }
    }

    /// The layout: pretty printing, sorted keys, unescaped slashes. Default: compact.
    public var outputFormatting: StreamingJSONEncoder.OutputFormatting {
        get { valueEncoder.outputFormatting }
        set { valueEncoder.outputFormatting = newValue }
    }

    /// Values models read through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { valueEncoder.userInfo }
        set { valueEncoder.userInfo = newValue }
    }

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
        try document(included: included, meta: meta, links: links) { session in try session.writePrimary(resource) }
    }

    /// A document whose primary data is a collection.
    public func encode<R: Resource & Encodable>(
        _ resources: [R],
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil
    ) throws -> Data {
        try document(included: included, meta: meta, links: links) { session in
            try session.writer.beginArray()
            for resource in resources { try session.writePrimary(resource) }
            try session.writer.endArray()
        }
    }

    /// A whole document in memory, its primary data written by `writeData`.
    private func document(
        included: [any Resource & Encodable],
        meta: JSONValue?,
        links: Links?,
        _ writeData: (Session) throws -> Void
    ) throws -> Data {
        var data = Data()
        let session = try Session(encoder: self, included: included, chunkSize: 64 * 1024) {
            data.append(contentsOf: $0)
        }
        try writeData(session)
        try session.finish(meta: meta, links: links)
        return data
    }

    /// A collection document written to `sink` in chunks as the resources arrive: constant memory
    /// whatever the number of resources (the included resources are held until the end).
    public func encodeCollection<Resources: AsyncSequence>(
        _ resources: Resources,
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil,
        chunkSize: Int = 64 * 1024,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) async throws where Resources.Element: Resource & Encodable {
        let session = try Session(encoder: self, included: included, chunkSize: chunkSize, sink: sink)
        try session.writer.beginArray()
        for try await resource in resources { try session.writePrimary(resource) }
        try session.writer.endArray()
        try session.finish(meta: meta, links: links)
    }

    /// A collection document of `resources` (an array, a lazy sequence over a database cursor,
    /// anything iterable) written to `sink` in chunks: constant memory whatever the number of
    /// resources (the included resources are held until the end).
    ///
    /// ```swift
    /// let output = try FileHandle(forWritingTo: url)
    /// try encoder.encodeCollection(articles) { chunk in output.write(Data(chunk)) }
    /// ```
    public func encodeCollection<Resources: Sequence>(
        _ resources: Resources,
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil,
        chunkSize: Int = 64 * 1024,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws where Resources.Element: Resource & Encodable {
        let session = try Session(encoder: self, included: included, chunkSize: chunkSize, sink: sink)
        try session.writer.beginArray()
        for resource in resources { try session.writePrimary(resource) }
        try session.writer.endArray()
        try session.finish(meta: meta, links: links)
    }

    /// One document being written: opened up to the primary data when made, closed by `finish`.
    final class Session {
        let writer: JSONWriter
        private let recorder: ResourceRecorder
        private var tree: EncodingTree { recorder.tree }
        private let sortsKeys: Bool
        private let jsonapi: JSONAPIObject?
        /// The included resources, recorded once up front, without duplicates among themselves.
        private var included: [(node: EncodedNode, identity: ResourceIdentity?)] = []
        /// The identities of the included resources that primary data has also written. Only
        /// identities `included` holds are remembered, so memory stays that of the included
        /// resources however many primary resources stream through.
        private var writtenAsPrimary = Set<ResourceIdentity>()
        private var includedIdentities = Set<ResourceIdentity>()

        init(
            encoder: JSONAPIEncoder,
            included: [any Resource & Encodable],
            chunkSize: Int,
            sink: @escaping (UnsafeRawBufferPointer) throws -> Void
        ) throws {
            // A model's members are written inside the document, `data` (or `included`) and
            // `attributes`: three containers the depth check must count.
            let made = encoder.valueEncoder.makeTree(chunkSize: chunkSize, baseDepth: 3)
            let settings = encoder.settings.snapshot
            recorder = ResourceRecorder(tree: made.tree, fields: settings.fields)
            sortsKeys = made.sortsKeys
            writer = JSONWriter(options: made.writerOptions, sink: sink)
            jsonapi = settings.jsonapi
            for resource in included {
                let recorded = try recorder.resourceObject(resource)
                if let identity = recorded.identity {
                    // A second resource with the same identity is a duplicate; one without an
                    // identity (no id, no lid) cannot be told apart and is kept.
                    guard includedIdentities.insert(identity).inserted else { continue }
                }
                self.included.append(recorded)
            }
            try writer.beginObject()
            try writer.key("data")
        }

        /// Writes one resource of the primary data.
        func writePrimary<R: Resource & Encodable>(_ resource: R) throws {
            let (node, identity) = try recorder.resourceObject(resource)
            if let identity, includedIdentities.contains(identity) { writtenAsPrimary.insert(identity) }
            try node.write(to: writer, sortingKeys: sortsKeys)
        }

        /// Writes `included` (without the resources primary data already holds), `meta`,
        /// `links` and `jsonapi`, closes the document and hands over the last chunk.
        func finish(meta: JSONValue?, links: Links?) throws {
            let remaining = included.filter { $0.identity.map { !writtenAsPrimary.contains($0) } ?? true }
            if !remaining.isEmpty {
                try writer.key("included")
                try writer.beginArray()
                for resource in remaining { try resource.node.write(to: writer, sortingKeys: sortsKeys) }
                try writer.endArray()
            }
            if let meta {
                try writer.key("meta")
                try tree.node(for: meta, path: [AnyCodingKey("meta")]).write(to: writer, sortingKeys: sortsKeys)
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
    }
}

/// Records resource models as resource objects under the encoder's settings: what the
/// document session writes, and what atomic operations carry as `data`.
struct ResourceRecorder {
    let tree: EncodingTree
    private let fields: [String: Set<String>]
    /// The specification's own members by the name a model's property for them is written as
    /// under the key strategy (`id` stays `id` under the default and snake/kebab case; a custom
    /// strategy may rename it): they are filed by role and written by their own names.
    private let specMembers: [String: String]

    init(tree: EncodingTree, fields: [String: Set<String>]) {
        self.tree = tree
        self.fields = fields
        var specMembers: [String: String] = [:]
        for name in ["type", "id", "lid", "meta", "links"] {
            specMembers[tree.topLevelMemberName(for: name)] = name
        }
        self.specMembers = specMembers
    }

    /// The resource object for `resource`, and its identity.
    func resourceObject<R: Resource & Encodable>(
        _ resource: R
    ) throws -> (node: EncodedNode, identity: ResourceIdentity?) {
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
        for (written, value) in zip(members.keys, members.values) {
            let name = specMembers[written] ?? written
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
        return (.object(object), ResourceIdentity(type: type, id: id, lid: lid))
    }
}
