// What the parallel path's splitter cuts and the parsers step over: shared, so that the parsers
// (Parsing) skip a batch another thread reads without reaching up into the parallel path.

/// A run of whole, consecutive elements of one of a splitter's arrays, with where it starts.
package struct JSONBatch: Sendable, Equatable {
    /// Which of the splitter's paths the array is at.
    package var target: Int
    /// The array's ordinal among arrays found at that path (a path can match several arrays, as
    /// `elements(of:at:)` reads them all): 0 for the first.
    package var array: Int
    /// The index of the batch's first element in its array.
    package var firstElement: Int
    /// The number of elements in the batch.
    package var elementCount: Int
    /// The bytes from just after the `[` or `,` before the first element up to the `,` or `]`
    /// after the last (both left out): the elements, their separators and the whitespace between.
    package var bytes: [UInt8]
    /// The absolute byte offset, line and column (1-based) of `bytes[0]` in the document.
    package var offset: Int
    package var line: Int
    package var column: Int
    /// The line and column of the separator just after the batch (the byte at
    /// `offset + bytes.count`): where a reader that stepped over the batch carries on.
    package var endLine: Int
    package var endColumn: Int
}
