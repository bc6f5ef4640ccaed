// A `Decoder` over one value on a JSONTape.
//
// Why a decoder of its own rather than handing Foundation a dictionary: the tape already holds the
// value's tokens, so a keyed container looks members up by comparing key bytes in place, scalars
// are converted straight from their text, and nothing is built that the model does not ask for.
// Errors are the standard `DecodingError`s, with the coding path, the position in the input in
// the description, and the `JSONError` as the underlying error.

import Foundation

/// Decodes `Decodable` values from a ``JSONTape/Value``.
///
/// ```swift
/// struct Point: Decodable { var x: Double; var y: Double }
/// let tape = try JSONParser.parse(Array(#"{"x": 1, "y": 2.5}"#.utf8))
/// let point = try tape.value(at: tape.startIndex).decode(Point.self)
/// ```
public struct TapeDecoder: Decoder {
    /// The value being decoded.
    public let value: JSONTape.Value
    /// The options and the state of the decode this decoder belongs to.
    public let context: TapeDecodingContext
    /// The path to the parent value and the key of this one, kept apart so that decoding a nested
    /// scalar builds no array; ``codingPath`` joins them when asked (mostly for errors).
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?

    /// Creates a decoder for `value`, starting a decode of its own.
    public init(
        value: JSONTape.Value,
        options: TapeDecodingOptions = TapeDecodingOptions(),
        codingPath: [any CodingKey] = []
    ) {
        self.init(value: value, context: TapeDecodingContext(options: options), codingPath: codingPath)
    }

    /// Creates a decoder for `value` within the decode that `context` belongs to, as a type that
    /// reads tapes itself (``JSONTapeDecodable``) does for its nested values.
    public init(value: JSONTape.Value, context: TapeDecodingContext, codingPath: [any CodingKey] = []) {
        self.value = value
        self.context = context
        self.parentPath = codingPath
        self.key = nil
    }

    /// Creates a decoder for the value of `key` in a container at `parentPath`. Cheaper than
    /// passing the joined path: the array is built only if someone asks for ``codingPath``.
    package init(value: JSONTape.Value, context: TapeDecodingContext, parentPath: [any CodingKey], key: any CodingKey) {
        self.value = value
        self.context = context
        self.parentPath = parentPath
        self.key = key
    }

    /// The options in force.
    public var options: TapeDecodingOptions { context.options }

    /// The key of this value in its container, if it has one.
    var codingKey: (any CodingKey)? { key }

    public var codingPath: [any CodingKey] {
        guard let key else { return parentPath }
        return parentPath + [key]
    }

    public var userInfo: [CodingUserInfoKey: Any] { context.options.userInfo }

    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard value.kind == .objectStart else { throw mismatch(expected: "an object", type: [String: Any].self) }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self))
    }

    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard value.kind == .arrayStart else { throw mismatch(expected: "an array", type: [Any].self) }
        return TapeUnkeyedContainer(decoder: self)
    }

    public func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleValueContainer(decoder: self)
    }

    /// A decoder for a nested value.
    func nested(_ value: JSONTape.Value, key: any CodingKey) -> TapeDecoder {
        TapeDecoder(value: value, context: context, parentPath: codingPath, key: key)
    }

    /// The "what, where" sentence ending of every error: `at line 3, column 7`.
    func location(of value: JSONTape.Value) -> String {
        value.locationPhrase
    }

    func mismatch(expected: String, type: Any.Type) -> DecodingError {
        let found = value.kind.nounPhrase
        if value.kind == .null {
            return DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Expected \(expected) but found null \(location(of: value))."
                )
            )
        }
        return DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected \(expected) but found \(found) \(location(of: value))."
            )
        )
    }

    /// Wraps a `JSONError` from a scalar conversion as the `DecodingError` Foundation would throw.
    func convert(_ error: JSONError, type: Any.Type) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "\(error.message.dropLast()) \(location(of: value)).",
            underlyingError: error
        )
        if error.kind == .typeMismatch {
            if value.kind == .null { return .valueNotFound(type, context) }
            return .typeMismatch(type, context)
        }
        return .dataCorrupted(context)
    }

    // MARK: Scalars

    /// Decodes the value as `T` through the fastest path that fits, for the containers here and for
    /// decoders built on this one (such as JSON:API's resource decoder). Scalars Sluice knows are
    /// read straight from the tape (types compared by metatype identity, not dynamic casts);
    /// arrays, optionals and types that read tapes themselves (``JSONTapeDecodable``) skip
    /// Codable's containers; everything else goes through `T(from:)`.
    package func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // No `T?` here: in unspecialized code a local of type `T?` costs a metadata lookup for
        // every value, hooks or not.
        if context.hasTypeHooks { return try decodeWithHooks(type) }
        return try decodeValueSkippingHooks(type)
    }

    /// `decodeValue` after converters and uniquing have had their say.
    func decodeValueSkippingHooks<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            if let scalar = TapeScalar(T.self) {
                return try Self.readScalar(scalar, from: value, context: context, as: T.self)
            }
            if T.self == Date.self { return _identityCast(try decodeDate(), to: T.self) }
            if T.self == URL.self {
                return try convertString(describedAs: "URL string") { URL(string: $0) } as! T
            }
            if T.self == Data.self { return _identityCast(try decodeData(), to: T.self) }
            // A class decoded through a base class's metatype (`Child.self as Base.Type`) is
            // the class the metatype names, as with Foundation: only Codable knows it.
            if ObjectIdentifier(type) != ObjectIdentifier(T.self) { return try decodeGenerally(type) }
            switch context.state.compositeKind(of: T.self) {
            case .shortcut(let shortcut):
                return try readShortcut(shortcut, as: T.self)
            case .tapeDecodable(let tapeType):
                do {
                    return try readDirectly(tapeType, as: T.self)
                } catch let error as DecodingError {
                    throw error.prefixingCodingPath(codingPath)
                }
            case .codable:
                break
            }
            return try decodeGenerally(type)
        } catch let error as JSONError {
            throw convert(error, type: type)
        }
    }

    /// A scalar read straight from the tape; on a type mismatch, the conversions the options allow.
    /// Static, so the keyed and unkeyed containers call it without making a nested decoder.
    @inline(__always)
    static func readScalar<T>(
        _ scalar: TapeScalar,
        from value: JSONTape.Value,
        context: TapeDecodingContext,
        as type: T.Type
    ) throws(JSONError) -> T {
        do {
            return try scalar.read(from: value, as: T.self)
        } catch {
            guard context.readsScalarsLeniently, error.kind == .typeMismatch else { throw error }
            return try readConverted(scalar, from: value, options: context.options, as: T.self, after: error)
        }
    }

    /// A string converted by `convert`, as Foundation's JSONDecoder reads `URL` and `Data`; a string
    /// it refuses is `dataCorrupted`.
    func convertString<R>(describedAs description: String, _ convert: (String) -> R?) throws -> R {
        let text = try value.string()
        guard let converted = convert(text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Invalid \(description) \(String(reflecting: text)) \(location(of: value))."
                )
            )
        }
        return converted
    }

    /// Calls a tape-reading type's initializer with the existential metatype opened, so the value
    /// comes back as itself: no existential box (an allocation for any value over three words, such
    /// as a relationship) and no dynamic cast back to `T`.
    private func readDirectly<U: JSONTapeDecodable, T>(_ type: U.Type, as: T.Type) throws -> T {
        // Safe because the caller found `T.self` to be `U.self`.
        _identityCast(try U(from: value, context: context), to: T.self)
    }

    /// Reads an array or optional through its shortcut, the metatype opened as in `readDirectly`.
    private func readShortcut<U: TapeContainerShortcut, T>(_ type: U.Type, as: T.Type) throws -> T {
        // Safe because the caller found `T.self` to be `U.self`.
        _identityCast(try U.read(from: self), to: T.self)
    }

    /// A member's value read as `T` the way the keyed container reads it (scalars straight from
    /// the tape, the rest through a nested decoder), for a container whose own path is empty:
    /// a type that reads tapes itself restarts the path, and its caller puts the rest in front.
    static func readMember<T: Decodable>(
        _ type: T.Type,
        from value: JSONTape.Value,
        key: any CodingKey,
        context: TapeDecodingContext
    ) throws -> T {
        do {
            if !context.hasTypeHooks, let scalar = TapeScalar(T.self) {
                return try readScalar(scalar, from: value, context: context, as: T.self)
            }
        } catch {
            throw TapeDecoder(value: value, context: context, parentPath: [], key: key).convert(error, type: type)
        }
        return try TapeDecoder(value: value, context: context, parentPath: [], key: key).decodeValue(type)
    }

    static func decodeFloat(_ value: JSONTape.Value) throws(JSONError) -> Float {
        try value.float()
    }
}

extension JSONTape.Value {
    /// Decodes a `Decodable` value from this value.
    ///
    /// - Throws: `DecodingError`, with the position in the input in its description.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        options: TapeDecodingOptions = TapeDecodingOptions()
    ) throws -> T {
        try TapeDecoder(value: self, options: options).decodeValue(type)
    }

    /// Decodes a `Decodable` value from this value within the decode `context` belongs to.
    public func decode<T: Decodable>(_ type: T.Type = T.self, context: TapeDecodingContext) throws -> T {
        try TapeDecoder(value: self, context: context).decodeValue(type)
    }

    /// `at line 3, column 7`, or `in the replayed value` for values replayed from Foundation
    /// containers, which have no place in any input.
    package var locationPhrase: String {
        let position = self.position
        guard position.line > 0 else { return "in the replayed value" }
        return "at line \(position.line), column \(position.column)"
    }
}

/// The member lookups of one keyed container, apart from the container's `Key` type.
///
/// Why a separate, non-generic class: the container's methods run unspecialized (called through
/// `KeyedDecodingContainer`'s box), and there any use of `TapeKeyedContainer<Key>` itself (copying
/// it into a closure, calling its methods) looks its generic metadata up at run time: hundreds of
/// instructions per property decoded. Code here knows its own type statically. A class also lets
/// lookups, which `KeyedDecodingContainerProtocol` does not mark `mutating`, move the cursor; the
/// container is boxed on the heap by `KeyedDecodingContainer` either way.
final class KeyedLookup {
    let decoder: TapeDecoder
    /// The container's coding path, joined once for all its nested values.
    private(set) lazy var codingPath: [any CodingKey] = decoder.codingPath

    /// Members by the coding key name they stand for, only under Foundation's custom key strategy,
    /// whose closure should run once per member, not once per comparison.
    private let convertedIndex: [String: JSONTape.Value]?
    /// Where the next lookup starts: the key token after the member found last.
    ///
    /// Why: a synthesized `init(from:)` asks for keys in declaration order, and encoders write
    /// members in that order too, so searching on from the last match finds most members in one
    /// comparison, and a `Dictionary` (which asks for `allKeys` in member order) decodes in linear
    /// time without building an index. The search wraps around, so any order still finds every
    /// member.
    private var cursor: Int

    init(decoder: TapeDecoder) {
        self.decoder = decoder
        cursor = decoder.value.index + 1
        guard case .custom(let transform) = decoder.options.keyStrategy,
            let members = try? decoder.value.members()
        else {
            convertedIndex = nil
            return
        }
        var index: [String: JSONTape.Value] = [:]
        for member in members {
            let converted = transform(decoder.codingPath + [AnyCodingKey(member.key)]).stringValue
            if index[converted] == nil { index[converted] = member.value }
        }
        convertedIndex = index
    }

    /// The value of the member that stands for `key`, found by comparing bytes (or through the
    /// index), following a key path for ``JSONKeyPathCodingKey``s, and put to the member check.
    func member(for key: any CodingKey) throws -> JSONTape.Value? {
        let name = key.stringValue
        guard let value = lookUpFromCursor(name) ?? lookUpPath(key, name) else {
            return nil
        }
        if decoder.context.checksMembers { return try check(value, for: key) }
        return value
    }

    /// The member of this container's object named `name` (a coding key's string value) under the
    /// key strategy, searched from the cursor on; an exact spelling wins over others.
    private func lookUpFromCursor(_ name: String) -> JSONTape.Value? {
        let strategy = decoder.options.keyStrategy
        // Names converted by the caller's function were indexed once per object (`convertedIndex`).
        if case .custom = strategy { return convertedIndex?[name] }
        return strategy.member(forKey: name) { scan($0) }
    }

    /// The first member from the cursor on (wrapping around) whose name satisfies `matches`; moves
    /// the cursor to it. At it, not past it: asking for the same member again (`contains` then
    /// `decode`, `decodeNil` then `decode`) costs one comparison instead of a trip around the
    /// object, and the next member in declaration order costs one more comparison.
    private func scan(_ matches: (UnsafeRawBufferPointer) -> Bool) -> JSONTape.Value? {
        let object = decoder.value
        let tape = object.tape
        let first = object.index + 1
        let end = object.endIndex - 1
        let start = cursor
        var position = start
        var limit = end
        var wrapped = false
        while true {
            while position < limit {
                let valueEnd = tape.endOfValue(at: position + 1) ?? end
                if tape.withUnsafeText(of: tape[position], matches) {
                    cursor = position
                    return JSONTape.Value(tape: tape, index: position + 1, endIndex: valueEnd)
                }
                position = valueEnd
            }
            if wrapped || start == first { return nil }
            wrapped = true
            position = first
            limit = start
        }
    }

    /// The member named `name` under the key strategy in another object (a key path's steps).
    private func lookUp(_ name: String, in object: JSONTape.Value) -> JSONTape.Value? {
        if object.index == decoder.value.index { return lookUpFromCursor(name) }
        return decoder.options.keyStrategy.firstMember(of: object, forKey: name)
    }

    /// For a key path (`location.latitude`), the value at the end of the path, if every step is
    /// there. A member named with the whole dotted name is found first, by `lookUp`.
    private func lookUpPath(_ key: any CodingKey, _ name: String) -> JSONTape.Value? {
        guard let steps = Self.pathSteps(of: key, name) else { return nil }
        var value = decoder.value
        for step in steps {
            guard let next = lookUp(String(step), in: value) else {
                return nil
            }
            value = next
        }
        return value
    }

    /// The steps of a key path key, or `nil` for an ordinary key. The dynamic cast is paid only for
    /// keys with a dot in their name.
    static func pathSteps(of key: any CodingKey, _ name: String) -> [Substring]? {
        guard name.utf8.contains(UInt8(ascii: ".")), key is any JSONKeyPathCodingKey else { return nil }
        return name.components(separatedByScalar: ".")
    }

    /// Applies the ignored keys and the member check to a member found for `key`.
    func check(_ value: JSONTape.Value, for key: any CodingKey) throws -> JSONTape.Value? {
        try decoder.context.check(value, for: key, at: codingPath)
    }

    func contains(_ key: any CodingKey) -> Bool {
        // A member the check rejects with an error counts as present, so that decoding it reports
        // the error instead of a missing key.
        do { return try member(for: key) != nil || fallbackDecoder(for: key) != nil } catch { return true }
    }

    /// The decoder for the member standing for `key` (or, when updating, for its current value).
    func require(_ key: any CodingKey) throws -> TapeDecoder {
        if let value = try member(for: key) { return nested(value, key: key) }
        if let fallback = fallbackDecoder(for: key) { return fallback }
        throw missing(key)
    }

    /// `keyNotFound` for `key`, naming the step of a key path that is missing.
    func missing(_ key: any CodingKey) -> DecodingError {
        let name = key.stringValue
        if let steps = Self.pathSteps(of: key, name) {
            var value = decoder.value
            var path = codingPath
            for (offset, step) in steps.enumerated() {
                guard let next = lookUp(String(step), in: value),
                    next.kind == .objectStart
                        || offset == steps.count - 1
                else {
                    let found = lookUp(String(step), in: value)
                    let reason =
                        found.map { "is \($0.kind.nounPhrase) \($0.locationPhrase), not an object" }
                        ?? "is missing from the object \(value.locationPhrase)"
                    return DecodingError.keyNotFound(
                        key,
                        DecodingError.Context(
                            codingPath: path,
                            debugDescription:
                                "Step \(offset + 1) of the key path \(String(reflecting: name)), \(String(reflecting: String(step))), \(reason)."
                        )
                    )
                }
                value = next
                path.append(AnyCodingKey(String(step)))
            }
        }
        return DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription:
                    "No member \(String(reflecting: name)) in the object \(decoder.location(of: decoder.value))."
            )
        )
    }

    @inline(__always)
    func decodeMember<T: Decodable>(_ type: T.Type, _ key: any CodingKey) throws -> T {
        guard let value = try member(for: key) else {
            guard let fallback = fallbackDecoder(for: key) else { throw missing(key) }
            return try fallback.decodeValue(type)
        }
        return try read(type, from: value, key: key)
    }

    @inline(__always)
    func decodeMemberIfPresent<T: Decodable>(_ type: T.Type, _ key: any CodingKey) throws -> T? {
        guard let value = try member(for: key) else {
            guard let fallback = fallbackDecoder(for: key) else { return nil }
            return fallback.value.isNull ? nil : try fallback.decodeValue(type)
        }
        return value.isNull ? nil : try read(type, from: value, key: key)
    }

    /// When updating a value (``StreamingJSONDecoder/update(_:from:)``), a decoder for the current
    /// value of a property the payload lacks: found in the encoded current value by coding path,
    /// and read with the options it was encoded with.
    func fallbackDecoder(for key: any CodingKey) -> TapeDecoder? {
        guard let fallback = decoder.context.fallback else { return nil }
        var value = fallback.root
        for step in codingPath + [key] {
            // Arrays in a payload replace the current ones whole: no element takes values from
            // the element that had its index.
            guard value.kind == .objectStart, let next = value[step.stringValue] else { return nil }
            value = next
        }
        return TapeDecoder(value: value, context: fallback.context, parentPath: codingPath, key: key)
    }

    /// Scalars straight from the tape; a nested decoder (and its coding path) only for the rest.
    @inline(__always)
    private func read<T: Decodable>(_ type: T.Type, from value: JSONTape.Value, key: any CodingKey) throws -> T {
        do {
            let context = decoder.context
            if !context.hasTypeHooks, let scalar = TapeScalar(T.self) {
                return try TapeDecoder.readScalar(scalar, from: value, context: context, as: T.self)
            }
        } catch {
            throw nested(value, key: key).convert(error, type: type)
        }
        return try nested(value, key: key).decodeValue(type)
    }

    /// A decoder for a member's value, under this container's path.
    func nested(_ value: JSONTape.Value, key: any CodingKey) -> TapeDecoder {
        TapeDecoder(value: value, context: decoder.context, parentPath: codingPath, key: key)
    }
}

struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let lookup: KeyedLookup
    var decoder: TapeDecoder { lookup.decoder }
    var codingPath: [any CodingKey] { lookup.codingPath }

    init(decoder: TapeDecoder) {
        lookup = KeyedLookup(decoder: decoder)
    }

    func contains(_ key: Key) -> Bool { lookup.contains(key) }

    var allKeys: [Key] {
        guard let members = try? decoder.value.members() else { return [] }
        let strategy = decoder.options.keyStrategy
        // Each name once, as Foundation's lists the keys of the dictionary it made: members
        // written twice, or two spellings the strategy converts to one name, are one key.
        var seen = Set<String>()
        return members.compactMap { member in
            let name = strategy.keyName(forMember: member.key)
            guard seen.insert(name).inserted else { return nil }
            return Key(stringValue: name)
        }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try lookup.require(key).value.isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try lookup.decodeMember(type, key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try lookup.decodeMember(type, key)
    }

    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try lookup.require(key).wideInteger(type)
    }

    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try lookup.require(key).wideInteger(type)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try lookup.decodeMemberIfPresent(type, key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try lookup.require(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try lookup.require(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = AnyCodingKey("super")
        return lookup.nested(decoder.value["super"] ?? absentMember(), key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        if let value = try lookup.member(for: key) { return lookup.nested(value, key: key) }
        if let fallback = lookup.fallbackDecoder(for: key) { return fallback }
        return lookup.nested(absentMember(), key: key)
    }

    /// What a super decoder for an absent member reads: `null`, as Foundation's decoder gives one
    /// at null there rather than throwing `keyNotFound` (a superclass whose members are all
    /// optional decodes from it). On a tape of its own, placed where the object starts, so that
    /// errors reading it point there.
    private func absentMember() -> JSONTape.Value {
        var builder = JSONTape.Builder(position: decoder.value.position)
        builder.appendLiteral(.null)
        // Safe because the tape holds exactly that one value, at its first index.
        return try! builder.result.value(at: builder.result.startIndex)
    }
}

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
                    debugDescription:
                        "The array \(decoder.location(of: decoder.value)) has only \(currentIndex) elements."
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

struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TapeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type)
    }

    // 128-bit integers: the protocol's defaults refuse them; `Int128(from:)` lands here.
    func decode(_ type: Int128.Type) throws -> Int128 { try decoder.wideInteger(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.wideInteger(type) }
}

extension TapeDecoder {
    /// A 128-bit integer read from the number's text, with the decoder's error for a bad one.
    func wideInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        do {
            return try value.integer(as: T.self)
        } catch {
            throw convert(error, type: T.self)
        }
    }
}

/// The scalar types the tape decoder reads straight from the tape, with no nested decoder and no
/// coding path built.
///
/// Why an enum found by comparing metatypes rather than a generic function returning `T?`: the
/// Codable containers call the decoder from code that is not specialized for `T`, and there every
/// use of `T?` looks its type metadata up at run time (hundreds of instructions per value). The
/// metatype comparisons cost a few each and fold away wherever `T` is known.
enum TapeScalar {
    case string, int, double, bool, int64, float, int32, uint64, uint, int16, int8, uint32, uint16, uint8, decimal

    @inline(__always)
    init?(_ type: Any.Type) {
        let id = ObjectIdentifier(type)
        switch id {
        case ObjectIdentifier(String.self): self = .string
        case ObjectIdentifier(Int.self): self = .int
        case ObjectIdentifier(Double.self): self = .double
        case ObjectIdentifier(Bool.self): self = .bool
        case ObjectIdentifier(Int64.self): self = .int64
        case ObjectIdentifier(Float.self): self = .float
        case ObjectIdentifier(Int32.self): self = .int32
        case ObjectIdentifier(UInt64.self): self = .uint64
        case ObjectIdentifier(UInt.self): self = .uint
        case ObjectIdentifier(Int16.self): self = .int16
        case ObjectIdentifier(Int8.self): self = .int8
        case ObjectIdentifier(UInt32.self): self = .uint32
        case ObjectIdentifier(UInt16.self): self = .uint16
        case ObjectIdentifier(UInt8.self): self = .uint8
        case ObjectIdentifier(Decimal.self): self = .decimal
        default: return nil
        }
    }

    /// The scalar case for `Optional<S>`, for the five scalars optional elements hold most; `nil`
    /// for any other type.
    @inline(__always)
    init?(optional type: Any.Type) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String?.self): self = .string
        case ObjectIdentifier(Int?.self): self = .int
        case ObjectIdentifier(Double?.self): self = .double
        case ObjectIdentifier(Bool?.self): self = .bool
        case ObjectIdentifier(Int64?.self): self = .int64
        default: return nil
        }
    }

    /// Reads the value as `T`, which must be the type this case was made from.
    @inline(__always)
    func read<T>(from value: JSONTape.Value, as type: T.Type) throws(JSONError) -> T {
        // `_identityCast` checks the types are the same and reinterprets; no dynamic cast.
        switch self {
        case .string: return _identityCast(try value.string(), to: T.self)
        case .int: return _identityCast(try value.integer(as: Int.self), to: T.self)
        case .double: return _identityCast(try value.double(), to: T.self)
        case .bool: return _identityCast(try value.bool(), to: T.self)
        case .int64: return _identityCast(try value.integer(as: Int64.self), to: T.self)
        case .float: return _identityCast(try TapeDecoder.decodeFloat(value), to: T.self)
        case .int32: return _identityCast(try value.integer(as: Int32.self), to: T.self)
        case .uint64: return _identityCast(try value.integer(as: UInt64.self), to: T.self)
        case .uint: return _identityCast(try value.integer(as: UInt.self), to: T.self)
        case .int16: return _identityCast(try value.integer(as: Int16.self), to: T.self)
        case .int8: return _identityCast(try value.integer(as: Int8.self), to: T.self)
        case .uint32: return _identityCast(try value.integer(as: UInt32.self), to: T.self)
        case .uint16: return _identityCast(try value.integer(as: UInt16.self), to: T.self)
        case .uint8: return _identityCast(try value.integer(as: UInt8.self), to: T.self)
        case .decimal: return _identityCast(try value.decimalAsFoundationReads(), to: T.self)
        }
    }
}

/// The coding key of an array element. Why not `AnyCodingKey(intValue:)`: that one holds a
/// `String` too, which makes it too big for an existential's inline buffer, so every element's
/// decoder would allocate a box for its key; this one is a single word.
///
/// Its name is `Index 0`, `Index 1`, as Foundation's coders name array elements in coding paths
/// (what code that prints or compares paths expects); its `intValue` is the index.
struct ElementKey: CodingKey {
    let index: Int

    init(_ index: Int) { self.index = index }
    init?(stringValue: String) {
        let digits = stringValue.hasPrefix("Index ") ? stringValue.dropFirst(6) : Substring(stringValue)
        guard let index = Int(digits) else { return nil }
        self.index = index
    }
    init?(intValue: Int) { index = intValue }

    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

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
    /// ``mapElements(_:)`` for callers specialized for `E`: the array grows by `reserveCapacity` and
    /// `append`, which a specialized caller compiles with `[E]`'s storage type known. (The
    /// uninitialized-capacity initializer `mapElements` uses calls into the standard library,
    /// which looks the storage type up at run time: some 800 instructions an array, more than
    /// reading `[true, false, null]`.)
    @inline(__always)
    func mapElementsSpecialized<E>(_ transform: (JSONTape.Value, Int) throws -> E) rethrows -> [E] {
        precondition(kind == .arrayStart, "mapElements needs an array")
        let count = self.count
        var elements: [E] = []
        elements.reserveCapacity(count)
        var cursor = index + 1
        while elements.count < count {
            let end = tape.endOfValue(at: cursor) ?? endIndex - 1
            elements.append(try transform(JSONTape.Value(tape: tape, index: cursor, endIndex: end), elements.count))
            cursor = end
        }
        return elements
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

/// A type that reads itself straight from a tape value, skipping Codable's containers when a
/// Sluice decoder decodes it. Its `init(from: Decoder)` still serves other decoders.
public protocol JSONTapeDecodable: Decodable {
    /// Reads the value. Throw `DecodingError`s with coding paths relative to `value`; the decoder
    /// prefixes its own path.
    init(from value: JSONTape.Value, context: TapeDecodingContext) throws
}

extension JSONValue: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        self = try value.jsonValue()
    }
}

extension DecodingError {
    /// The same error with `prefix` put before its coding path.
    package func prefixingCodingPath(_ prefix: [any CodingKey]) -> DecodingError {
        guard !prefix.isEmpty else { return self }
        return mappingContext { context in
            Context(
                codingPath: prefix + context.codingPath,
                debugDescription: context.debugDescription,
                underlyingError: context.underlyingError
            )
        }
    }

    /// The same error with its context changed by `transform`.
    package func mappingContext(_ transform: (Context) -> Context) -> DecodingError {
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, transform(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, transform(context))
        case .keyNotFound(let key, let context): return .keyNotFound(key, transform(context))
        case .dataCorrupted(let context): return .dataCorrupted(transform(context))
        @unknown default: return self
        }
    }
}

extension TapeDecodingContext {
    /// Applies the ignored keys and the member check to a member found for `key` in the object at
    /// `codingPath`: the value, or `nil` when it is to be treated as absent. Shared by every keyed
    /// container, the JSON:API resource decoder's included.
    package func check(
        _ value: JSONTape.Value,
        for key: any CodingKey,
        at codingPath: [any CodingKey]
    ) throws -> JSONTape.Value? {
        if options.ignoredKeys.contains(key.stringValue) { return nil }
        guard let memberCheck = options.memberCheck else { return value }
        let accepted: Bool
        do {
            accepted = try memberCheck(JSONMemberCheck(codingPath: codingPath, key: key, value: value))
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription:
                        "The member for \(String(reflecting: key.stringValue)) \(value.locationPhrase) was rejected: \(error)",
                    underlyingError: error
                )
            )
        }
        return accepted ? value : nil
    }
}
