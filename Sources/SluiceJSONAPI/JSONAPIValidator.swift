// Strict validation: every MUST of JSON:API 1.1 that a consumer can check on one document.
//
// It reads the document as a stream through the same document reader as the decoder, so a
// document of any size is checked with memory bounded by its largest resource plus one identity
// (and its linkage) per resource, which the document-wide rules need: duplicates, lid consistency
// and reachability of included resources. Every violation is collected, not only the first.

public import Foundation
public import SluiceJSON

/// One way a document breaks the JSON:API specification.
public struct JSONAPIViolation: Sendable, Hashable, CustomStringConvertible {
    /// How serious a violation is.
    public enum Severity: String, Sendable, Hashable {
        /// The document breaks a MUST of the specification.
        case error
        /// The document is suspicious but may be valid, such as included resources unreachable
        /// from primary data, which sparse fieldsets can cause.
        case warning
    }

    /// A JSON Pointer to the offending value.
    public var pointer: String
    /// Where the offending value starts in the input.
    public var position: JSONPosition
    /// One sentence naming the rule broken.
    public var message: String
    /// How serious it is.
    public var severity: Severity

    /// `line 3, column 7: /data/0/id: message`.
    public var description: String {
        "line \(position.line), column \(position.column): \(pointer.isEmpty ? "/" : pointer): \(message)"
    }
}

/// Checks documents against JSON:API 1.1 and reports every violation with a JSON Pointer.
///
/// ```swift
/// let violations = try JSONAPIValidator().validate(FileChunkReader(path: "response.json"))
/// for violation in violations { print(violation) }
/// ```
public struct JSONAPIValidator: Sendable {
    /// Whether documents are requests from a client, where a new resource may have a `lid`
    /// instead of an `id`. Default: responses, where every resource needs an `id`.
    public var isRequestDocument = false
    /// Limits on the input.
    public var limits = JSONLimits()

    /// Creates a validator.
    public init(isRequestDocument: Bool = false) {
        self.isRequestDocument = isRequestDocument
    }

    /// Validates a document read from a file or standard input.
    ///
    /// - Returns: Every violation, in document order, document-wide ones last.
    /// - Throws: `JSONError` when the input is not well-formed JSON, or `FileChunkReader.Failure`.
    public func validate(_ reader: FileChunkReader) throws -> [JSONAPIViolation] {
        var run = ValidationRun(isRequestDocument: isRequestDocument, limits: limits)
        try reader.forEachChunk { try run.feed($0) }
        return try run.finish()
    }

    /// Validates a document held in memory.
    public func validate(_ bytes: some ContiguousBytes) throws -> [JSONAPIViolation] {
        var run = ValidationRun(isRequestDocument: isRequestDocument, limits: limits)
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let end = min(offset + 64 * 1024, buffer.count)
                try run.feed(UnsafeRawBufferPointer(rebasing: buffer[offset..<end]))
                offset = end
            }
        }
        return try run.finish()
    }
}

/// The state of one validation.
struct ValidationRun {
    let isRequestDocument: Bool
    let parser: JSONParser
    var reader = DocumentReader(skipsOtherMembers: true)
    var violations: [JSONAPIViolation] = []
    /// Violations found after the whole document is known.
    var rootPosition = JSONPosition(byteOffset: 0, line: 1, column: 1)
    var rootIsObject = true
    var sawRoot = false
    var members: [DocumentReader.Member: (pointer: String, position: JSONPosition)] = [:]
    /// Every resource object's identity, with where it first appeared.
    var identities: [ResourceIdentity: String] = [:]
    /// For reachability: primary identities and each resource's linkage targets.
    var primary: [ResourceIdentity] = []
    var included: [(identity: ResourceIdentity, pointer: String, position: JSONPosition)] = []
    var edges: [ResourceIdentity: [ResourceIdentity]] = [:]
    /// lids referenced from linkage, with where, to check that each names a resource.
    var linkedLids: [(identity: ResourceIdentity, pointer: String, position: JSONPosition)] = []

    init(isRequestDocument: Bool, limits: JSONLimits) {
        self.isRequestDocument = isRequestDocument
        parser = JSONParser(limits: limits)
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer) throws {
        try parser.parse(chunk)
        try drain()
    }

    mutating func finish() throws -> [JSONAPIViolation] {
        try parser.finish()
        try drain()
        checkDocumentWideRules()
        return violations
    }

    private mutating func report(
        _ pointer: String,
        _ position: JSONPosition,
        _ message: String,
        severity: JSONAPIViolation.Severity = .error
    ) {
        violations.append(JSONAPIViolation(pointer: pointer, position: position, message: message, severity: severity))
    }

    private mutating func drain() throws {
        defer { parser.removeTokens(before: reader.releasableIndex) }
        let tape = parser.tape
        if !sawRoot, let first = tape.first {
            sawRoot = true
            rootPosition = first.position
        }
        while true {
            switch reader.next(in: tape) {
            case .needMoreInput, .finished:
                return
            case .rootNotObject(let valueIndex):
                // The root may still be open (a long array arriving in chunks): read its first token only.
                let value = tape[valueIndex]
                rootIsObject = false
                report(
                    "",
                    value.position,
                    "A JSON:API document must be an object, but this one is \(value.kind.nounPhrase)."
                )
            case .primaryCollectionStarted(let valueIndex), .primaryNull(let valueIndex):
                members[.data] = ("/data", tape[valueIndex].position)
            case .primaryResource(let valueIndex):
                let value = try tape.value(at: valueIndex)
                members[.data] = ("/data", value.position)
                if let identity = checkResource(value, pointer: "/data") { primary.append(identity) }
            case .primaryElement(let valueIndex, let position):
                let value = try tape.value(at: valueIndex)
                if let identity = checkResource(value, pointer: "/data/\(position)") { primary.append(identity) }
            case .includedCollectionStarted(let valueIndex):
                members[.included] = ("/included", tape[valueIndex].position)
            case .includedElement(let valueIndex, let position):
                let value = try tape.value(at: valueIndex)
                let pointer = "/included/\(position)"
                if let identity = checkResource(value, pointer: pointer) {
                    included.append((identity, pointer, value.position))
                }
            case .skippedMember(let keyIndex):
                let name = tape.text(of: tape[keyIndex])
                checkMemberName(
                    name,
                    pointer: "/" + jsonPointerEscaped(name),
                    position: tape[keyIndex].position,
                    allowExtension: true
                )
            case .member(let member, let keyIndex, let valueIndex):
                let value = try tape.value(at: valueIndex)
                let name = tape.text(of: tape[keyIndex])
                checkTopLevelMember(member, name: name, value: value, keyPosition: tape[keyIndex].position)
            }
        }
    }

    // MARK: Top level

    private mutating func checkTopLevelMember(
        _ member: DocumentReader.Member,
        name: String,
        value: JSONTape.Value,
        keyPosition: JSONPosition
    ) {
        let pointer = "/" + jsonPointerEscaped(name)
        members[member] = (pointer, value.position)
        switch member {
        case .data:
            report(
                pointer,
                value.position,
                "Primary data must be a resource object, an array of resource objects, or null, but it is \(value.kind.nounPhrase)."
            )
        case .included:
            report(
                pointer,
                value.position,
                "included must be an array of resource objects, but it is \(value.kind.nounPhrase)."
            )
        case .meta:
            requireObject(value, named: "meta", at: pointer)
        case .links:
            checkLinks(value, pointer: pointer)
        case .jsonapi:
            checkJSONAPIObject(value, pointer: pointer)
        case .errors:
            checkErrors(value, pointer: pointer)
        case .other:
            checkMemberName(name, pointer: pointer, position: keyPosition, allowExtension: true)
        }
    }

    private mutating func checkJSONAPIObject(_ value: JSONTape.Value, pointer: String) {
        guard value.kind == .objectStart, let members = try? value.members() else {
            report(pointer, value.position, "jsonapi must be an object, but it is \(value.kind.nounPhrase).")
            return
        }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "version":
                if member.value.kind != .string {
                    report(
                        path,
                        member.value.position,
                        "version must be a string, but it is \(member.value.kind.nounPhrase)."
                    )
                }
            case "ext", "profile":
                let isArrayOfStrings = (try? member.value.elements().allSatisfy { $0.kind == .string }) ?? false
                if !isArrayOfStrings {
                    report(path, member.value.position, "\(member.key) must be an array of URI strings.")
                }
            case "meta":
                requireObject(member.value, named: "meta", at: path)
            default:
                break
            }
        }
    }

    private mutating func checkErrors(_ value: JSONTape.Value, pointer: String) {
        guard let elements = try? value.elements() else {
            report(
                pointer,
                value.position,
                "errors must be an array of error objects, but it is \(value.kind.nounPhrase)."
            )
            return
        }
        let known: Set<String> = ["id", "links", "status", "code", "title", "detail", "source", "meta"]
        for (index, element) in elements.enumerated() {
            let path = "\(pointer)/\(index)"
            guard let members = try? element.members() else {
                report(
                    path,
                    element.position,
                    "An error object must be an object, but this one is \(element.kind.nounPhrase)."
                )
                continue
            }
            var hasStandardMember = false
            for member in members where known.contains(member.key) {
                hasStandardMember = true
                let memberPath = path + "/" + member.key
                switch member.key {
                case "id", "status", "code", "title", "detail":
                    if member.value.kind != .string {
                        report(
                            memberPath,
                            member.value.position,
                            "\(member.key) must be a string, but it is \(member.value.kind.nounPhrase)."
                        )
                    }
                case "links":
                    checkLinks(member.value, pointer: memberPath)
                case "source", "meta":
                    requireObject(member.value, named: member.key, at: memberPath)
                default:
                    break
                }
            }
            if !hasStandardMember {
                report(
                    path,
                    element.position,
                    "An error object must have at least one of id, links, status, code, title, detail, source or meta."
                )
            }
        }
    }

    /// A links object: each link a string, a link object with a string `href`, or null.
    private mutating func checkLinks(_ value: JSONTape.Value, pointer: String) {
        guard let members = try? value.members() else {
            report(pointer, value.position, "links must be an object, but it is \(value.kind.nounPhrase).")
            return
        }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.value.kind {
            case .string, .null:
                break
            case .objectStart:
                if member.value["href"]?.kind != .string {
                    report(path, member.value.position, "A link object must have an href member that is a string.")
                }
            default:
                report(
                    path,
                    member.value.position,
                    "The link \(member.key) must be a string, a link object or null, but it is \(member.value.kind.nounPhrase)."
                )
            }
        }
    }

    // MARK: Resources

    /// Checks one resource object; returns its identity when it has a usable one.
    private mutating func checkResource(_ value: JSONTape.Value, pointer: String) -> ResourceIdentity? {
        guard value.kind == .objectStart else {
            report(pointer, value.position, "Expected a resource object, found \(value.kind.nounPhrase).")
            return nil
        }
        let view = ResourceObjectView(value)
        var typeName: String?
        if let type = view.type {
            if type.kind == .string {
                typeName = try? type.string()
            } else {
                report(pointer + "/type", type.position, "type must be a string, but it is \(type.kind.nounPhrase).")
            }
        } else {
            report(pointer, value.position, "A resource object must have a type member.")
        }
        for (name, member) in [("id", view.id), ("lid", view.lid)] {
            if let member, member.kind != .string {
                report(
                    pointer + "/" + name,
                    member.position,
                    "\(name) must be a string, but it is \(member.kind.nounPhrase)."
                )
            }
        }
        // A client creating a resource may leave the id out, with or without a lid.
        if view.id == nil && !isRequestDocument {
            report(pointer, value.position, "A resource object in a response must have an id member.")
        }
        if let meta = view.meta { requireObject(meta, named: "meta", at: pointer + "/meta") }
        if let links = view.links { checkLinks(links, pointer: pointer + "/links") }
        var attributeNames: Set<String> = []
        if let attributes = view.attributes {
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
                }
            } else {
                report(
                    pointer + "/attributes",
                    attributes.position,
                    "attributes must be an object, but it is \(attributes.kind.nounPhrase)."
                )
            }
        }
        let identity = typeName.flatMap { view.identity(type: $0) }
        if let relationships = view.relationships {
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
                    "relationships must be an object, but it is \(relationships.kind.nounPhrase)."
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
        if let typeName, view.id?.kind == .string, let lid = try? view.lid?.string() {
            // Both present: the lid names the same resource, so register it too.
            let local = ResourceIdentity(type: typeName, lid: lid)
            if identities[local] == nil { identities[local] = pointer }
        }
        return identity
    }

    /// Reports `value` unless it is an object: `meta must be an object, but it is an array.`
    private mutating func requireObject(_ value: JSONTape.Value, named name: String, at pointer: String) {
        if value.kind != .objectStart {
            report(pointer, value.position, "\(name) must be an object, but it is \(value.kind.nounPhrase).")
        }
    }

    private mutating func checkFieldName(_ name: String, pointer: @autoclosure () -> String, position: JSONPosition) {
        if name == "type" || name == "id" {
            report(
                pointer(),
                position,
                "A resource cannot have a field named \(name); it is reserved for identification."
            )
        }
    }

    /// Checks a relationship object; returns the identities its linkage names.
    private mutating func checkRelationship(_ value: JSONTape.Value, pointer: String) -> [ResourceIdentity] {
        guard let members = try? value.members() else {
            report(pointer, value.position, "A relationship must be an object, but it is \(value.kind.nounPhrase).")
            return []
        }
        var hasMember = false
        var targets: [ResourceIdentity] = []
        for member in members {
            switch member.key {
            case "links":
                hasMember = true
                checkLinks(member.value, pointer: pointer + "/links")
            case "meta":
                hasMember = true
                requireObject(member.value, named: "meta", at: pointer + "/meta")
            case "data":
                hasMember = true
                targets = checkLinkage(member.value, pointer: pointer + "/data")
            default:
                if member.key.contains(":") { hasMember = true }
            }
        }
        if !hasMember {
            report(pointer, value.position, "A relationship object must contain at least one of links, data or meta.")
        }
        return targets
    }

    private mutating func checkLinkage(_ value: JSONTape.Value, pointer: String) -> [ResourceIdentity] {
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

    private mutating func checkIdentifier(_ value: JSONTape.Value, pointer: String) -> ResourceIdentity? {
        guard let members = try? value.members() else {
            report(
                pointer,
                value.position,
                "A resource identifier must be an object, but it is \(value.kind.nounPhrase)."
            )
            return nil
        }
        var type: String?
        var id: String?
        var lid: String?
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "type", "id", "lid":
                guard member.value.kind == .string, let text = try? member.value.string() else {
                    report(
                        path,
                        member.value.position,
                        "\(member.key) must be a string, but it is \(member.value.kind.nounPhrase)."
                    )
                    continue
                }
                if member.key == "type" { type = text } else if member.key == "id" { id = text } else { lid = text }
            case "meta":
                requireObject(member.value, named: "meta", at: path)
            default:
                if !member.key.contains(":") {
                    report(
                        path,
                        member.value.position,
                        "A resource identifier may hold only type, id, lid and meta, not \(member.key)."
                    )
                }
            }
        }
        guard let type else {
            report(pointer, value.position, "A resource identifier must have a type member.")
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

    /// The 1.1 member name rules: globally allowed characters at the ends, `-`, `_` and space also
    /// allowed inside, none of the reserved characters. `@`-members are left alone; an extension
    /// member (`namespace:member`) is checked in two parts where extensions are allowed.
    private mutating func checkMemberName(
        _ name: String,
        pointer: @autoclosure () -> String,
        position: JSONPosition,
        allowExtension: Bool
    ) {
        if name.hasPrefix("@") { return }
        if allowExtension, let colon = name.firstIndex(of: ":") {
            let namespace = name[..<colon]
            let member = name[name.index(after: colon)...]
            if namespace.isEmpty || !namespace.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric }) {
                report(
                    pointer(),
                    position,
                    "The extension namespace of the member \(name) must be made of a-z, A-Z and 0-9 only."
                )
            } else if !Self.isValidMemberName(member) {
                report(pointer(), position, "The member name \(name) breaks JSON:API's naming rules.")
            }
            return
        }
        if !Self.isValidMemberName(Substring(name)) {
            report(
                pointer(),
                position,
                "The member name \(String(reflecting: name)) breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
            )
        }
    }

    static func isValidMemberName(_ name: Substring) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last else { return false }
        func globallyAllowed(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCIIAlphanumeric || scalar.value >= 0x80 }
        guard globallyAllowed(first), globallyAllowed(last) else { return false }
        return scalars.allSatisfy { globallyAllowed($0) || $0 == "-" || $0 == "_" || $0 == " " }
    }

    // MARK: Document-wide

    private mutating func checkDocumentWideRules() {
        guard rootIsObject else { return }
        if members[.data] == nil && members[.errors] == nil && members[.meta] == nil {
            report("", rootPosition, "A document must contain at least one of data, errors or meta.")
        }
        if let data = members[.data], members[.errors] != nil {
            report(data.pointer, data.position, "A document must not contain both data and errors.")
        }
        if let included = members[.included], members[.data] == nil {
            report(included.pointer, included.position, "A document without data must not contain included.")
        }
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
                severity: .warning
            )
        }
    }

}

extension Unicode.Scalar {
    fileprivate var isASCIIAlphanumeric: Bool {
        (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39)
    }
}
