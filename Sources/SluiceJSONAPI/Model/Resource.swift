public import SluiceJSON

/// A model of one type of JSON:API resource.
///
/// Declare an ordinary `Decodable` struct or final class and name its resource type. The decoder
/// shows it the resource object's `id`, `lid`, `type`, attributes and relationships as one flat
/// set of keys, as the specification puts fields in one namespace
/// ([Resource Objects](https://jsonapi.org/format/1.1/#document-resource-objects)):
///
/// ```swift
/// struct Article: Resource {
///     static let resourceType = "articles"
///     var id: String
///     var title: String
///     var author: ToOne<Person>       // a relationship
///     var comments: ToMany<Comment>
/// }
/// ```
///
/// Besides fields, a model may declare `meta: JSONValue?` and `links: Links?` for the resource
/// object's own `meta` and `links` (a field of the same name wins over the resource's own).
///
/// Models are `Sendable`, so that documents, their resources and their linked graphs can cross
/// tasks and actors: a struct of `Sendable` fields is one already; a class must be `final` with
/// `let` fields (or take care of its own synchronization and say `@unchecked Sendable`).
public protocol Resource: Decodable, Sendable {
    /// The value of `type` for this kind of resource, such as `"articles"`.
    static var resourceType: String { get }
}

/// The identity of a resource within a document: its type and its `id`, or its `lid` for a
/// resource the server has not yet given an `id`. Compared field by field, never as a joined string.
public struct ResourceIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The resource's type.
    public let type: String
    /// The `id`, or the `lid` when ``isLocal``.
    public let key: String
    /// Whether ``key`` is a local identifier (`lid`).
    public let isLocal: Bool

    /// Creates an identity.
    public init(type: String, id: String) {
        self.type = type
        self.key = id
        self.isLocal = false
    }

    /// The identity by `id`, else by `lid`; `nil` when there is neither: the one rule every
    /// resource, identifier and view follows.
    init?(type: String, id: String?, lid: String?) {
        if let id {
            self.init(type: type, id: id)
        } else if let lid {
            self.init(type: type, lid: lid)
        } else {
            return nil
        }
    }

    /// Creates an identity from a local identifier.
    public init(type: String, lid: String) {
        self.type = type
        self.key = lid
        self.isLocal = true
    }

    /// `articles/1`, or `articles/lid:temp-1` for a local identifier.
    public var description: String { isLocal ? "\(type)/lid:\(key)" : "\(type)/\(key)" }
}

/// A resource identifier object: the `type` and `id` (or `lid`) of a resource, with optional `meta`
/// ([Resource Identifier Objects](https://jsonapi.org/format/1.1/#document-resource-identifier-objects)).
public struct ResourceIdentifier: Hashable, Sendable, Codable, JSONEncodingFixedKeys {
    /// The resource's type.
    public var type: String
    /// The resource's `id`, if it has one.
    public var id: String?
    /// `lid` and `meta`, which few identifiers have, boxed: an identifier is then two strings and
    /// one reference (40 bytes, not 65), so that the copies and destroys of relationships, of
    /// which a document holds several per resource, touch three fields instead of an enum's
    /// payload and two more strings.
    @usableFromInline var rare: RareIdentifierMembers?

    /// The resource's local identifier, if it has one.
    public var lid: String? {
        get { rare?.lid }
        set { rare = RareIdentifierMembers.make(lid: newValue, meta: meta) }
    }

    /// Non-standard information about the identifier.
    public var meta: JSONValue? {
        get { rare?.meta }
        set { rare = RareIdentifierMembers.make(lid: lid, meta: newValue) }
    }

    /// Creates an identifier.
    @inlinable
    public init(type: String, id: String? = nil, lid: String? = nil, meta: JSONValue? = nil) {
        self.type = type
        self.id = id
        self.rare = RareIdentifierMembers.make(lid: lid, meta: meta)
    }

    public static func == (left: ResourceIdentifier, right: ResourceIdentifier) -> Bool {
        left.type == right.type && left.id == right.id
            && (left.rare === right.rare || (left.lid == right.lid && left.meta == right.meta))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(id)
        hasher.combine(lid)
        hasher.combine(meta)
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, lid, meta
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            type: try container.decode(String.self, forKey: .type),
            id: try container.decodeIfPresent(String.self, forKey: .id),
            lid: try container.decodeIfPresent(String.self, forKey: .lid),
            meta: try container.decodeIfPresent(JSONValue.self, forKey: .meta)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(lid, forKey: .lid)
        try container.encodeIfPresent(meta, forKey: .meta)
    }

    /// The identity used to find the resource in a document: by `id`, else by `lid`.
    public var identity: ResourceIdentity? { ResourceIdentity(type: type, id: id, lid: lid) }
}

/// An identifier's `lid` and `meta` (see ``ResourceIdentifier``). Immutable: a change makes a new
/// box, so identifiers that share one stay values.
@usableFromInline
final class RareIdentifierMembers: Sendable {
    let lid: String?
    let meta: JSONValue?

    private init(lid: String?, meta: JSONValue?) {
        self.lid = lid
        self.meta = meta
    }

    /// A box for the members, or `nil` when both are absent.
    @usableFromInline
    static func make(lid: String?, meta: JSONValue?) -> RareIdentifierMembers? {
        lid == nil && meta == nil ? nil : RareIdentifierMembers(lid: lid, meta: meta)
    }
}
