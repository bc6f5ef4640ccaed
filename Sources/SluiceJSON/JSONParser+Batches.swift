// What the parallel path (issue 16) needs of the parser: a parser that starts in the middle of a
// document, and a stand-in for a batch of elements another thread has read.
//
// Positions are derived from bytes (see JSONParser.swift), so a parser can be told where its first
// byte stands (offset, line, line start) and every position it reports after that is the
// document's own. The same holds for jumping: nothing in the parser's state refers back to the
// bytes of a gap once no token is open, so after a batch the parser can carry on from the batch's
// end as if it had read it, given the position there and the bytes just before it (for excerpts).

extension JSONParser {
    /// A parser whose first byte is the document's byte at `offset`, on `line` at `column`.
    package convenience init(limits: JSONLimits, startingAt offset: Int, line: Int, column: Int) {
        self.init(limits: limits)
        state.pointee.chunkBase = offset
        state.pointee.scanOffset = offset
        state.pointee.line = line
        state.pointee.lineStart = offset - (column - 1)
    }

    /// Stands in for a value that another parser has read, which ends just before the byte at
    /// `end` (on `line`, at `column`): the parser reads a `null` placed just before `end`, then
    /// carries on at `end` with `tail` (the last bytes before `end`) as what precedes it.
    ///
    /// - Precondition: no token is open (the input so far ends at a `[` or `,` and whitespace), and
    ///   `end` is at least 4 bytes after what was read.
    package func parseStandIn(endingAt end: Int, line: Int, column: Int, tail: UnsafeRawBufferPointer) throws(JSONError)
    {
        if let failure = state.pointee.failure { throw failure }
        precondition(state.pointee.pendingStart < 0, "JSONParser.parseStandIn(endingAt:) inside a token")
        let standIn: StaticString = "null"
        let start = end - standIn.utf8CodeUnitCount
        precondition(start >= state.pointee.chunkBase, "JSONParser.parseStandIn(endingAt:) going back")
        state.pointee.chunkBase = start
        state.pointee.scanOffset = start
        state.pointee.line = line
        // The stand-in's own column may come out below 1 when a line feed falls in the value's last
        // bytes; nothing reads it, and from `end` on the column is right.
        state.pointee.lineStart = end - (column - 1)
        try feed(UnsafeRawBufferPointer(start: standIn.utf8Start, count: standIn.utf8CodeUnitCount))
        let keep = min(tail.count, ParserState.recentCapacity)
        state.pointee.recent = Array(tail[(tail.count - keep)...])
    }
}
