/// A tape's tokens and text read through plain pointers, for the package's readers that walk the
/// members of many small objects: a JSON:API resource's own members, its relationship objects and
/// their resource identifiers.
///
/// Why: through `JSONTape`, every token read loads the storage's buffer pointer again (the compiler
/// cannot keep it across the calls between), every text is a closure call that retains the
/// storage, and every `endOfValue` is a call of its own; some two hundred instructions for an
/// identifier of two members. Taken once for a whole object, these pointers stay in registers.
///
/// Only valid while the tape it was taken from is alive and unchanged: inside
/// ``JSONTape/withTokens(_:)``, which keeps the storage alive and gives no way to change the tape
/// meanwhile, or for one property's read by a `TapePlainCursor`, whose reader holds the tape.
@usableFromInline
package struct TapeTokens {
    @usableFromInline let tokens: UnsafePointer<JSONToken>
    @usableFromInline let firstIndex: Int
    @usableFromInline let count: Int
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let arenaBase: Int
    @usableFromInline let makesSmallStrings: Bool

    @inlinable
    init(_ buffer: UnsafePointer<TapeBuffer>) {
        tokens = UnsafePointer(buffer.pointee.tokens)
        firstIndex = buffer.pointee.firstIndex
        count = buffer.pointee.tokenCount
        bytes = UnsafePointer(buffer.pointee.bytes)
        arenaBase = buffer.pointee.arenaBase
        makesSmallStrings = buffer.pointee.makesSmallStrings
    }

    /// The token at the absolute index `index`, which must be on the tape.
    @inlinable
    package subscript(index: Int) -> JSONToken {
        let position = index &- firstIndex
        precondition(position >= 0 && position < count, "JSONTape index out of range")
        return tokens[position]
    }

    /// The `count` tokens from the absolute index `index`, which must all be on the tape: one
    /// check for a run of tokens read together, rather than one for each.
    @inlinable
    package func run(from index: Int, count: Int) -> UnsafeBufferPointer<JSONToken> {
        let position = index &- firstIndex
        precondition(position >= 0 && count >= 0 && position <= self.count &- count, "JSONTape index out of range")
        return UnsafeBufferPointer(start: tokens + position, count: count)
    }

    /// The bytes of `token`'s text: a key, string or number of this tape. No range check: a live
    /// token's text is always in the arena (`removeTokens(before:)` keeps the text of every token
    /// it keeps).
    @inlinable
    package func text(of token: JSONToken) -> UnsafeRawBufferPointer {
        precondition(token.hasText, "text(of:) needs a key, string or number token")
        return UnsafeRawBufferPointer(start: bytes + (token.payload &- arenaBase), count: Int(token.length))
    }

    /// `token`'s text as a `String`, made as ``JSONTape/text(of:)`` makes it; a short one in place
    /// (these readers make a `type` and an `id` for every resource identifier).
    @inlinable
    package func string(of token: JSONToken) -> String {
        UTF8Validation.string(ofChecked: text(of: token), isASCII: token.isASCII, layoutMatches: makesSmallStrings)
    }

    /// The absolute index just past the value at `index`, whose first token is `token`; `nil` for
    /// an array or object not closed yet. A container's start token holds its end token's index.
    @inlinable
    package func end(ofValue token: JSONToken, at index: Int) -> Int? {
        switch token.kind {
        case .objectStart, .arrayStart: token.payload < 0 ? nil : token.payload &+ 1
        default: index &+ 1
        }
    }
}

extension JSONTape {
    /// Calls `body` with this tape's tokens and text as plain pointers (see ``TapeTokens``).
    @inlinable
    package func withTokens<R, E: Error>(_ body: (TapeTokens) throws(E) -> R) throws(E) -> R {
        // Safe because `self` keeps the storage, and with it the buffer, alive for the call, and
        // `body` has no tape it could change.
        try withExtendedLifetime(storage) { () throws(E) -> R in
            try body(TapeTokens(storage.buffer))
        }
    }
}

extension TapeTokens {
    /// The value at `index` as a ``JSONValue`` (what ``JSONTape/Value/jsonValue()`` returns, and
    /// what the generated readers keep of a relationship's `meta`); `nil` for an array or object
    /// not closed yet.
    package func jsonValue(at index: Int) -> JSONValue? {
        var position = index
        return jsonValue(advancing: &position)
    }

    /// The value whose first token is at `position`; moves `position` past it. Recursion is
    /// bounded by the parser's depth limit.
    private func jsonValue(advancing position: inout Int) -> JSONValue? {
        let token = self[position]
        position &+= 1
        switch token.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(string(of: token))
        case .string: return .string(string(of: token))
        case .arrayStart:
            guard token.payload >= 0 else { return nil }
            var elements: [JSONValue] = []
            if token.length > 0 { elements.reserveCapacity(Int(token.length)) }
            while self[position].kind != .arrayEnd {
                guard let element = jsonValue(advancing: &position) else { return nil }
                elements.append(element)
            }
            position &+= 1
            return .array(elements)
        case .objectStart:
            guard token.payload >= 0 else { return nil }
            // The object's two arrays built directly: through an array of pairs, each object
            // cost a third allocation and two more passes.
            var keys: [String] = []
            var values: [JSONValue] = []
            if token.length > 0 {
                keys.reserveCapacity(Int(token.length))
                values.reserveCapacity(Int(token.length))
            }
            while self[position].kind != .objectEnd {
                keys.append(string(of: self[position]))
                position &+= 1
                guard let value = jsonValue(advancing: &position) else { return nil }
                values.append(value)
            }
            position &+= 1
            return .object(JSONObject(keys: keys, values: values))
        case .key, .objectEnd, .arrayEnd:
            return nil
        }
    }
}
