// `import SluiceMacros` brings the macro and what its expansions use.
@_exported public import SluiceJSON

/// Generates a reader (and, for an `Encodable` model, a writer) for a struct or final class that
/// Sluice's coders use instead of its Codable conformance. The reader matches the object's
/// members once against the model's names and reads each property straight from its member,
/// with no Codable container in between.
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
/// Member names are matched against a table made once per type, holding each name as written and
/// as `.convertFromSnakeCase`, `.convertFromKebabCase` and `.loose` accept it. The reader hands an
/// object to the general path when an option needs it (a `.custom` or `.memberName` key strategy,
/// a member check or ignored keys, `StreamingJSONDecoder.update`), when a member name repeats in
/// the object (which copy a property gets then depends on the order the general path asks for
/// them), and when a name could stand for two properties under the key strategy.
///
/// A struct is built in one call to its memberwise initializer, each property read as that
/// initializer's argument: a struct whose initializer assigns its properties one at a time is
/// copied whole on its way out, a retain and a release of every reference it holds. So the
/// struct should keep its memberwise initializer (declare other initializers in an extension);
/// a struct with an initializer of its own, or with a property that is private, lazy, observed
/// or wrapped, or that `CodingKeys` leaves out without a default value, is read by an
/// initializer that assigns the properties, with the same results.
///
/// On a JSON:API `Resource`, `JSONAPIDecoder` uses the generated reader too: it files the
/// resource object's `id`, `lid` and `type`, the fields of `attributes` and `relationships`, and
/// the resource's own `meta` and `links` under the properties, and `ToOne`/`ToMany` properties
/// are read straight from the tape.
///
/// A model declared `Codable` or `Encodable` in its own inheritance clause also gets a writer,
/// which `StreamingJSONEncoder` and `JSONAPIEncoder` use for compact output under a built-in key
/// strategy: the member names escaped as JSON and ordered for `.sortedKeys` at expansion time,
/// once per key strategy, and one function that writes a member by its index, straight into the
/// output. It writes the bytes the general path writes, in Codable's order (the `CodingKeys`
/// cases' order when the model declares them); values of types without a writer (dates, data,
/// types with their own `encode(to:)`) go through the encoder's strategies. A model with its own
/// `encode(to:)` gets no writer, nor does one whose `Encodable` conformance is declared elsewhere
/// (the macro cannot see it): add `Encodable` to the declaration to have one.
///
/// The macro refuses enums, classes that are not final and models with their own `init(from:)`.
/// Computed, `static` and `lazy` properties are skipped, as Codable skips them. A final class must
/// not have a superclass (the generated initializer does not call one).
@attached(member, names: named(init(jsonModelReader:)))
@attached(
    extension,
    conformances: JSONModelDecodable,
    JSONModelEncodable,
    names: named(init(jsonModelReader:)),
    named(readJSONModel(_:)),
    named(jsonModelMembers),
    named(jsonModelKeys),
    named(writeJSONModelField(_:to:))
)
public macro JSONModel() = #externalMacro(module: "SluiceMacrosPlugin", type: "JSONModelMacro")
