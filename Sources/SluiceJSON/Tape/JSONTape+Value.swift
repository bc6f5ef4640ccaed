public import Foundation

extension JSONTape {
    /// A read-only view of one complete value on a tape: a cursor that walks its tokens without
    /// copying them, converting scalars only when asked.
    ///
    /// ```swift
    /// let tape = try JSONParser.parse(Array(#"{"tags": ["a", "b"], "score": 9.5}"#.utf8))
    /// let root = try tape.value(at: tape.startIndex)
    /// for member in try root.members() {
    ///     print(member.key, member.value.kind)      // tags arrayStart, score number
    /// }
    /// let score = try root["score"]?.double()        // 9.5
    /// ```
    ///
    /// Every accessor that can fail throws a ``JSONError`` at the value's position: a
    /// ``JSONError/Kind/typeMismatch`` when the value is of another JSON type, or a
    /// ``JSONError/Kind/numberOutOfRange`` when a number does not fit the type asked for.
    public struct Value: Sendable {
        /// The tape the value is on.
        public let tape: JSONTape
        /// The absolute index of the value's first token.
        public let index: Int
        /// The absolute index one past the value's last token.
        public let endIndex: Int

        /// The value's first token: a scalar, or the start of an array or object.
        public var token: JSONToken { tape[index] }
        /// What kind of value this is: `.objectStart` for objects, `.arrayStart` for arrays.
        public var kind: JSONToken.Kind { token.kind }
        /// Where the value starts in the input.
        public var position: JSONPosition { token.position }
        /// Whether the value is `null`.
        public var isNull: Bool { kind == .null }

        /// The number of elements of an array or members of an object; 0 for scalars.
        public var count: Int {
            kind == .objectStart || kind == .arrayStart ? Int(token.length) : 0
        }

        /// The value as a string.
        public func string() throws(JSONError) -> String {
            try expect(.string, "a string")
            return tape.text(of: token)
        }

        /// Calls `body` with the string's unescaped UTF-8 bytes, without making a `String`.
        public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
            try expect(.string, "a string")
            return try tape.withUnsafeText(of: token, body)
        }

        /// The value as a Boolean.
        public func bool() throws(JSONError) -> Bool {
            switch kind {
            case .true: return true
            case .false: return false
            default: throw mismatch("a Boolean")
            }
        }

        /// The number's text exactly as written in the input, such as `-1.50e+3`.
        public func numberText() throws(JSONError) -> String {
            try expect(.number, "a number")
            return tape.text(of: token)
        }

        /// The number as an integer of type `T`, exactly.
        ///
        /// `10`, `1e1` and `10.0` all read as 10. A number with a fraction, or one outside `T`'s
        /// range, throws ``JSONError/Kind/numberOutOfRange`` naming the number; nothing is
        /// truncated, rounded or wrapped.
        public func integer<T: FixedWidthInteger>(as type: T.Type = T.self) throws(JSONError) -> T {
            try convertNumber(to: String(describing: T.self)) { text throws(JSONNumberText.Failure) in
                try JSONNumberText.integer(tokenText: text, as: T.self)
            }
        }

        /// The number as the nearest `Double`. Throws when it lies beyond `Double`'s range.
        public func double() throws(JSONError) -> Double {
            try convertNumber(to: "Double") { text throws(JSONNumberText.Failure) in
                try JSONNumberText.double(tokenText: text)
            }
        }

        /// The number as the nearest `Float`. Throws when it is beyond `Float`'s range, or not
        /// zero but would round to zero.
        public func float() throws(JSONError) -> Float {
            try convertNumber(to: "Float") { text throws(JSONNumberText.Failure) in
                try JSONNumberText.float(tokenText: text)
            }
        }

        /// The number as a `Decimal`, exactly, without passing through `Double`. Throws when the
        /// number has more than 38 significant digits or lies beyond `Decimal`'s range.
        public func decimal() throws(JSONError) -> Decimal {
            try convertNumber(to: "Decimal") { text throws(JSONNumberText.Failure) in try JSONNumberText.decimal(text) }
        }

        /// The number as a `Decimal` the way Foundation's decoder reads one: ``decimal()``, except
        /// that a number of more than 38 significant digits is rounded to 38 rather than refused
        /// (so that `Decimal.pi`, written with 39 digits by Foundation's encoder, reads back).
        func decimalAsFoundationReads() throws(JSONError) -> Decimal {
            try convertNumber(to: "Decimal") { text throws(JSONNumberText.Failure) in
                // JSON5's Infinity and NaN: Foundation's decoder gives NaN for both.
                if JSONNumberText.isSpecialValue(text) { return .nan }
                do throws(JSONNumberText.Failure) {
                    return try JSONNumberText.decimal(text)
                } catch {
                    guard error == .tooPrecise else { throw error }
                    return try JSONNumberText.roundedDecimal(text)
                }
            }
        }

        /// The elements of an array, in order.
        public func elements() throws(JSONError) -> Elements {
            try expect(.arrayStart, "an array")
            return Elements(tape: tape, cursor: index + 1, end: endIndex - 1)
        }

        /// The members of an object, in input order, duplicates included.
        public func members() throws(JSONError) -> Members {
            try expect(.objectStart, "an object")
            return Members(tape: tape, cursor: index + 1, end: endIndex - 1)
        }

        /// The value of the first member whose name (unescaped UTF-8, valid only during the call)
        /// satisfies `matches`, if this is an object. Walks token indices, making no `String` and no
        /// view for the members it passes over.
        public func firstMember(where matches: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Value? {
            guard kind == .objectStart else { return nil }
            var cursor = index + 1
            let end = endIndex - 1
            while cursor < end {
                let valueEnd = tape.endOfValue(at: cursor + 1) ?? end
                if try tape.withUnsafeText(of: tape[cursor], matches) {
                    return Value(tape: tape, index: cursor + 1, endIndex: valueEnd)
                }
                cursor = valueEnd
            }
            return nil
        }

        /// The value of the first member named `key` if this is an object and has one, else `nil`.
        /// Keys are compared as UTF-8 bytes; no `String` is made for the keys on the tape.
        public subscript(key: String) -> Value? {
            var key = key
            return key.withUTF8 { wanted in
                firstMember { $0.hasSameBytes(as: UnsafeRawBufferPointer(wanted)) }
            }
        }

        /// The element at `offset` if this is an array that long, else `nil`.
        public subscript(offset: Int) -> Value? {
            guard kind == .arrayStart, offset >= 0, offset < count else { return nil }
            var cursor = index + 1
            for _ in 0..<offset { cursor = tape.endOfValue(at: cursor) ?? endIndex }
            return Value(tape: tape, index: cursor, endIndex: tape.endOfValue(at: cursor) ?? endIndex)
        }

        private func expect(_ wanted: JSONToken.Kind, _ description: String) throws(JSONError) {
            guard kind == wanted else { throw mismatch(description) }
        }

        private func mismatch(_ wanted: String) -> JSONError {
            JSONError(
                kind: .typeMismatch,
                message: "Expected \(wanted), found \(kind.nounPhrase).",
                position: position,
                excerpt: kind == .number || kind == .string ? tokenExcerpt : ""
            )
        }

        /// The start of the token's text for an error's excerpt: a few dozen characters on one line,
        /// as ``JSONError/excerpt`` promises, however long the string or number is.
        private var tokenExcerpt: String {
            let text = tape.text(of: token)
            var excerpt = String(
                String.UnicodeScalarView(text.unicodeScalars.prefix(40).map { $0.value < 0x20 ? " " : $0 })
            )
            if text.unicodeScalars.count > 40 { excerpt += "…" }
            return excerpt
        }

        /// Converts the number's text with `convert`; a failure becomes a ``JSONError`` naming the
        /// number and the type, whose name is only made then (an autoclosure: describing a type
        /// costs a runtime call, too much for every value decoded).
        private func convertNumber<R>(
            to typeName: @autoclosure () -> String,
            _ convert: (UnsafeRawBufferPointer) throws(JSONNumberText.Failure) -> R
        ) throws(JSONError) -> R {
            try expect(.number, "a number")
            do throws(JSONNumberText.Failure) {
                return try tape.withUnsafeText(of: token, convert)
            } catch let failure {
                let text = tokenExcerpt
                let typeName = typeName()
                let message: String
                switch failure {
                case .notAnInteger: message = "The number \(text) has a fraction, so it does not fit in \(typeName)."
                case .outOfRange: message = "The number \(text) does not fit in \(typeName)."
                case .tooPrecise:
                    message = "The number \(text) has more significant digits than \(typeName) holds exactly."
                }
                throw JSONError(kind: .numberOutOfRange, message: message, position: position, excerpt: text)
            }
        }
    }

    /// The elements of an array ``JSONTape/Value``.
    public struct Elements: Sequence, IteratorProtocol, Sendable {
        @usableFromInline let tape: JSONTape
        @usableFromInline var cursor: Int
        @usableFromInline let end: Int

        /// The next element, or `nil` after the last. Inlinable, as ``Members/next()`` is.
        @inlinable
        public mutating func next() -> Value? {
            guard cursor < end else { return nil }
            let valueEnd = tape.endOfValue(at: cursor) ?? end
            defer { cursor = valueEnd }
            return Value(tape, from: cursor, to: valueEnd)
        }
    }

    /// One member of an object: its key's token and its value.
    public struct Member: Sendable {
        /// The key's token; read it with ``JSONTape/text(of:)`` or compare it with
        /// ``JSONTape/text(of:equals:)``.
        public let keyToken: JSONToken
        /// The member's value.
        public let value: Value

        /// The key as a `String`.
        public var key: String { value.tape.text(of: keyToken) }

        /// The memberwise initializer, for the inlinable ``Members/next()``, which cannot call
        /// an implicit one.
        @usableFromInline
        init(_ keyToken: JSONToken, _ value: Value) {
            self.keyToken = keyToken
            self.value = value
        }
    }

    /// The members of an object ``JSONTape/Value``.
    public struct Members: Sequence, IteratorProtocol, Sendable {
        @usableFromInline let tape: JSONTape
        @usableFromInline var cursor: Int
        @usableFromInline let end: Int

        /// The next member, or `nil` after the last.
        ///
        /// Inlinable: called from another module, each member came back through an opaque
        /// call as a copy holding the tape (a retain and a release per member, and a generic
        /// copy of the member on the importer's path); where the optimizer inlines it (most
        /// loops, not the largest functions), the loop borrows the tape the iterator holds.
        @inlinable
        public mutating func next() -> Member? {
            guard cursor < end else { return nil }
            let valueEnd = tape.endOfValue(at: cursor + 1) ?? end
            defer { cursor = valueEnd }
            return Member(tape[cursor], Value(tape, from: cursor + 1, to: valueEnd))
        }
    }

    /// The complete value that starts at the absolute index `index`.
    ///
    /// - Throws: ``JSONError/Kind/unexpectedEndOfInput`` when the value has not been fully parsed
    ///   yet (an array or object whose end is not on the tape).
    /// - Precondition: `index` names a token on the tape that starts a value (not a key or an end).
    public func value(at index: Int) throws(JSONError) -> Value {
        precondition(index >= startIndex && index < endIndex, "value(at:) index out of range")
        guard let end = endOfValue(at: index) else {
            throw JSONError(
                kind: .unexpectedEndOfInput,
                message:
                    "The \(self[index].kind == .objectStart ? "object" : "array") at this position has not been fully parsed yet.",
                position: self[index].position
            )
        }
        return Value(tape: self, index: index, endIndex: end)
    }
}

extension JSONTape.Value {
    /// The value on `tape` from `index` up to `endIndex`: the memberwise initializer, for
    /// inlinable code, which cannot call an implicit one (declared in an extension, so that the
    /// memberwise initializer stays for the rest of the module).
    @usableFromInline
    init(_ tape: JSONTape, from index: Int, to endIndex: Int) {
        self.tape = tape
        self.index = index
        self.endIndex = endIndex
    }
}
