// The rules of JSON:API 1.1, object by object, as the validator applies them: this file holds
// their state and entry points, and the files beside it one section of the specification each
// (DocumentRules+TopLevel.swift, +MemberNames, +Resources, +Links, +Meta, +JSONAPIObject,
// +ErrorObjects, +CompoundDocuments), each linking its section.
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
    case topLevel, jsonapi, resource, identifier, relationship, link, error, errorSource
    case topLevelLinks, resourceLinks, relationshipLinks, toOneRelationshipLinks, errorLinks

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
        case .topLevelLinks: "The top-level links object"
        case .resourceLinks: "The links object of a resource object"
        case .relationshipLinks: "The links object of a relationship object"
        case .toOneRelationshipLinks: "The links object of a to-one relationship object"
        case .errorLinks: "The links object of an error object"
        case .errorSource: "The source of an error object"
        }
    }

    private static func names(_ members: ResourceMember...) -> [String] { members.map(\.name) }

    /// The members it may hold, besides extension members and @-members.
    var members: [String] {
        switch self {
        case .topLevel: DocumentReader.Member.defined.map(\.name)
        case .jsonapi: ["version", "ext", "profile", "meta"]
        case .resource: Self.names(.type, .id, .lid, .attributes, .relationships, .links, .meta)
        case .identifier: Self.names(.type, .id, .lid, .meta)
        case .relationship: Self.names(.links, .data, .meta)
        case .link: ["href", "rel", "describedby", "title", "type", "hreflang", "meta"]
        case .error: ["id", "links", "status", "code", "title", "detail", "source", "meta"]
        case .topLevelLinks: ["self", "related", "describedby", "first", "last", "prev", "next"]
        case .resourceLinks: ["self"]
        // A to-many relationship may be paged: its links may be pagination links too.
        case .relationshipLinks: ["self", "related", "first", "last", "prev", "next"]
        // Pagination links belong to to-many relationships only.
        case .toOneRelationshipLinks: ["self", "related"]
        case .errorLinks: ["about", "type"]
        case .errorSource: ["pointer", "parameter", "header"]
        }
    }
}

/// Checks the objects of one document and collects what breaks the specification.
struct DocumentRules {
    let request: JSONAPIValidator.RequestTarget?
    let strictMembers: Bool
    /// Whether an included resource that primary data does not reach is an error.
    let requiresFullLinkage: Bool
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
    /// Every resource object's identity and every identity linkage names, compactly, with where
    /// each resource first appeared and whether primary data reaches it. Made on first use: the
    /// decoder's rules, which word one object's faults, never need it.
    lazy var identityIndex = IdentityIndex()
    /// Set once the index refused an identity (its arena is full): what it could not hold is
    /// reported once rather than checked.
    var identityIndexIsFull = false
    /// Linkage from included resources that primary data had not reached when they were read,
    /// source entry in the high half, target in the low: followed at the end, in bulk.
    var deferredEdges: [UInt64] = []
    /// Where included resources not yet reached when read stood, for the warnings of those still
    /// unreached at the end (only as many as the report can list; the rest are counted).
    var pendingResources: [(entry: IdentityIndex.Entry, place: IdentityIndex.Place, position: JSONPosition)] = []
    /// lids linkage named before any resource had them, with where (as many as the report can
    /// list; the rest are counted from the index's flags).
    var linkedLids: [(entry: IdentityIndex.Entry, pointer: String, position: JSONPosition)] = []
    /// The most violations kept; past it they are counted (see ``JSONAPIValidator/maximumViolations``).
    let maximumViolations: Int
    /// Violations found past ``maximumViolations``, by severity.
    var omittedErrors = 0
    var omittedWarnings = 0
    /// Reused by ``checkDuplicateNames(in:pointer:)``, so that a resource costs no allocation.
    var duplicateScratch: (keys: [JSONToken], objects: [OpenObject]) = ([], [])

    init(_ validator: JSONAPIValidator) {
        request = validator.request
        strictMembers = validator.strictMembers
        requiresFullLinkage = validator.requiresFullLinkage
        requiresID = validator.request == nil || validator.request == .update
        maximumViolations = max(validator.maximumViolations, 1)
        appliedNamespaces = Set(validator.appliedExtensions.compactMap(Self.namespace(ofExtension:)))
    }

    /// The rules as the decoder applies them, to word the faults it finds: for requests and
    /// responses alike.
    init() {
        request = nil
        strictMembers = false
        requiresID = false
        appliedNamespaces = []
        requiresFullLinkage = false
        maximumViolations = .max
    }

    /// Whether the document is a request to a resource endpoint (to create or update): its primary
    /// data is a single resource object.
    var isResourceRequest: Bool { request == .resource || request == .update }

    /// What the decoder reads a value as, which decides the rules that apply to it.
    enum Role {
        case links, jsonapi, errors, identifier, resource
    }

    /// The errors (not warnings) the rules find in `value`, read as `role` at `pointer`: for the
    /// decoder, which reports them in the validator's words.
    static func errors(in value: JSONTape.Value, as role: Role, at pointer: String) -> [JSONAPIViolation] {
        var rules = DocumentRules()
        switch role {
        case .links: rules.checkLinks(value, pointer: pointer, object: .topLevelLinks)
        case .jsonapi: rules.checkJSONAPIObject(value, pointer: pointer)
        case .errors: rules.checkErrors(value, pointer: pointer)
        case .identifier: _ = rules.checkIdentifier(value, pointer: pointer)
        case .resource: rules.checkResource(value, pointer: pointer)
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
        guard violations.count < maximumViolations else {
            if severity == .error { omittedErrors += 1 } else { omittedWarnings += 1 }
            return
        }
        violations.append(JSONAPIViolation(pointer: pointer, position: position, message: message, severity: severity))
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
}

extension Unicode.Scalar {
    var isASCIIAlphanumeric: Bool {
        (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39)
    }
}
