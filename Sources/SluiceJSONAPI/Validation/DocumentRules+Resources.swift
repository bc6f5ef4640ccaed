// Resource objects: identification, fields, relationships and linkage; and resource identifier
// objects.
// https://jsonapi.org/format/1.1/#document-resource-objects
// https://jsonapi.org/format/1.1/#document-resource-identifier-objects

import SluiceJSON

extension DocumentRules {
    mutating func checkPrimary(_ value: JSONTape.Value, pointer: String) {
        if request == .relationship {
            _ = checkIdentifier(value, pointer: pointer)
        } else if let identity = checkResource(value, pointer: pointer) {
            primary.append(identity)
        }
        checkDuplicateNames(in: value, pointer: pointer)
    }

    mutating func checkIncluded(_ value: JSONTape.Value, pointer: String) {
        if let identity = checkResource(value, pointer: pointer) {
            included.append((identity, pointer, value.position))
        }
        checkDuplicateNames(in: value, pointer: pointer)
    }

    /// Checks one resource object; returns its identity when it has a usable one.
    mutating func checkResource(_ value: JSONTape.Value, pointer: String) -> ResourceIdentity? {
        guard value.kind == .objectStart else {
            report(pointer, value.position, SpecificationText.expectedResourceObject(value.kind))
            return nil
        }
        guard let members = try? value.members() else { return nil }
        var hasType = false
        var typeName: String?
        var idValue: JSONTape.Value?
        var lidValue: JSONTape.Value?
        var attributes: JSONTape.Value?
        var relationships: JSONTape.Value?
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "type":
                hasType = true
                typeName = checkType(member.value, at: path)
            case "id":
                idValue = member.value
                requireString(member.value, named: "id", at: path)
            case "lid":
                lidValue = member.value
                requireString(member.value, named: "lid", at: path)
            case "attributes":
                attributes = member.value
            case "relationships":
                relationships = member.value
            case "meta":
                checkMeta(member.value, pointer: path)
            case "links":
                checkLinks(member.value, pointer: path, object: .resourceLinks)
            default:
                checkOtherMember(member.key, of: .resource, pointer: path, position: member.value.position)
            }
        }
        if !hasType { report(pointer, value.position, SpecificationText.resourceWithoutType) }
        // A client creating a resource may leave the id out, with or without a lid.
        if idValue == nil && requiresID {
            report(
                pointer,
                value.position,
                request == .update
                    ? "A resource object in an update request must have an id member: the resource to update."
                    : "A resource object in a response must have an id member."
            )
        }
        var attributeNames: Set<String> = []
        if let attributes {
            if let members = try? attributes.members() {
                for member in members {
                    attributeNames.insert(member.key)
                    // The pointer is built only if a rule is broken: most attributes break none.
                    let name = member.key
                    checkFieldName(
                        name,
                        pointer: pointer + "/attributes/" + jsonPointerEscaped(name),
                        position: member.value.position
                    )
                    checkMemberName(
                        name,
                        pointer: pointer + "/attributes/" + jsonPointerEscaped(name),
                        position: member.value.position,
                        allowExtension: false
                    )
                    if member.value.kind == .objectStart || member.value.kind == .arrayStart {
                        checkNestedNames(
                            in: member.value,
                            pointer: pointer + "/attributes/" + jsonPointerEscaped(name),
                            allowExtension: false
                        )
                    }
                }
            } else {
                report(
                    pointer + "/attributes",
                    attributes.position,
                    SpecificationText.mustBeObject("attributes", attributes.kind)
                )
            }
        }
        let identity = typeName.flatMap { type in
            ResourceIdentity(type: type, id: try? idValue?.string(), lid: try? lidValue?.string())
        }
        if let relationships {
            if let members = try? relationships.members() {
                for member in members {
                    let path = pointer + "/relationships/" + jsonPointerEscaped(member.key)
                    checkFieldName(member.key, pointer: path, position: member.value.position)
                    checkMemberName(member.key, pointer: path, position: member.value.position, allowExtension: false)
                    if attributeNames.contains(member.key) {
                        report(
                            path,
                            member.value.position,
                            "The field \(member.key) is both an attribute and a relationship; fields share one namespace."
                        )
                    }
                    let targets = checkRelationship(member.value, pointer: path)
                    if let identity { edges[identity, default: []] += targets }
                }
            } else {
                report(
                    pointer + "/relationships",
                    relationships.position,
                    SpecificationText.mustBeObject("relationships", relationships.kind)
                )
            }
        }
        guard let identity else { return nil }
        if let first = identities[identity] {
            let what = identity.isLocal ? "lid" : "id"
            report(
                pointer,
                value.position,
                "The resource \(identity.type) with \(what) \(identity.key) appears twice, first at \(first); a document holds one resource object per type and \(what)."
            )
        } else {
            identities[identity] = pointer
        }
        if let typeName, idValue?.kind == .string, let lid = try? lidValue?.string() {
            // Both present: the lid names the same resource, so register it too.
            let local = ResourceIdentity(type: typeName, lid: lid)
            if identities[local] == nil { identities[local] = pointer }
        }
        return identity
    }

    /// A `type` member: a string that follows the member name rules. Returns the type when it is
    /// a string, even a badly named one, so that the document-wide rules still see the resource.
    mutating func checkType(_ value: JSONTape.Value, at pointer: String) -> String? {
        guard value.kind == .string, let type = try? value.string() else {
            report(pointer, value.position, SpecificationText.mustBeString("type", value.kind))
            return nil
        }
        if !Self.isValidMemberName(Substring(type)) {
            report(
                pointer,
                value.position,
                "The type \(String(reflecting: type)) breaks JSON:API's naming rules, which types follow as member names do: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
            )
        }
        return type
    }

    mutating func checkFieldName(_ name: String, pointer: @autoclosure () -> String, position: JSONPosition) {
        if name == "type" || name == "id" {
            report(
                pointer(),
                position,
                "A resource cannot have a field named \(name); it is reserved for identification."
            )
        }
    }

    /// Checks a relationship object; returns the identities its linkage names.
    mutating func checkRelationship(_ value: JSONTape.Value, pointer: String) -> [ResourceIdentity] {
        guard let members = try? value.members() else {
            report(pointer, value.position, "A relationship must be an object, but it is \(value.kind.nounPhrase).")
            return []
        }
        var hasMember = false
        var hasData = false
        var targets: [ResourceIdentity] = []
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "links":
                hasMember = true
                checkLinks(member.value, pointer: path, object: .relationshipLinks)
            case "meta":
                hasMember = true
                checkMeta(member.value, pointer: path)
            case "data":
                hasMember = true
                hasData = true
                targets = checkLinkage(member.value, pointer: path)
            default:
                if member.key.contains(":") { hasMember = true }
                checkOtherMember(member.key, of: .relationship, pointer: path, position: member.value.position)
            }
        }
        if !hasMember {
            report(pointer, value.position, "A relationship object must contain at least one of links, data or meta.")
        } else if request != nil && !hasData {
            report(
                pointer,
                value.position,
                "A relationship provided in a request must have a data member: the linkage the resource is to have."
            )
        }
        return targets
    }

    mutating func checkLinkage(_ value: JSONTape.Value, pointer: String) -> [ResourceIdentity] {
        switch value.kind {
        case .null:
            return []
        case .objectStart:
            return checkIdentifier(value, pointer: pointer).map { [$0] } ?? []
        case .arrayStart:
            var targets: [ResourceIdentity] = []
            let elements: [JSONTape.Value] = (try? value.elements()).map { Array($0) } ?? []
            for (index, element) in elements.enumerated() {
                if let identity = checkIdentifier(element, pointer: "\(pointer)/\(index)") { targets.append(identity) }
            }
            return targets
        default:
            report(
                pointer,
                value.position,
                "Resource linkage must be null, a resource identifier object or an array of them, but it is \(value.kind.nounPhrase)."
            )
            return []
        }
    }

    mutating func checkIdentifier(_ value: JSONTape.Value, pointer: String) -> ResourceIdentity? {
        guard let members = try? value.members() else {
            report(
                pointer,
                value.position,
                "A resource identifier must be an object, but it is \(value.kind.nounPhrase)."
            )
            return nil
        }
        var hasType = false
        var type: String?
        var id: String?
        var lid: String?
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "type":
                hasType = true
                type = checkType(member.value, at: path)
            case "id", "lid":
                guard member.value.kind == .string, let text = try? member.value.string() else {
                    requireString(member.value, named: member.key, at: path)
                    continue
                }
                if member.key == "id" { id = text } else { lid = text }
            case "meta":
                checkMeta(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .identifier, pointer: path, position: member.value.position)
            }
        }
        guard let type else {
            // A type of the wrong kind is reported where it is.
            if !hasType { report(pointer, value.position, "A resource identifier must have a type member.") }
            return nil
        }
        if let id { return ResourceIdentity(type: type, id: id) }
        if let lid {
            let identity = ResourceIdentity(type: type, lid: lid)
            linkedLids.append((identity, pointer, value.position))
            return identity
        }
        report(pointer, value.position, "A resource identifier must have an id or a lid member.")
        return nil
    }
}
