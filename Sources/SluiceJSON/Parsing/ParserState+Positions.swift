internal import CSluiceTape
internal import CYajl

// Where things are: token starts, line and column of any offset, the bytes kept for messages, and
// the checks made at each chunk's edges.

extension ParserState {
    private static let lineFeed = UInt8(ascii: "\n")
    static let quote = UInt8(ascii: "\"")

    /// Whether `byte` is JSON whitespace.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Vertical tab and form feed: yajl skips them as whitespace, but JSON does not allow them.
    @inline(__always)
    static func isForbiddenWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x0B || byte == 0x0C
    }

    /// Whether a token starting with `byte` is a number: the tokens, with strings, that can be
    /// long, and so meet the string limit.
    static func startsNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The absolute offset of the token yajl is calling back for: either the token left pending at
    /// an earlier chunk's end, or the first byte after the whitespace and separators that follow
    /// the previous token. Counts the line feeds stepped over. Returns `nil`, with `failure` set,
    /// when the gap holds whitespace that JSON does not allow.
    @inline(__always)
    mutating func beginToken() -> Int? {
        // The separator seen before this token belongs to it; the gap after it starts empty.
        defer { gapHadSeparator = false }
        if pendingStart >= 0 {
            let start = pendingStart
            pendingStart = -1
            return start
        }
        let start = skipGap(until: chunkBase + chunk.count) ?? scanOffset
        guard !Self.isForbiddenWhitespace(chunk[start - chunkBase]) else {
            failure = forbiddenWhitespace(at: start)
            return nil
        }
        return start
    }

    /// Steps from `scanOffset` over gap bytes of the current chunk, up to `limit`. Returns the
    /// offset of the first other byte, or `nil` if only gap bytes came before `limit`.
    ///
    /// This runs over every byte between tokens, so it is written for speed: one comparison
    /// rejects most token bytes, and indentation after a line feed is skipped eight spaces at a time.
    @inline(__always)
    private mutating func skipGap(until limit: Int) -> Int? {
        var index = max(scanOffset, chunkBase) - chunkBase
        let end = limit - chunkBase
        guard index < end, let base = chunk.baseAddress else {
            scanOffset = limit
            return nil
        }
        scan: while index < end {
            // Safe because 0 <= index < end <= chunk.count.
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            switch byte {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = chunkBase + index
                // Safe because index + 8 <= end keeps the load inside the chunk.
                while index + 8 <= end, base.loadUnaligned(fromByteOffset: index, as: UInt64.self) == Self.eightSpaces {
                    index += 8
                }
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                index += 1
                gapHadSeparator = true
            default:
                break scan
            }
        }
        scanOffset = chunkBase + index
        return index < end ? scanOffset : nil
    }

    private static let eightSpaces: UInt64 = 0x2020_2020_2020_2020

    /// The position of a token whose start is known; the line counter has already reached it.
    @inline(__always)
    func position(ofTokenAt start: Int) -> JSONPosition {
        JSONPosition(byteOffset: start, line: line, column: start - lineStart + 1)
    }

    /// The position of any offset at or after the last token, counting the line feeds between.
    mutating func position(of offset: Int) -> JSONPosition {
        if offset > scanOffset {
            let end = min(offset, chunkBase + (chunkIsVirtual ? 0 : chunk.count))
            var index = max(scanOffset, chunkBase)
            while index < end {
                if chunk[index - chunkBase] == Self.lineFeed {
                    line += 1
                    lineStart = index + 1
                }
                index += 1
            }
            scanOffset = offset
        }
        return JSONPosition(byteOffset: offset, line: line, column: max(offset - lineStart, 0) + 1)
    }

    /// The input byte at an absolute offset, if it is still at hand.
    func byte(at offset: Int) -> UInt8? {
        if offset >= chunkBase {
            let index = offset - chunkBase
            return !chunkIsVirtual && index < chunk.count ? chunk[index] : nil
        }
        let index = recent.count - (chunkBase - offset)
        if index >= 0 { return recent[index] }
        // Bytes of earlier chunks kept for a token that spanned them: still the input's bytes.
        if offset >= carryStart, offset - carryStart < carry.count { return carry[offset - carryStart] }
        if offset >= tokenWindowStart, offset - tokenWindowStart < tokenWindow.count {
            return tokenWindow[offset - tokenWindowStart]
        }
        return nil
    }

    /// Keeps the bytes around the start of a token that the chunk's end cut: from up to
    /// `tokenWindowBefore` bytes before it (still at hand: they are in this chunk or in `recent`)
    /// to as much of the token as this chunk holds.
    private mutating func rememberTokenStart(_ start: Int) {
        tokenWindow.removeAll(keepingCapacity: true)
        tokenWindowStart = max(start - Self.tokenWindowBefore, 0)
        var offset = tokenWindowStart
        while offset < start + Self.tokenWindowAfter, let byte = byte(at: offset) {
            tokenWindow.append(byte)
            offset += 1
        }
    }

    /// Adds what this chunk holds of the first `tokenWindowAfter` bytes of the pending token.
    private mutating func extendTokenWindow() {
        let end = min(pendingStart + Self.tokenWindowAfter, chunkBase + chunk.count)
        var offset = tokenWindowStart + tokenWindow.count
        while offset < end, offset >= chunkBase {
            tokenWindow.append(chunk[offset - chunkBase])
            offset += 1
        }
    }

    /// Starts a parse call over `bytes`.
    mutating func beginChunk(_ bytes: UnsafeRawBufferPointer, isVirtual: Bool) {
        tape.makeUnique()
        buffer = tape.uncheckedBuffer
        shareBuffer()
        chunk = bytes
        chunkIsVirtual = isVirtual
        hot.pointee.yajl_base = chunkBase
    }

    /// Ends a successful parse call: remembers a token cut by the chunk's end, checks it against
    /// the limits, and keeps the chunk's last bytes for excerpts.
    mutating func endChunk() -> JSONError? {
        let chunkEnd = chunkBase + chunk.count
        if pendingStart < 0, let start = skipGap(until: chunkEnd) {
            pendingStart = start
            pendingFirstByte = chunk[start - chunkBase]
            rememberTokenStart(start)
            if pendingFirstByte == Self.quote {
                carry.removeAll(keepingCapacity: true)
                carryStart = start
                carry.append(contentsOf: chunk[(start - chunkBase)...])
            }
        } else if pendingStart >= 0 {
            extendTokenWindow()
            if pendingFirstByte == Self.quote { carry.append(contentsOf: chunk) }
        }
        scanOffset = chunkEnd
        var fault: JSONError?
        if pendingStart >= 0, Self.isForbiddenWhitespace(pendingFirstByte) {
            fault = forbiddenWhitespace(at: pendingStart)
        } else if pendingStart >= 0, pendingFirstByte == Self.quote || Self.startsNumber(pendingFirstByte) {
            // A string or number cut by the chunk's end is buffered inside yajl; refusing it once
            // it is too long is what keeps that buffer bounded. (A literal is at most five bytes.)
            let isString = pendingFirstByte == Self.quote
            let length = chunkEnd - pendingStart - (isString ? 1 : 0)
            if length > maxTokenBytes {
                // A token that cannot stand where it starts is a grammar fault, which yajl reports
                // once it has read the token whole: report that, so that the error is the same
                // whether or not a chunk's end fell inside the token.
                if let misplaced = misplacedTokenError(at: pendingStart, isString: isString, separated: gapHadSeparator)
                {
                    fault = misplaced
                } else {
                    let isKey = isString && containers.last?.is_object == true && !lastTokenWasKey
                    let description = isString ? (isKey ? "key" : "string") : "number"
                    fault = tokenTooLong(at: pendingStart, description: description)
                }
            }
        }
        if fault == nil {
            rememberRecentBytes()
            chunkBase = chunkEnd
        }
        chunk = UnsafeRawBufferPointer(start: nil, count: 0)
        return fault
    }

    private mutating func rememberRecentBytes() {
        let keep = Self.recentCapacity
        if chunk.count >= keep {
            recent.removeAll(keepingCapacity: true)
            recent.append(contentsOf: chunk[(chunk.count - keep)...])
        } else {
            let overflow = recent.count + chunk.count - keep
            if overflow > 0 { recent.removeFirst(overflow) }
            recent.append(contentsOf: chunk)
        }
    }

    /// Calls `body` with a token's bytes as written in the input, from `start` to `end`; a token
    /// that began in an earlier chunk is put together from `carry` and the current chunk.
    mutating func withRawToken<R>(from start: Int, to end: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let endInChunk = min(end - chunkBase, chunkIsVirtual ? 0 : chunk.count)
        if start >= chunkBase {
            return body(UnsafeRawBufferPointer(rebasing: chunk[(start - chunkBase)..<endInChunk]))
        }
        if endInChunk > 0 { carry.append(contentsOf: chunk[..<endInChunk]) }
        // Kept, not cleared: a fault found in it is described from it (`byte(at:)`).
        return carry.withUnsafeBytes(body)
    }

    /// Runs the checks yajl does not do on the raw bytes of a string that has escapes.
    mutating func checkRawString(from start: Int, to end: Int) -> JSONError? {
        let contentStart = start + 1
        let fault: (offset: Int, isSurrogate: Bool)? = withRawToken(from: start, to: end) { raw in
            let content = UnsafeRawBufferPointer(rebasing: raw[1..<(raw.count - 1)])
            if let index = UTF8Validation.firstInvalidSequence(in: content) {
                return (contentStart + index, false)
            }
            if let index = UTF8Validation.firstUnpairedSurrogate(in: content) {
                return (contentStart + index, true)
            }
            return nil
        }
        guard let fault else { return nil }
        if fault.isSurrogate {
            return error(
                .unpairedSurrogate,
                "A \\u escape names half of a UTF-16 surrogate pair without the other half.",
                at: fault.offset
            )
        }
        return invalidUTF8(at: fault.offset)
    }
}
