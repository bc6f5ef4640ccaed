// The encoder's recorded tree: nodes, with objects and arrays as boxes (see `EncodedNode`).

import Foundation

/// A value recorded by the encoder. Objects and arrays are boxes, so that a nested container
/// handed out earlier fills its place in the parent later. Package API: the JSON:API encoder
/// records resources with the same machinery and rearranges their members.
package enum EncodedNode {
    case null
    case bool(Bool)
    case number(String)
    /// A finite double, formatted when written: the tree holds no String for it.
    case double(Double)
    case string(String)
    case object(EncodedObject)
    case array(EncodedArray)
    /// What a super encoder records, read when written (it may be filled after being placed).
    case slot(NodeSlot)
    /// A value of a type that tags itself (``JSONEncodingTagged``), for a consumer of the tree.
    indirect case tagged(String, EncodedNode)

    package func write(to writer: JSONWriter, sortingKeys: Bool) throws {
        switch self {
        case .null: try writer.null()
        case .bool(let value): try writer.bool(value)
        // Number text in the tree is valid: the tree makes it, or checks a JSONValue's.
        case .number(let text): try writer.number(validatedText: text)
        case .double(let value): try writer.number(value)
        case .string(let text): try writer.string(text)
        case .slot(let slot): try (slot.node ?? .object(EncodedObject())).write(to: writer, sortingKeys: sortingKeys)
        case .tagged(_, let node): try node.write(to: writer, sortingKeys: sortingKeys)
        case .array(let array):
            try writer.beginArray()
            for element in array.elements { try element.write(to: writer, sortingKeys: sortingKeys) }
            try writer.endArray()
        case .object(let object):
            try writer.beginObject()
            if sortingKeys {
                for index in object.keys.indices.sorted(by: { object.keys[$0] < object.keys[$1] }) {
                    try writer.key(object.keys[index])
                    try object.values[index].write(to: writer, sortingKeys: true)
                }
            } else {
                for index in object.keys.indices {
                    try writer.key(object.keys[index])
                    try object.values[index].write(to: writer, sortingKeys: false)
                }
            }
            try writer.endObject()
        }
    }
}

extension EncodedNode {
    /// The object this node records, itself or through a filled super encoder's slot.
    var containedObject: EncodedObject? {
        switch self {
        case .object(let object): object
        case .slot(let slot): slot.node?.containedObject
        default: nil
        }
    }

    /// The array this node records, itself or through a filled super encoder's slot.
    var containedArray: EncodedArray? {
        switch self {
        case .array(let array): array
        case .slot(let slot): slot.node?.containedArray
        default: nil
        }
    }

    /// The recorded value as a ``JSONValue``, members in recorded order (sorting, if any, is the
    /// writer's): for values carried inside other documents, such as atomic operations' data.
    package var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let text): .number(text)
        case .double(let value): .number(JSONNumberText.shortestText(value))
        case .string(let text): .string(text)
        case .slot(let slot): slot.node?.jsonValue ?? .object(JSONObject())
        case .tagged(_, let node): node.jsonValue
        case .array(let array): .array(array.elements.map(\.jsonValue))
        case .object(let object): .object(JSONObject(zip(object.keys, object.values.map(\.jsonValue)).map { ($0, $1) }))
        }
    }
}

package final class EncodedObject {
    /// The members' names and values, in the order their names were first given.
    package var keys: [String] = []
    package var values: [EncodedNode] = []
    /// Where each name stands, once the object has more members than are worth scanning: built
    /// lazily over `keys` up to `indexedCount`, so members appended to `keys` directly (a
    /// dictionary's, whose names are distinct) join at the next lookup.
    private var positions: [String: Int] = [:]
    private var indexedCount = 0
    /// Up to this many members, a scan of the names beats hashing the one looked for.
    private static let scanLimit = 12

    package init() {}

    /// The position of the member named `key`, if there is one.
    package func position(of key: String) -> Int? {
        if keys.count <= Self.scanLimit { return keys.firstIndex(of: key) }
        while indexedCount < keys.count {
            if positions[keys[indexedCount]] == nil { positions[keys[indexedCount]] = indexedCount }
            indexedCount += 1
        }
        return positions[key]
    }

    /// The value of the member named `key`, if there is one.
    package func member(_ key: String) -> EncodedNode? {
        position(of: key).map { values[$0] }
    }

    /// Sets the member named `key` to `value`. A name given twice in one container keeps its
    /// first place and takes the last value, as Foundation's encoder keeps the last: the output
    /// never holds a name twice, which a reader would resolve by dropping one of the values.
    package func append(_ key: String, _ value: EncodedNode) {
        if let existing = position(of: key) {
            values[existing] = value
            return
        }
        keys.append(key)
        values.append(value)
    }
}

package final class EncodedArray {
    package var elements: [EncodedNode] = []

    package init() {}
}
