public import SluiceJSON

/// A to-one relationship of a resource: the identifier of the related resource (or `null`), with
/// the relationship's own `meta` and `links`
/// ([Relationships](https://jsonapi.org/format/1.1/#document-resource-object-relationships)).
///
/// `Target` names the model the related resource decodes to. Use ``AnyResource`` for a
/// polymorphic relationship whose targets are of several types. The identifier stays available
/// whether or not the document includes the target.
///
/// Two relationships are equal when their linkage, `meta` and `links` are: the related
/// resources themselves are not compared (they live in the document's store).
public struct ToOne<Target: Resource>: RelationshipProtocol, Hashable {
    /// The related resource's identifier; `nil` when the linkage is `null` or absent.
    public var identifier: ResourceIdentifier?
    /// Whether the relationship object had a `data` member (a `null` one counts).
    public var hasLinkage: Bool
    /// The relationship's `meta`.
    public var meta: JSONValue?
    /// The relationship's `links` (`self`, `related`, ...).
    public var links: Links?

    /// Creates a to-one relationship.
    public init(identifier: ResourceIdentifier?, meta: JSONValue? = nil, links: Links? = nil) {
        self.identifier = identifier
        self.hasLinkage = true
        self.meta = meta
        self.links = links
    }

    @usableFromInline
    init(identifier: ResourceIdentifier?, hasLinkage: Bool, meta: JSONValue?, links: Links?) {
        self.identifier = identifier
        self.hasLinkage = hasLinkage
        self.meta = meta
        self.links = links
    }

    /// A relationship to the resource of type `Target` with `id`.
    public init(id: String) {
        self.init(identifier: ResourceIdentifier(type: Target.resourceType, id: id))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RelationshipKeys.self)
        hasLinkage = container.contains(.data)
        identifier = try container.decodeIfPresent(ResourceIdentifier.self, forKey: .data)
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
        links = try container.decodeIfPresent(Links.self, forKey: .links)
    }
}

/// A to-many relationship: the identifiers of the related resources, in order, with the
/// relationship's own `meta` and `links`.
public struct ToMany<Target: Resource>: RelationshipProtocol, Hashable {
    /// The related resources' identifiers, in the document's order; empty when absent.
    public var identifiers: [ResourceIdentifier]
    /// Whether the relationship object had a `data` member.
    public var hasLinkage: Bool
    /// The relationship's `meta`.
    public var meta: JSONValue?
    /// The relationship's `links`.
    public var links: Links?

    /// Creates a to-many relationship.
    public init(identifiers: [ResourceIdentifier], meta: JSONValue? = nil, links: Links? = nil) {
        self.identifiers = identifiers
        self.hasLinkage = true
        self.meta = meta
        self.links = links
    }

    @usableFromInline
    init(identifiers: [ResourceIdentifier], hasLinkage: Bool, meta: JSONValue?, links: Links?) {
        self.identifiers = identifiers
        self.hasLinkage = hasLinkage
        self.meta = meta
        self.links = links
    }

    /// A relationship to the resources of type `Target` with these ids.
    public init(ids: [String]) {
        self.init(identifiers: ids.map { ResourceIdentifier(type: Target.resourceType, id: $0) })
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RelationshipKeys.self)
        hasLinkage = container.contains(.data)
        identifiers = try container.decodeIfPresent([ResourceIdentifier].self, forKey: .data) ?? []
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
        links = try container.decodeIfPresent(Links.self, forKey: .links)
    }
}

/// What both kinds of relationship share, for generic code over either. (The resource decoder tells
/// relationships from attributes by the member they are read from, not by this protocol.)
public protocol RelationshipProtocol: Decodable, Sendable {}

enum RelationshipKeys: String, CodingKey {
    case data, meta, links
}
