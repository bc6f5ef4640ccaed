// The tree encoder's single-value container.

import Foundation

struct TreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.slot.node = .null }

    mutating func encode(_ value: Int128) throws { encoder.slot.node = .number(String(value)) }
    mutating func encode(_ value: UInt128) throws { encoder.slot.node = .number(String(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.slot.node = try encoder.tree.node(for: value, path: codingPath)
    }
}
