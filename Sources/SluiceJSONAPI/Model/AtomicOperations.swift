// The Atomic Operations extension (https://jsonapi.org/ext/atomic/): documents that carry a list
// of add / update / remove operations, and the results a server sends back, checked against the
// extension's rules on the way in and on the way out.

public import Foundation
public import SluiceJSON

/// One operation of an `atomic:operations` document
/// ([Operation Objects](https://jsonapi.org/ext/atomic/#operation-objects)).
///
/// ```swift
/// let document = AtomicDocument(operations: [
///     try .add(Article(lid: "a1", title: "Draft")),
///     .updateRelationship(AtomicOperation.Reference(type: "articles", lid: "a1", relationship: "author"),
///                         linkage: .null),
///     .remove(AtomicOperation.Reference(type: "comments", id: "5")),
/// ])
/// let body = try document.encoded()
/// ```
public struct AtomicOperation: Sendable, Hashable, Codable {
    /// The operation code.
    public enum Code: String, Sendable, Hashable, Codable {
        case add, update, remove
    }

    /// What an operation targets: a resource by `type` and `id` or `lid`, or one of its
    /// relationships.
    public struct Reference: Sendable, Hashable, Codable {
        public var type: String
        public var id: String?
        public var lid: String?
        public var relationship: String?

        /// A reference to a resource, or to its relationship when `relationship` is given.
        public init(type: String, id: String? = nil, lid: String? = nil, relationship: String? = nil) {
            self.type = type
            self.id = id
            self.lid = lid
            self.relationship = relationship
        }
    }

    /// `add`, `update` or `remove`.
    public var op: Code
    /// The target, as a reference.
    public var ref: Reference?
    /// The target, as a URI reference.
    public var href: String?
    /// The operation's primary data: a resource object, linkage, or `null`; `nil` when absent.
    public var data: JSONValue?
    /// The operation's meta.
    public var meta: JSONValue?

    /// An operation from its members.
    public init(
        op: Code,
        ref: Reference? = nil,
        href: String? = nil,
        data: JSONValue? = nil,
        meta: JSONValue? = nil
    ) {
        self.op = op
        self.ref = ref
        self.href = href
        self.data = data
        self.meta = meta
    }

    enum CodingKeys: String, CodingKey {
        case op, ref, href, data, meta
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        op = try container.decode(Code.self, forKey: .op)
        ref = try container.decodeIfPresent(Reference.self, forKey: .ref)
        href = try container.decodeIfPresent(String.self, forKey: .href)
        // `null` data is not absent data (removing a to-one relationship's target).
        data = container.contains(.data) ? try container.decode(JSONValue.self, forKey: .data) : nil
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(op, forKey: .op)
        try container.encodeIfPresent(ref, forKey: .ref)
        try container.encodeIfPresent(href, forKey: .href)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encodeIfPresent(meta, forKey: .meta)
    }

    // MARK: Making operations

    /// Adds `resource` (give it a `lid` to refer to it in later operations).
    public static func add<R: Resource & Encodable>(
        _ resource: R,
        encoder: JSONAPIEncoder = JSONAPIEncoder()
    ) throws -> AtomicOperation {
        AtomicOperation(op: .add, data: try resourceObject(resource, encoder: encoder))
    }

    /// Updates `resource`: the members it writes (see ``Field``) replace the server's.
    public static func update<R: Resource & Encodable>(
        _ resource: R,
        encoder: JSONAPIEncoder = JSONAPIEncoder()
    ) throws -> AtomicOperation {
        AtomicOperation(op: .update, data: try resourceObject(resource, encoder: encoder))
    }

    /// Removes the resource `ref` names.
    public static func remove(_ ref: Reference) -> AtomicOperation {
        AtomicOperation(op: .remove, ref: ref)
    }

    /// Replaces a relationship's linkage: an identifier or `null` for to-one, an array for
    /// to-many.
    public static func updateRelationship(_ ref: Reference, linkage: JSONValue) -> AtomicOperation {
        AtomicOperation(op: .update, ref: ref, data: linkage)
    }

    /// Adds members to a to-many relationship.
    public static func addToRelationship(_ ref: Reference, _ identifiers: [ResourceIdentifier]) -> AtomicOperation {
        AtomicOperation(op: .add, ref: ref, data: .array(identifiers.map(\.jsonValue)))
    }

    /// Removes members from a to-many relationship.
    public static func removeFromRelationship(_ ref: Reference, _ identifiers: [ResourceIdentifier]) -> AtomicOperation
    {
        AtomicOperation(op: .remove, ref: ref, data: .array(identifiers.map(\.jsonValue)))
    }

    /// The resource object `encoder` writes for `resource`, as a value.
    static func resourceObject<R: Resource & Encodable>(_ resource: R, encoder: JSONAPIEncoder) throws -> JSONValue {
        // Written five containers down: the document, `atomic:operations`, the operation, `data`
        // and `attributes`.
        let tree = encoder.valueEncoder.makeTree(chunkSize: 64 * 1024, baseDepth: 5).tree
        return try ResourceRecorder(tree: tree, fields: encoder.fields).resourceObject(resource).node.jsonValue
    }

    // MARK: Rules

    /// Checks the extension's rules for this operation, at `index` in the document.
    ///
    /// - Throws: ``AtomicDocument/RuleViolation`` with the operation's JSON Pointer.
    public func validate(at index: Int = 0) throws {
        let pointer = "/atomic:operations/\(index)"
        func violation(_ member: String, _ message: String) -> AtomicDocument.RuleViolation {
            AtomicDocument.RuleViolation(pointer: pointer + member, message: message)
        }
        if ref != nil && href != nil {
            throw violation("", "An operation may target through ref or href, not both.")
        }
        if let ref {
            guard (ref.id == nil) != (ref.lid == nil) else {
                throw violation("/ref", "A ref must have exactly one of id and lid, besides type.")
            }
        }
        let targetsRelationship = ref?.relationship != nil
        // An href may name a resource or a relationship; which, only the server knows. Its
        // operations are checked against what either target allows.
        if ref == nil, href != nil {
            if op == .add || op == .update, data == nil {
                throw violation("", "An \(op.rawValue) operation must have data.")
            }
            return
        }
        switch op {
        case .add:
            guard let data else { throw violation("", "An add operation must have data.") }
            if targetsRelationship {
                guard case .array = data else {
                    throw violation("/data", "Adding to a relationship takes an array of resource identifiers.")
                }
            } else {
                guard case .object(let object) = data, object["type"] != nil else {
                    throw violation("/data", "An add operation's data must be a resource object with a type.")
                }
            }
        case .update:
            guard let data else { throw violation("", "An update operation must have data.") }
            if targetsRelationship {
                switch data {
                case .null, .object, .array: break
                default:
                    throw violation(
                        "/data",
                        "A relationship's data must be null, a resource identifier or an array of them."
                    )
                }
            } else {
                guard case .object(let object) = data, object["type"] != nil else {
                    throw violation("/data", "An update operation's data must be a resource object with a type.")
                }
            }
        case .remove:
            guard ref != nil || href != nil else {
                throw violation("", "A remove operation must target a resource or relationship through ref or href.")
            }
            if targetsRelationship {
                guard case .array = data else {
                    throw violation("/data", "Removing from a relationship takes an array of resource identifiers.")
                }
            } else if data != nil {
                throw violation("/data", "Removing a resource takes no data.")
            }
        }
    }
}

/// One result of an `atomic:results` document: the primary data an operation produced, and meta.
public struct AtomicResult: Sendable, Hashable, Codable {
    /// The resulting data, if any.
    public var data: JSONValue?
    /// The result's meta.
    public var meta: JSONValue?

    public init(data: JSONValue? = nil, meta: JSONValue? = nil) {
        self.data = data
        self.meta = meta
    }
}

/// A document of the Atomic Operations extension: operations (a request) or results (a response).
public struct AtomicDocument: Sendable, Hashable {
    /// A rule of the extension the document breaks, with the JSON Pointer of the member.
    public struct RuleViolation: Error, Sendable, Hashable, CustomStringConvertible {
        public let pointer: String
        public let message: String
        public var description: String { "\(pointer.isEmpty ? "(root)" : pointer): \(message)" }
    }

    /// The operations, in order; empty in a results document.
    public var operations: [AtomicOperation]
    /// The results, one per operation, in order; empty in an operations document.
    public var results: [AtomicResult]
    /// Top-level meta.
    public var meta: JSONValue?
    /// Top-level links.
    public var links: Links?
    /// The `jsonapi` object; encoding announces the extension in its `ext` list.
    public var jsonapi: JSONAPIObject?

    /// An operations document.
    public init(operations: [AtomicOperation], meta: JSONValue? = nil, links: Links? = nil) {
        self.operations = operations
        self.results = []
        self.meta = meta
        self.links = links
    }

    /// A results document.
    public init(results: [AtomicResult], meta: JSONValue? = nil, links: Links? = nil) {
        self.operations = []
        self.results = results
        self.meta = meta
        self.links = links
    }

    /// The extension's URI, for `ext` parameters and the `jsonapi` object.
    public static let extensionURI = "https://jsonapi.org/ext/atomic"

    /// Checks the document against the extension's rules: operations or results, not both and
    /// not empty, and every operation's rules.
    public func validate() throws {
        if !operations.isEmpty && !results.isEmpty {
            throw RuleViolation(
                pointer: "",
                message: "A document may hold atomic:operations or atomic:results, not both."
            )
        }
        if operations.isEmpty && results.isEmpty {
            throw RuleViolation(pointer: "", message: "A document needs at least one operation or result.")
        }
        for (index, operation) in operations.enumerated() { try operation.validate(at: index) }
    }

    /// The document as JSON, validated first.
    public func encoded(encoder: StreamingJSONEncoder = StreamingJSONEncoder()) throws -> Data {
        try validate()
        var jsonapi = self.jsonapi ?? JSONAPIObject(version: "1.1")
        if !(jsonapi.ext ?? []).contains(Self.extensionURI) { jsonapi.ext = (jsonapi.ext ?? []) + [Self.extensionURI] }
        return try encoder.encode(
            Wire(
                operations: operations.isEmpty ? nil : operations,
                results: results.isEmpty ? nil : results,
                meta: meta,
                links: links,
                jsonapi: jsonapi
            )
        )
    }

    /// Reads and validates a document.
    ///
    /// - Throws: `DecodingError` for malformed members (an unknown `op` among them),
    ///   ``RuleViolation`` for a document that breaks the extension's rules.
    public init(from data: Data, decoder: StreamingJSONDecoder = StreamingJSONDecoder()) throws {
        let wire = try decoder.decode(Wire.self, from: data)
        if wire.hasData || wire.hasIncluded {
            throw RuleViolation(
                pointer: wire.hasData ? "/data" : "/included",
                message: "An atomic document must not have data or included."
            )
        }
        if wire.hasErrors, wire.operations != nil || wire.results != nil {
            throw RuleViolation(
                pointer: "/errors",
                message: "An atomic document with operations or results must not have errors."
            )
        }
        operations = wire.operations ?? []
        results = wire.results ?? []
        meta = wire.meta
        links = wire.links
        jsonapi = wire.jsonapi
        try validate()
    }

    /// The document as written. Its member names (`atomic:operations`, `op`, `ref`, ...) are the
    /// extension's: no key strategy renames them.
    struct Wire: Codable, JSONEncodingFixedKeys {
        var operations: [AtomicOperation]?
        var results: [AtomicResult]?
        var meta: JSONValue?
        var links: Links?
        var jsonapi: JSONAPIObject?
        /// Whether the members the extension forbids beside operations are there (even `null`):
        /// read, never written.
        var hasData = false
        var hasIncluded = false
        var hasErrors = false

        enum CodingKeys: String, CodingKey {
            case operations = "atomic:operations"
            case results = "atomic:results"
            case meta, links, jsonapi, data, included, errors
        }

        init(
            operations: [AtomicOperation]?,
            results: [AtomicResult]?,
            meta: JSONValue?,
            links: Links?,
            jsonapi: JSONAPIObject?
        ) {
            self.operations = operations
            self.results = results
            self.meta = meta
            self.links = links
            self.jsonapi = jsonapi
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            operations = try container.decodeIfPresent([AtomicOperation].self, forKey: .operations)
            results = try container.decodeIfPresent([AtomicResult].self, forKey: .results)
            meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
            links = try container.decodeIfPresent(Links.self, forKey: .links)
            jsonapi = try container.decodeIfPresent(JSONAPIObject.self, forKey: .jsonapi)
            hasData = container.contains(.data)
            hasIncluded = container.contains(.included)
            hasErrors = container.contains(.errors)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(operations, forKey: .operations)
            try container.encodeIfPresent(results, forKey: .results)
            try container.encodeIfPresent(meta, forKey: .meta)
            try container.encodeIfPresent(links, forKey: .links)
            try container.encodeIfPresent(jsonapi, forKey: .jsonapi)
        }
    }
}

extension ResourceIdentifier {
    /// The identifier as a JSON value.
    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type))]
        if let id { members.append(("id", .string(id))) }
        if let lid { members.append(("lid", .string(lid))) }
        if let meta { members.append(("meta", meta)) }
        return .object(JSONObject(members))
    }
}
