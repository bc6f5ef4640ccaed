// The rules of JSON:API 1.1, object by object, as the validator applies them.
//
// Each check reports through `report` and never stops at the first fault. The validator runs all
// of them; the decoder runs the error-object rules on an error document before decoding it and
// throws the first error, so the same fault reads the same in `sluice validate` and in
// `sluice flatten`. Sentences that the decoder also says for faults it finds on its own path are
// in `SpecificationText`.

import SluiceJSON

/// Sentences for faults that both the validator and the decoder report.
enum SpecificationText {
    static func documentNotObject(_ kind: JSONToken.Kind) -> String {
        "A JSON:API document must be an object, but this one is \(kind.nounPhrase)."
    }

    static func primaryData(_ kind: JSONToken.Kind) -> String {
        "Primary data must be a resource object, an array of resource objects, or null, but it is \(kind.nounPhrase)."
    }

    static func included(_ kind: JSONToken.Kind) -> String {
        "included must be an array of resource objects, but it is \(kind.nounPhrase)."
    }

    static func expectedResourceObject(_ kind: JSONToken.Kind) -> String {
        "Expected a resource object, found \(kind.nounPhrase)."
    }

    static let resourceWithoutType = "A resource object must have a type member."

    static func mustBeString(_ name: String, _ kind: JSONToken.Kind) -> String {
        "\(name) must be a string, but it is \(kind.nounPhrase)."
    }

    static let dataAndErrors = "A document must not contain both data and errors."

    static func mustBeObject(_ name: String, _ kind: JSONToken.Kind) -> String {
        "\(name) must be an object, but it is \(kind.nounPhrase)."
    }
}

/// The objects the specification defines, each with the members it allows.
enum SpecificationObject {
    case topLevel, jsonapi, resource, identifier, relationship, link, error, errorLinks, errorSource

    /// How a sentence names it.
    var phrase: String {
        switch self {
        case .topLevel: "The top level of a document"
        case .jsonapi: "The jsonapi object"
        case .resource: "A resource object"
        case .identifier: "A resource identifier object"
        case .relationship: "A relationship object"
        case .link: "A link object"
        case .error: "An error object"
        case .errorLinks: "The links object of an error object"
        case .errorSource: "The source of an error object"
        }
    }

    /// The members it may hold, besides extension members and @-members.
    var members: [String] {
        switch self {
        case .topLevel: ["data", "errors", "meta", "jsonapi", "links", "included"]
        case .jsonapi: ["version", "ext", "profile", "meta"]
        case .resource: ["type", "id", "lid", "attributes", "relationships", "links", "meta"]
        case .identifier: ["type", "id", "lid", "meta"]
        case .relationship: ["links", "data", "meta"]
        case .link: ["href", "rel", "describedby", "title", "type", "hreflang", "meta"]
        case .error: ["id", "links", "status", "code", "title", "detail", "source", "meta"]
        case .errorLinks: ["about", "type"]
        case .errorSource: ["pointer", "parameter", "header"]
        }
    }
}

/// Checks the objects of one document and collects what breaks the specification.
struct DocumentRules {
    let request: JSONAPIValidator.RequestTarget?
    let strictMembers: Bool
    /// Whether a resource object must have an `id`: in a response. The decoder reads requests and
    /// responses alike, so it does not ask for one.
    let requiresID: Bool
    /// The namespaces of the extensions applied: the caller's, then those `jsonapi.ext` announces.
    var appliedNamespaces: Set<String>
    var violations: [JSONAPIViolation] = []

    // What the document-wide rules need.
    var rootPosition = JSONPosition(byteOffset: 0, line: 1, column: 1)
    var rootIsObject = true
    var members: [DocumentReader.Member: (pointer: String, position: JSONPosition)] = [:]
    /// Every top-level member name (by its pointer), with where it first appeared.
    var topLevelNames: [String: JSONPosition] = [:]
    /// A top-level member of an extension: `atomic:operations`.
    struct ExtensionMember {
        let name: String
        let namespace: String
        let position: JSONPosition
        /// The kind of its value's first token, when the value had begun.
        let valueKind: JSONToken.Kind?
    }

    /// Top-level extension members, in document order.
    var extensionMembers: [ExtensionMember] = []
    /// Extension members seen before `jsonapi`, whose namespace was not applied then: judged at
    /// the end, since `jsonapi.ext` may come last.
    var unannounced:
        [(name: String, namespace: String, object: SpecificationObject, pointer: String, position: JSONPosition)] = []
    /// Every resource object's identity, with where it first appeared.
    var identities: [ResourceIdentity: String] = [:]
    /// For reachability: primary identities and each resource's linkage targets.
    var primary: [ResourceIdentity] = []
    var included: [(identity: ResourceIdentity, pointer: String, position: JSONPosition)] = []
    var edges: [ResourceIdentity: [ResourceIdentity]] = [:]
    /// lids referenced from linkage, with where, to check that each names a resource.
    var linkedLids: [(identity: ResourceIdentity, pointer: String, position: JSONPosition)] = []

    init(_ validator: JSONAPIValidator) {
        request = validator.request
        strictMembers = validator.strictMembers
        requiresID = validator.request == nil
        appliedNamespaces = Set(validator.appliedExtensions.compactMap(Self.namespace(ofExtension:)))
    }

    /// The rules as the decoder applies them, to word the faults it finds: for requests and
    /// responses alike.
    init() {
        request = nil
        strictMembers = false
        requiresID = false
        appliedNamespaces = []
    }

    /// What the decoder reads a value as, which decides the rules that apply to it.
    enum Role {
        case links, jsonapi, errors, identifier, resource
    }

    /// The errors (not warnings) the rules find in `value`, read as `role` at `pointer`: for the
    /// decoder, which reports them in the validator's words.
    static func errors(in value: JSONTape.Value, as role: Role, at pointer: String) -> [JSONAPIViolation] {
        var rules = DocumentRules()
        switch role {
        case .links: rules.checkLinks(value, pointer: pointer)
        case .jsonapi: rules.checkJSONAPIObject(value, pointer: pointer)
        case .errors: rules.checkErrors(value, pointer: pointer)
        case .identifier: _ = rules.checkIdentifier(value, pointer: pointer)
        case .resource: _ = rules.checkResource(value, pointer: pointer)
        }
        return rules.violations.filter { $0.severity == .error }
    }

    /// The namespace of the extension at `uri`: its last path segment (the official extensions'
    /// URIs end in their namespace: `https://jsonapi.org/ext/atomic`), or the whole text when it
    /// is a bare namespace; `nil` when that is not a valid namespace.
    static func namespace(ofExtension uri: String) -> String? {
        guard let last = uri.components(separatedByScalar: "/").last(where: { !$0.isEmpty }) else { return nil }
        return isValidNamespace(last) ? String(last) : nil
    }

    static func isValidNamespace(_ namespace: Substring) -> Bool {
        !namespace.isEmpty && namespace.unicodeScalars.allSatisfy(\.isASCIIAlphanumeric)
    }

    mutating func report(
        _ pointer: String,
        _ position: JSONPosition,
        _ message: String,
        severity: JSONAPIViolation.Severity = .error
    ) {
        violations.append(JSONAPIViolation(pointer: pointer, position: position, message: message, severity: severity))
    }

    // MARK: Top level

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
        guard request == .resource, token.kind != .objectStart else { return }
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
            checkLinks(value, pointer: pointer)
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

    // MARK: Members

    /// A member `object` does not define: allowed if it is an @-member, or an extension member
    /// of an applied extension (judged at the end if not applied yet); reported otherwise.
    mutating func checkOtherMember(
        _ name: String,
        of object: SpecificationObject,
        pointer: @autoclosure () -> String,
        position: JSONPosition
    ) {
        if name.hasPrefix("@") { return }
        if let colon = name.firstIndex(of: ":") {
            if let fault = Self.extensionNameFault(name, colon: colon) {
                report(pointer(), position, fault)
            } else if !appliedNamespaces.contains(String(name[..<colon])) {
                unannounced.append((name, String(name[..<colon]), object, pointer(), position))
            }
            return
        }
        guard Self.isValidMemberName(Substring(name)) else {
            report(pointer(), position, Self.badName(name))
            return
        }
        report(
            pointer(),
            position,
            "\(object.phrase) may hold only \(Self.list(object.members)), not \(name).",
            severity: undefinedMemberSeverity
        )
    }

    var undefinedMemberSeverity: JSONAPIViolation.Severity { strictMembers ? .error : .warning }

    /// `a, b and c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// What is wrong with the extension member name `name` (`namespace:member`, its colon at
    /// `colon`), or `nil` when both parts follow their rules.
    static func extensionNameFault(_ name: String, colon: String.Index) -> String? {
        if !isValidNamespace(name[..<colon]) {
            return "The extension namespace of the member \(name) must be made of a-z, A-Z and 0-9 only."
        }
        if !isValidMemberName(name[name.index(after: colon)...]) {
            return "The member name \(name) breaks JSON:API's naming rules."
        }
        return nil
    }

    static func badName(_ name: String) -> String {
        "The member name \(String(reflecting: name)) breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
    }

    /// The 1.1 member name rules: globally allowed characters at the ends, `-`, `_` and space also
    /// allowed inside, none of the reserved characters.
    static func isValidMemberName(_ name: Substring) -> Bool {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return false }
        func globallyAllowed(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCIIAlphanumeric || scalar.value >= 0x80 }
        guard globallyAllowed(first), globallyAllowed(last) else { return false }
        return scalars.allSatisfy { globallyAllowed($0) || $0 == "-" || $0 == "_" || $0 == " " }
    }

    /// An implementation-defined member name (an attribute, a relationship, a member of meta or
    /// of an attribute's value): @-members are left alone; extension members are allowed where
    /// `allowExtension` says so and checked in their two parts.
    mutating func checkMemberName(
        _ name: String,
        pointer: @autoclosure () -> String,
        position: JSONPosition,
        allowExtension: Bool
    ) {
        if name.hasPrefix("@") { return }
        if allowExtension, let colon = name.firstIndex(of: ":") {
            if let fault = Self.extensionNameFault(name, colon: colon) { report(pointer(), position, fault) }
            return
        }
        if !Self.isValidMemberName(Substring(name)) { report(pointer(), position, Self.badName(name)) }
    }

    /// The member names of every object inside `value` (an attribute's value, a meta object's
    /// member), at any depth. Iterative, so a deep value cannot exhaust the stack.
    mutating func checkNestedNames(in value: JSONTape.Value, pointer: String, allowExtension: Bool) {
        guard value.kind == .objectStart || value.kind == .arrayStart else { return }
        var pending = [(value, pointer)]
        while let (container, path) = pending.popLast() {
            if container.kind == .objectStart, let members = try? container.members() {
                for member in members {
                    let memberPath = path + "/" + jsonPointerEscaped(member.key)
                    checkMemberName(
                        member.key,
                        pointer: memberPath,
                        position: member.value.position,
                        allowExtension: allowExtension
                    )
                    if member.value.kind == .objectStart || member.value.kind == .arrayStart {
                        pending.append((member.value, memberPath))
                    }
                }
            } else if container.kind == .arrayStart, let elements = try? container.elements() {
                for (index, element) in elements.enumerated()
                where element.kind == .objectStart || element.kind == .arrayStart {
                    pending.append((element, "\(path)/\(index)"))
                }
            }
        }
    }

    // MARK: Duplicate names

    /// Reports each member whose name an earlier member of the same object has, in every object
    /// inside `value`, at any depth. A warning: RFC 8259 says only that names SHOULD be unique, and
    /// JSON:API adds nothing; but readers differ on which value they keep (the first, the last, or
    /// an error), so such a document means different things to different clients.
    ///
    /// One pass over the value's tokens with a stack of open objects, rather than a walk through
    /// `members()`: every resource goes through here, and the walk (a `Value` and a `String` per
    /// member) made `sluice validate` of a 30 MB document 18% slower where this costs it about
    /// 2%. Pointers are spelled only for a report.
    mutating func checkDuplicateNames(in value: JSONTape.Value, pointer: String) {
        guard value.kind == .objectStart || value.kind == .arrayStart else { return }
        let tape = value.tape
        // Taken out, not copied: a copy would share the buffers with `duplicateScratch`, and the
        // first append would then allocate new ones for every resource.
        var (keys, objects) = duplicateScratch
        duplicateScratch = ([], [])
        defer {
            keys.removeAll(keepingCapacity: true)
            objects.removeAll(keepingCapacity: true)
            duplicateScratch = (keys, objects)
        }
        for index in value.index..<value.endIndex {
            let token = tape[index]
            switch token.kind {
            case .objectStart:
                objects.append(OpenObject(firstKey: keys.count))
            case .objectEnd:
                guard let object = objects.popLast() else { continue }
                keys.removeSubrange(object.firstKey...)
            case .key:
                guard !objects.isEmpty else { continue }
                let top = objects.count - 1
                if let first = objects[top].insert(token, into: &keys, tape: tape) {
                    let name = tape.text(of: token)
                    report(
                        Self.pointer(to: index, in: value, from: pointer),
                        token.position,
                        Self.duplicateName(name, first: first),
                        severity: .warning
                    )
                }
            default:
                continue
            }
        }
    }

    /// Reused by ``checkDuplicateNames(in:pointer:)``, so that a resource costs no allocation.
    var duplicateScratch: (keys: [JSONToken], objects: [OpenObject]) = ([], [])

    /// An object whose members are being read: its keys are `keys[firstKey...]`, compared byte
    /// for byte while there are few (most objects have a handful of members, and no `String` is
    /// made for them), through a dictionary once there are many.
    struct OpenObject {
        let firstKey: Int
        private var table: [String: JSONPosition] = [:]
        private static let listLimit = 16

        init(firstKey: Int) { self.firstKey = firstKey }

        /// Adds the key `token`; returns where the same name first appeared when it is a repeat.
        mutating func insert(_ token: JSONToken, into keys: inout [JSONToken], tape: JSONTape) -> JSONPosition? {
            if table.isEmpty {
                for earlier in keys[firstKey...] where earlier.length == token.length {
                    if tape.withUnsafeText(of: earlier, { tape.text(of: token, equals: $0) }) {
                        return earlier.position
                    }
                }
                keys.append(token)
                if keys.count - firstKey > Self.listLimit {
                    for key in keys[firstKey...] { table[tape.text(of: key)] = key.position }
                }
                return nil
            }
            let name = tape.text(of: token)
            if let earlier = table[name] { return earlier }
            table[name] = token.position
            return nil
        }
    }

    static func duplicateName(_ name: String, first: JSONPosition) -> String {
        let shown = name.isEmpty ? "\"\"" : name
        return
            "The member \(shown) appears again in the same object (first at line \(first.line), column \(first.column)); names within an object should be unique (RFC 8259), and readers differ on which value they keep."
    }

    /// The pointer of the member whose key is the token at `keyIndex` inside `value` (at
    /// `pointer`): found by descending through the containers that hold it. Members and elements
    /// come in token order, so the first whose value ends after `keyIndex` holds it (a member's
    /// key stands just before its value).
    static func pointer(to keyIndex: Int, in value: JSONTape.Value, from pointer: String) -> String {
        var path = pointer
        var container = value
        while true {
            if let members = try? container.members(),
                let member = members.first(where: { keyIndex < $0.value.endIndex })
            {
                path += "/" + jsonPointerEscaped(member.key)
                if keyIndex < member.value.index { return path }
                container = member.value
            } else if let elements = try? container.elements(),
                let (position, element) = elements.enumerated().first(where: { keyIndex < $0.element.endIndex })
            {
                path += "/\(position)"
                container = element
            } else {
                return path
            }
        }
    }

    /// A meta object: an object whose member names follow the naming rules, at any depth.
    mutating func checkMeta(_ value: JSONTape.Value, pointer: String) {
        guard value.kind == .objectStart else {
            report(pointer, value.position, SpecificationText.mustBeObject("meta", value.kind))
            return
        }
        checkNestedNames(in: value, pointer: pointer, allowExtension: true)
    }

    /// The members of `value`, or `nil` after reporting that the member `name` must be an object.
    mutating func objectMembers(of value: JSONTape.Value, named name: String, at pointer: String) -> JSONTape.Members? {
        guard let members = try? value.members() else {
            report(pointer, value.position, SpecificationText.mustBeObject(name, value.kind))
            return nil
        }
        return members
    }

    /// Reports `value` unless it is a string.
    mutating func requireString(_ value: JSONTape.Value, named name: String, at pointer: String) {
        if value.kind != .string { report(pointer, value.position, SpecificationText.mustBeString(name, value.kind)) }
    }

    // MARK: jsonapi, links, errors

    mutating func checkJSONAPIObject(_ value: JSONTape.Value, pointer: String) {
        guard let members = objectMembers(of: value, named: "jsonapi", at: pointer) else { return }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "version":
                requireString(member.value, named: "version", at: path)
            case "ext", "profile":
                let uris = (try? member.value.elements()).map { Array($0) }
                guard let uris, uris.allSatisfy({ $0.kind == .string }) else {
                    report(path, member.value.position, "\(member.key) must be an array of URI strings.")
                    continue
                }
                if member.key == "ext" {
                    for uri in uris {
                        if let text = try? uri.string(), let namespace = Self.namespace(ofExtension: text) {
                            appliedNamespaces.insert(namespace)
                        }
                    }
                }
            case "meta":
                checkMeta(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .jsonapi, pointer: path, position: member.value.position)
            }
        }
    }

    /// A links object: each link a string, a link object or null. With `object`, only the link
    /// names that object defines are expected (an error's `about` and `type`).
    mutating func checkLinks(_ value: JSONTape.Value, pointer: String, object: SpecificationObject? = nil) {
        guard let members = objectMembers(of: value, named: "links", at: pointer) else { return }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            if let object, !object.members.contains(member.key) {
                checkOtherMember(member.key, of: object, pointer: path, position: member.value.position)
                continue
            }
            if object == nil {
                checkMemberName(member.key, pointer: path, position: member.value.position, allowExtension: true)
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

    mutating func checkErrors(_ value: JSONTape.Value, pointer: String) {
        guard let elements = try? value.elements() else {
            report(
                pointer,
                value.position,
                "errors must be an array of error objects, but it is \(value.kind.nounPhrase)."
            )
            return
        }
        for (index, element) in elements.enumerated() {
            checkErrorObject(element, pointer: "\(pointer)/\(index)")
        }
    }

    mutating func checkErrorObject(_ value: JSONTape.Value, pointer: String) {
        guard let members = try? value.members() else {
            report(
                pointer,
                value.position,
                "An error object must be an object, but this one is \(value.kind.nounPhrase)."
            )
            return
        }
        var hasStandardMember = false
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "id", "status", "code", "title", "detail":
                requireString(member.value, named: member.key, at: path)
            case "links":
                checkLinks(member.value, pointer: path, object: .errorLinks)
            case "source":
                checkErrorSource(member.value, pointer: path)
            case "meta":
                checkMeta(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .error, pointer: path, position: member.value.position)
                continue
            }
            hasStandardMember = true
        }
        if !hasStandardMember {
            report(
                pointer,
                value.position,
                "An error object must have at least one of id, links, status, code, title, detail, source or meta."
            )
        }
    }

    mutating func checkErrorSource(_ value: JSONTape.Value, pointer: String) {
        guard let members = objectMembers(of: value, named: "source", at: pointer) else { return }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "pointer":
                guard member.value.kind == .string, let text = try? member.value.string() else {
                    requireString(member.value, named: "pointer", at: path)
                    continue
                }
                if let fault = Self.jsonPointerFault(text) {
                    report(path, member.value.position, "pointer must be a JSON Pointer (RFC 6901): \(fault).")
                }
            case "parameter", "header":
                requireString(member.value, named: member.key, at: path)
            default:
                checkOtherMember(member.key, of: .errorSource, pointer: path, position: member.value.position)
            }
        }
    }

    /// Why `text` is not a JSON Pointer (RFC 6901), or `nil` when it is one: empty, or `/` then
    /// reference tokens in which `~` is always followed by `0` or `1`.
    static func jsonPointerFault(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        guard text.hasPrefix("/") else { return "\(String(reflecting: text)) does not start with /" }
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "~" else { continue }
            let next = scalars.next()
            if next != "0" && next != "1" {
                return "in \(String(reflecting: text)), ~ must be followed by 0 or 1 (write ~0 for ~ and ~1 for /)"
            }
        }
        return nil
    }

    // MARK: Resources

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
                checkLinks(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .resource, pointer: path, position: member.value.position)
            }
        }
        if !hasType { report(pointer, value.position, SpecificationText.resourceWithoutType) }
        // A client creating a resource may leave the id out, with or without a lid.
        if idValue == nil && requiresID {
            report(pointer, value.position, "A resource object in a response must have an id member.")
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
                checkLinks(member.value, pointer: path)
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

    // MARK: Document-wide

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
                severity: .warning
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
        guard let request, members[.data] == nil, applied.isEmpty else { return }
        let what =
            request == .resource
            ? "a single resource object (a request to a resource endpoint)"
            : "resource linkage (a request to a relationship endpoint)"
        report("", rootPosition, "A request document must hold \(what) as primary data, but it has no data member.")
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIAlphanumeric: Bool {
        (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39)
    }
}
