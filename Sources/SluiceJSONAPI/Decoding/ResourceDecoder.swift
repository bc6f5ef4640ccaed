// The decoder a resource model sees: one flat keyed container over the resource object's `id`,
// `lid`, `type`, attributes and relationships (the specification gives fields one namespace), plus
// the resource's own `meta` and `links`. Each value decodes through SluiceJSON's TapeDecoder, so
// nested custom objects and arrays of them inside attributes work like any Codable value.

import Foundation
import SluiceJSON

struct ResourceDecoder: Decoder {
    let view: ResourceObjectView
    let context: TapeDecodingContext
    var options: TapeDecodingOptions { context.options }
    /// The engine's field table, loaded with this resource (see `ResourceFields`), and the load it
    /// belongs to: a decoder kept past its resource finds the generation moved on and scans.
    private let fields: ResourceFields
    private let generation: Int

    /// Creates the decoder of `view`'s resource, which `fields` has just been loaded with.
    init(view: ResourceObjectView, context: TapeDecodingContext, fields: ResourceFields) {
        self.view = view
        self.context = context
        self.fields = fields
        self.generation = fields.generation
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ResourceKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            DecodingError.Context(
                codingPath: [],
                debugDescription: "A resource object decodes through a keyed container."
            )
        )
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self,
            DecodingError.Context(
                codingPath: [],
                debugDescription: "A resource object decodes through a keyed container."
            )
        )
    }

    /// The value standing for `name`: `id`, `lid` and `type` from the resource object, a field from
    /// `attributes` or `relationships`, then the resource's own `meta` and `links`.
    func value(for name: String) -> JSONTape.Value? {
        var name = name
        let member = name.withUTF8 { ResourceMember(name: UnsafeRawBufferPointer($0)) }
        switch member {
        case .id: return view.id
        case .lid: return view.lid
        case .type: return view.type
        default:
            // A field of the same name wins over the resource's own meta and links.
            if fields.generation == generation {
                if let field = fields.field(name, strategy: options.keyStrategy, on: view.value.tape) {
                    return field.value
                }
            } else if let field = view.field(name, strategy: options.keyStrategy) {
                return field.value
            }
            if member == .meta { return view.meta }
            if member == .links { return view.links }
            return nil
        }
    }

    /// The value for `key` after the decode's ignored keys and member check: what the keyed
    /// container reads.
    @inline(__always)
    func member(for key: some CodingKey) throws -> JSONTape.Value? {
        guard let value = value(for: key.stringValue) else { return nil }
        guard context.checksMembers else { return value }
        return try context.check(value, for: key, at: [])
    }
}

extension ResourceDecoder {
    /// The error for a property the resource object at `resource` has no member for: one
    /// wording for the general path and the generated readers.
    static func missing(_ key: any CodingKey, in resource: JSONTape.Value) -> DecodingError {
        let place = ["id", "lid", "type"].contains(key.stringValue) ? "resource object" : "attributes or relationships"
        return DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: [],
                debugDescription:
                    "The \(place) of the resource at line \(resource.position.line), column \(resource.position.column) has no member \(String(reflecting: key.stringValue))."
            )
        )
    }
}

struct ResourceKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ResourceDecoder
    var codingPath: [any CodingKey] { [] }

    /// The keys `decode` finds: `type`, `id`, `lid`, every field under the key strategy, and the
    /// resource's own `meta` and `links`.
    var allKeys: [Key] {
        let view = decoder.view
        var names = ["type"]
        if view.id != nil { names.append("id") }
        if view.lid != nil { names.append("lid") }
        view.forEachField { key, _, _ in
            names.append(decoder.options.keyStrategy.keyName(forMember: view.value.tape.text(of: key)))
        }
        if view.meta != nil && !names.contains("meta") { names.append("meta") }
        if view.links != nil && !names.contains("links") { names.append("links") }
        return names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        // A member the check rejects with an error counts as present: the decode that follows
        // reports the rejection.
        do { return try decoder.member(for: key) != nil } catch { return true }
    }

    private func require(_ key: Key) throws -> JSONTape.Value {
        guard let value = try decoder.member(for: key) else {
            throw ResourceDecoder.missing(key, in: decoder.view.value)
        }
        return value
    }

    private func nested(_ value: JSONTape.Value, key: Key) -> TapeDecoder {
        TapeDecoder(value: value, context: decoder.context, parentPath: [], key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try require(key).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    /// Reads through the tape decoder's fast paths (scalars, tape-reading types) before Codable.
    @inline(__always)
    private func read<T: Decodable>(_ type: T.Type, from value: JSONTape.Value, key: Key) throws -> T {
        try nested(value, key: key).decodeValue(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try read(type, from: try require(key), key: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        guard let value = try decoder.member(for: key), !value.isNull else { return nil }
        return try read(type, from: value, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try nested(try require(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nested(try require(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { nested(try require(key), key: key) }
}
