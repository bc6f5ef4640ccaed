/// Any JSON value, for members whose shape a model does not fix, such as JSON:API's `meta`.
///
/// Numbers keep the exact text of the input, so a value read and written again keeps its digits.
/// Objects keep their members in input order.
///
/// ```swift
/// let meta: JSONValue = ["total": 120, "tags": ["a", "b"]]
/// meta["total"]?.numberText        // "120"
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number as its JSON text, such as `-1.5e3`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member named `key` if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` if this is an array that long.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number's text, if this is a number.
    public var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The number as an `Int`, if this is a number written as an integer that fits (`42`, `-7`;
    /// not `4.2`, `1e3` or a number past 64 bits).
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// The number as the nearest `Double`, if this is a number.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }
}

/// A JSON object: members in input order, looked up by name.
///
/// Duplicate names are kept as written; lookup returns the first.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members' names, in order.
    public private(set) var keys: [String]
    /// The members' values, in the order of ``keys``.
    public private(set) var values: [JSONValue]

    /// Creates an object from members in order.
    public init(_ members: [(String, JSONValue)] = []) {
        keys = members.map { $0.0 }
        values = members.map { $0.1 }
    }

    /// The object of `keys[i]: values[i]`, for readers that build the two arrays themselves.
    init(keys: [String], values: [JSONValue]) {
        self.keys = keys
        self.values = values
    }

    /// The number of members.
    public var count: Int { keys.count }

    /// The value of the first member named `key`.
    public subscript(key: String) -> JSONValue? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// The members in order, as `(key, value)` pairs.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        zip(keys, values).lazy.map { (key: $0, value: $1) }.makeIterator()
    }
}

// Not ExpressibleByNilLiteral: with it, `nil` where a `JSONValue?` is expected could mean
// `.none` or `.some(.null)`, and a ternary picked the latter (an absent member written as null).
// Write `.null` for JSON's null.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(floatLiteral value: Double) { self = .number(String(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

extension JSONTape.Value {
    /// The value as a ``JSONValue``, numbers kept as their text.
    ///
    /// Recursion is bounded by the parser's depth limit.
    public func jsonValue() throws(JSONError) -> JSONValue {
        // Built from the tape's token pointers (`TapeTokens.jsonValue(at:)`): through this type's
        // own members and elements, each member was a value that retained the tape and each text
        // a closure call, some 1 400 instructions for an object of one member.
        if let value = tape.withTokens({ $0.jsonValue(at: index) }) { return value }
        // Only an array or object not closed yet gives none; `value(at:)` words that error.
        _ = try tape.value(at: index)
        preconditionFailure("Internal inconsistency: a closed value's tokens made no JSONValue")
    }
}
