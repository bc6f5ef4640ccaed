// Relationships write themselves as relationship objects, and tag themselves so the JSON:API
// encoder files them under `relationships` rather than `attributes`.

public import SluiceJSON

extension ToOne: Encodable, JSONEncodingTagged, JSONEncodingFixedKeys {
    package static var encodingTag: String { relationshipTag }

    /// Writes `{"data": identifier-or-null, "meta": ..., "links": ...}`; `data` only when the
    /// relationship has linkage (a relationship made with no linkage leaves it out, as a PATCH
    /// that does not touch the relationship must).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RelationshipKeys.self)
        if hasLinkage {
            if let identifier {
                try container.encode(identifier, forKey: .data)
            } else {
                try container.encodeNil(forKey: .data)
            }
        }
        try container.encodeIfPresent(meta, forKey: .meta)
        try container.encodeIfPresent(links, forKey: .links)
    }
}

extension ToMany: Encodable, JSONEncodingTagged, JSONEncodingFixedKeys {
    package static var encodingTag: String { relationshipTag }

    /// Writes `{"data": [identifiers], "meta": ..., "links": ...}`; `data` only with linkage.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RelationshipKeys.self)
        if hasLinkage { try container.encode(identifiers, forKey: .data) }
        try container.encodeIfPresent(meta, forKey: .meta)
        try container.encodeIfPresent(links, forKey: .links)
    }
}

extension ToOne {
    /// A relationship with no linkage: written without `data`, so an update leaves it unchanged.
    public static var unchanged: ToOne {
        var relationship = ToOne(identifier: nil)
        relationship.hasLinkage = false
        return relationship
    }

    /// A relationship whose linkage is `null`: an update clears it.
    public static var null: ToOne { ToOne(identifier: nil) }

    /// A relationship to a resource not yet created, known by its local id.
    public init(lid: String) {
        self.init(identifier: ResourceIdentifier(type: Target.resourceType, lid: lid))
    }
}

extension ToMany {
    /// A relationship with no linkage: written without `data`, so an update leaves it unchanged.
    public static var unchanged: ToMany {
        var relationship = ToMany(identifiers: [])
        relationship.hasLinkage = false
        return relationship
    }
}

/// The tag relationships record themselves with.
let relationshipTag = "jsonapi.relationship"

/// A relationship written as a caller-supplied JSON value instead of linkage: for servers that
/// expect a relationship object of their own shape (IzzyParser's custom serialization).
///
/// ```swift
/// struct Order: Resource, Encodable {
///     static let resourceType = "orders"
///     var id: String
///     var shipping: CustomRelationship   // {"data": {"type": "carriers", "id": "ups"}, "speed": "fast"}
/// }
/// ```
///
/// The JSON:API encoder files it under `relationships`; it decodes from any relationship object.
public struct CustomRelationship: Codable, Sendable, Hashable, JSONEncodingTagged, JSONEncodingFixedKeys {
    package static var encodingTag: String { relationshipTag }

    /// The relationship object as written.
    public var payload: JSONValue

    /// A relationship written as `payload`.
    public init(_ payload: JSONValue) {
        self.payload = payload
    }

    public init(from decoder: any Decoder) throws {
        payload = try JSONValue(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
    }
}
