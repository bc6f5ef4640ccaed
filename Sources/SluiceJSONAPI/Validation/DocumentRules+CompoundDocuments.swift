// The rules about a document as a whole, judged once it has been read: what it must hold,
// lids that name no resource, full linkage of a compound document, and the documents of the
// Atomic Operations extension and of requests.
// https://jsonapi.org/format/1.1/#document-compound-documents
// https://jsonapi.org/ext/atomic/

import SluiceJSON

extension DocumentRules {
    mutating func checkDocumentWideRules() {
        guard rootIsObject else { return }
        for member in unannounced where !appliedNamespaces.contains(member.namespace) {
            report(
                member.pointer,
                member.position,
                "\(member.object.phrase) may hold the extension member \(member.name) only when its extension (namespace \(member.namespace)) is applied: announced in jsonapi.ext or in the media type.",
                severity: undefinedMemberSeverity
            )
        }
        // A resource's members are checked before the values inside its attributes, and an
        // extension member waits for jsonapi.ext: put the faults of single values in document
        // order (stable, so faults at one position keep their order) before the document-wide ones.
        violations = violations.enumerated().sorted {
            ($0.element.position.byteOffset, $0.offset) < ($1.element.position.byteOffset, $1.offset)
        }.map(\.element)
        let applied = extensionMembers.filter { appliedNamespaces.contains($0.namespace) }
        if members[.data] == nil && members[.errors] == nil && members[.meta] == nil && applied.isEmpty {
            report(
                "",
                rootPosition,
                "A document must contain at least one of data, errors, meta or a member of an applied extension."
            )
        }
        if let data = members[.data], members[.errors] != nil {
            report(data.pointer, data.position, SpecificationText.dataAndErrors)
        }
        if let included = members[.included], members[.data] == nil {
            report(included.pointer, included.position, "A document without data must not contain included.")
        }
        checkAtomicDocument(applied)
        checkRequestDocument(applied)
        for link in linkedLids where identities[link.identity] == nil {
            report(
                link.pointer,
                link.position,
                "The lid \(link.identity.key) of type \(link.identity.type) names no resource object in this document."
            )
        }
        // Full linkage: every included resource reachable from primary data.
        var reached = Set(primary)
        var frontier = primary
        while let next = frontier.popLast() {
            for target in edges[next] ?? [] where reached.insert(target).inserted { frontier.append(target) }
        }
        for resource in included where !reached.contains(resource.identity) {
            report(
                resource.pointer,
                resource.position,
                "The included resource \(resource.identity) is not reachable from primary data through relationships (allowed only when sparse fieldsets left the linkage out).",
                severity: requiresFullLinkage ? .error : .warning
            )
        }
    }

    /// The Atomic Operations extension's document rules, when it is applied and used.
    private mutating func checkAtomicDocument(_ applied: [ExtensionMember]) {
        let atomic = applied.filter { $0.name == "atomic:operations" || $0.name == "atomic:results" }
        guard let first = atomic.first else { return }
        for member in atomic where member.valueKind != .arrayStart {
            let what = member.name == "atomic:operations" ? "operation objects" : "result objects"
            let kind = member.valueKind?.nounPhrase ?? "missing"
            report("/" + member.name, member.position, "\(member.name) must be an array of \(what), but it is \(kind).")
        }
        if let second = atomic.dropFirst().first(where: { $0.name != first.name }) {
            report(
                "/" + second.name,
                second.position,
                "A document must not contain both atomic:operations and atomic:results."
            )
        }
        for (member, name) in [(DocumentReader.Member.data, "data"), (.included, "included"), (.errors, "errors")] {
            if let found = members[member] {
                report(
                    found.pointer,
                    found.position,
                    "A document with \(first.name) must not contain \(name) (Atomic Operations extension)."
                )
            }
        }
    }

    /// What a request document must hold as a whole.
    private mutating func checkRequestDocument(_ applied: [ExtensionMember]) {
        guard request != nil, members[.data] == nil, applied.isEmpty else { return }
        let what =
            isResourceRequest
            ? "a single resource object (a request to a resource endpoint)"
            : "resource linkage (a request to a relationship endpoint)"
        report("", rootPosition, "A request document must hold \(what) as primary data, but it has no data member.")
    }
}
