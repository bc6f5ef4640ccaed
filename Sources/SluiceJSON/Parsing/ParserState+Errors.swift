internal import CSluiceTape
internal import CYajl

// How faults become Sluice's errors: the sentences, their positions, and the table of yajl's
// messages.

extension ParserState {
    /// Describes a byte for a message: `'x'` for printable ASCII, `byte 0xFF` otherwise.
    private func describeByte(at offset: Int) -> String {
        guard let byte = byte(at: offset) else { return "the end of the input" }
        return JSONError.describe(byte: byte)
    }

    /// Builds an error at an absolute offset, with its position and an excerpt.
    mutating func error(_ kind: JSONError.Kind, _ message: String, at offset: Int) -> JSONError {
        let position = position(of: offset)
        let (excerpt, column) = excerpt(around: offset, lineStart: lineStart)
        return JSONError(kind: kind, message: message, position: position, excerpt: excerpt, excerptColumn: column)
    }

    /// The fault's line, from at most 24 bytes before it up to the fault itself; and the fault's
    /// index in it, in characters.
    ///
    /// Why it ends at the fault: the bytes after it are at hand only when the chunk that brought
    /// the fault happens to hold them, and an excerpt, like the message, must not depend on where
    /// the input was cut. The bytes before it are: the chunk, `recent`, the string being read and
    /// the window kept around a token cut by a chunk's end hold them.
    private func excerpt(around offset: Int, lineStart: Int) -> (String, Int) {
        var from = offset
        let lowest = max(offset - 24, lineStart, 0)
        while from > lowest, byte(at: from - 1) != nil { from -= 1 }
        // Start on a character boundary: skip UTF-8 continuation bytes.
        while from < offset, let byte = byte(at: from), byte & 0xC0 == 0x80 { from += 1 }
        var bytes: [UInt8] = []
        var to = from
        while to <= offset, let byte = byte(at: to) {
            if to == offset && (byte == 0x0A || byte == 0x0D) { break }
            bytes.append(byte)
            to += 1
        }
        func render(_ slice: ArraySlice<UInt8>) -> String {
            let text = String(decoding: slice, as: UTF8.self)
            return String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        }
        let before = render(bytes[..<min(max(offset - from, 0), bytes.count)])
        return (render(bytes[...]), before.count)
    }

    mutating func invalidUTF8(at offset: Int) -> JSONError {
        error(
            .invalidUTF8,
            "Invalid UTF-8 in a string: the sequence starting with \(describeByte(at: offset)) is ill-formed.",
            at: offset
        )
    }

    /// The grammar fault yajl reports for a string or number starting at `start` once it has read
    /// the whole token, when such a token cannot stand there; `nil` when it can. yajl has accepted
    /// every separator in the gap before it, so only a missing one, or a number where a key must be,
    /// is left to find.
    mutating func misplacedTokenError(at start: Int, isString: Bool, separated: Bool) -> JSONError? {
        guard let innermost = containers.last else {
            return sawToken ? trailingGarbage(at: start) : nil
        }
        if innermost.is_object {
            if lastTokenWasKey { return separated ? nil : expectedColon(at: start) }
            if lastTokenEndedValue && !separated { return expectedMemberSeparator(at: start) }
            return isString ? nil : expectedKey(at: start)
        }
        return lastTokenEndedValue && !separated ? expectedElementSeparator(at: start) : nil
    }

    private mutating func trailingGarbage(at start: Int) -> JSONError {
        error(.syntax, "Unexpected \(describeByte(at: start)) after the end of the JSON value.", at: start)
    }

    private mutating func expectedKey(at start: Int) -> JSONError {
        error(.syntax, "Expected a string as the object key, found \(describeByte(at: start)).", at: start)
    }

    /// A container closed right after the comma that should have led to its next element or member.
    private mutating func trailingComma(at start: Int, inObject: Bool) -> JSONError {
        let (bracket, container, item) = inObject ? ("}", "object", "member") : ("]", "array", "element")
        return error(
            .syntax,
            "\(JSONError.trailingCommaPrefix) ',' before '\(bracket)' ends the \(container); JSON allows no comma after its last \(item).",
            at: start
        )
    }

    private mutating func expectedColon(at start: Int) -> JSONError {
        error(.syntax, "Expected ':' after the object key, found \(describeByte(at: start)).", at: start)
    }

    private mutating func expectedMemberSeparator(at start: Int) -> JSONError {
        error(.syntax, "Expected ',' or '}' after the object member, found \(describeByte(at: start)).", at: start)
    }

    private mutating func expectedElementSeparator(at start: Int) -> JSONError {
        error(.syntax, "Expected ',' or ']' after the array element, found \(describeByte(at: start)).", at: start)
    }

    /// The message leaves out the token's length: a token cut by a chunk's end is refused before
    /// its length is known, and the error must not depend on where chunks end.
    mutating func tokenTooLong(at start: Int, description: String) -> JSONError {
        error(
            .stringLimitExceeded,
            "A \(description) is longer than the limit of \(limits.maxStringBytes) bytes.",
            at: start
        )
    }

    /// The limit error to report instead of a syntax fault at `fault` when the fault lies past the
    /// limit inside a long string or number: cut into small chunks, the same input would have
    /// tripped the limit before yajl reached the fault.
    private mutating func limitErrorInstead(ofFaultAt fault: Int, tokenStart start: Int) -> JSONError? {
        guard start < fault, let first = byte(at: start) else { return nil }
        if first == Self.quote, fault - start - 1 > maxTokenBytes {
            let isKey = containers.last?.is_object == true && !lastTokenWasKey
            return tokenTooLong(at: start, description: isKey ? "key" : "string")
        }
        if Self.startsNumber(first), fault - start > maxTokenBytes {
            return tokenTooLong(at: start, description: "number")
        }
        return nil
    }

    /// The value being read holds more tape than `limits.maxHeldBytes`: reported where the held
    /// value starts (`start`, its first token), else at the end of the input parsed so far.
    mutating func heldBytesLimitExceeded(heldFrom start: JSONPosition?) -> JSONError {
        let message =
            "The value being read is larger than the limit of \(limits.maxHeldBytes) bytes of tokens and text held at once: a streaming reader keeps one resource, element or top-level member whole (JSONLimits.maxHeldBytes)."
        // At the value's start no excerpt: its first bytes are long gone from the parser's window.
        let error =
            start.map { JSONError(kind: .heldBytesLimitExceeded, message: message, position: $0) }
            ?? error(.heldBytesLimitExceeded, message, at: chunkBase)
        failure = error
        return error
    }

    mutating func documentLimitExceeded() -> JSONError {
        let error = error(
            .documentLimitExceeded,
            "The document is longer than the limit of \(limits.maxDocumentBytes) bytes.",
            at: limits.maxDocumentBytes
        )
        failure = error
        return error
    }

    /// Turns the status of a yajl call into the error to throw, or `nil` to go on. The one place
    /// where yajl's statuses and messages become Sluice's errors.
    mutating func error(for status: yajl_status) -> JSONError? {
        switch status {
        case yajl_status_ok:
            return nil
        case yajl_status_client_canceled:
            guard let failure else {
                preconditionFailure("Internal inconsistency: yajl stopped without a recorded error")
            }
            return failure
        case yajl_status_error:
            return syntaxError()
        default:
            preconditionFailure("Internal inconsistency: unknown yajl status \(status.rawValue)")
        }
    }

    /// Reads yajl's error message and turns it into a sentence at the fault's position, unless a
    /// limit was crossed before the fault.
    private mutating func syntaxError() -> JSONError {
        let (start, separated) = offendingToken()
        if let byte = byte(at: start), Self.isForbiddenWhitespace(byte) {
            return forbiddenWhitespace(at: start)
        }
        if separated, lastTokenEndedValue, let innermost = containers.last,
            byte(at: start) == (innermost.is_object ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        {
            return trailingComma(at: start, inObject: innermost.is_object)
        }
        let fault = describeYajlError(offendingTokenStart: start)
        guard fault.kind != .unexpectedEndOfInput else { return fault }
        // A string or number that cannot stand where it starts (a number where a key belongs, a
        // missing separator) is reported as such, whatever yajl found inside it while reading it:
        // cut into small chunks, the token would have been refused at a chunk's end for its place
        // (see `endChunk`) before its inside was read.
        if let first = byte(at: start), first == Self.quote || Self.startsNumber(first),
            let misplaced = misplacedTokenError(
                at: start,
                isString: first == Self.quote,
                separated: separated
            )
        {
            return misplaced
        }
        guard fault.byteOffset > start else { return fault }
        // Some faults are reported where they start but decided by a later byte: an ill-formed
        // UTF-8 sequence by the byte that breaks it (the last one yajl read), a bad escape by the
        // byte after its backslash. Cut into small chunks, the input crosses the limit before
        // that byte is seen whenever it lies past the limit, so that byte is what counts.
        let decisive: Int
        if fault.kind == .invalidUTF8 {
            decisive = max(fault.byteOffset, yajlRead - 1)
        } else if byte(at: fault.byteOffset) == UInt8(ascii: "\\") {
            decisive = fault.byteOffset + 1
        } else {
            decisive = fault.byteOffset
        }
        return limitErrorInstead(ofFaultAt: decisive, tokenStart: start) ?? fault
    }

    mutating func forbiddenWhitespace(at offset: Int) -> JSONError {
        let name = byte(at: offset) == 0x0B ? "vertical tab (0x0B)" : "form feed (0x0C)"
        return error(
            .syntax,
            "Unexpected \(name); JSON allows only space, tab, line feed and carriage return between tokens.",
            at: offset
        )
    }

    /// yajl's error message as a sentence at the fault's position. yajl's own offset is not used
    /// for faults in the grammar: it moves it back over the offending token when it can, and
    /// cannot when the token was cut by a chunk's end. Sluice finds the token itself.
    private mutating func describeYajlError(offendingTokenStart start: Int) -> JSONError {
        let handle = handle.unsafelyUnwrapped
        var reason = ""
        if let text = yajl_get_error(handle, 0, nil, 0) {
            reason = String(cString: text)
            yajl_free_error(handle, text)
        }
        // yajl writes "lexical error: <why>\n" or "parse error: <why>\n".
        if let colon = reason.firstIndex(of: ":") {
            reason = String(reason[reason.index(after: colon)...])
        }
        reason = reason.trimmingWhitespace()
        // yajl reports how far it read. For most faults it has read the offending byte (`read - 1`);
        // for some it steps back first, leaving the offending byte next (`read`).
        let read = yajlRead
        let last = max(read - 1, 0)
        switch YajlFault(rawValue: reason) {
        case .prematureEnd:
            return unexpectedEnd()
        case .trailingGarbage:
            return trailingGarbage(at: start)
        case .unallowedToken:
            return error(.syntax, "Unexpected \(describeByte(at: start)) where a value was expected.", at: start)
        case .invalidKey:
            return expectedKey(at: start)
        case .missingColon:
            return expectedColon(at: start)
        case .missingMemberSeparator:
            return expectedMemberSeparator(at: start)
        case .missingElementSeparator:
            return expectedElementSeparator(at: start)
        case .invalidUTF8:
            return invalidUTF8(at: firstInvalidByte(inTokenAt: start, before: last))
        case .invalidEscape:
            // yajl stops on the backslash; the character after it is the fault.
            return error(.syntax, "Invalid escape sequence: '\\' followed by \(describeByte(at: read)).", at: last)
        case .controlCharacter:
            return error(
                .syntax,
                "Unescaped control character \(describeByte(at: read)) in a string; write it as an escape.",
                at: read
            )
        case .invalidUnicodeEscape:
            return error(
                .syntax,
                "Invalid \\u escape: expected four hexadecimal digits, found \(describeByte(at: read)).",
                at: read
            )
        case .invalidCharacter where last == 0 && byte(at: 0) == 0xEF:
            return error(
                .syntax,
                "Unexpected byte 0xEF at the start of the input: the start of a UTF-8 byte order mark, but not a whole one.",
                at: 0
            )
        case .invalidCharacter:
            return error(.syntax, "Unexpected \(describeByte(at: last)) where a value was expected.", at: last)
        case .invalidLiteral:
            // A literal that starts like true, false or null and then goes wrong.
            let name =
                byte(at: start) == UInt8(ascii: "t") ? "true" : byte(at: start) == UInt8(ascii: "f") ? "false" : "null"
            return error(.syntax, "Invalid literal: expected '\(name)', found \(describeByte(at: read)).", at: read)
        case .missingExponentDigit:
            return error(
                .syntax,
                "Malformed number: a digit must follow the exponent, found \(describeByte(at: read)).",
                at: read
            )
        case .missingFractionDigit:
            return error(
                .syntax,
                "Malformed number: a digit must follow the decimal point, found \(describeByte(at: read)).",
                at: read
            )
        case .missingIntegerDigit:
            return error(
                .syntax,
                "Malformed number: a digit must follow the minus sign, found \(describeByte(at: read)).",
                at: read
            )
        case .comment:
            return error(.syntax, "Comments are not allowed in JSON.", at: read)
        case nil:
            return error(.syntax, "Invalid JSON (yajl: \(reason)).", at: last)
        }
    }

    /// The start of the token yajl was lexing when it stopped: the token left pending at a chunk's
    /// end, or the first byte after the previous token that is neither whitespace nor the one
    /// separator the grammar allows there (':' after a key, ',' after a value in a container);
    /// the end of the input when there is no such byte. With it, whether that separator stands
    /// before it, which decides whether a string or number there is in its place.
    private func offendingToken() -> (start: Int, separated: Bool) {
        if pendingStart >= 0 { return (pendingStart, gapHadSeparator) }
        let expected: UInt8? =
            lastTokenWasKey
            ? UInt8(ascii: ":") : (lastTokenEndedValue && !containers.isEmpty ? UInt8(ascii: ",") : nil)
        var separatorSeen = gapHadSeparator
        var offset = max(scanOffset, chunkBase)
        let end = chunkBase + (chunkIsVirtual ? 0 : chunk.count)
        while offset < end {
            let byte = chunk[offset - chunkBase]
            if Self.isWhitespace(byte) {
                offset += 1
            } else if byte == expected && !separatorSeen {
                separatorSeen = true
                offset += 1
            } else {
                break
            }
        }
        return (offset, separatorSeen)
    }

    /// The first byte of the ill-formed UTF-8 sequence that yajl stopped in, found by Sluice's own
    /// check so that the offset is the same whichever of the two checks finds a fault.
    private mutating func firstInvalidByte(inTokenAt start: Int, before stop: Int) -> Int {
        guard start < stop else { return stop }
        let found = withRawToken(from: start, to: stop + 1) { raw -> Int? in
            UTF8Validation.firstInvalidSequence(in: UnsafeRawBufferPointer(rebasing: raw[1...]))
        }
        return found.map { start + 1 + $0 } ?? stop
    }

    /// The error for input that ended too soon, naming what was left open.
    private mutating func unexpectedEnd() -> JSONError {
        let end = chunkBase
        if pendingStart >= 0 && pendingFirstByte == Self.quote {
            let where_ = position(of: pendingStart)
            return error(
                .unexpectedEndOfInput,
                "The input ended inside a string that starts at line \(where_.line), column \(where_.column).",
                at: end
            )
        }
        guard let innermost = containers.last else {
            return error(
                .unexpectedEndOfInput,
                "The input holds no JSON value; it is empty or only whitespace.",
                at: end
            )
        }
        let kind = innermost.is_object ? "an object" : "an array"
        let place = "line \(innermost.position.line), column \(innermost.position.column)"
        let what = lastTokenWasKey ? "before the value of a member, in" : "inside"
        let more = containers.count > 1 ? " (\(containers.count) arrays and objects were left open)" : ""
        return error(.unexpectedEndOfInput, "The input ended \(what) \(kind) that opened at \(place)\(more).", at: end)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

/// The faults yajl reports, by its message (the part after "lexical error:" or "parse error:"):
/// the one table that turns yajl's English into Sluice's messages. A test makes the linked yajl
/// report each of them and checks its wording is here, so a yajl whose wording differs fails
/// that test instead of degrading messages to "Invalid JSON (yajl: ...)".
package enum YajlFault: String, CaseIterable, Sendable {
    case prematureEnd = "premature EOF"
    case trailingGarbage = "trailing garbage"
    case unallowedToken = "unallowed token at this point in JSON text"
    case invalidKey = "invalid object key (must be a string)"
    case missingColon = "object key and value must be separated by a colon (':')"
    case missingMemberSeparator = "after key and value, inside map, I expect ',' or '}'"
    case missingElementSeparator = "after array element, I expect ',' or ']'"
    case invalidUTF8 = "invalid bytes in UTF8 string."
    case invalidEscape = "inside a string, '\\' occurs before a character which it may not."
    case controlCharacter = "invalid character inside string."
    case invalidUnicodeEscape = "invalid (non-hex) character occurs after '\\u' inside string."
    case invalidCharacter = "invalid char in json text."
    case invalidLiteral = "invalid string in json text."
    case missingExponentDigit = "malformed number, a digit is required after the exponent."
    case missingFractionDigit = "malformed number, a digit is required after the decimal point."
    case missingIntegerDigit = "malformed number, a digit is required after the minus sign."
    case comment = "probable comment found in input text, comments are not enabled."
}
