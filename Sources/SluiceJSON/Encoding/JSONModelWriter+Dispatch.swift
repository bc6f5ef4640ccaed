// Which values the encoder hands to the generated writers, their tags, and the fault that sends a
// value back to the general path.

import Foundation

/// Whether values of type `T` take the generated writers: `@JSONModel` models, and arrays,
/// optionals and `String`-keyed dictionaries of them. (Plain scalars and other types keep the
/// general path at the top level.)
package func writesThroughGeneratedWriters<T>(_ type: T.Type) -> Bool {
    type is any JSONModelEncodable.Type || (type as? any GeneratedWriterContainer.Type)?.holdsModels == true
}

/// Containers whose elements may be models with generated writers.
protocol GeneratedWriterContainer {
    static var holdsModels: Bool { get }
}

extension Array: GeneratedWriterContainer where Element: JSONModelValue {
    static var holdsModels: Bool { writesThroughGeneratedWriters(Element.self) }
}
extension Optional: GeneratedWriterContainer where Wrapped: JSONModelValue {
    static var holdsModels: Bool { writesThroughGeneratedWriters(Wrapped.self) }
}
extension Dictionary: GeneratedWriterContainer where Key == String, Value: JSONModelValue {
    static var holdsModels: Bool { writesThroughGeneratedWriters(Value.self) }
}

/// The tag (see ``JSONEncodingTagged``) values of `type` record themselves with, looking through
/// optionals as the general path's recorder does (an optional records its wrapped value).
package func encodingTag(of type: Any.Type) -> String? {
    if let tagged = type as? any JSONEncodingTagged.Type { return tagged.encodingTag }
    if let optional = type as? any OptionalWrapper.Type { return encodingTag(of: optional.wrappedType) }
    return nil
}

protocol OptionalWrapper {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalWrapper {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// What the direct writer refuses (a non-finite double under the default strategy, nesting past
/// the limit): the encoder answers it with the general path's own error.
package struct JSONModelWriterFault: Error {
    package init() {}
}
