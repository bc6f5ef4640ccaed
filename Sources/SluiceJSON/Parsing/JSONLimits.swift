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

    /// Creates limits, each defaulting to the value documented on its property.
    public init(maxDepth: Int = 512, maxStringBytes: Int = 16 << 20, maxDocumentBytes: Int = .max) {
        precondition(maxDepth > 0, "maxDepth must be positive")
        precondition(maxStringBytes >= 0, "maxStringBytes must not be negative")
        precondition(maxDocumentBytes >= 0, "maxDocumentBytes must not be negative")
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxDocumentBytes = maxDocumentBytes
    }

    /// The defaults: depth 512, strings of 16 MiB, documents of any size.
    public static let `default` = JSONLimits()
}
