// The tape decoder's keyed container: an object's members, looked up by `KeyedLookup`.

import Foundation

struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let lookup: KeyedLookup
    var decoder: TapeDecoder { lookup.decoder }
    var codingPath: [any CodingKey] { lookup.codingPath }

    init(decoder: TapeDecoder) {
        lookup = KeyedLookup(decoder: decoder)
    }

    func contains(_ key: Key) -> Bool { lookup.contains(key) }

    var allKeys: [Key] {
        guard let members = try? decoder.value.members() else { return [] }
        let strategy = decoder.options.keyStrategy
        // Each name once, as Foundation's lists the keys of the dictionary it made: members
        // written twice, or two spellings the strategy converts to one name, are one key.
        var seen = Set<String>()
        return members.compactMap { member in
            let name = strategy.keyName(forMember: member.key)
            guard seen.insert(name).inserted else { return nil }
            return Key(stringValue: name)
        }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try lookup.require(key).value.isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try lookup.decodeMember(type, key)
    }

    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try lookup.require(key).wideInteger(type)
    }

    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try lookup.require(key).wideInteger(type)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try lookup.require(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try lookup.require(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = AnyCodingKey("super")
        return lookup.nested(decoder.value["super"] ?? absentMember(), key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        if let value = try lookup.member(for: key) { return lookup.nested(value, key: key) }
        if let fallback = lookup.fallbackDecoder(for: key) { return fallback }
        return lookup.nested(absentMember(), key: key)
    }

    /// What a super decoder for an absent member reads: `null`, as Foundation's decoder gives one
    /// at null there rather than throwing `keyNotFound` (a superclass whose members are all
    /// optional decodes from it). On a tape of its own, placed where the object starts, so that
    /// errors reading it point there.
    private func absentMember() -> JSONTape.Value {
        var builder = JSONTape.Builder(position: decoder.value.position)
        builder.appendLiteral(.null)
        // Safe because the tape holds exactly that one value, at its first index.
        return try! builder.result.value(at: builder.result.startIndex)
    }
}
