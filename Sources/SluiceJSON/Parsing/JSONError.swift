public import Foundation

/// An error in JSON input: what went wrong, in one sentence, and exactly where.
///
/// Every error Sluice's parser and tape reader raise is a `JSONError`. It carries the byte offset,
/// line and column of the fault, and, for faults found while the bytes were at hand, a short
/// excerpt of the input around it:
///
/// ```swift
/// do {
///     let tape = try JSONParser.parse(Array(#"{"a": [1, 2,]}"#.utf8))
/// } catch {
///     print(error)
///     // line 1, column 14 (byte 13): Unexpected ']' where a value was expected.
///     //     {"a": [1, 2,]}
///     //                 ^
/// }
/// ```
///
/// Compare ``kind`` to tell errors apart; the message is for people and may be reworded.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a ``JSONError``. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case syntax
            case invalidUTF8
            case invalidUnicode
            case unpairedSurrogate
            case unexpectedEndOfInput
            case depthLimitExceeded
            case stringLimitExceeded
            case documentLimitExceeded
            case heldBytesLimitExceeded
            case numberOutOfRange
            case typeMismatch
            case missingValue
            case invalidValue
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The bytes do not follow JSON's grammar: an unexpected character, a missing separator,
        /// a malformed number or escape, a comment, or more input after the top-level value.
        public static let syntax = Kind(.syntax)
        /// A string holds bytes that are not well-formed UTF-8 (including overlong forms, encoded
        /// surrogates and code points above U+10FFFF).
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// A document given whole in UTF-16 or UTF-32 (told from its first bytes, with or without
        /// a byte order mark) holds a code unit sequence that is not Unicode: an unpaired
        /// surrogate, a value above U+10FFFF, or a last code unit cut short.
        public static let invalidUnicode = Kind(.invalidUnicode)
        /// A `\u` escape names half of a UTF-16 surrogate pair without the other half.
        public static let unpairedSurrogate = Kind(.unpairedSurrogate)
        /// The input ended before the JSON value was complete, or held no value at all.
        public static let unexpectedEndOfInput = Kind(.unexpectedEndOfInput)
        /// Arrays and objects are nested deeper than ``JSONLimits/maxDepth``.
        public static let depthLimitExceeded = Kind(.depthLimitExceeded)
        /// A string, key or number is longer than ``JSONLimits/maxStringBytes``.
        public static let stringLimitExceeded = Kind(.stringLimitExceeded)
        /// The document is longer than ``JSONLimits/maxDocumentBytes``.
        public static let documentLimitExceeded = Kind(.documentLimitExceeded)
        /// The value a streaming reader holds whole is larger than ``JSONLimits/maxHeldBytes``.
        public static let heldBytesLimitExceeded = Kind(.heldBytesLimitExceeded)
        /// A number cannot be represented exactly in the requested type: it overflows, or it has a
        /// fraction where an integer was asked for.
        public static let numberOutOfRange = Kind(.numberOutOfRange)
        /// A value is of another JSON type than the one asked for.
        public static let typeMismatch = Kind(.typeMismatch)
        /// A member or element that a type needs is not there: no member of that name in the
        /// object, fewer elements in the array than the type reads, a key path that stops short.
        public static let missingValue = Kind(.missingValue)
        /// A value of the JSON type asked for that the type still refuses: a string that is no
        /// URL, date or UUID, Base64 that does not decode, a number a date strategy cannot read.
        public static let invalidValue = Kind(.invalidValue)

        /// The kind's name, such as `syntax` or `depthLimitExceeded`.
        public var description: String { base.rawValue }
    }

    /// What category of fault this is.
    public let kind: Kind
    /// One sentence naming the fault.
    public let message: String
    /// Where the fault is: the first byte of the offending token, or the byte at which the parser
    /// could no longer continue.
    public let position: JSONPosition
    /// Up to a few dozen bytes of the input's line around the fault, with ``excerptColumn``
    /// marking the fault within it. Empty when the input was no longer at hand.
    public let excerpt: String
    /// The 0-based index, in characters of ``excerpt``, of the fault.
    public let excerptColumn: Int
    /// A JSON Pointer to the part of the document a structured reader was in when the fault
    /// came up (the JSON:API reader gives the resource, such as `/data/17`), or `nil` when none
    /// was: the parser itself knows lines and columns, not structure.
    public package(set) var pointer: String?

    /// Creates an error. Parsers and decoders built on Sluice use this to report faults in the
    /// same form as the parser does.
    public init(kind: Kind, message: String, position: JSONPosition, excerpt: String = "", excerptColumn: Int = 0) {
        self.kind = kind
        self.message = message
        self.position = position
        self.excerpt = excerpt
        self.excerptColumn = excerptColumn
    }

    /// A byte as messages name it: `'x'` for printable ASCII, `a space`, `byte 0xFF` otherwise.
    static func describe(byte: UInt8) -> String {
        if byte >= 0x21 && byte <= 0x7E { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == 0x20 { return "a space" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count < 2 ? "0" + hex : hex)"
    }

    /// How the message of a comma before a closing bracket begins.
    static let trailingCommaPrefix = "Trailing comma:"

    /// Whether this is the parser's refusal of a comma before a closing `]` or `}`: a fault
    /// after the last element, not in an element, for readers that name where a fault is.
    package var isTrailingComma: Bool { kind == .syntax && message.hasPrefix(Self.trailingCommaPrefix) }

    /// The number of bytes of input before the fault.
    public var byteOffset: Int { position.byteOffset }
    /// The 1-based line of the fault.
    public var line: Int { position.line }
    /// The 1-based column of the fault, in UTF-8 bytes.
    public var column: Int { position.column }

    /// The message with its place worded in before the final period, as a decoder's
    /// `DecodingError` says it: `Expected a string but found a number at line 3, column 7.`
    /// A value replayed from Foundation containers has no place in any input (line 0): `in the
    /// replayed value`. The one place where a fault's fields become that sentence.
    package var messageWithPlace: String {
        let sentence = message.hasSuffix(".") ? message.dropLast() : Substring(message)
        return "\(sentence) \(position.phrase)."
    }

    /// The position and message, then the excerpt with a caret under the fault.
    public var description: String {
        var text = "\(position): \(message)"
        if !excerpt.isEmpty {
            text += "\n    \(excerpt)\n    \(String(repeating: " ", count: excerptColumn))^"
        }
        return text
    }
}

/// `localizedDescription` gives the position, message and excerpt, not "The operation could not
/// be completed".
extension JSONError: LocalizedError {
    public var errorDescription: String? { description }
}

extension FileChunkReader.Failure: LocalizedError {
    public var errorDescription: String? { description }
}
