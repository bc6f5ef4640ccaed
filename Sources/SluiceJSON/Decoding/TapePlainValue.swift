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
    @usableFromInline let tokens: UnsafePointer<JSONToken>
    @usableFromInline let tokenCount: Int
    /// The arena's first byte, and the absolute offset it stands for.
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let arenaBase: Int
    /// The absolute index of `tokens[0]`, for reads that need a `JSONTape.Value`.
    @usableFromInline let firstIndex: Int
    @usableFromInline let storage: Unmanaged<TapeStorage>
    /// The next token to read, counted from `tokens`.
    @usableFromInline var position: Int

    @inlinable
    init(storage: Unmanaged<TapeStorage>, buffer: UnsafeMutablePointer<TapeBuffer>, index: Int) {
        self.storage = storage
        tokens = UnsafePointer(buffer.pointee.tokens)
        tokenCount = buffer.pointee.tokenCount
        bytes = UnsafePointer(buffer.pointee.bytes)
        arenaBase = buffer.pointee.arenaBase
        firstIndex = buffer.pointee.firstIndex
        position = index - buffer.pointee.firstIndex
    }

    /// The token at the cursor, the cursor moved past it; `nil` past the tape's end (which a
    /// complete value never reaches: the bound is what makes the addresses safe to read).
    @inlinable @inline(__always)
    mutating func next() -> JSONToken? {
        guard position >= 0, position < tokenCount else { return nil }
        defer { position += 1 }
        return tokens[position]
    }

    /// The token at the cursor, without moving it.
    @inlinable @inline(__always)
    func peek() -> JSONToken? {
        guard position >= 0, position < tokenCount else { return nil }
        return tokens[position]
    }

    /// The text of a key, string or number token.
    @inlinable @inline(__always)
    func text(of token: JSONToken) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes + (token.payload - arenaBase), count: Int(token.length))
    }

    /// The next token as a `Double`, as the scalar reader converts it. A number with a point or
    /// an exponent is converted already (its trailer holds the bits); others out of line.
    @inlinable @inline(__always)
    mutating func double() -> Double? {
        guard let token = next(), token.kind == .number else { return nil }
        let text = text(of: token)
        // The trailer after the text: `sluice_number_digits`, whose flags stand at byte 10.
        let trailer = text.baseAddress.unsafelyUnwrapped + text.count
        let flags = trailer.load(fromByteOffset: 10, as: UInt8.self)
        if flags & Self.convertedFlag != 0 {
            let magnitude = Double(bitPattern: trailer.loadUnaligned(as: UInt64.self))
            return flags & Self.negativeFlag != 0 ? -magnitude : magnitude
        }
        return Self.unconvertedDouble(text)
    }

    /// The next token as an integer of type `T`, as the scalar reader converts it: in line for
    /// the usual integer (at most 19 digits, no fraction or exponent), else out of line.
    @inlinable @inline(__always)
    mutating func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        guard let token = next(), token.kind == .number else { return nil }
        let text = text(of: token)
        let trailer = text.baseAddress.unsafelyUnwrapped + text.count
        let flags = trailer.load(fromByteOffset: 10, as: UInt8.self)
        if flags & (Self.exactFlag | Self.integerFlag | Self.negativeFlag) == Self.exactFlag | Self.integerFlag {
            if let value = T(exactly: trailer.loadUnaligned(as: UInt64.self)) { return value }
        }
        return Self.integer(text, as: T.self)
    }

    /// The next token as a `String`, when it is a string.
    @inlinable
    mutating func string() -> String? {
        guard let token = next(), token.kind == .string else { return nil }
        return Self.string(text(of: token), isASCII: token.isASCII)
    }

    /// The next value as a `JSONTape.Value` (for reads that need one), the cursor moved past it.
    @inlinable
    mutating func value() -> JSONTape.Value? {
        guard let token = peek() else { return nil }
        let index = firstIndex + position
        let end: Int
        switch token.kind {
        case .objectStart, .arrayStart:
            guard token.payload >= 0 else { return nil }
            end = token.payload + 1
        case .key, .objectEnd, .arrayEnd: return nil
        default: end = index + 1
        }
        position = end - firstIndex
        return JSONTape.Value(JSONTape(storage: storage.takeUnretainedValue()), from: index, to: end)
    }

    // The trailer's flags (CSluiceTape's SLUICE_NUMBER_*, which ParserState checks these
    // against), spelled here because inlinable code cannot see that module.
    @inlinable static var exactFlag: UInt8 { 1 }
    @inlinable static var negativeFlag: UInt8 { 2 }
    @inlinable static var integerFlag: UInt8 { 4 }
    @inlinable static var convertedFlag: UInt8 { 8 }

    @usableFromInline
    static func unconvertedDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        try? JSONNumberText.double(tokenText: text)
    }

    @usableFromInline
    static func integer<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as type: T.Type) -> T? {
        try? JSONNumberText.integer(tokenText: text, as: T.self)
    }

    @usableFromInline
    static func float(_ text: UnsafeRawBufferPointer) -> Float? {
        try? JSONNumberText.float(tokenText: text)
    }

    @usableFromInline
    static func string(_ text: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        UTF8Validation.string(ofChecked: text, isASCII: isASCII)
    }
}

extension JSONModelReader {
    /// A cursor at the member value `member` of this reader's tape.
    @inlinable
    func plainCursor(at member: JSONTape.Value) -> TapePlainCursor {
        TapePlainCursor(storage: tapeStorage, buffer: buffer, index: member.index)
    }

    /// Reads the required property `field`, a nested array, vector or map of scalars: straight
    /// from the tape when the member is plain (see `TapePlainValue`), else as the general path
    /// reads it. Inlinable, so that each initializer gets the read specialized for its type.
    @inlinable
    public func decode<T: TapePlainValue & Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        if !hasTypeHooks {
            var cursor = plainCursor(at: member)
            if let plain = T.plainValue(from: &cursor) { return plain }
        }
        return try read(type, from: member, field: field)
    }

    /// Reads the optional property `field` (see ``decode(_:at:)``): `nil` when the object has no
    /// member for it or the member is `null`.
    @inlinable
    public func decodeIfPresent<T: TapePlainValue & Decodable>(_ type: T.Type = T.self, at field: Int) throws -> T? {
        guard let member = member(field), !member.isNull else { return nil }
        if !hasTypeHooks {
            var cursor = plainCursor(at: member)
            if let plain = T.plainValue(from: &cursor) { return plain }
        }
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
    public static func plainValue(from cursor: inout TapePlainCursor) -> Double? { cursor.double() }
}

extension Float: TapePlainValue {
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> Float? {
        guard let token = cursor.next(), token.kind == .number else { return nil }
        return TapePlainCursor.float(cursor.text(of: token))
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
    public static func plainValue(from cursor: inout TapePlainCursor) -> String? { cursor.string() }
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
        let elements: [Element]
        if count < 16 {
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
                while initialized < count {
                    guard let element = Element.plainValue(from: &cursor) else {
                        complete = false
                        return
                    }
                    (buffer.baseAddress.unsafelyUnwrapped + initialized).initialize(to: element)
                    initialized += 1
                }
            }
            guard complete else { return nil }
        }
        // The end token follows the last element.
        guard cursor.next()?.kind == .arrayEnd else { return nil }
        return elements
    }
}

extension Dictionary: TapePlainValue where Key == String, Value: TapePlainValue {
    /// The members with their keys as written (no key strategy applies to a dictionary's keys, as
    /// in Foundation); a key given twice gives up, for the general path to decide.
    @inlinable
    public static func plainValue(from cursor: inout TapePlainCursor) -> [String: Value]? {
        guard let start = cursor.next(), start.kind == .objectStart else { return nil }
        let count = Int(start.length)
        var result: [String: Value] = [:]
        result.reserveCapacity(count)
        for _ in 0..<count {
            guard let key = cursor.next(), key.kind == .key,
                let value = Value.plainValue(from: &cursor),
                result.updateValue(value, forKey: TapePlainCursor.string(cursor.text(of: key), isASCII: key.isASCII))
                    == nil
            else { return nil }
        }
        guard cursor.next()?.kind == .objectEnd else { return nil }
        return result
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
