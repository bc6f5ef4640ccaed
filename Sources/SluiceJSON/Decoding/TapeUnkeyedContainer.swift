// The tape decoder's unkeyed container: an array's elements, in order.

import Foundation

struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    private var elements: JSONTape.Elements
    private var upcoming: JSONTape.Value?
    private(set) var currentIndex = 0
    /// The array's coding path, joined once: every element's decoder extends it.
    let codingPath: [any CodingKey]

    init(decoder: TapeDecoder) {
        self.decoder = decoder
        codingPath = decoder.codingPath
        // Safe because the decoder checked that the value is an array.
        elements = try! decoder.value.elements()
        upcoming = elements.next()
    }

    var count: Int? { decoder.value.count }
    var isAtEnd: Bool { upcoming == nil }

    /// A decoder for the element at `index`.
    private func element(_ value: JSONTape.Value, at index: Int) -> TapeDecoder {
        TapeDecoder(value: value, context: decoder.context, parentPath: codingPath, key: ElementKey(index))
    }

    /// The upcoming element, consumed.
    private mutating func next(_ type: Any.Type) throws -> JSONTape.Value {
        let value = try peek(type)
        upcoming = elements.next()
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Int128.Type) throws -> Int128 { try wideInteger(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try wideInteger(type) }

    /// A 128-bit integer element, read and advanced over as `decode(_:)` does.
    private mutating func wideInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let index = currentIndex
        let decoded = try element(try peek(type), at: index).wideInteger(type)
        _ = try next(type)
        return decoded
    }

    mutating func decodeNil() throws -> Bool {
        guard let value = upcoming, value.isNull else { return false }
        _ = try next(Never.self)
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // Advance only once the element has decoded, as Foundation does: callers may retry the
        // same element as another type after a failure.
        let index = currentIndex
        let value = try peek(type)
        let decoded: T
        do {
            let context = decoder.context
            if !context.hasTypeHooks, let scalar = TapeScalar(T.self) {
                decoded = try TapeDecoder.readScalar(scalar, from: value, context: context, as: T.self)
            } else {
                decoded = try element(value, at: index).decodeValue(type)
            }
        } catch let error as JSONError {
            throw element(value, at: index).convert(error, type: type)
        }
        _ = try next(type)
        return decoded
    }

    /// The upcoming element, left in place; `valueNotFound` past the end.
    private func peek(_ type: Any.Type) throws -> JSONTape.Value {
        guard let value = upcoming else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [ElementKey(currentIndex)],
                    fault: decoder.fault(.missingValue, "The array has only \(currentIndex) elements.")
                )
            )
        }
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let index = currentIndex
        return try element(try next([String: Any].self), at: index).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = currentIndex
        return try element(try next([Any].self), at: index).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let index = currentIndex
        return element(try next(Any.self), at: index)
    }
}
