/// An attribute that can be left out, set to `null`, or set to a value: what a PATCH needs, where
/// leaving a member out keeps the server's value and `null` clears it.
///
/// ```swift
/// struct ArticlePatch: Resource, Codable {
///     static let resourceType = "articles"
///     var id: String
///     var title: Field<String> = .absent
///     var summary: Field<String> = .absent
/// }
/// let patch = ArticlePatch(id: "1", title: .value("New"), summary: .null)
/// // {"data": {"type": "articles", "id": "1", "attributes": {"title": "New", "summary": null}}}
/// ```
///
/// In a keyed container (synthesized `Codable` included) an absent field writes no member and
/// decodes from a missing member; this works with Foundation's coders as with Sluice's. Encoded
/// on its own (as an array element), `.absent` writes `null`.
public enum Field<Value> {
    /// Not written; decoded when the member is missing.
    case absent
    /// Written as `null`.
    case null
    /// Written as the value.
    case value(Value)

    /// The value, if there is one.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

extension Field: Equatable where Value: Equatable {}
extension Field: Hashable where Value: Hashable {}
extension Field: Sendable where Value: Sendable {}

extension Field: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if case .value(let value) = self {
            try container.encode(value)
        } else {
            try container.encodeNil()
        }
    }
}

extension Field: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .null : .value(try container.decode(Value.self))
    }
}

extension KeyedEncodingContainer {
    /// Writes a ``Field``: nothing when absent, `null`, or the value.
    public mutating func encode<Value: Encodable>(_ field: Field<Value>, forKey key: Key) throws {
        switch field {
        case .absent: break
        case .null: try encodeNil(forKey: key)
        case .value(let value): try encode(value, forKey: key)
        }
    }
}

extension KeyedDecodingContainer {
    /// Reads a ``Field``: absent when the member is missing, `null`, or the value.
    public func decode<Value: Decodable>(_ type: Field<Value>.Type, forKey key: Key) throws -> Field<Value> {
        guard contains(key) else { return .absent }
        return try decodeIfPresent(Value.self, forKey: key).map(Field.value) ?? .null
    }
}
