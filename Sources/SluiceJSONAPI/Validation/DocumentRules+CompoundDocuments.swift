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
        checkLids()
        checkFullLinkage()
        if omittedErrors + omittedWarnings > 0 {
            let counts = [(omittedErrors, "error"), (omittedWarnings, "warning")].filter { $0.0 > 0 }
                .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: " and ")
            violations.append(
                JSONAPIViolation(
                    pointer: "",
                    position: rootPosition,
                    message:
                        "A further \(counts) \(omittedErrors + omittedWarnings == 1 ? "was" : "were") found and not listed: the report keeps the first \(maximumViolations) violations.",
                    severity: omittedErrors > 0 ? .error : .warning
                )
            )
        }
    }

    /// lids that linkage names and no resource object has.
    private mutating func checkLids() {
        guard !linkedLids.isEmpty else { return }
        var listed = Set<IdentityIndex.Entry>()
        for link in linkedLids where !identityIndex.flags(of: link.entry).contains(.resource) {
            listed.insert(link.entry)
            let identity = identityIndex.identity(of: link.entry)
            report(
                link.pointer,
                link.position,
                "The lid \(identity.key) of type \(identity.type) names no resource object in this document."
            )
        }
        // Past the list's length, only a count.
        identityIndex.forEachEntry(containing: .linkedByLid) { entry in
            if !identityIndex.flags(of: entry).contains(.resource) && !listed.contains(entry) { omittedErrors += 1 }
        }
    }

    /// Full linkage: every included resource reachable from primary data. Linkage from resources
    /// read before anything reached them was kept aside; it is followed here from every resource
    /// that is reached now, each once.
    private mutating func checkFullLinkage() {
        guard !pendingResources.isEmpty || !deferredEdges.isEmpty else { return }
        deferredEdges.sort()
        let index = identityIndex
        let edges = deferredEdges
        func targets(of source: IdentityIndex.Entry) -> ArraySlice<UInt64> {
            // The first edge of `source`, by binary search on the sorted edges.
            var low = 0
            var high = edges.count
            let first = UInt64(source) << 32
            while low < high {
                let middle = (low + high) / 2
                if edges[middle] < first { low = middle + 1 } else { high = middle }
            }
            var end = low
            while end < edges.count && edges[end] >> 32 == UInt64(source) { end += 1 }
            return edges[low..<end]
        }
        var frontier: [IdentityIndex.Entry] = []
        var previous: UInt64 = .max
        for edge in edges where edge >> 32 != previous {
            previous = edge >> 32
            let source = IdentityIndex.Entry(previous)
            if index.flags(of: source).contains(.reached) { frontier.append(source) }
        }
        while let source = frontier.popLast() {
            for edge in targets(of: source) {
                let target = IdentityIndex.Entry(truncatingIfNeeded: edge)
                let flags = index.flags(of: target)
                guard !flags.contains(.reached) else { continue }
                index.setFlags(flags.union(.reached), of: target)
                if flags.contains(.hasDeferredEdges) { frontier.append(target) }
            }
        }
        deferredEdges = []
        let severity: JSONAPIViolation.Severity = requiresFullLinkage ? .error : .warning
        var listed = 0
        for resource in pendingResources where !index.flags(of: resource.entry).contains(.reached) {
            listed += 1
            report(
                resource.place.pointer,
                resource.position,
                "The included resource \(index.identity(of: resource.entry)) is not reachable from primary data through relationships (allowed only when sparse fieldsets left the linkage out).",
                severity: severity
            )
        }
        // Those past the list, counted from the index.
        var unreached = 0
        index.forEachEntry(containing: .pending) { entry in
            if !index.flags(of: entry).contains(.reached) { unreached += 1 }
        }
        let rest = max(unreached - listed, 0)
        if severity == .error { omittedErrors += rest } else { omittedWarnings += rest }
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
