// `import SluiceMacros` brings the macro and what its expansions use.
@_exported public import SluiceJSON

/// Generates a reader for a `Decodable` struct or final class that Sluice's decoders use instead
/// of its Codable conformance: the object's members are matched once against the model's names
/// and each property is read straight from its member, with no Codable container in between.
///
/// ```swift
/// import SluiceMacros
///
/// @JSONModel
/// struct Status: Codable {
///     var id: Int
///     var text: String
///     var inReplyTo: Int?
///     var user: User                      // another @JSONModel type, or any Decodable
/// }
///
/// let statuses = try StreamingJSONDecoder().decode([Status].self, from: data)
/// ```
///
/// The model stays `Codable`, so Foundation's coders and Sluice's general path keep working, and
/// the generated reader gives exactly their results and errors (coding paths, messages,
/// positions). Member names come from the property names or the raw values of a `CodingKeys`
/// enum. Values are read by the decoder's own functions, so every date, data, number and
/// conversion option applies.
///
/// The reader hands an object to the general path when an option needs it (a key strategy other
/// than `.useDefaultKeys`, a member check or ignored keys, `StreamingJSONDecoder.update`) and when
/// a member name repeats in the object (which copy a property gets then depends on the order the
/// general path asks for them).
///
/// The macro refuses enums, classes that are not final and models with their own `init(from:)`.
/// Computed, `static` and `lazy` properties are skipped, as Codable skips them. A final class must
/// not have a superclass (the generated initializer does not call one).
@attached(member, names: named(init(jsonModelReader:)))
@attached(
    extension,
    conformances: JSONModelDecodable,
    names: named(init(jsonModelReader:)),
    named(jsonModelMembers)
)
public macro JSONModel() = #externalMacro(module: "SluiceMacrosPlugin", type: "JSONModelMacro")
