// What the tree knows about a type: the tags and fixed keys other encoders mark types with.

import Foundation

/// A type whose recorded values carry a tag, so that an encoder built on the tree can tell them
/// apart from other objects of the same shape (the JSON:API encoder finds relationships so).
package protocol JSONEncodingTagged {
    static var encodingTag: String { get }
}

/// A type whose member names belong to a wire format (JSON:API's relationship objects, resource
/// identifiers, links): they are written as the type encodes them, whatever the key strategy,
/// which only renames the caller's own properties.
package protocol JSONEncodingFixedKeys {}

/// What the tree needs to know about a type: its shortcut, if it records itself, and its tag.
struct EncodingKind {
    var shortcut: (any TreeEncodable.Type)?
    var tag: String?
    var fixedKeys: Bool

    /// Worked out once per type per process (see ``TypeFacts``); trees keep their own short
    /// list in front of it.
    static let shared = TypeFacts<EncodingKind>()

    static func of<T>(_ type: T.Type) -> EncodingKind {
        if let known = shared.fact(about: type) { return known }
        let found = EncodingKind(
            shortcut: type as? any TreeEncodable.Type,
            tag: (type as? any JSONEncodingTagged.Type)?.encodingTag,
            fixedKeys: type is any JSONEncodingFixedKeys.Type
        )
        shared.record(found, about: type)
        return found
    }
}
