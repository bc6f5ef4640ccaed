/// Bounds that keep a parser's memory and work in proportion to what the caller expects.
///
/// Every limit has a default suited to trusted input of any size, including multi-gigabyte exports
/// read as a stream. Tighten them for input from the network. Exceeding a limit is a ``JSONError``
/// at the position where the limit was crossed, never a crash or unbounded growth.
///
/// ```swift
/// var limits = JSONLimits()
/// limits.maxDepth = 64
/// limits.maxDocumentBytes = 10 << 20
/// let parser = JSONParser(limits: limits)
/// ```
public struct JSONLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and objects allowed. yajl itself has no such limit, and a
    /// decoder that recurses per level needs one. Default: 512.
    public var maxDepth: Int

    /// The longest string, object key or number allowed, counted in bytes as written in the input
    /// (escape sequences count at their written length; the quotes do not count). yajl buffers a
    /// whole token before handing it over, so this also bounds the parser's buffers.
    /// Default: 16 MiB.
    public var maxStringBytes: Int

    /// The most bytes one document may have. Default: `Int.max` (no limit), because streaming
    /// imports read documents of many gigabytes in constant memory.
    public var maxDocumentBytes: Int

    /// The most memory, in bytes of tokens and their text, the parser's tape may hold at once
    /// after the reader driving it has released what it read. A streaming reader keeps whole
    /// only the value it waits to see complete (a resource object, an array element, a top-level
    /// member) and releases it after; this bounds that value, so that one object of ten million
    /// members is a clear error rather than gigabytes. A token costs 32 bytes on the tape, plus
    /// its text. Checked after each chunk the parser is given, before the reader has released
    /// that chunk's values: keep it well above what one chunk can make (64 KiB of input is at
    /// most about 1 MiB of tape). Default: `Int.max` (no limit), because a whole-document parse holds every token
    /// until the end; ``streaming`` sets 64 MiB.
    public var maxHeldBytes: Int

    /// Creates limits, each defaulting to the value documented on its property.
    public init(
        maxDepth: Int = 512,
        maxStringBytes: Int = 16 << 20,
        maxDocumentBytes: Int = .max,
        maxHeldBytes: Int = .max
    ) {
        precondition(maxDepth > 0, "maxDepth must be positive")
        precondition(maxHeldBytes >= 0, "maxHeldBytes must not be negative")
        precondition(maxStringBytes >= 0, "maxStringBytes must not be negative")
        precondition(maxDocumentBytes >= 0, "maxDocumentBytes must not be negative")
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxDocumentBytes = maxDocumentBytes
        self.maxHeldBytes = maxHeldBytes
    }

    /// The defaults: depth 512, strings of 16 MiB, documents of any size.
    public static let `default` = JSONLimits()

    /// The defaults, with ``maxHeldBytes`` at 64 MiB (some two million tokens in one resource):
    /// for readers that stream a document and keep one value at a time (validation, flattening,
    /// imports). The tape grows by doubling, so the memory it takes stays under twice the limit.
    public static let streaming = JSONLimits(maxHeldBytes: 64 << 20)
}
