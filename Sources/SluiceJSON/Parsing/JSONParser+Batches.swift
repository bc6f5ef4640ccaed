// What the parallel path needs of the parser: a parser that starts in the middle of a
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
        startsMidDocument()
        state.pointee.chunkBase = offset
        state.pointee.scanOffset = offset
        state.pointee.line = line
        state.pointee.lineStart = offset - (column - 1)
    }

    /// Sizes the tape for about `bytes` bytes of input, where that size is known before the input
    /// is read and all of it stays on the tape (a parallel batch, a whole document in memory):
    /// grown from nothing, the tape copied its tokens over and over (a few percent of a reading
    /// thread's time, a tenth of a small document's decode).
    package func reserveTape(forInputBytes bytes: Int) {
        state.pointee.tape.makeUnique()
        // A JSON:API document has a token every 7 bytes or so, and 70% of its bytes are the text
        // of its strings and numbers; a document of numbers (canada.json) has a number every 20
        // bytes, whose text and 12-byte trailer take 1.5 times its bytes. A guess too small only
        // grows as before, and pages of one too large are never touched. The tape doubles its
        // capacities up to these, so batches ask malloc for the same few sizes, which it hands
        // back and forth instead of holding more memory in pieces.
        state.pointee.tape.uncheckedBuffer.pointee.reserve(tokens: bytes / 7 + 16, bytes: bytes / 2 * 3 + 64)
    }

    /// Stands in for `batch`, which another parser has read: the parser reads a `null` placed just
    /// before the batch's end, then carries on at the separator after it as if it had read the
    /// batch (excerpts included). The stand-in needs four bytes: `batch` must hold that many.
    ///
    /// - Precondition: the input so far ends where `batch` starts, just after its `[` or `,`.
    package func parseStandIn(for batch: JSONBatch) throws(JSONError) {
        if let failure = state.pointee.failure { throw failure }
        precondition(
            state.pointee.pendingStart < 0 && state.pointee.chunkBase == batch.offset && batch.bytes.count >= 4,
            "JSONParser.parseStandIn(for:) not at the batch's start, or a batch too short"
        )
        let standIn: StaticString = "null"
        let end = batch.offset + batch.bytes.count
        let start = end - standIn.utf8CodeUnitCount
        state.pointee.chunkBase = start
        state.pointee.scanOffset = start
        state.pointee.line = batch.endLine
        // The stand-in's own column may come out below 1 when a line feed falls in the batch's last
        // bytes; nothing reads it, and from `end` on the column is right.
        state.pointee.lineStart = end - (batch.endColumn - 1)
        // What precedes `end` for excerpts: the batch's last bytes, after those before the batch
        // when the batch is short (the last of an array can be a single small element).
        let capacity = ParserState.recentCapacity
        let recent =
            batch.bytes.count >= capacity
            ? Array(batch.bytes.suffix(capacity))
            : state.pointee.recent.suffix(capacity - batch.bytes.count) + batch.bytes
        try feed(UnsafeRawBufferPointer(start: standIn.utf8Start, count: standIn.utf8CodeUnitCount))
        state.pointee.recent = recent
    }
}
