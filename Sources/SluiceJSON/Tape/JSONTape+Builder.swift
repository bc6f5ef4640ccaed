internal import CSluiceTape

extension JSONTape {
    /// Builds a tape from events handed to it one by one, as the parser builds one from yajl's:
    /// how values that never were JSON text (Foundation containers, converted strings) are replayed
    /// into the same decoders.
    package struct Builder {
        private(set) var tape = JSONTape()
        /// The start token index and child count of every open container, outermost first.
        private var open: [(index: Int, children: Int)] = []
        /// Where the next token is said to start. Replayed values have no place in any input, so
        /// by default this is line 0, which error messages describe as "in the replayed value";
        /// a reader of text sets it before each token.
        package var position: JSONPosition

        package init(position: JSONPosition = JSONPosition(byteOffset: 0, line: 0, column: 0)) {
            self.position = position
        }

        /// The tape built so far.
        package var result: JSONTape { tape }

        private mutating func append(_ kind: JSONToken.Kind, length: UInt32 = 0, payload: Int) {
            tape.makeUnique()
            tape.uncheckedBuffer.pointee.append(
                JSONToken(
                    kind: kind,
                    length: length,
                    payload: payload,
                    byteOffset: position.byteOffset,
                    line: position.line,
                    column: position.column
                )
            )
        }

        private mutating func countChild() {
            if !open.isEmpty { open[open.count - 1].children += 1 }
        }

        /// Appends `null`, `true` or `false`.
        package mutating func appendLiteral(_ kind: JSONToken.Kind) {
            precondition(kind == .null || kind == .true || kind == .false, "appendLiteral needs a literal kind")
            countChild()
            append(kind, payload: 0)
        }

        /// Appends a string, key or number with `text` (for numbers, valid JSON number text).
        package mutating func appendText(_ kind: JSONToken.Kind, _ text: UnsafeRawBufferPointer) {
            precondition(kind == .string || kind == .key || kind == .number, "appendText needs a text kind")
            if kind != .key { countChild() }
            tape.makeUnique()
            let buffer = tape.uncheckedBuffer
            let offset = kind == .number ? buffer.pointee.appendNumber(text) : buffer.pointee.appendText(text)
            append(kind, length: UInt32(truncatingIfNeeded: text.count), payload: offset)
        }

        /// Appends an integer JSON5 wrote in hexadecimal, `text` its decimal digits: it converts
        /// to floating point only exactly.
        package mutating func appendHexadecimalNumber(_ text: UnsafeRawBufferPointer) {
            countChild()
            tape.makeUnique()
            let offset = tape.uncheckedBuffer.pointee.appendNumber(text, addingFlags: UInt8(SLUICE_NUMBER_HEXADECIMAL))
            append(.number, length: UInt32(truncatingIfNeeded: text.count), payload: offset)
        }

        /// Appends a number JSON has no text for (JSON5's `Infinity`, `-Infinity`, `NaN`): `text`
        /// names it, and the token's trailer holds `value` as converted, which is all that
        /// conversions to `Double` and `Float` read.
        package mutating func appendNumber(_ text: String, converted value: Double) {
            countChild()
            tape.makeUnique()
            var text = text
            let offset = text.withUTF8 { utf8 in
                tape.uncheckedBuffer.pointee.appendNumber(UnsafeRawBufferPointer(utf8), converted: value)
            }
            append(.number, length: UInt32(truncatingIfNeeded: text.utf8.count), payload: offset)
        }

        /// Appends a string, key or number with `text`.
        package mutating func appendText(_ kind: JSONToken.Kind, _ text: String) {
            var text = text
            text.withUTF8 { appendText(kind, UnsafeRawBufferPointer($0)) }
        }

        /// Opens an object or an array.
        package mutating func beginContainer(isObject: Bool) {
            countChild()
            open.append((tape.endIndex, 0))
            append(isObject ? .objectStart : .arrayStart, payload: -1)
        }

        /// Closes the innermost open container.
        package mutating func endContainer() {
            guard let container = open.popLast() else {
                preconditionFailure("Internal inconsistency: a replayed container closed twice")
            }
            let endIndex = tape.endIndex
            let isObject = tape[container.index].kind == .objectStart
            append(isObject ? .objectEnd : .arrayEnd, payload: container.index)
            let buffer = tape.uncheckedBuffer
            let position = container.index - buffer.pointee.firstIndex
            buffer.pointee.tokens[position].payload = endIndex
            buffer.pointee.tokens[position].length = UInt32(clamping: container.children)
        }
    }
}
