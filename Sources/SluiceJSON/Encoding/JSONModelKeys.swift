// A model's member names, escaped once per built-in key strategy by the macro, as the writer
// copies them.

import Foundation

// MARK: Member names

/// The member names of a `@JSONModel` type as it writes them: for each built-in key strategy
/// (as written, `.convertToSnakeCase`, `.convertToKebabCase`), the names escaped as JSON and the
/// order of the members under `.sortedKeys`, all worked out by the macro at expansion time. Here
/// they are laid out once per type as the bytes the writer copies: `,"name":` for each member.
///
/// Not for use beyond the generated code: the layout of its arguments may change with the macro.
@_documentation(visibility: internal)
public final class JSONModelKeys: @unchecked Sendable {
    // @unchecked Sendable: the storage is written only in `init`. The writer keeps pointers into
    // a table without holding it: tables live as long as their type (a `static let`, or the
    // shared table of a generic type, which is never dropped).

    /// The fields' coding keys, boxed once (see `JSONModelMembers`): the key a value's
    /// fallback to the general path is recorded under.
    let codingKeys: [any CodingKey]
    /// The written names per key strategy, for encoders that file members by name (the JSON:API
    /// encoder's roles and sparse fieldsets): the coding keys converted by the same word rule the
    /// macro applied, rather than the macro's escaped text decoded again.
    package let writtenNames: [[String]]
    /// The fields' value types, from the key paths the macro names, for encoders that place a
    /// member by its type (JSON:API's puts relationships apart from attributes).
    package let valueTypes: [Any.Type]
    /// Per key strategy and slash escaping (`strategy * 2 + escapesSlashes`): the key bytes.
    private let blobs: [UnsafeMutablePointer<UInt8>]
    /// Per key strategy and slash escaping: start and length of each field's key in its blob.
    private let spans: [UnsafeMutablePointer<Int32>]
    /// Per key strategy and sorting (`strategy * 2 + sorted`): the fields in writing order.
    private let orders: [UnsafeMutablePointer<Int32>]
    /// The number of fields.
    let count: Int

    /// A table for a type's fields.
    ///
    /// - Parameters:
    ///   - names: The coding keys' string values, in encoding order.
    ///   - escaped: For each strategy (as written, snake case, kebab case), each field's written
    ///     name escaped as JSON (without quotes; `/` not escaped).
    ///   - sorted: For each strategy, the fields in the order of their written names.
    ///   - values: Key paths to the fields' properties, for their value types.
    public init(names: [String], escaped: [[String]], sorted: [[Int]], values: [AnyKeyPath]) {
        precondition(escaped.count == 3 && sorted.count == 3, "JSONModelKeys takes three key strategies")
        count = names.count
        codingKeys = names.map { AnyCodingKey($0) }
        valueTypes = values.map { type(of: $0).valueType }
        writtenNames = [
            names, names.map { KeyWords.separated($0, "_") }, names.map { KeyWords.separated($0, "-") },
        ]
        var blobs: [UnsafeMutablePointer<UInt8>] = []
        var spans: [UnsafeMutablePointer<Int32>] = []
        for strategy in 0..<3 {
            for escapesSlashes in [false, true] {
                var bytes: [UInt8] = []
                let span = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, 2 * names.count))
                for (field, name) in escaped[strategy].enumerated() {
                    span[2 * field] = Int32(bytes.count)
                    bytes.append(UInt8(ascii: ","))
                    bytes.append(UInt8(ascii: "\""))
                    for byte in name.utf8 {
                        if escapesSlashes && byte == UInt8(ascii: "/") { bytes.append(UInt8(ascii: "\\")) }
                        bytes.append(byte)
                    }
                    bytes.append(UInt8(ascii: "\""))
                    bytes.append(UInt8(ascii: ":"))
                    span[2 * field + 1] = Int32(bytes.count) - span[2 * field]
                }
                let blob = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
                blob.initialize(from: bytes, count: bytes.count)
                blobs.append(blob)
                spans.append(span)
            }
        }
        var orders: [UnsafeMutablePointer<Int32>] = []
        for strategy in 0..<3 {
            for order in [Array(0..<names.count), sorted[strategy]] {
                precondition(order.count == names.count, "JSONModelKeys: an order must name every field")
                let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, names.count))
                for (position, field) in order.enumerated() { pointer[position] = Int32(field) }
                orders.append(pointer)
            }
        }
        self.blobs = blobs
        self.spans = spans
        self.orders = orders
    }

    deinit {
        for pointer in blobs { pointer.deallocate() }
        for pointer in spans { pointer.deallocate() }
        for pointer in orders { pointer.deallocate() }
    }

    /// The table of a generic model, made once per specialization (see
    /// `JSONModelMembers/shared(by:names:)`).
    public static func shared(by type: Any.Type, make: () -> JSONModelKeys) -> JSONModelKeys {
        if let table = genericTables.fact(about: type) { return table }
        let table = make()
        genericTables.record(table, about: type)
        return table
    }

    private static let genericTables = TypeFacts<JSONModelKeys>()

    /// The pointers a writer uses for one strategy, slash setting and order.
    package func view(strategy: Int, escapesSlashes: Bool, sorted: Bool) -> JSONModelKeyView {
        JSONModelKeyView(
            bytes: UnsafePointer(blobs[strategy * 2 + (escapesSlashes ? 1 : 0)]),
            spans: UnsafePointer(spans[strategy * 2 + (escapesSlashes ? 1 : 0)]),
            order: UnsafePointer(orders[strategy * 2 + (sorted ? 1 : 0)]),
            count: count
        )
    }
}

/// One strategy's key bytes and one order of a `JSONModelKeys` table: plain pointers, so that
/// handing it around costs no reference counting.
package struct JSONModelKeyView {
    let bytes: UnsafePointer<UInt8>
    let spans: UnsafePointer<Int32>
    package let order: UnsafePointer<Int32>
    package let count: Int

    // Immutable after it is made.
    nonisolated(unsafe) static let empty: JSONModelKeyView = {
        let zero = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        zero.initialize(repeating: 0, count: 2)
        let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        byte.initialize(to: 0)
        return JSONModelKeyView(bytes: byte, spans: zero, order: zero, count: 0)
    }()
}
