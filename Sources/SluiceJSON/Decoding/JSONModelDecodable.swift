// The protocol `@JSONModel` conforms a model to, and the entry that hands each object to its
// generated reader or, when an option or the object needs it, to the general path.

/// A model whose objects Sluice's decoders read with a generated reader: what `@JSONModel`
/// (SluiceMacros) conforms a type to. Not for conforming by hand: the macro writes the
/// requirements from the model's declaration, so that they agree with its Codable conformance.
public protocol JSONModelDecodable: JSONTapeDecodable {
    /// The member names the properties read, in property order.
    static var jsonModelMembers: JSONModelMembers { get }
    /// Reads every property from the members `reader` has filed: one line per property.
    init(jsonModelReader reader: borrowing JSONModelReader) throws
    /// The same read, returning the model: what the decoders call. For a struct it can, the
    /// macro writes it to build the model with the memberwise initializer in one call, which
    /// Swift returns without a copy (see `Model.wholeReader` in SluiceMacrosExpansion); else it is
    /// the initializer.
    static func readJSONModel(_ reader: borrowing JSONModelReader) throws -> Self
}

extension JSONModelDecodable {
    /// Calls ``init(jsonModelReader:)``: for a final class, and a struct whose memberwise
    /// initializer the macro cannot call.
    @inlinable
    public static func readJSONModel(_ reader: borrowing JSONModelReader) throws -> Self {
        try Self(jsonModelReader: reader)
    }

    /// Files the object's members and reads the properties, or hands the object to the general
    /// path when an option or the object needs it.
    ///
    /// Inlinable, so that each model's conformance holds its own copy, specialized.
    @inlinable
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        self = try Self.decodeJSONModel(from: value, context: context)
    }

    /// What `init(from:context:)` does, borrowing its arguments: nested models and arrays of
    /// them call this, so that reading one costs no retain and release of the tape and context
    /// (a protocol's initializer takes its arguments owned). Internal and inlinable: the readers
    /// that call it are inlined into each model's initializer.
    ///
    /// The reader counts no references to the tape, the context or the table: borrowed, the
    /// first two live for the whole call, and the table's lifetime is fixed here past the
    /// reader's last use, so that an optimizer that inlines this cannot end it sooner.
    @inlinable
    static func decodeJSONModel(
        from value: borrowing JSONTape.Value,
        context: borrowing TapeDecodingContext
    ) throws -> Self {
        let members = Self.jsonModelMembers
        return try withExtendedLifetime(members) {
            let reader = try JSONModelReader(value, context: context, members: members)
            if reader.needsGeneralPath { return try reader.decodeGenerally(Self.self) }
            return try Self.readJSONModel(reader)
        }
    }
}
