// The tree encoder's keyed container: an object's members, recorded into its box.

import Foundation

struct TreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let tree: EncodingTree
    let object: EncodedObject
    let codingPath: [any CodingKey]

    private func name(_ key: Key) -> String { tree.memberName(for: key, path: codingPath) }

    mutating func encodeNil(forKey key: Key) throws { object.append(name(key), .null) }

    // 128-bit integers: the protocols' own defaults refuse them, so they are written here.
    mutating func encode(_ value: Int128, forKey key: Key) throws { object.append(name(key), .number(String(value))) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { object.append(name(key), .number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.append(name(key), try tree.node(for: value, path: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        // Asked for twice (or after an object was encoded there), the container is the one
        // already there, so both fill one object, as with Foundation's encoder; anything else
        // under the name is replaced, where Foundation's stops the process.
        let memberName = name(key)
        let nested: EncodedObject
        if let existing = object.member(memberName)?.containedObject {
            nested = existing
        } else {
            nested = EncodedObject()
            object.append(memberName, .object(nested))
        }
        return KeyedEncodingContainer(
            TreeKeyedContainer<NestedKey>(tree: tree, object: nested, codingPath: codingPath + [key])
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        // As `nestedContainer(keyedBy:forKey:)`: an array already under the name is added to.
        let memberName = name(key)
        let nested: EncodedArray
        if let existing = object.member(memberName)?.containedArray {
            nested = existing
        } else {
            nested = EncodedArray()
            object.append(memberName, .array(nested))
        }
        return TreeUnkeyedContainer(tree: tree, array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forKey: AnyCodingKey("super"), name: "super")
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(forKey: key, name: name(key))
    }

    private func superEncoder(forKey key: any CodingKey, name: String) -> any Encoder {
        // Whatever the super encoder records lands here when written.
        let encoder = TreeEncoder(tree: tree, path: codingPath + [key])
        object.append(name, .slot(encoder.slot))
        return encoder
    }
}
