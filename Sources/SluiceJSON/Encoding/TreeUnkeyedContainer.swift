// The tree encoder's unkeyed container: an array's elements, recorded in order.

import Foundation

struct TreeUnkeyedContainer: UnkeyedEncodingContainer {
    let tree: EncodingTree
    let array: EncodedArray
    let codingPath: [any CodingKey]
    var count: Int { array.elements.count }

    mutating func encodeNil() throws { array.elements.append(.null) }

    mutating func encode(_ value: Int128) throws { array.elements.append(.number(String(value))) }
    mutating func encode(_ value: UInt128) throws { array.elements.append(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.elements.append(try tree.node(for: value, path: codingPath + [ElementKey(count)]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        let path = codingPath + [ElementKey(count)]
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(TreeKeyedContainer<NestedKey>(tree: tree, object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let path = codingPath + [ElementKey(count)]
        array.elements.append(.array(nested))
        return TreeUnkeyedContainer(tree: tree, array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = TreeEncoder(tree: tree, path: codingPath + [ElementKey(count)])
        array.elements.append(.slot(encoder.slot))
        return encoder
    }
}
