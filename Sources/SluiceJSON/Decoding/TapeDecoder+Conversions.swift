// What the tape decoder does beyond reading JSON types as themselves: dates and data under their
// strategies, the lenient conversions a caller allows, converters, uniquing and key paths. All of
// it sits off the fast path: a strict decode of ordinary models never calls into this file except
// for `Date` and `Data` values.

import Foundation

/// A coding key whose string value is a path of member names separated by dots: a property
/// declared with the key `location.latitude` reads the member `latitude` of the member `location`.
///
/// ```swift
/// struct Place: Decodable {
///     var latitude: Double
///     enum CodingKeys: String, JSONKeyPathCodingKey {
///         case latitude = "location.latitude"
///     }
/// }
/// ```
///
/// Each step is found under the key strategy. A member whose name is the whole dotted string is
/// found first. When a step is missing, the `keyNotFound` error names it. Only Sluice's decoders
/// follow paths; others look for the dotted name.
public protocol JSONKeyPathCodingKey: CodingKey {}

extension TapeDecoder {
    // MARK: Dates and data

    /// A `Date` read under the date strategy.
    func decodeDate() throws -> Date {
        try decodeDate(with: options.dateStrategy)
    }

    private func decodeDate(with strategy: JSONDateDecodingStrategy) throws -> Date {
        switch strategy {
        case .deferredToDate:
            // Date's own conformance reads a Double; a string here nearly always means the
            // payload's dates are text and no strategy was set, so the error says which to set.
            if value.kind == .string {
                throw mismatch(
                    expected: "a number of seconds since 2001 (dateDecodingStrategy is .deferredToDate; "
                        + "set .iso8601 or another strategy to read dates written as text)",
                    type: Date.self
                )
            }
            return try Date(from: self)
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try decodeValueSkippingHooks(Double.self))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try decodeValueSkippingHooks(Double.self) / 1000)
        case .iso8601:
            guard let date = try date(in: .iso8601) else {
                throw corrupted("Expected date string to be ISO8601-formatted")
            }
            return date
        case .formatted(let formatter):
            let text = try value.string()
            guard let date = formatter.date(from: text) else {
                throw corrupted("Date string \(String(reflecting: text)) does not match format expected by formatter")
            }
            return date
        case .custom(let read):
            return try read(self)
        case .format(let format):
            guard let date = try date(in: format) else {
                throw corrupted("Expected a date in the format \(format.name)")
            }
            return date
        case .anyOf(let formats):
            for format in formats {
                if let date = try? date(in: format) { return date }
            }
            throw corrupted("Expected a date in one of the formats \(formats.map(\.name).joined(separator: ", "))")
        case .perKey(let strategies, let fallback):
            let strategy = codingKey.flatMap { strategies[$0.stringValue] } ?? fallback
            return try decodeDate(with: strategy)
        }
    }

    /// The value read as a date in `format`, or `nil` if it is of the right JSON type but not in
    /// that format. A value of another JSON type throws.
    private func date(in format: JSONDateFormat) throws -> Date? {
        switch format {
        case .iso8601: return try value.withUTF8 { JSONDateText.iso8601($0, fractionalSeconds: .optional) }
        case .iso8601WithFractionalSeconds:
            return try value.withUTF8 { JSONDateText.iso8601($0, fractionalSeconds: .required) }
        case .rfc1123: return try value.withUTF8 { JSONDateText.rfc1123($0) }
        case .rfc850: return try value.withUTF8 { JSONDateText.rfc850($0) }
        case .asctime: return try value.withUTF8 { JSONDateText.asctime($0) }
        case .secondsSince1970, .millisecondsSince1970:
            let scale: Double = format == .secondsSince1970 ? 1 : 1000
            switch value.kind {
            case .number:
                return value.tape.withUnsafeText(of: value.token) { JSONDateText.epochNumber($0, scale: scale) }
            default:
                return try value.withUTF8 { JSONDateText.epochNumber($0, scale: scale) }
            }
        case .pattern(let pattern):
            return context.state.formatter(for: pattern).date(from: try value.string())
        }
    }

    /// A `Data` value read under the data strategy.
    func decodeData() throws -> Data {
        switch options.dataStrategy {
        case .deferredToData: return try Data(from: self)
        case .base64: return try convertString(describedAs: "Base64 data") { Data(base64Encoded: $0) }
        case .custom(let read): return try read(self)
        }
    }

    /// `dataCorrupted` at this value: `message`, then the value's text.
    private func corrupted(_ message: String) -> DecodingError {
        var excerpt = ""
        if value.kind == .string || value.kind == .number {
            excerpt = " (found \(String(reflecting: value.tape.text(of: value.token))))"
        }
        return DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: codingPath, fault: fault(.invalidValue, "\(message)\(excerpt)."))
        )
    }

    // MARK: Converters and uniquing

    /// The value read by a converter, or a uniqued instance, or else as without hooks.
    func decodeWithHooks<T: Decodable>(_ type: T.Type) throws -> T {
        let typeID = ObjectIdentifier(T.self)
        let options = self.options
        if let read = options.converters.readers[typeID] {
            do {
                // Safe to force: the reader registered for `T` returns a `T`.
                return try read(value, self) as! T
            } catch let error as JSONError {
                throw convert(error, type: type)
            } catch let error as DecodingError {
                throw error
            } catch {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: codingPath,
                        debugDescription:
                            "The converter for \(T.self) rejected the value \(value.position.phrase): \(error)",
                        underlyingError: error
                    )
                )
            }
        }
        if let identityKey = options.uniquing.keys[typeID] { return try decodeUniqued(type, identityKey: identityKey) }
        return try decodeValueSkippingHooks(type)
    }

    private func decodeUniqued<T: Decodable>(_ type: T.Type, identityKey: String) throws -> T {
        guard value.kind == .objectStart,
            let member = options.keyStrategy.firstMember(of: value, forKey: identityKey),
            member.kind == .string || member.kind == .number
        else { return try decodeValueSkippingHooks(type) }
        let identity = JSONIdentityStore.Identity(
            type: ObjectIdentifier(T.self),
            kind: member.kind,
            text: member.tape.text(of: member.token)
        )
        let store = context.state.identities
        if let existing = store.instance(for: identity) {
            if let mergeable = existing as? any JSONMergeable { try mergeable.merge(from: self) }
            // Safe to force: only instances of `T` are stored under `T`'s identity.
            return existing as! T
        }
        let decoded = try decodeValueSkippingHooks(type)
        // Safe to force: `register` only accepts class types.
        return store.keep(decoded as AnyObject, for: identity) as! T
    }

    // MARK: Lenient scalars

    /// A scalar of another JSON type than `T`'s, converted as the options allow; rethrows `error`
    /// (the strict reader's type mismatch) when no conversion applies.
    static func readConverted<T>(
        _ scalar: TapeScalar,
        from value: JSONTape.Value,
        options: TapeDecodingOptions,
        as type: T.Type,
        after error: JSONError
    ) throws(JSONError) -> T {
        let conversions = options.conversions
        switch scalar {
        case .string:
            guard conversions.contains(.stringFromNumber) else { throw error }
            switch value.kind {
            case .number: return _identityCast(value.tape.text(of: value.token), to: T.self)
            case .true: return _identityCast("true", to: T.self)
            case .false: return _identityCast("false", to: T.self)
            default: throw error
            }
        case .bool:
            if value.kind == .number, conversions.contains(.boolFromNumber) {
                switch try? value.integer(as: Int.self) {
                case 0: return _identityCast(false, to: T.self)
                case 1: return _identityCast(true, to: T.self)
                default: throw mismatch(value, "a Boolean, 0 or 1")
                }
            }
            if value.kind == .string, conversions.contains(.boolFromString) {
                switch value.tape.text(of: value.token).lowercased() {
                case "true", "1": return _identityCast(true, to: T.self)
                case "false", "0": return _identityCast(false, to: T.self)
                default: throw mismatch(value, "a Boolean or a string holding one")
                }
            }
            throw error
        default:
            guard value.kind == .string else { throw error }
            if scalar == .double || scalar == .float,
                case .convertFromString(let positive, let negative, let nan) = options.nonConformingFloatStrategy
            {
                let text = value.tape.text(of: value.token)
                let special: Double? =
                    text == positive ? .infinity : text == negative ? -.infinity : text == nan ? .nan : nil
                if let special {
                    return scalar == .double
                        ? _identityCast(special, to: T.self) : _identityCast(Float(special), to: T.self)
                }
            }
            guard conversions.contains(.numberFromString) else { throw error }
            let isNumber = value.tape.withUnsafeText(of: value.token) { JSONNumberText.isNumber($0) }
            guard isNumber else { throw mismatch(value, "a number or a string holding one") }
            // Replay the string's text as a number token at the same place, so the conversion and
            // its errors are exactly those of a number written without quotes.
            var builder = JSONTape.Builder(position: value.position)
            value.tape.withUnsafeText(of: value.token) { builder.appendText(.number, $0) }
            let replayed = builder.result
            return try scalar.read(
                from: JSONTape.Value(tape: replayed, index: replayed.startIndex, endIndex: replayed.endIndex),
                as: T.self
            )
        }
    }

    private static func mismatch(_ value: JSONTape.Value, _ expected: String) -> JSONError {
        let text = value.kind == .string || value.kind == .number ? value.tape.text(of: value.token) : ""
        let found =
            value.kind == .string
            ? "the string \(String(reflecting: text))"
            : value.kind == .number ? "the number \(text)" : value.kind.nounPhrase
        return JSONError(
            kind: .typeMismatch,
            message: "Expected \(expected), found \(found).",
            position: value.position
        )
    }
}

extension JSONDateFormat {
    /// The format's name in messages.
    var name: String {
        switch self {
        case .iso8601: return "ISO 8601"
        case .iso8601WithFractionalSeconds: return "ISO 8601 with fractional seconds"
        case .rfc1123: return "RFC 1123"
        case .rfc850: return "RFC 850"
        case .asctime: return "asctime"
        case .secondsSince1970: return "seconds since 1970"
        case .millisecondsSince1970: return "milliseconds since 1970"
        case .pattern(let pattern): return String(reflecting: pattern)
        }
    }
}
