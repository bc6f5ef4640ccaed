// Resource objects: identification, fields, relationships and linkage; and resource identifier
// objects.
// https://jsonapi.org/format/1.1/#document-resource-objects
// https://jsonapi.org/format/1.1/#document-resource-identifier-objects

import SluiceJSON

extension DocumentRules {
    /// Checks a primary resource object (or, in a request to a relationship endpoint, resource
    /// linkage); `position` is its index in `data`, `nil` when `data` is the object itself.
    mutating func checkPrimary(_ value: JSONTape.Value, pointer: String, position: Int?) {
        if request == .relationship {
            _ = checkIdentifier(value, pointer: pointer)
        } else {
            checkResource(value, pointer: pointer, place: .primary(position))
        }
        checkDuplicateNames(in: value, pointer: pointer)
    }

    mutating func checkIncluded(_ value: JSONTape.Value, pointer: String, position: Int) {
        checkResource(value, pointer: pointer, place: .included(position))
        checkDuplicateNames(in: value, pointer: pointer)
    }

    /// Checks one resource object. With a `place` (where it stands in `data` or `included`), its
    /// identity and linkage also go to the document-wide rules: duplicates, lids, full linkage.
    mutating func checkResource(_ value: JSONTape.Value, pointer: String, place: IdentityIndex.Place? = nil) {
        guard value.kind == .objectStart else {
            report(pointer, value.position, SpecificationText.expectedResourceObject(value.kind))
            return
        }
        guard let members = try? value.members() else { return }
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
        // The resource is filed before its linkage, so that a primary resource's targets are
        // marked reached as they are read.
        var entry: IdentityIndex.Entry?
        if let place, let identity {
            entry = file(identity, at: place, pointer: pointer, position: value.position)
            if let typeName, idValue?.kind == .string, let lid = try? lidValue?.string() {
                // Both present: the lid names the same resource, so file it too.
                file(alias: ResourceIdentity(type: typeName, lid: lid), of: place)
            }
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
                    if let entry { link(entry, to: targets) }
                }
            } else {
                report(
                    pointer + "/relationships",
                    relationships.position,
                    SpecificationText.mustBeObject("relationships", relationships.kind)
                )
            }
        }
    }

    /// Files a resource's identity: reports a duplicate, marks a primary resource reached, and
    /// keeps an included one that nothing has reached yet for the end. Returns its entry, or
    /// `nil` when the index is full.
    private mutating func file(
        _ identity: ResourceIdentity,
        at place: IdentityIndex.Place,
        pointer: String,
        position: JSONPosition
    ) -> IdentityIndex.Entry? {
        guard let (entry, firstPlace) = claim(identity, at: place) else { return nil }
        if let firstPlace {
            let what = identity.isLocal ? "lid" : "id"
            report(
                pointer,
                position,
                "The resource \(identity.type) with \(what) \(identity.key) appears twice, first at \(firstPlace.pointer); a document holds one resource object per type and \(what)."
            )
        }
        if place.isIncluded && !identityIndex.flags(of: entry).contains(.reached) {
            identityIndex.insertFlags(.pending, of: entry)
            if pendingResources.count < maximumViolations { pendingResources.append((entry, place, position)) }
        }
        return entry
    }

    /// Files the `lid` of a resource that also has an `id`, unless a resource has it already.
    private mutating func file(alias identity: ResourceIdentity, of place: IdentityIndex.Place) {
        _ = claim(identity, at: place)
    }

    /// Enters `identity` as a resource read at `place` (reached when primary). An identity only
    /// linkage had named so far becomes that resource; one a resource already has is left as it
    /// is, and the place of that first resource returned.
    private mutating func claim(
        _ identity: ResourceIdentity,
        at place: IdentityIndex.Place
    ) -> (entry: IdentityIndex.Entry, firstPlace: IdentityIndex.Place?)? {
        let flags: IdentityIndex.Flags = place.isIncluded ? [.resource] : [.resource, .reached]
        guard let (entry, existed) = insertIdentity(identity, flags: flags, place: place) else { return nil }
        guard existed else { return (entry, nil) }
        let found = identityIndex.flags(of: entry)
        if found.contains(.resource) { return (entry, identityIndex.place(of: entry)) }
        identityIndex.setFlags(found.union(flags), of: entry)
        identityIndex.setPlace(place, of: entry)
        return (entry, nil)
    }

    /// Records that the resource at `source` links to `targets`: reached at once when the source
    /// is, else kept for the end, when every resource is known.
    private mutating func link(_ source: IdentityIndex.Entry, to targets: [ResourceIdentity]) {
        let sourceIsReached = identityIndex.flags(of: source).contains(.reached)
        for target in targets {
            guard
                let (entry, existed) = insertIdentity(
                    target,
                    flags: sourceIsReached ? [.reached] : [],
                    place: .primary(nil)
                )
            else { return }
            if sourceIsReached {
                if existed { identityIndex.insertFlags(.reached, of: entry) }
            } else {
                deferredEdges.append(UInt64(source) << 32 | UInt64(entry))
                identityIndex.insertFlags(.hasDeferredEdges, of: source)
            }
        }
    }

    /// `IdentityIndex.insert`, reporting once when the index can hold no more.
    mutating func insertIdentity(
        _ identity: ResourceIdentity,
        flags: IdentityIndex.Flags,
        place: IdentityIndex.Place
    ) -> (entry: IdentityIndex.Entry, existed: Bool)? {
        if identityIndexIsFull { return nil }
        if let inserted = identityIndex.insert(IdentityIndex.Key(identity), flags: flags, place: place) {
            return inserted
        }
        identityIndexIsFull = true
        report(
            place.pointer,
            rootPosition,
            "The document's resource identities take more than 4 GiB; duplicates, lids and full linkage are not checked from here on.",
            severity: .warning
        )
        return nil
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
        // Linkage that is one identifier or null makes a to-one relationship, which has no pages.
        let dataKind = members.first { $0.key == "data" }?.value.kind
        let isToOne = dataKind == .objectStart || dataKind == .null
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "links":
                hasMember = true
                checkLinks(member.value, pointer: path, object: isToOne ? .toOneRelationshipLinks : .relationshipLinks)
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
            // Judged at the end unless a resource with this lid has been read already.
            if let (entry, _) = insertIdentity(identity, flags: [], place: .primary(nil)),
                !identityIndex.flags(of: entry).contains(.resource)
            {
                identityIndex.insertFlags(.linkedByLid, of: entry)
                if linkedLids.count < maximumViolations { linkedLids.append((entry, pointer, value.position)) }
            }
            return identity
        }
        report(pointer, value.position, "A resource identifier must have an id or a lid member.")
        return nil
    }
}
