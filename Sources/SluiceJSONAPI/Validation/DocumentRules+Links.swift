// Links: a links object, and each link a URI-reference, a link object or null.
// https://jsonapi.org/format/1.1/#document-links

import SluiceJSON

extension DocumentRules {
    /// A links object: each link a string, a link object or null, under a name that `object` (the
    /// links object of the top level, a resource, a relationship or an error) defines. Other
    /// names are undefined members, as in any object the specification defines: allowed for an
    /// applied extension or as @-members, else a warning (an error with strict members); the
    /// value of such a member is still a link, and checked as one.
    mutating func checkLinks(_ value: JSONTape.Value, pointer: String, object: SpecificationObject) {
        guard let members = objectMembers(of: value, named: "links", at: pointer) else { return }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            guard object.members.contains(member.key) else {
                checkOtherMember(member.key, of: object, pointer: path, position: member.value.position)
                // Every member of a links object is a link; @-members and extension members
                // are the extension's or the author's to define.
                if !member.key.hasPrefix("@") && !member.key.contains(":") {
                    checkLink(member.value, named: member.key, pointer: path)
                }
                continue
            }
            checkLink(member.value, named: member.key, pointer: path)
        }
    }

    /// One link: a URI-reference string, a link object, or null.
    mutating func checkLink(_ value: JSONTape.Value, named name: String, pointer: String) {
        switch value.kind {
        case .string, .null:
            return
        case .objectStart:
            break
        default:
            report(
                pointer,
                value.position,
                "The link \(name) must be a string, a link object or null, but it is \(value.kind.nounPhrase)."
            )
            return
        }
        guard let members = try? value.members() else { return }
        var hasHref = false
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "href":
                hasHref = true
                requireString(member.value, named: "href", at: path)
            case "rel", "title", "type":
                requireString(member.value, named: member.key, at: path)
            case "describedby":
                checkLink(member.value, named: "describedby", pointer: path)
            case "hreflang":
                let isStrings =
                    member.value.kind == .string
                    || ((try? member.value.elements().allSatisfy { $0.kind == .string }) ?? false)
                if !isStrings {
                    report(
                        path,
                        member.value.position,
                        "hreflang must be a language tag or an array of them, but it is \(member.value.kind.nounPhrase)."
                    )
                }
            case "meta":
                checkMeta(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .link, pointer: path, position: member.value.position)
            }
        }
        if !hasHref { report(pointer, value.position, "A link object must have an href member.") }
    }
}
