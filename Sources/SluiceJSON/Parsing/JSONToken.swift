/// One entry of a ``JSONTape``: a structural mark or a scalar, with where it starts in the input.
///
/// Tokens are small and fixed-size. Text (keys, strings and the raw text of numbers) lives in the
/// tape's byte arena; a token holds only its offset and length there. Containers hold the index of
/// their matching token, so a reader skips a whole array or object in one step.
public struct JSONToken: Sendable, Hashable {
    /// What a token stands for.
    public enum Kind: UInt8, Sendable, Hashable {
        /// `{`; the matching ``objectEnd`` follows its members.
        case objectStart
        /// `}`.
        case objectEnd
        /// `[`; the matching ``arrayEnd`` follows its elements.
        case arrayStart
        /// `]`.
        case arrayEnd
        /// An object member's name, unescaped, in the arena. The member's value follows it.
        case key
        /// A string value, unescaped, in the arena.
        case string
        /// A number, kept as the exact text of the input in the arena; read it with the tape's
        /// number accessors only when a value is needed.
        case number
        /// `true`.
        case `true`
        /// `false`.
        case `false`
        /// `null`.
        case null
    }

    /// What this token stands for.
    public let kind: Kind
    /// Whether the text is all ASCII, found while it was checked, so that a `String` made from it
    /// is made without looking at the bytes again.
    @usableFromInline let isASCII: Bool
    /// For keys, strings and numbers, the length of the text in the arena. For a container start,
    /// its number of elements or members once it has closed.
    @usableFromInline package var length: UInt32
    /// The column of the token's first byte (1-based, saturating at `UInt32.max`).
    @usableFromInline let columnStorage: UInt32
    /// The line of the token's first byte (1-based, saturating at `UInt32.max`).
    @usableFromInline let lineStorage: UInt32
    /// For keys, strings and numbers, the absolute offset of the text in the arena. For a container
    /// start, the absolute index of its end token (-1 until it closes); for an end, of its start.
    @usableFromInline var payload: Int
    /// The byte offset of the token's first byte in the input.
    public let byteOffset: Int

    @inlinable
    init(kind: Kind, length: UInt32, payload: Int, byteOffset: Int, line: Int, column: Int, isASCII: Bool = false) {
        self.kind = kind
        self.isASCII = isASCII
        self.length = length
        self.payload = payload
        self.byteOffset = byteOffset
        self.lineStorage = UInt32(clamping: line)
        self.columnStorage = UInt32(clamping: column)
    }

    /// Where the token starts in the input.
    public var position: JSONPosition {
        JSONPosition(byteOffset: byteOffset, line: Int(lineStorage), column: Int(columnStorage))
    }

    /// Whether the token carries text in the arena (a key, a string or a number).
    @inlinable
    public var hasText: Bool {
        switch kind {
        case .key, .string, .number: true
        default: false
        }
    }
}

extension JSONToken.Kind {
    /// The kind of value the token starts, for messages: `an object`, `a string`, `null`.
    package var nounPhrase: String {
        switch self {
        case .objectStart, .objectEnd: return "an object"
        case .arrayStart, .arrayEnd: return "an array"
        case .key, .string: return "a string"
        case .number: return "a number"
        case .true, .false: return "a Boolean"
        case .null: return "null"
        }
    }
}
