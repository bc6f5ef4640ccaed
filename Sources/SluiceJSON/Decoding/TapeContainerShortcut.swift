// Arrays, dictionaries and optionals read without Codable's containers, and the element
// mapping the generated readers share with them.

import Foundation

/// Arrays and optionals, which the tape decoder reads without Codable's containers.
///
/// Why: `Array.init(from:)` asks for an unkeyed container (an existential box), a nested decoder per
/// element and, for `[T?]`, a single-value container per element (another box), with a coding
/// path joined for each. Reading the elements here makes one path for the whole array and no
/// boxes, and each element still goes through `decodeValue`, so its errors carry the same paths.
protocol TapeContainerShortcut {
    static func read(from decoder: TapeDecoder) throws -> Self
}

extension Array: TapeContainerShortcut where Element: Decodable {
    /// Why `mapElements` (an array built in place) and loops of their own for scalars: this code
    /// runs unspecialized (the element type is only known at run time), where every call to an
    /// array method looks `[Element]`'s metadata up again, hundreds of instructions each time; here
    /// it is looked up once per array. Arrays of scalars (`[Double]`, `[Int]`, `[String]`) and of
    /// optional scalars (`[Bool?]`) also skip the decoder per element, building one only to report
    /// an error.
    static func read(from decoder: TapeDecoder) throws -> [Element] {
        let value = decoder.value
        guard value.kind == .arrayStart else { throw decoder.mismatch(expected: "an array", type: [Any].self) }
        let context = decoder.context
        if !context.hasTypeHooks, let scalar = TapeScalar(Element.self) {
            // One concrete array type per case: built where the element type is known, so no
            // metadata is looked up at run time. The cast back is a no-op (same type, see `init?`).
            switch scalar {
            case .string: return unsafeBitCast(try readScalars(decoder, scalar, as: String.self), to: [Element].self)
            case .int: return unsafeBitCast(try readScalars(decoder, scalar, as: Int.self), to: [Element].self)
            case .double: return unsafeBitCast(try readScalars(decoder, scalar, as: Double.self), to: [Element].self)
            case .bool: return unsafeBitCast(try readScalars(decoder, scalar, as: Bool.self), to: [Element].self)
            case .int64: return unsafeBitCast(try readScalars(decoder, scalar, as: Int64.self), to: [Element].self)
            case .float: return unsafeBitCast(try readScalars(decoder, scalar, as: Float.self), to: [Element].self)
            case .int32: return unsafeBitCast(try readScalars(decoder, scalar, as: Int32.self), to: [Element].self)
            case .uint64: return unsafeBitCast(try readScalars(decoder, scalar, as: UInt64.self), to: [Element].self)
            case .uint: return unsafeBitCast(try readScalars(decoder, scalar, as: UInt.self), to: [Element].self)
            case .int16: return unsafeBitCast(try readScalars(decoder, scalar, as: Int16.self), to: [Element].self)
            case .int8: return unsafeBitCast(try readScalars(decoder, scalar, as: Int8.self), to: [Element].self)
            case .uint32: return unsafeBitCast(try readScalars(decoder, scalar, as: UInt32.self), to: [Element].self)
            case .uint16: return unsafeBitCast(try readScalars(decoder, scalar, as: UInt16.self), to: [Element].self)
            case .uint8: return unsafeBitCast(try readScalars(decoder, scalar, as: UInt8.self), to: [Element].self)
            case .decimal: return unsafeBitCast(try readScalars(decoder, scalar, as: Decimal.self), to: [Element].self)
            }
        }
        if !context.hasTypeHooks, let scalar = TapeScalar(optional: Element.self) {
            // The same for the optional scalars arrays hold most (`[Bool?]`, `[Int?]`): each element
            // through the optional shortcut cost a nested decoder and two type look-ups.
            switch scalar {
            case .string:
                return unsafeBitCast(try readOptionalScalars(decoder, scalar, as: String.self), to: [Element].self)
            case .int: return unsafeBitCast(try readOptionalScalars(decoder, scalar, as: Int.self), to: [Element].self)
            case .double:
                return unsafeBitCast(try readOptionalScalars(decoder, scalar, as: Double.self), to: [Element].self)
            case .bool:
                return unsafeBitCast(try readOptionalScalars(decoder, scalar, as: Bool.self), to: [Element].self)
            case .int64:
                return unsafeBitCast(try readOptionalScalars(decoder, scalar, as: Int64.self), to: [Element].self)
            default: break  // `init(optional:)` makes no other case.
            }
        }
        let path = decoder.codingPath
        return try value.mapElements { element, index in
            try TapeDecoder(value: element, context: context, parentPath: path, key: ElementKey(index))
                .decodeValue(Element.self)
        }
    }
}

/// The scalars of the array `decoder` stands at, read straight from the tape; a decoder per
/// element is made only to report an error.
private func readScalars<S>(_ decoder: TapeDecoder, _ scalar: TapeScalar, as type: S.Type) throws -> [S] {
    let context = decoder.context
    return try decoder.value.mapElements { element, index in
        do throws(JSONError) {
            return try TapeDecoder.readScalar(scalar, from: element, context: context, as: S.self)
        } catch {
            throw decoder.elementError(error, element: element, index: index, type: S.self)
        }
    }
}

/// The same for optional scalars: `null` elements are `nil`, as the optional shortcut reads them,
/// and a fault in any other element is reported as the wrapped type's.
private func readOptionalScalars<S>(_ decoder: TapeDecoder, _ scalar: TapeScalar, as type: S.Type) throws -> [S?] {
    let context = decoder.context
    return try decoder.value.mapElements { element, index in
        if element.isNull { return nil }
        do throws(JSONError) {
            return try TapeDecoder.readScalar(scalar, from: element, context: context, as: S.self)
        } catch {
            throw decoder.elementError(error, element: element, index: index, type: S.self)
        }
    }
}

extension TapeDecoder {
    /// A scalar fault in element `index` of the array this decoder stands at, as the element's own
    /// decoder would report it.
    func elementError(_ error: JSONError, element: JSONTape.Value, index: Int, type: Any.Type) -> DecodingError {
        TapeDecoder(value: element, context: context, parentPath: codingPath, key: ElementKey(index))
            .convert(error, type: type)
    }
}

extension JSONTape.Value {
    /// ``mapElements(_:)`` for callers specialized for `E` (the generated readers' arrays of
    /// models), built by ``specializedArray(count:_:)``.
    @inlinable @inline(__always)
    func mapElementsSpecialized<E>(_ transform: (JSONTape.Value, Int) throws -> E) rethrows -> [E] {
        precondition(kind == .arrayStart, "mapElements needs an array")
        var cursor = index + 1
        // Never `nil`: `transform` gives an element or throws.
        return try specializedArray(count: count) { position -> E? in
            let end = tape.endOfValue(at: cursor) ?? endIndex - 1
            defer { cursor = end }
            return try transform(JSONTape.Value(tape, from: cursor, to: end), position)
        }.unsafelyUnwrapped
    }

    /// The elements of this array, each turned into an `E` by `transform` (given the element and
    /// its index), in an array built in place: the walk over an array's tokens that the decoders'
    /// generic fast paths share, where `[E]`'s metadata is looked up once per array.
    ///
    /// - Precondition: the value is an array.
    ///
    /// Inlinable, so that the generated readers' arrays of models are built by code specialized
    /// for their element type.
    @inlinable
    func mapElements<E>(_ transform: (JSONTape.Value, Int) throws -> E) rethrows -> [E] {
        precondition(kind == .arrayStart, "mapElements needs an array")
        let count = self.count
        return try [E](unsafeUninitializedCapacity: count) { buffer, initialized in
            var cursor = index + 1
            while initialized < count {
                let end = tape.endOfValue(at: cursor) ?? endIndex - 1
                // Safe because initialized < count, the capacity asked for.
                (buffer.baseAddress! + initialized).initialize(
                    to: try transform(JSONTape.Value(tape, from: cursor, to: end), initialized)
                )
                initialized += 1
                cursor = end
            }
        }
    }
}

/// Dictionaries with `String` keys, read member by member: the keys as written (no key strategy
/// converts them, as in Foundation's JSONDecoder), each value through `decodeValue`.
///
/// Why: `Dictionary.init(from:)` asks for a keyed container, for `allKeys` (a `String` and a key
/// per member), then looks each key up again; here each member is read once, in order.
extension Dictionary: TapeContainerShortcut where Key == String, Value: Decodable {
    static func read(from decoder: TapeDecoder) throws -> [String: Value] {
        let object = decoder.value
        guard object.kind == .objectStart else {
            throw decoder.mismatch(expected: "an object", type: [String: Any].self)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        let path = decoder.codingPath
        let context = decoder.context
        for member in try object.members() {
            let key = member.key
            let memberDecoder = TapeDecoder(
                value: member.value,
                context: context,
                parentPath: path,
                key: AnyCodingKey(key)
            )
            // The first of duplicate members wins.
            if result[key] == nil { result[key] = try memberDecoder.decodeValue(Value.self) }
        }
        return result
    }
}

extension Optional: TapeContainerShortcut where Wrapped: Decodable {
    static func read(from decoder: TapeDecoder) throws -> Wrapped? {
        decoder.value.isNull ? nil : try decoder.decodeValue(Wrapped.self)
    }
}
