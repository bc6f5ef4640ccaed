// The protocol `@JSONModel` conforms a model to, and the entry that hands each object to its
// generated reader or, when an option or the object needs it, to the general path.

/// A model whose objects Sluice's decoders read with a generated reader: what `@JSONModel`
/// (SluiceMacros) conforms a type to. Not for conforming by hand: the macro writes both
/// requirements from the model's declaration, so that they agree with its Codable conformance.
public protocol JSONModelDecodable: JSONTapeDecodable {
    /// The member names the properties read, in property order.
    static var jsonModelMembers: JSONModelMembers { get }
    /// Reads every property from the members `reader` has filed: one line per property.
    init(jsonModelReader reader: borrowing JSONModelReader) throws
}

extension JSONModelDecodable {
    /// Files the object's members and reads the properties, or hands the object to the general
    /// path when an option or the object needs it.
    ///
    /// Inlinable, so that each model's conformance holds its own copy, specialized.
    ///
    /// The reader counts no references to the tape, the context or the table: their lifetimes are
    /// fixed here past its last use, so that an optimizer that inlines this cannot end them
    /// sooner (an argument's lifetime otherwise ends at its last use once inlined).
    @inlinable
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        // One call each, not one for a tuple of them: a tuple is a copy, a retain of each.
        let members = Self.jsonModelMembers
        self = try withExtendedLifetime(value) {
            try withExtendedLifetime(context) {
                try withExtendedLifetime(members) {
                    let reader = try JSONModelReader(value, context: context, members: members)
                    if reader.needsGeneralPath { return try reader.decodeGenerally(Self.self) }
                    return try Self(jsonModelReader: reader)
                }
            }
        }
    }
}
