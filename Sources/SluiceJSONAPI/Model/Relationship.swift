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
    /// `meta` and `links`, boxed because few relationships have them (see
    /// `RareRelationshipMembers`).
    @usableFromInline var rare: RareRelationshipMembers?

    /// The relationship's `meta`.
    public var meta: JSONValue? {
        get { rare?.meta }
        set { rare = RareRelationshipMembers.make(meta: newValue, links: links) }
    }

    /// The relationship's `links` (`self`, `related`, ...).
    public var links: Links? {
        get { rare?.links }
        set { rare = RareRelationshipMembers.make(meta: meta, links: newValue) }
    }

    /// Creates a to-one relationship.
    public init(identifier: ResourceIdentifier?, meta: JSONValue? = nil, links: Links? = nil) {
        self.init(identifier: identifier, hasLinkage: true, meta: meta, links: links)
    }

    @inlinable
    init(identifier: ResourceIdentifier?, hasLinkage: Bool, meta: JSONValue?, links: Links?) {
        self.identifier = identifier
        self.hasLinkage = hasLinkage
        self.rare = RareRelationshipMembers.make(meta: meta, links: links)
    }

    /// A relationship without linkage, `meta` or `links`, for a reader to fill in place. Stored
    /// directly: the initializer above copies its `nil` arguments on the way, for every
    /// relationship read.
    @inlinable
    init(unfilled: Void) {
        identifier = nil
        hasLinkage = false
        rare = nil
    }

    public static func == (left: ToOne, right: ToOne) -> Bool {
        left.identifier == right.identifier && left.hasLinkage == right.hasLinkage
            && RareRelationshipMembers.equal(left.rare, right.rare)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(hasLinkage)
        hasher.combine(meta)
        hasher.combine(links)
    }

    /// A relationship to the resource of type `Target` with `id`.
    public init(id: String) {
        self.init(identifier: ResourceIdentifier(type: Target.resourceType, id: id))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RelationshipKeys.self)
        self.init(
            identifier: try container.decodeIfPresent(ResourceIdentifier.self, forKey: .data),
            hasLinkage: container.contains(.data),
            meta: try container.decodeIfPresent(JSONValue.self, forKey: .meta),
            links: try container.decodeIfPresent(Links.self, forKey: .links)
        )
    }
}

/// A to-many relationship: the identifiers of the related resources, in order, with the
/// relationship's own `meta` and `links`.
public struct ToMany<Target: Resource>: RelationshipProtocol, Hashable {
    /// The related resources' identifiers, in the document's order; empty when absent.
    public var identifiers: [ResourceIdentifier]
    /// Whether the relationship object had a `data` member.
    public var hasLinkage: Bool
    /// `meta` and `links`, boxed as in ``ToOne``.
    @usableFromInline var rare: RareRelationshipMembers?

    /// The relationship's `meta`.
    public var meta: JSONValue? {
        get { rare?.meta }
        set { rare = RareRelationshipMembers.make(meta: newValue, links: links) }
    }

    /// The relationship's `links`.
    public var links: Links? {
        get { rare?.links }
        set { rare = RareRelationshipMembers.make(meta: meta, links: newValue) }
    }

    /// Creates a to-many relationship.
    public init(identifiers: [ResourceIdentifier], meta: JSONValue? = nil, links: Links? = nil) {
        self.init(identifiers: identifiers, hasLinkage: true, meta: meta, links: links)
    }

    @inlinable
    init(identifiers: [ResourceIdentifier], hasLinkage: Bool, meta: JSONValue?, links: Links?) {
        self.identifiers = identifiers
        self.hasLinkage = hasLinkage
        self.rare = RareRelationshipMembers.make(meta: meta, links: links)
    }

    /// A relationship without linkage, `meta` or `links`, for a reader to fill in place (see
    /// `ToOne.init(unfilled:)`).
    @inlinable
    init(unfilled: Void) {
        identifiers = []
        hasLinkage = false
        rare = nil
    }

    public static func == (left: ToMany, right: ToMany) -> Bool {
        left.identifiers == right.identifiers && left.hasLinkage == right.hasLinkage
            && RareRelationshipMembers.equal(left.rare, right.rare)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifiers)
        hasher.combine(hasLinkage)
        hasher.combine(meta)
        hasher.combine(links)
    }

    /// A relationship to the resources of type `Target` with these ids.
    public init(ids: [String]) {
        self.init(identifiers: ids.map { ResourceIdentifier(type: Target.resourceType, id: $0) })
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RelationshipKeys.self)
        self.init(
            identifiers: try container.decodeIfPresent([ResourceIdentifier].self, forKey: .data) ?? [],
            hasLinkage: container.contains(.data),
            meta: try container.decodeIfPresent(JSONValue.self, forKey: .meta),
            links: try container.decodeIfPresent(Links.self, forKey: .links)
        )
    }
}

/// What both kinds of relationship share, for generic code over either. (The resource decoder tells
/// relationships from attributes by the member they are read from, not by this protocol.)
public protocol RelationshipProtocol: Decodable, Sendable {}

enum RelationshipKeys: String, CodingKey {
    case data, meta, links
}

/// A relationship's `meta` and `links`, which most relationships lack: boxed, so that a
/// relationship is its linkage plus one reference, and copying one (every copy of a model copies
/// its relationships) touches no enum payload. Immutable: a change makes a new box.
@usableFromInline
final class RareRelationshipMembers: Sendable {
    let meta: JSONValue?
    let links: Links?

    private init(meta: JSONValue?, links: Links?) {
        self.meta = meta
        self.links = links
    }

    /// A box for the members, or `nil` when both are absent. The test inline, so that the usual
    /// relationship, which has neither, costs its readers no call; the box out of line.
    @inlinable
    static func make(meta: JSONValue?, links: Links?) -> RareRelationshipMembers? {
        meta == nil && links == nil ? nil : boxing(meta: meta, links: links)
    }

    @usableFromInline
    static func boxing(meta: JSONValue?, links: Links?) -> RareRelationshipMembers {
        RareRelationshipMembers(meta: meta, links: links)
    }

    static func equal(_ left: RareRelationshipMembers?, _ right: RareRelationshipMembers?) -> Bool {
        left === right || (left?.meta == right?.meta && left?.links == right?.links)
    }
}
