// What records values into the tree under the encoder's settings.

import Foundation

/// Records values into nodes under the encoder's settings. A class: every encoder and container
/// holds it, and copying one reference is cheaper than copying the settings' references.
package final class EncodingTree {
    let settings: StreamingJSONEncoder.Settings
    /// Containers the recorded values are written inside (see `makeTree`).
    let baseDepth: Int
    /// What is known about the types met in this encode: a short list in front of the
    /// process-wide cache, whose lock would otherwise be taken for every non-scalar value.
    private var knownKinds: [(type: ObjectIdentifier, kind: EncodingKind)] = []

    init(settings: StreamingJSONEncoder.Settings, baseDepth: Int = 0) {
        self.settings = settings
        self.baseDepth = baseDepth
    }

    private func kind<T>(of type: T.Type) -> EncodingKind {
        let identifier = ObjectIdentifier(type)
        for known in knownKinds where known.type == identifier { return known.kind }
        let kind = EncodingKind.of(type)
        if knownKinds.count < 32 { knownKinds.append((identifier, kind)) }
        return kind
    }

    /// Refuses a container at `path` that the writer could not nest: while recording, before
    /// any text reaches a sink, rather than halfway through the output. A container at `path`
    /// is the (count + 1 + baseDepth)th open one.
    /// (Generic, so that the value is boxed as `Any` only for the error.)
    func checkDepth<T>(_ value: T, _ path: [any CodingKey]) throws {
        guard path.count + baseDepth >= JSONWriter.maxDepth else { return }
        throw invalid(
            value,
            path,
            "\(T.self) would nest deeper than the \(JSONWriter.maxDepth) levels JSON is written with"
        )
    }

    /// This tree, or one like it without a key strategy, for ``JSONEncodingFixedKeys`` types.
    /// (Made on first use and kept apart from `self`: a stored reference to itself would leak.)
    private var defaultKeysTree: EncodingTree {
        if case .useDefaultKeys = settings.keyStrategy { return self }
        if let plainTree { return plainTree }
        var plain = settings
        plain.keyStrategy = .useDefaultKeys
        let made = EncodingTree(settings: plain, baseDepth: baseDepth)
        plainTree = made
        return made
    }
    private var plainTree: EncodingTree?

    /// The member name `key` is written as at the top level of a value: how an encoder built on
    /// the tree recognizes its own members among a model's renamed ones.
    package func topLevelMemberName(for key: String) -> String {
        memberName(for: AnyCodingKey(key), path: [])
    }

    /// The node for `value`: scalars directly, everything else through its `encode(to:)`.
    ///
    /// Types are told apart by metatype identity and a per-type cache, not by dynamic casts, which
    /// cost hundreds of instructions for every value (see the decoder's `TapeScalar`).
    package func node<T: Encodable>(for value: T, path: @autoclosure () -> [any CodingKey]) throws -> EncodedNode {
        if let scalar = TapeScalar(T.self) { return try scalarNode(scalar, value, path: path()) }
        if T.self == URL.self { return .string(_identityCast(value, to: URL.self).absoluteString) }
        if T.self == Date.self { return try date(_identityCast(value, to: Date.self), path: path()) }
        if T.self == Data.self { return try data(_identityCast(value, to: Data.self), path: path()) }
        let kind = kind(of: T.self)
        let path = path()
        try checkDepth(value, path)
        if let shortcut = kind.shortcut {
            return try Self.open(shortcut, value, tree: self, path: path)
        }
        let tree = kind.fixedKeys ? defaultKeysTree : self
        let encoder = TreeEncoder(tree: tree, path: path)
        try value.encode(to: encoder)
        guard let node = encoder.slot.node else {
            // As Foundation's encoder: a nested value that encodes nothing is an empty object;
            // at the top level there would be no document at all.
            if !path.isEmpty { return .object(EncodedObject()) }
            throw invalid(value, path, "\(T.self) encoded no value")
        }
        if let tag = kind.tag { return .tagged(tag, node) }
        return node
    }

    /// Calls a shortcut with the metatype opened; `value` is of that type (found by identity).
    private static func open<U: TreeEncodable, T>(
        _ type: U.Type,
        _ value: T,
        tree: EncodingTree,
        path: [any CodingKey]
    ) throws -> EncodedNode {
        try _identityCast(value, to: U.self).node(in: tree, path: path)
    }

    /// A scalar's node; `value` is of the scalar's type.
    @inline(__always)
    func scalarNode<T>(_ scalar: TapeScalar, _ value: T, path: @autoclosure () -> [any CodingKey]) throws -> EncodedNode
    {
        switch scalar {
        case .string: return .string(_identityCast(value, to: String.self))
        case .bool: return .bool(_identityCast(value, to: Bool.self))
        case .int: return .number(String(_identityCast(value, to: Int.self)))
        case .double: return try number(_identityCast(value, to: Double.self), path: path())
        case .float:
            let float = _identityCast(value, to: Float.self)
            // Float's own shortest text: 0.1 as a Float is not Double's 0.1.
            return try number(
                Double(float),
                path: path(),
                text: float.isFinite ? JSONNumberText.shortestText(float) : nil
            )
        case .int64: return .number(String(_identityCast(value, to: Int64.self)))
        case .int32: return .number(String(_identityCast(value, to: Int32.self)))
        case .int16: return .number(String(_identityCast(value, to: Int16.self)))
        case .int8: return .number(String(_identityCast(value, to: Int8.self)))
        case .uint: return .number(String(_identityCast(value, to: UInt.self)))
        case .uint64: return .number(String(_identityCast(value, to: UInt64.self)))
        case .uint32: return .number(String(_identityCast(value, to: UInt32.self)))
        case .uint16: return .number(String(_identityCast(value, to: UInt16.self)))
        case .uint8: return .number(String(_identityCast(value, to: UInt8.self)))
        case .decimal:
            let decimal = _identityCast(value, to: Decimal.self)
            guard !decimal.isNaN else { throw invalid(decimal, path(), "NaN has no JSON form") }
            return .number(decimal.description)
        }
    }

    private func number(_ value: Double, path: [any CodingKey], text: String? = nil) throws -> EncodedNode {
        guard value.isFinite else {
            guard case .convertToString(let positive, let negative, let nan) = settings.floatStrategy else {
                throw invalid(value, path, "\(value) is not a JSON number; set nonConformingFloatEncodingStrategy")
            }
            return .string(value.isNaN ? nan : value > 0 ? positive : negative)
        }
        guard let text else { return .double(value) }
        return .number(text)
    }

    private func date(_ date: Date, path: [any CodingKey]) throws -> EncodedNode {
        try self.date(date, path: path, strategy: settings.dateStrategy)
    }

    private func date(
        _ date: Date,
        path: [any CodingKey],
        strategy: StreamingJSONEncoder.DateEncodingStrategy
    ) throws -> EncodedNode {
        switch strategy {
        case .deferredToDate: return try number(date.timeIntervalSinceReferenceDate, path: path)
        case .secondsSince1970, .format(.secondsSince1970): return try number(date.timeIntervalSince1970, path: path)
        case .millisecondsSince1970, .format(.millisecondsSince1970):
            return try number(date.timeIntervalSince1970 * 1000, path: path)
        case .iso8601, .format(.iso8601):
            return .string(JSONDateText.iso8601String(try civilYears(date, path), fractionalDigits: 0))
        case .iso8601WithFractionalSeconds, .format(.iso8601WithFractionalSeconds):
            return .string(JSONDateText.iso8601String(try civilYears(date, path), fractionalDigits: 3))
        case .format(.rfc1123):
            return .string(JSONDateText.httpDateString(try civilYears(date, path), style: .rfc1123))
        case .format(.rfc850):
            return .string(JSONDateText.httpDateString(try civilYears(date, path), style: .rfc850))
        case .format(.asctime):
            return .string(JSONDateText.httpDateString(try civilYears(date, path), style: .asctime))
        case .format(.pattern(let pattern)):
            return .string(patternFormatters.formatter(for: pattern).string(from: date))
        case .formatted(let formatter): return .string(formatter.string(from: date))
        case .custom(let write):
            let encoder = TreeEncoder(tree: self, path: path)
            try write(date, encoder)
            return encoder.slot.node ?? .object(EncodedObject())
        case .perKey(let strategies, let fallback):
            let chosen = path.last.flatMap { strategies[$0.stringValue] } ?? fallback
            return try self.date(date, path: path, strategy: chosen)
        }
    }

    /// `date` when it falls in the years 0001-9999 that the text formats are written for.
    private func civilYears(_ date: Date, _ path: [any CodingKey]) throws -> Date {
        guard date.timeIntervalSince1970 >= -62_135_596_800, date.timeIntervalSince1970 < 253_402_300_800 else {
            throw invalid(date, path, "\(date) is outside the years 0001-9999 that dates are written in as text")
        }
        return date
    }

    /// Formatters made for `.format(.pattern(_:))`: one per pattern per encode, as the decoder
    /// keeps them.
    private var patternFormatters = PatternDateFormatters()

    private func data(_ data: Data, path: [any CodingKey]) throws -> EncodedNode {
        switch settings.dataStrategy {
        case .deferredToData:
            let array = EncodedArray()
            array.elements = data.map { .number(String($0)) }
            return .array(array)
        case .base64: return .string(data.base64EncodedString())
        case .custom(let write):
            let encoder = TreeEncoder(tree: self, path: path)
            try write(data, encoder)
            return encoder.slot.node ?? .object(EncodedObject())
        }
    }

    func invalid(_ value: Any, _ path: [any CodingKey], _ reason: String) -> EncodingError {
        .invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: reason + "."))
    }

    /// The member name for `key` at `path` under the key strategy.
    func memberName(for key: any CodingKey, path: [any CodingKey]) -> String {
        switch settings.keyStrategy {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return converted(key.stringValue, "_")
        case .convertToKebabCase: return converted(key.stringValue, "-")
        case .custom(let transform): return transform(path + [key]).stringValue
        case .memberName(let transform): return transform(key.stringValue)
        }
    }

    /// Converted key names, by key: a model's keys repeat for every instance, and converting one
    /// builds a String character by character. (One tree serves one encode, on one thread.)
    private var convertedNames: [String: String] = [:]

    private func converted(_ name: String, _ separator: Character) -> String {
        if let known = convertedNames[name] { return known }
        let result = KeyWords.separated(name, separator)
        // Bounded: dynamic keys (dictionaries with Int keys, free-form objects) would otherwise
        // grow it for as long as a stream lasts.
        if convertedNames.count >= 4096 { convertedNames.removeAll(keepingCapacity: true) }
        convertedNames[name] = result
        return result
    }
}
