import Foundation

extension StreamingJSONDecoder {
    /// Decodes a value of `type` from already-parsed Foundation containers: the output of
    /// `JSONSerialization` or `PropertyListSerialization`, or dictionaries and arrays built in code.
    ///
    /// The containers are replayed as events into a tape, and the same decoder reads it, so every
    /// strategy and option applies as it does to JSON text. Replayed values:
    /// - `[String: Any]` / `NSDictionary` as objects (members in the dictionary's order), `[Any]` /
    ///   `NSArray` as arrays, `NSNull` and `nil` as `null`;
    /// - `String` as strings, `Bool` (and boolean `NSNumber`s) as `true`/`false`, other numbers as
    ///   JSON numbers with their shortest exact text, `Decimal` with all its digits;
    /// - `Date` as its seconds since 2001 (what the default `.deferredToDate` reads back; property
    ///   lists hold dates so), `Data` as Base64 (what the default `.base64` reads back).
    ///
    /// Errors name the coding path; their position reads "in the replayed value".
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a value that has no JSON form (such as an
    ///   infinite `Double` or a non-string dictionary key), else the model's `DecodingError`.
    public func decode<T: Decodable>(_ type: T.Type, fromJSONObject object: Any) throws -> T {
        let (options, limits, _) = snapshot()
        var builder = JSONTape.Builder()
        try Self.replay(object, into: &builder, path: [], depth: limits.maxDepth)
        return try Self.decode(type, from: builder.result, options: options)
    }

    /// Appends the events of `object` to `builder`.
    /// `depth` is how many more levels of containers the limits allow: a container that holds
    /// itself would otherwise recurse until the stack overflows.
    private static func replay(
        _ object: Any,
        into builder: inout JSONTape.Builder,
        path: [any CodingKey],
        depth: Int
    ) throws {
        if depth <= 0, object is [Any] || object is [String: Any] || object is NSDictionary {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: path,
                    debugDescription: "Containers are nested deeper than the depth limit."
                )
            )
        }
        switch object {
        case let string as String:
            builder.appendText(.string, string)
        case let number as NSNumber:
            // Checked before Bool and the Swift number types: Foundation's containers hold
            // NSNumbers, which would cast to any of them.
            try replayNumber(number, into: &builder, path: path)
        case let bool as Bool:
            builder.appendLiteral(bool ? .true : .false)
        case let integer as any BinaryInteger:
            builder.appendText(.number, String(describing: integer))
        case let double as Double:
            try replayDouble(double, into: &builder, path: path)
        case let float as Float:
            try replayDouble(Double(float), into: &builder, path: path)
        case let decimal as Decimal:
            try replayDecimal(decimal, into: &builder, path: path)
        case let date as Date:
            try replayDouble(date.timeIntervalSinceReferenceDate, into: &builder, path: path)
        case let data as Data:
            builder.appendText(.string, data.base64EncodedString())
        case let dictionary as [String: Any]:
            builder.beginContainer(isObject: true)
            for (key, value) in dictionary {
                builder.appendText(.key, key)
                try replay(value, into: &builder, path: path + [AnyCodingKey(key)], depth: depth - 1)
            }
            builder.endContainer()
        case let dictionary as NSDictionary:
            builder.beginContainer(isObject: true)
            for (key, value) in dictionary {
                guard let key = key as? String else {
                    throw unrepresentable("a dictionary key of type \(Swift.type(of: key))", path: path)
                }
                builder.appendText(.key, key)
                try replay(value, into: &builder, path: path + [AnyCodingKey(key)], depth: depth - 1)
            }
            builder.endContainer()
        case let array as [Any]:
            builder.beginContainer(isObject: false)
            for (index, element) in array.enumerated() {
                try replay(element, into: &builder, path: path + [AnyCodingKey(intValue: index)], depth: depth - 1)
            }
            builder.endContainer()
        case is NSNull:
            builder.appendLiteral(.null)
        default:
            if let optional = object as? any OptionalProtocol {
                if let wrapped = optional.wrapped {
                    try replay(wrapped, into: &builder, path: path, depth: depth)
                } else {
                    builder.appendLiteral(.null)
                }
                return
            }
            throw unrepresentable("a value of type \(Swift.type(of: object))", path: path)
        }
    }

    private static func replayNumber(
        _ number: NSNumber,
        into builder: inout JSONTape.Builder,
        path: [any CodingKey]
    ) throws {
        if let decimal = number as? NSDecimalNumber {
            try replayDecimal(decimal.decimalValue, into: &builder, path: path)
            return
        }
        // Booleans are instances of their own NSNumber subclass (what `NSNumber(value: Bool)` and
        // JSONSerialization make for true and false); a `c` type code alone may be an Int8.
        if type(of: number) == booleanNumberType {
            builder.appendLiteral(number.boolValue ? .true : .false)
            return
        }
        switch String(cString: number.objCType) {
        case "d", "f":
            try replayDouble(number.doubleValue, into: &builder, path: path)
        case "Q", "L", "I", "S", "C":
            builder.appendText(.number, String(number.uint64Value))
        default:
            builder.appendText(.number, String(number.int64Value))
        }
    }

    private static func replayDecimal(
        _ decimal: Decimal,
        into builder: inout JSONTape.Builder,
        path: [any CodingKey]
    ) throws {
        let text = decimal.description
        let isNumber = text.utf8.withContiguousStorageIfAvailable {
            JSONNumberText.isNumber(UnsafeRawBufferPointer($0))
        }
        guard !decimal.isNaN, isNumber ?? false else { throw unrepresentable("the decimal \(text)", path: path) }
        builder.appendText(.number, text)
    }

    private static func replayDouble(
        _ double: Double,
        into builder: inout JSONTape.Builder,
        path: [any CodingKey]
    ) throws {
        guard double.isFinite else { throw unrepresentable("the number \(double)", path: path) }
        builder.appendText(.number, JSONNumberText.shortestText(double))
    }

    private static func unrepresentable(_ what: String, path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(
            DecodingError.Context(codingPath: path, debugDescription: "There is no JSON form for \(what).")
        )
    }
}

/// Lets the replay recognise `nil` inside an `Any`.
private protocol OptionalProtocol {
    var wrapped: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrapped: Any? { self.map { $0 as Any } }
}

/// The class of boolean NSNumbers.
private let booleanNumberType: AnyClass = type(of: NSNumber(value: true))
