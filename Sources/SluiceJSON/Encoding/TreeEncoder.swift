// Codable's side of the tree: the `Encoder` a value's `encode(to:)` is handed.

import Foundation

/// Where an encoder puts the one value it encodes.
package final class NodeSlot {
    var node: EncodedNode?
}

struct TreeEncoder: Encoder {
    let tree: EncodingTree
    let codingPath: [any CodingKey]
    let slot = NodeSlot()

    init(tree: EncodingTree, path: [any CodingKey]) {
        self.tree = tree
        self.codingPath = path
    }

    var userInfo: [CodingUserInfoKey: Any] { tree.settings.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        if case .object(let existing) = slot.node {
            object = existing
        } else {
            object = EncodedObject()
            slot.node = .object(object)
        }
        return KeyedEncodingContainer(TreeKeyedContainer<Key>(tree: tree, object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = slot.node {
            array = existing
        } else {
            array = EncodedArray()
            slot.node = .array(array)
        }
        return TreeUnkeyedContainer(tree: tree, array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TreeSingleValueContainer(encoder: self)
    }
}
