// Nested arrays, vectors and maps of scalars, read by generated readers straight from the tape.
//
// Why: a property such as `coordinates: [[SIMD2<Double>]]` (canada.json's 55 563 points) or
// `topicSubTopics: [String: [Int]]` went through the general path: a nested decoder per array,
// an unkeyed container per point, Codable's `SIMD2.init(from:)` unspecialized, each number
// converted through a witness call. Here the whole type is known where the generated initializer
// calls the reader, so the read is specialized for it: a loop over the tape's tokens per level,
// each number converted where it lies, the vector built inline.
//
// The plain read only ever succeeds on the plain case: every value of the kind the type reads,
// numbers that convert exactly as the scalar readers convert them, vectors of exactly their
// length, maps without a repeated key. On anything else it gives up (`nil`) and the general path
// reads the member from the start, which returns the same value or throws its usual error with
// its usual coding path; so the two paths cannot disagree.

/// A value a generated reader can read straight from the tape when it is in its plain form:
/// scalars, and optionals, arrays, `[String: Value]` maps and `SIMD2`...`SIMD4` vectors of such
/// values. Not for use by hand.
@_documentation(visibility: internal)
public protocol TapePlainValue {
    /// The value `value` holds in plain form, or `nil` for the general path to read.
    static func plainValue(_ value: JSONTape.Value) -> Self?
}

extension JSONModelReader {
    /// Reads the required property `field`, a nested array, vector or map of scalars: straight
    /// from the tape when the member is plain (see `TapePlainValue`), else as the general path
    /// reads it. Inlinable, so that each initializer gets the read specialized for its type.
    @inlinable
    public func decode<T: TapePlainValue & Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        if !hasTypeHooks, let plain = T.plainValue(member) { return plain }
        return try read(type, from: member, field: field)
    }

    /// Reads the optional property `field` (see ``decode(_:at:)``): `nil` when the object has no
    /// member for it or the member is `null`.
    @inlinable
    public func decodeIfPresent<T: TapePlainValue & Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T? {
        guard let member = member(field), !member.isNull else { return nil }
        if !hasTypeHooks, let plain = T.plainValue(member) { return plain }
        return try read(type, from: member, field: field)
    }
}

extension JSONModelReader {
    /// Reads the required property `field`, a map of a `@JSONModel` type (citm_catalog's
    /// `events`): each value read by its type's generated reader, specialized here. A failure
    /// anywhere reads the member again by the general path, for its error and coding path.
    @inlinable
    public func decode<T: JSONModelDecodable>(
        _ type: [String: T].Type = [String: T].self,
        at field: Int
    ) throws -> [String: T] {
        guard let member = member(field) else { throw missing(field) }
        return try readModelMap(T.self, from: member, field: field)
    }

    /// Reads the optional property `field`, a map of a `@JSONModel` type.
    @inlinable
    public func decodeIfPresent<T: JSONModelDecodable>(
        _ type: [String: T].Type = [String: T].self,
        at field: Int
    ) throws -> [String: T]? {
        guard let member = member(field), !member.isNull else { return nil }
        return try readModelMap(T.self, from: member, field: field)
    }

    @inlinable
    func readModelMap<T: JSONModelDecodable>(
        _ type: T.Type,
        from member: JSONTape.Value,
        field: Int
    ) throws -> [String: T] {
        let unmanagedContext = contextReference
        if !hasTypeHooks,
            let map = tapeMap(
                member,
                { element in unmanagedContext._withUnsafeGuaranteedRef { try? T(from: element, context: $0) } }
            )
        {
            return map
        }
        return try read([String: T].self, from: member, field: field)
    }
}

/// The members of `object` as a dictionary keyed as written (no key strategy applies to a
/// dictionary's keys, as in Foundation), each value read by `read`; `nil` unless `object` is an
/// object, every `read` gives a value and no key repeats, for the general path to decide then.
@inlinable
func tapeMap<Value>(_ object: JSONTape.Value, _ read: (JSONTape.Value) -> Value?) -> [String: Value]? {
    guard object.kind == .objectStart else { return nil }
    let tape = object.tape
    var result: [String: Value] = [:]
    result.reserveCapacity(object.count)
    var cursor = object.index + 1
    let end = object.endIndex - 1
    while cursor < end {
        let key = tape.text(of: tape[cursor])
        guard let valueEnd = tape.endOfValue(at: cursor + 1),
            let value = read(JSONTape.Value(tape, from: cursor + 1, to: valueEnd)),
            result.updateValue(value, forKey: key) == nil
        else { return nil }
        cursor = valueEnd
    }
    return result
}

// MARK: Scalars: each converts its token as the scalar readers do, or gives up.

extension Double: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Double? { TapePlainScalars.double(value) }
}

extension Float: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Float? { TapePlainScalars.float(value) }
}

extension Int: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Int? { TapePlainScalars.integer(value, as: Int.self) }
}

extension Int64: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Int64? { TapePlainScalars.integer(value, as: Int64.self) }
}

extension Int32: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Int32? { TapePlainScalars.integer(value, as: Int32.self) }
}

extension UInt64: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> UInt64? {
        TapePlainScalars.integer(value, as: UInt64.self)
    }
}

extension String: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> String? {
        value.kind == .string ? value.tape.text(of: value.token) : nil
    }
}

extension Bool: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Bool? {
        switch value.kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }
}

extension JSONValue: TapePlainValue {
    /// The value as `JSONValue(from:context:)` reads it for the general path.
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> JSONValue? { try? value.jsonValue() }
}

/// The number conversions of the plain reads, out of line: the same functions the scalar readers
/// call, with any failure (not a number, out of range, a fraction for an integer) a give-up.
@usableFromInline
enum TapePlainScalars {
    @usableFromInline
    static func double(_ value: JSONTape.Value) -> Double? {
        value.tape.plainDouble(at: value.index)
    }

    @usableFromInline
    static func float(_ value: JSONTape.Value) -> Float? {
        guard value.kind == .number else { return nil }
        return try? TapeDecoder.decodeFloat(value)
    }

    @usableFromInline
    static func integer<T: FixedWidthInteger>(_ value: JSONTape.Value, as type: T.Type) -> T? {
        let token = value.token
        guard token.kind == .number else { return nil }
        return value.tape.withUnsafeText(of: token) { text in try? JSONNumberText.integer(tokenText: text, as: T.self) }
    }
}

// MARK: Containers of plain values

extension Optional: TapePlainValue where Wrapped: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> Wrapped?? {
        if value.isNull { return .some(nil) }
        return Wrapped.plainValue(value).map { .some($0) }
    }
}

extension Array: TapePlainValue where Element: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> [Element]? {
        let start = value.token
        guard start.kind == .arrayStart else { return nil }
        let tape = value.tape
        let count = Int(start.length)
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var cursor = value.index + 1
        // As in `tapeVectorElements`: doubles without a value made per element.
        if Element.self == Double.self {
            while elements.count < count {
                guard let element = tape.plainDouble(at: cursor) else { return nil }
                elements.append(unsafeBitCast(element, to: Element.self))
                cursor += 1
            }
            return elements
        }
        while elements.count < count {
            guard let end = tape.endOfValue(at: cursor) else { return nil }
            guard let element = Element.plainValue(JSONTape.Value(tape, from: cursor, to: end)) else { return nil }
            elements.append(element)
            cursor = end
        }
        return elements
    }
}

extension Dictionary: TapePlainValue where Key == String, Value: TapePlainValue {
    /// The members with their keys as written; a key given twice gives up (see `tapeMap`).
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> [String: Value]? {
        tapeMap(value, Value.plainValue)
    }
}

/// The elements of a vector of `count` scalars, or `nil` unless `value` is an array of exactly
/// that many plain scalars.
@inlinable
func tapeVectorElements<Scalar: TapePlainValue>(
    _ value: JSONTape.Value,
    count: Int,
    as type: Scalar.Type,
    _ body: (Int, Scalar) -> Void
) -> Bool {
    let start = value.token
    guard start.kind == .arrayStart, Int(start.length) == count else { return false }
    let tape = value.tape
    var cursor = value.index + 1
    // Doubles (coordinates, the common case) one token each, without a value made per element:
    // the type test is resolved when this is specialized.
    if Scalar.self == Double.self {
        for index in 0..<count {
            guard let scalar = tape.plainDouble(at: cursor) else { return false }
            body(index, unsafeBitCast(scalar, to: Scalar.self))
            cursor += 1
        }
        return true
    }
    for index in 0..<count {
        guard let end = tape.endOfValue(at: cursor),
            let scalar = Scalar.plainValue(JSONTape.Value(tape, from: cursor, to: end))
        else { return false }
        body(index, scalar)
        cursor = end
    }
    return true
}

extension SIMD2: TapePlainValue where Scalar: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> SIMD2<Scalar>? {
        var vector = SIMD2<Scalar>()
        return tapeVectorElements(value, count: 2, as: Scalar.self) { vector[$0] = $1 } ? vector : nil
    }
}

extension SIMD3: TapePlainValue where Scalar: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> SIMD3<Scalar>? {
        var vector = SIMD3<Scalar>()
        return tapeVectorElements(value, count: 3, as: Scalar.self) { vector[$0] = $1 } ? vector : nil
    }
}

extension SIMD4: TapePlainValue where Scalar: TapePlainValue {
    @inlinable
    public static func plainValue(_ value: JSONTape.Value) -> SIMD4<Scalar>? {
        var vector = SIMD4<Scalar>()
        return tapeVectorElements(value, count: 4, as: Scalar.self) { vector[$0] = $1 } ? vector : nil
    }
}
