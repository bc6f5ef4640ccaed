// Top level: the members a document may hold, and what each must be.
// https://jsonapi.org/format/1.1/#document-top-level

import SluiceJSON

extension DocumentRules {
    mutating func rootNotObject(_ token: JSONToken) {
        rootIsObject = false
        report("", token.position, SpecificationText.documentNotObject(token.kind))
    }

    mutating func memberSeen(_ member: DocumentReader.Member, pointer: String, position: JSONPosition) {
        members[member] = (pointer, position)
        topLevelNameSeen(pointer: pointer, position: position)
    }

    /// A top-level member named like an earlier one: reported (see ``checkDuplicateNames(in:pointer:)``).
    mutating func topLevelNameSeen(pointer: String, position: JSONPosition) {
        if let first = topLevelNames[pointer] {
            let name = jsonPointerUnescaped(pointer.dropFirst())
            report(pointer, position, Self.duplicateName(name, first: first), severity: .warning)
        } else {
            topLevelNames[pointer] = position
        }
    }

    /// `data` has started: a collection, `null`, or a single resource (checked on its own).
    mutating func primaryStarted(_ token: JSONToken) {
        memberSeen(.data, pointer: "/data", position: token.position)
        guard isResourceRequest, token.kind != .objectStart else { return }
        report(
            "/data",
            token.position,
            "A request to a resource endpoint must hold a single resource object as primary data, but data is \(token.kind.nounPhrase)."
        )
    }

    mutating func checkTopLevelMember(_ member: DocumentReader.Member, name: String, value: JSONTape.Value) {
        let pointer = "/" + jsonPointerEscaped(name)
        memberSeen(member, pointer: pointer, position: value.position)
        checkDuplicateNames(in: value, pointer: pointer)
        switch member {
        case .data:
            report(pointer, value.position, SpecificationText.primaryData(value.kind))
        case .included:
            report(pointer, value.position, SpecificationText.included(value.kind))
        case .meta:
            checkMeta(value, pointer: pointer)
        case .links:
            checkLinks(value, pointer: pointer, object: .topLevelLinks)
        case .jsonapi:
            checkJSONAPIObject(value, pointer: pointer)
        case .errors:
            checkErrors(value, pointer: pointer)
        case .other:
            checkOtherMember(name, of: .topLevel, pointer: pointer, position: value.position)
        }
    }

    /// A top-level member other than the six the specification defines: an extension's, an
    /// @-member, or an undefined one. Its value is not kept; `valueToken` is its first token.
    mutating func checkOtherTopLevelMember(_ name: String, keyPosition: JSONPosition, valueToken: JSONToken?) {
        let pointer = "/" + jsonPointerEscaped(name)
        let position = valueToken?.position ?? keyPosition
        topLevelNameSeen(pointer: pointer, position: position)
        checkOtherMember(name, of: .topLevel, pointer: pointer, position: position)
        guard let colon = name.firstIndex(of: ":") else { return }
        extensionMembers.append(
            ExtensionMember(
                name: name,
                namespace: String(name[..<colon]),
                position: position,
                valueKind: valueToken?.kind
            )
        )
    }
}
