/// An element or value a streaming reader passed over because it failed to decode, handed to
/// ``StreamingJSONDecoder/onUndecodableValue`` with where it was and why.
public struct JSONSkippedValue: Sendable, CustomStringConvertible {
    /// Its index among the array's elements, or among the sequence's values (for a record of a
    /// sequence that is not JSON at all, the number of values before it).
    public var index: Int
    /// Where it starts in the input.
    public var position: JSONPosition
    /// Why it failed: the `DecodingError` the stream would have thrown, with its coding path.
    public var error: DecodingError
    /// The value as it was written, for a log or a table of faults; `nil` for a record that is
    /// not JSON.
    public var value: JSONValue?

    /// A value of a stream that failed to decode with `error`, as the streams report it.
    init(index: Int, failed value: JSONTape.Value, error: DecodingError) {
        self.index = index
        position = value.position
        self.error = error
        self.value = try? value.jsonValue()
    }

    /// A record of a sequence that is not JSON.
    init(index: Int, malformed fault: JSONError) {
        self.index = index
        position = fault.position
        error = StreamingJSONDecoder.invalidJSON(fault)
        value = nil
    }

    /// `index 3 at line 4, column 1 (byte 61): <the error>`.
    public var description: String { "index \(index) at \(position): \(error)" }
}
