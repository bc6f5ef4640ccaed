// Arrays, dictionaries and JSON values recorded without Codable's containers.

import Foundation

/// Arrays and `String`-keyed dictionaries, recorded without Codable's containers; dictionary keys
/// are written as they are (no key strategy), as Foundation's encoder writes them.
protocol TreeEncodable {
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode
}

extension Array: TreeEncodable where Element: Encodable {
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode {
        let array = EncodedArray()
        array.elements.reserveCapacity(count)
        // Each element's path is only built if something asks for it (an error, a custom encoder).
        // Indices rather than `enumerated()`: this runs unspecialized, where the enumerated
        // sequence's iterator and its tuple look their metadata up for every element.
        var index = 0
        if let scalar = TapeScalar(Element.self) {
            while index < count {
                array.elements.append(
                    try tree.scalarNode(scalar, self[index], path: path + [ElementKey(index)])
                )
                index += 1
            }
        } else {
            while index < count {
                array.elements.append(try tree.node(for: self[index], path: path + [ElementKey(index)]))
                index += 1
            }
        }
        return .array(array)
    }
}

extension Dictionary: TreeEncodable where Key == String, Value: Encodable {
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode {
        let object = EncodedObject()
        object.keys.reserveCapacity(count)
        object.values.reserveCapacity(count)
        for (key, value) in self {
            object.keys.append(key)
            object.values.append(try tree.node(for: value, path: path + [AnyCodingKey(key)]))
        }
        return .object(object)
    }
}

extension JSONValue: TreeEncodable {
    /// Written as it is: numbers with their text (no trip through Int or Double, so no digit is
    /// lost), member names unconverted by key strategies. Checked as the tree's own values are:
    /// number text against JSON's grammar, nesting against the writer's depth.
    func node(in tree: EncodingTree, path: [any CodingKey]) throws -> EncodedNode {
        do {
            return try node(in: tree, depth: path.count)
        } catch {
            // The fault's path, collected innermost first on the way out.
            throw tree.invalid(error.value, path + error.keys.reversed(), error.reason)
        }
    }

    /// A value the tree refuses, and the keys from it up to where the recursion started: no
    /// path is built for the values that are fine.
    private struct Fault: Error {
        let value: JSONValue
        let reason: String
        var keys: [any CodingKey] = []
    }

    private func node(in tree: EncodingTree, depth: Int) throws(Fault) -> EncodedNode {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let text):
            var checked = text
            guard checked.withUTF8({ JSONNumberText.isNumber(UnsafeRawBufferPointer($0)) }) else {
                throw Fault(value: self, reason: "\(String(reflecting: text)) is not a JSON number")
            }
            return .number(text)
        case .string(let text): return .string(text)
        case .array(let elements):
            try checkDepth(depth, in: tree)
            let array = EncodedArray()
            array.elements.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    array.elements.append(try element.node(in: tree, depth: depth + 1))
                } catch var fault {
                    fault.keys.append(ElementKey(index))
                    throw fault
                }
            }
            return .array(array)
        case .object(let object):
            try checkDepth(depth, in: tree)
            let encoded = EncodedObject()
            for (key, value) in zip(object.keys, object.values) {
                do {
                    encoded.append(key, try value.node(in: tree, depth: depth + 1))
                } catch var fault {
                    fault.keys.append(AnyCodingKey(key))
                    throw fault
                }
            }
            return .object(encoded)
        }
    }

    private func checkDepth(_ depth: Int, in tree: EncodingTree) throws(Fault) {
        guard depth + tree.baseDepth >= JSONWriter.maxDepth else { return }
        throw Fault(
            value: self,
            reason: "JSONValue would nest deeper than the \(JSONWriter.maxDepth) levels JSON is written with"
        )
    }
}
