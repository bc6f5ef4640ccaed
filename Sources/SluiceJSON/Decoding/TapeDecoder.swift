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

    /// Decodes `value` as the value at `index` of a stream (an element of a streamed array, a
    /// value of JSON Lines) under `context`, which the whole stream shares: parent links the
    /// value left waiting are dropped, since its parent is not streamed and they would pile up
    /// value after value.
    static func decodeStreamed<T: Decodable>(
        _ type: T.Type,
        from value: JSONTape.Value,
        at index: Int,
        parentPath: [any CodingKey],
        context: TapeDecodingContext
    ) throws -> T {
        let decoded = try TapeDecoder(value: value, context: context, parentPath: parentPath, key: ElementKey(index))
            .decodeValue(T.self)
        context.state.pendingChildren.removeAll(keepingCapacity: true)
        return decoded
    }

    /// A fault of `kind` at the value this decoder reads.
    func fault(_ kind: JSONError.Kind, _ message: String) -> JSONError {
        JSONError(kind: kind, message: message, position: value.position)
    }

    func mismatch(expected: String, type: Any.Type) -> DecodingError {
        let found = value.kind.nounPhrase
        let context = DecodingError.Context(
            codingPath: codingPath,
            fault: fault(.typeMismatch, "Expected \(expected) but found \(found).")
        )
        return value.kind == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// Wraps a `JSONError` from a scalar conversion as the `DecodingError` Foundation would throw.
    func convert(_ error: JSONError, type: Any.Type) -> DecodingError {
        let context = DecodingError.Context(codingPath: codingPath, fault: error)
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
                    fault: fault(.invalidValue, "Invalid \(description) \(String(reflecting: text)).")
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
}
