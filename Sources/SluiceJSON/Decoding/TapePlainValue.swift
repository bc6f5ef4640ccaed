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
    /// Reads the value that starts at `cursor` and moves the cursor past it; `nil` for the
    /// general path to read (the cursor is then left anywhere).
    static func plainValue(from cursor: inout TapePlainCursor) -> Self?
}

/// Where a plain read stands on a tape: its tokens and arena by address, so that a read of a
/// nested array steps from token to token with one bound check each. Valid only for the length
/// of one property's read, while the tape it was made from is alive and unchanged (the reader's
/// tape is both). Not for use by hand.
///
/// Why: read through `JSONTape.Value`, each element made a value (the tape's reference and two
/// indices), checked its index against the tape, found its end and looked the buffer up again:
/// about 140 instructions per coordinate of canada.json, where the number was converted already.
@_documentation(visibility: internal)
public struct TapePlainCursor {
    /// The tape's tokens and arena, taken once.
    @usableFromInline let tape: TapeTokens
    @usableFromInline let storage: Unmanaged<TapeStorage>
    /// The next token to read, counted from `tape.tokens`.
    @usableFromInline var position: Int

    @inlinable
    init(storage: Unmanaged<TapeStorage>, buffer: UnsafeMutablePointer<TapeBuffer>, index: Int) {
        self.storage = storage
        tape = TapeTokens(buffer)
        position = index - buffer.pointee.firstIndex
    }

    /// The token at the cursor, without moving it; `nil` past the tape's end (which a complete
    /// value never reaches: the bound is what makes the addresses safe to read).
    @inlinable @inline(__always)
    func peek() -> JSONToken? {
        guard position >= 0, position < tape.count else { return nil }
        return tape.tokens[position]
    }

    /// The token at the cursor, the cursor moved past it.
    @inlinable @inline(__always)
    mutating func next() -> JSONToken? {
        defer { position += 1 }
        return peek()
    }

    /// The next token's text, when it is a token of `kind` (a key, string or number).
    @inlinable @inline(__always)
    mutating func text(ifNextIs kind: JSONToken.Kind) -> (text: UnsafeRawBufferPointer, isASCII: Bool)? {
        guard let token = next(), token.kind == kind else { return nil }
        return (tape.text(of: token), token.isASCII)
    }

    /// The next token as a `Double`, converted as the scalar readers convert it.
    @inlinable @inline(__always)
    mutating func double() -> Double? {
        text(ifNextIs: .number).flatMap { try? JSONNumberText.double(tokenText: $0.text) }
    }

    /// The next token as an integer of type `T`, converted as the scalar readers convert it.
    @inlinable @inline(__always)
    mutating func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        text(ifNextIs: .number).flatMap { try? JSONNumberText.integer(tokenText: $0.text, as: T.self) }
    }

    /// The next value as a `JSONTape.Value` (for reads that need one), the cursor moved past it.
    @inlinable
    mutating func value() -> JSONTape.Value? {
        value(in: JSONTape(storage: storage.takeUnretainedValue()))
    }

    /// The next value as a `JSONTape.Value` of `tape`, the tape this cursor was made from.
    ///
    /// Why: a caller reading many values holds the tape once for all of them, where each
    /// `value()` makes (and retains) a tape of its own.
    @inlinable
    mutating func value(in tape: JSONTape) -> JSONTape.Value? {
        guard let token = peek() else { return nil }
        let index = self.tape.firstIndex + position
        // Its end from the token itself, as `JSONTape.endOfValue(at:)` finds it: that call
        // kept the tape alive past the value's making, a retain and release more per element.
        let end: Int
        switch token.kind {
        case .objectStart, .arrayStart:
            guard token.payload >= 0 else { return nil }
            end = token.payload + 1
        case .key, .objectEnd, .arrayEnd: return nil
        default: end = index + 1
        }
        position = end - self.tape.firstIndex
        return JSONTape.Value(tape, from: index, to: end)
    }

    /// The next value as a map of `read`'s values keyed as written (no key strategy applies to a
    /// dictionary's keys, as in Foundation); `nil` unless it is an object, every `read` gives a
    /// value and no key repeats, for the general path to decide then.
    @inlinable @inline(__always)
    mutating func map<Value>(_ read: (inout TapePlainCursor) -> Value?) -> [String: Value]? {
        guard let start = next(), start.kind == .objectStart else { return nil }
        let count = Int(start.length)
        var result: [String: Value] = [:]
        result.reserveCapacity(count)
        for _ in 0..<count {
            guard let key = text(ifNextIs: .key) else { return nil }
            let name = UTF8Validation.string(ofChecked: key.text, isASCII: key.isASCII)
            guard let value = read(&self), result.updateValue(value, forKey: name) == nil else { return nil }
        }
        guard next()?.kind == .objectEnd else { return nil }
        return result
    }
}

extension JSONModelReader {
    /// A cursor at the member value `member` of this reader's tape.
    @inlinable @inline(__always)
    func plainCursor(at member: JSONTape.Value) -> TapePlainCursor {
        TapePlainCursor(storage: tapeStorage, buffer: buffer, index: member.index)
    }

    /// The member `member` read plainly as `T`, or `nil` for the general path: converters or
    /// uniquing are in force, or the member is not plain.
    @inlinable @inline(__always)
    func plainValue<T: TapePlainValue>(_ type: T.Type, of member: JSONTape.Value) -> T? {
        guard !hasTypeHooks else { return nil }
        var cursor = plainCursor(at: member)
        return T.plainValue(from: &cursor)
    }

    /// Reads the required property `field`, a nested array, vector or map of scalars: straight
    /// from the tape when the member is plain (see `TapePlainValue`), else as the general path
    /// reads it. Inlinable, so that each initializer gets the read specialized for its type.
    @inlinable
    public func decode<T: TapePlainValue & Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        if let plain = plainValue(T.self, of: member) { return plain }
        return try read(type, from: member, field: field)
    }

    /// Reads the optional property `field` (see ``decode(_:at:)``): `nil` when the object has no
    /// member for it or the member is `null`.
    @inlinable
    public func decodeIfPresent<T: TapePlainValue & Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T? {
        guard let member = presentMember(field) else { return nil }
        if let plain = plainValue(T.self, of: member) { return plain }
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
        guard let member = presentMember(field) else { return nil }
        return try readModelMap(T.self, from: member, field: field)
    }

    @inlinable
    func readModelMap<T: JSONModelDecodable>(
        _ type: T.Type,
        from member: JSONTape.Value,
        field: Int
    ) throws -> [String: T] {
        if !hasTypeHooks {
            let unmanagedContext = contextReference
            let tape = member.tape
            var cursor = plainCursor(at: member)
            let map = cursor.map { cursor in
                cursor.value(in: tape).flatMap { element in
                    unmanagedContext._withUnsafeGuaranteedRef { try? T(from: element, context: $0) }
                }
            }
            if let map { return map }
        }
        return try read([String: T].self, from: member, field: field)
    }
}

// MARK: Scalars: each converts its token as the scalar readers do, or gives up.

extension Double: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Double? { cursor.double() }
}

extension Float: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Float? {
        cursor.text(ifNextIs: .number).flatMap { try? JSONNumberText.float(tokenText: $0.text) }
    }
}

extension Int: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Int? { cursor.integer(as: Int.self) }
}

extension Int64: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Int64? { cursor.integer(as: Int64.self) }
}

extension Int32: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Int32? { cursor.integer(as: Int32.self) }
}

extension UInt64: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> UInt64? { cursor.integer(as: UInt64.self) }
}

extension String: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> String? {
        cursor.text(ifNextIs: .string).map { UTF8Validation.string(ofChecked: $0.text, isASCII: $0.isASCII) }
    }
}

extension Bool: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Bool? {
        switch cursor.next()?.kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }
}

extension JSONValue: TapePlainValue {
    /// The value as `JSONValue(from:context:)` reads it for the general path.
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> JSONValue? {
        try? cursor.value()?.jsonValue()
    }
}

// MARK: Containers of plain values

extension Optional: TapePlainValue where Wrapped: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Wrapped?? {
        if cursor.peek()?.kind == .null {
            cursor.position += 1
            return .some(nil)
        }
        return Wrapped.plainValue(from: &cursor).map { .some($0) }
    }
}

extension Array: TapePlainValue where Element: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> [Element]? {
        guard let start = cursor.next(), start.kind == .arrayStart else { return nil }
        let count = Int(start.length)
        // The policy of `specializedArray(count:_:)`, written out: through it, these reads, which
        // recurse through nested arrays, made a retain per array (6 000 a decode of canada.json's
        // `[[[Double]]]`), and the point arrays here pay for in-place filling from 16 elements.
        let elements: [Element]
        if count == 0 {
            // Empty: no capacity to reserve. Reserving none still went through the making of a
            // new buffer (some 70 instructions), for citm_catalog.json's 8 685 empty `blockIds`.
            elements = []
        } else if count < 16 {
            // Short arrays (a point's coordinates) appended to: filling in place allocates through
            // an unspecialized entry that looks the storage type's metadata up on every call,
            // which cost a third more per point of a `[[[Double]]]`.
            var appended: [Element] = []
            appended.reserveCapacity(count)
            for _ in 0..<count {
                guard let element = Element.plainValue(from: &cursor) else { return nil }
                appended.append(element)
            }
            elements = appended
        } else {
            // Long ones filled in place at the count the start token records: no capacity
            // check per element.
            var complete = true
            elements = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                // A copy of the cursor, stored back once: stepped through the caller's (which
                // the closure holds by reference), each token's step was a store to memory and
                // each bound a load from it, 25 instructions more a point of canada.json.
                var local = cursor
                while initialized < count {
                    guard let element = Element.plainValue(from: &local) else {
                        complete = false
                        return
                    }
                    (buffer.baseAddress.unsafelyUnwrapped + initialized).initialize(to: element)
                    initialized += 1
                }
                cursor = local
            }
            guard complete else { return nil }
        }
        // The end token follows the last element.
        guard cursor.next()?.kind == .arrayEnd else { return nil }
        return elements
    }
}

extension Dictionary: TapePlainValue where Key == String, Value: TapePlainValue {
    /// The members with their keys as written; a key given twice gives up (see
    /// `TapePlainCursor.map(_:)`).
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> [String: Value]? {
        cursor.map(Value.plainValue)
    }
}

/// Reads a vector of exactly `count` scalars at `cursor`, each handed to `body` with its index;
/// `false` unless the value there is an array of exactly that many plain scalars. (The vectors'
/// reads are inlined into the array loop that calls them: called, a point of canada.json cost
/// 20 instructions more.)
@inlinable @inline(__always)
func tapeVectorElements<Scalar: TapePlainValue>(
    _ cursor: inout TapePlainCursor,
    count: Int,
    as type: Scalar.Type,
    _ body: (Int, Scalar) -> Void
) -> Bool {
    guard let start = cursor.next(), start.kind == .arrayStart, Int(start.length) == count else { return false }
    for index in 0..<count {
        guard let scalar = Scalar.plainValue(from: &cursor) else { return false }
        body(index, scalar)
    }
    return cursor.next()?.kind == .arrayEnd
}

extension SIMD2: TapePlainValue where Scalar: TapePlainValue {
    @inlinable @inline(__always)
    public static func plainValue(from cursor: inout TapePlainCursor) -> SIMD2<Scalar>? {
        var vector = SIMD2<Scalar>()
        return tapeVectorElements(&cursor, count: 2, as: Scalar.self) { vector[$0] = $1 } ? vector : nil
    }
}

extension SIMD3: TapePlainValue where Scalar: TapePlainValue {
    @inlinable @inline(__always)
    public static func plainValue(from cursor: inout TapePlainCursor) -> SIMD3<Scalar>? {
        var vector = SIMD3<Scalar>()
        return tapeVectorElements(&cursor, count: 3, as: Scalar.self) { vector[$0] = $1 } ? vector : nil
    }
}

extension SIMD4: TapePlainValue where Scalar: TapePlainValue {
    @inlinable @inline(__always)
    public static func plainValue(from cursor: inout TapePlainCursor) -> SIMD4<Scalar>? {
        var vector = SIMD4<Scalar>()
        return tapeVectorElements(&cursor, count: 4, as: Scalar.self) { vector[$0] = $1 } ? vector : nil
    }
}
