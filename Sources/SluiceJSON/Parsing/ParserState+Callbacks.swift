internal import CSluiceTape
internal import CYajl

// yajl's callbacks: each token it reads goes onto the tape, or stops the parse with an error.

extension ParserState {
    /// yajl's "go on" and "stop" answers.
    private static let proceed: Int32 = 1
    private static let stop: Int32 = 0

    /// The absolute offset just past the token yajl has lexed (yajl counts bytes consumed of the
    /// current chunk while it calls back).
    @inline(__always)
    private var tokenEnd: Int {
        // Safe because callbacks run only inside yajl calls on a parser whose handle is set.
        yajlRead
    }

    mutating func didReceiveLiteral(_ kind: JSONToken.Kind) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        appendMarker(kind, payload: 0, at: start)
        endValue(at: tokenEnd)
        return Self.proceed
    }

    mutating func didReceiveNumber(_ text: UnsafeRawBufferPointer) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        guard text.count <= maxTokenBytes else {
            return fail(tokenTooLong(at: start, description: "number"))
        }
        appendText(.number, text, at: start)
        endValue(at: tokenEnd)
        return Self.proceed
    }

    mutating func didReceiveString(_ text: UnsafeRawBufferPointer, isKey: Bool) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        let end = tokenEnd
        let rawLength = end - start - 2
        guard rawLength <= maxTokenBytes else {
            return fail(tokenTooLong(at: start, description: isKey ? "key" : "string"))
        }
        if text.count == rawLength {
            // No escapes: the decoded bytes are the raw bytes, so check them where they are.
            if let index = UTF8Validation.firstInvalidSequence(in: text) {
                return fail(invalidUTF8(at: start + 1 + index))
            }
            if start < chunkBase { carry.removeAll(keepingCapacity: true) }
        } else if let fault = checkRawString(from: start, to: end) {
            return fail(fault)
        }
        appendText(isKey ? .key : .string, text, at: start)
        if isKey {
            scanOffset = end
            lastTokenWasKey = true
            lastTokenEndedValue = false
        } else {
            endValue(at: end)
        }
        return Self.proceed
    }

    mutating func didStartContainer(isObject: Bool) -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        guard containers.count < limits.maxDepth else {
            return fail(
                error(
                    .depthLimitExceeded,
                    "Arrays and objects are nested more than \(limits.maxDepth) levels deep, the limit.",
                    at: start
                )
            )
        }
        containers.topChildCount += 1
        let position = position(ofTokenAt: start)
        containers.push(
            sluice_open_container(
                token_index: tapeEndIndex,
                child_count: 0,
                byte_offset: position.byteOffset,
                line: position.line,
                column: position.column,
                is_object: isObject
            )
        )
        appendMarker(isObject ? .objectStart : .arrayStart, payload: -1, at: start)
        scanOffset = tokenEnd
        lastTokenWasKey = false
        lastTokenEndedValue = false
        sawToken = true
        return Self.proceed
    }

    mutating func didEndContainer() -> Int32 {
        guard let start = beginToken() else { return Self.stop }
        guard let open = containers.pop() else {
            preconditionFailure("Internal inconsistency: yajl closed a container that never opened")
        }
        let endIndex = tapeEndIndex
        appendMarker(open.is_object ? .objectEnd : .arrayEnd, payload: open.token_index, at: start)
        // Record on the start token where its container ends, unless a consumer has released it.
        let startPosition = open.token_index - buffer.pointee.firstIndex
        if startPosition >= 0 {
            buffer.pointee.tokens[startPosition].payload = endIndex
            buffer.pointee.tokens[startPosition].length = UInt32(clamping: open.child_count)
        }
        scanOffset = tokenEnd
        lastTokenWasKey = false
        lastTokenEndedValue = true
        return Self.proceed
    }

    /// The absolute index the next token will have.
    @inline(__always)
    private var tapeEndIndex: Int { buffer.pointee.firstIndex + buffer.pointee.tokenCount }

    @inline(__always)
    private mutating func appendMarker(_ kind: JSONToken.Kind, payload: Int, at start: Int) {
        buffer.pointee.append(
            JSONToken(
                kind: kind,
                length: 0,
                payload: payload,
                byteOffset: start,
                line: line,
                column: start - lineStart + 1
            )
        )
    }

    @inline(__always)
    private mutating func appendText(_ kind: JSONToken.Kind, _ text: UnsafeRawBufferPointer, at start: Int) {
        let offset = kind == .number ? buffer.pointee.appendNumber(text) : buffer.pointee.appendText(text)
        // Safe because every token is at most maxTokenBytes long, which is clamped to UInt32.max.
        buffer.pointee.append(
            JSONToken(
                kind: kind,
                length: UInt32(truncatingIfNeeded: text.count),
                payload: offset,
                byteOffset: start,
                line: line,
                column: start - lineStart + 1,
                isASCII: kind == .number || UTF8Validation.isASCII(text)
            )
        )
    }

    /// Bookkeeping after a scalar value: it counts as a child of the open container, if any.
    @inline(__always)
    private mutating func endValue(at end: Int) {
        containers.topChildCount += 1
        scanOffset = end
        lastTokenWasKey = false
        lastTokenEndedValue = true
        sawToken = true
    }

    private mutating func fail(_ error: JSONError) -> Int32 {
        failure = error
        return Self.stop
    }
}
