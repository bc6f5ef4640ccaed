public import SluiceJSON

/// A resource a decoder passed over because it failed to decode, handed to
/// ``JSONAPIDecoder/onUndecodableResource`` with where it was and why.
public struct JSONAPISkippedResource: Sendable, CustomStringConvertible {
    /// The resource object's JSON Pointer: `/data/3`, `/included/12`, or `/data` for a single
    /// primary resource.
    public var pointer: String
    /// Where the resource object starts in the input.
    public var position: JSONPosition
    /// Why it failed: the error the decode would have thrown (its pointer names the member at
    /// fault, `/data/3/id`).
    public var error: JSONAPIDecodingError
    /// The resource object as it was written, for a log or a table of faults.
    public var value: JSONValue?

    /// The resource object `value` at `pointer`, which failed with `error`.
    init(pointer: String, value: JSONTape.Value, error: JSONAPIDecodingError) {
        self.pointer = pointer
        position = value.position
        self.error = error
        self.value = try? value.jsonValue()
    }

    /// `/data/3 at line 4, column 5 (byte 61): <the error>`.
    public var description: String { "\(pointer) at \(position): \(error)" }
}
