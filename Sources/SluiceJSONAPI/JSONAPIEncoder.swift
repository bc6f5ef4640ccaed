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
        try document(R.self, included: included, meta: meta, links: links) { session in
            try session.writePrimary(resource)
        }
    }

    /// A document whose primary data is a collection.
    public func encode<R: Resource & Encodable>(
        _ resources: [R],
        included: [any Resource & Encodable] = [],
        meta: JSONValue? = nil,
        links: Links? = nil
    ) throws -> Data {
        try document(R.self, included: included, meta: meta, links: links) { session in
            try session.beginArray()
            for resource in resources { try session.writePrimary(resource) }
            try session.endArray()
        }
    }

    /// A whole document in memory, its primary data written by `writeData`: by the generated
    /// writers when the primary resources have them (and the settings allow), else, or when the
    /// generated path meets anything it does not write as the general path would, by the
    /// general path, whose document or error is then the answer.
    private func document<Primary>(
        _ primary: Primary.Type,
        included: [any Resource & Encodable],
        meta: JSONValue?,
        links: Links?,
        _ writeData: (any DocumentSession) throws -> Void
    ) throws -> Data {
        if let generated = try GeneratedSession(encoder: self, primary: primary, included: included, chunkSize: nil) {
            do {
                try writeData(generated)
                try generated.finish(meta: meta, links: links)
                return generated.takeData()
            } catch {
                // The general path below gives the document, or its own exact error.
            }
        }
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
        let session = try session(Resources.Element.self, included: included, chunkSize: chunkSize, sink: sink)
        try session.beginArray()
        for try await resource in resources { try session.writePrimary(resource) }
        try session.endArray()
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
        let session = try session(Resources.Element.self, included: included, chunkSize: chunkSize, sink: sink)
        try session.beginArray()
        for resource in resources { try session.writePrimary(resource) }
        try session.endArray()
        try session.finish(meta: meta, links: links)
    }

    /// A streaming document's session: generated when the resources have generated writers.
    private func session<Primary>(
        _ primary: Primary.Type,
        included: [any Resource & Encodable],
        chunkSize: Int,
        sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws -> any DocumentSession {
        precondition(chunkSize > 0, "chunkSize must be positive")
        if let generated = try GeneratedSession(
            encoder: self,
            primary: primary,
            included: included,
            chunkSize: chunkSize,
            sink: sink
        ) {
            return generated
        }
        return try Session(encoder: self, included: included, chunkSize: chunkSize, sink: sink)
    }

    /// The settings the encoder writes under, for the generated path.
    fileprivate var documentSettings: (fields: [String: Set<String>], jsonapi: JSONAPIObject?) {
        let settings = settings.snapshot
        return (settings.fields, settings.jsonapi)
    }

    /// One document being written: opened up to the primary data when made, closed by `finish`.
    final class Session: DocumentSession {
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

        func beginArray() throws { try writer.beginArray() }
        func endArray() throws { try writer.endArray() }

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

/// A document being written, by the general path or the generated one.
protocol DocumentSession: AnyObject {
    func beginArray() throws
    func endArray() throws
    func writePrimary<R: Resource & Encodable>(_ resource: R) throws
    func finish(meta: JSONValue?, links: Links?) throws
}

/// One document written by the generated path: `@JSONModel` resources straight into the output,
/// others (included resources or primary data of other types) recorded by the general path's
/// recorder and written from the record by the same writer.
final class GeneratedSession: DocumentSession {
    private let state: UnsafeMutablePointer<JSONModelWriterState>
    private var writer: JSONModelWriter { JSONModelWriter(state: state) }
    private let resources: GeneratedResourceWriter
    private let recorder: ResourceRecorder
    private var tree: EncodingTree { recorder.tree }
    private let jsonapi: JSONAPIObject?
    /// The included resources, written ahead into `includedText` (each a range of it), without
    /// duplicates among themselves.
    private let includedText: UnsafeMutablePointer<JSONModelWriterState>
    private var included: [(range: Range<Int>, identity: ResourceIdentity?)] = []
    private var includedIdentities = Set<ResourceIdentity>()
    private var writtenAsPrimary = Set<ResourceIdentity>()

    /// A session for primary data of type `primary`, or `nil` when the generated path does not
    /// apply (the type has no generated writer, pretty output, a custom key strategy).
    ///
    /// - Parameter chunkSize: `nil` collects the document for ``takeData()``.
    init?<Primary>(
        encoder: JSONAPIEncoder,
        primary: Primary.Type,
        included: [any Resource & Encodable],
        chunkSize: Int?,
        sink: ((UnsafeRawBufferPointer) throws -> Void)? = nil
    ) throws {
        let settings = encoder.valueEncoder.settingsSnapshot
        guard Primary.self is any JSONModelEncodable.Type, JSONModelWriterState.accepts(settings) else { return nil }
        let made = encoder.valueEncoder.makeTree(chunkSize: chunkSize ?? 64 * 1024, baseDepth: 3)
        let document = encoder.documentSettings
        recorder = ResourceRecorder(tree: made.tree, fields: document.fields)
        resources = GeneratedResourceWriter(settings: settings, fields: document.fields)
        jsonapi = document.jsonapi
        // The writer counts the containers it opens itself (the document, `data`, ...).
        state = JSONModelWriterState.make(
            tree: made.tree,
            maxDepth: JSONWriter.maxDepth + 1,
            chunkSize: chunkSize,
            sink: sink
        )
        includedText = JSONModelWriterState.make(
            tree: made.tree,
            maxDepth: JSONWriter.maxDepth,
            chunkSize: nil,
            sink: nil
        )
        do {
            for resource in included { try writeIncluded(resource) }
        } catch {
            JSONModelWriterState.free(state)
            JSONModelWriterState.free(includedText)
            throw error
        }
        writer.key(raw: "{\"data\":")
    }

    deinit {
        JSONModelWriterState.free(state)
        JSONModelWriterState.free(includedText)
    }

    private func writeIncluded<R: Resource & Encodable>(_ resource: R) throws {
        let text = JSONModelWriter(state: includedText)
        let start = text.collected.count
        text.startValue()
        let identity = try write(resource, to: text)
        if let identity {
            // A second resource with the same identity is a duplicate; one without an identity
            // cannot be told apart and is kept.
            guard includedIdentities.insert(identity).inserted else {
                includedText.pointee.truncate(to: start)
                return
            }
        }
        included.append((start..<text.collected.count, identity))
    }

    /// Writes `resource` as a resource object: generated when it has a writer, else recorded.
    /// Faults of the generated writer become the general path's exact error.
    private func write<R: Resource & Encodable>(_ resource: R, to writer: JSONModelWriter) throws -> ResourceIdentity? {
        // By the metatype, not by casting the value: a cast to an existential boxes a resource
        // too big for its inline buffer, an allocation per resource.
        guard let modelType = R.self as? any (Resource & JSONModelEncodable).Type else {
            let (node, identity) = try recorder.resourceObject(resource)
            try writer.write(node)
            return identity
        }
        do {
            return try writeModel(modelType, resource, to: writer)
        } catch {
            if let failure = state.pointee.failedSink { throw failure }
            _ = try recorder.resourceObject(resource)
            guard error is JSONModelWriterFault else { throw error }
            throw EncodingError.invalidValue(
                resource,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "The \(R.self) resource nests deeper than the generated writer writes."
                )
            )
        }
    }

    /// `resource`, whose type is `M`, by its generated writer.
    private func writeModel<M: Resource & JSONModelEncodable, R>(
        _ type: M.Type,
        _ resource: R,
        to writer: JSONModelWriter
    ) throws -> ResourceIdentity? {
        try resources.write(_identityCast(resource, to: M.self), to: writer)
    }

    func beginArray() throws { try writer.beginArray() }
    func endArray() throws { writer.endArray() }

    func writePrimary<R: Resource & Encodable>(_ resource: R) throws {
        let identity = try write(resource, to: writer)
        if let identity, includedIdentities.contains(identity) { writtenAsPrimary.insert(identity) }
        try state.pointee.check()
    }

    func finish(meta: JSONValue?, links: Links?) throws {
        let remaining = included.filter { $0.identity.map { !writtenAsPrimary.contains($0) } ?? true }
        if !remaining.isEmpty {
            writer.key(raw: "\"included\":")
            try writer.beginArray()
            let text = JSONModelWriter(state: includedText).collected
            for resource in remaining {
                writer.raw(UnsafeRawBufferPointer(rebasing: text[resource.range]))
            }
            writer.endArray()
        }
        if let meta {
            writer.key(raw: "\"meta\":")
            try writer.write(try tree.node(for: meta, path: [AnyCodingKey("meta")]))
        }
        if let links {
            writer.key(raw: "\"links\":")
            try writer.write(try tree.node(for: links, path: [AnyCodingKey("links")]))
        }
        if let jsonapi {
            writer.key(raw: "\"jsonapi\":")
            try writer.write(try tree.node(for: jsonapi, path: [AnyCodingKey("jsonapi")]))
        }
        writer.endObject()
        try state.pointee.finish()
    }

    /// The document of a collecting session.
    func takeData() -> Data { state.pointee.takeData() }
}
