// Strict validation: every MUST of JSON:API 1.1 that a consumer can check on one document.
//
// It reads the document as a stream through the same document reader as the decoder, so a
// document of any size is checked with memory bounded by its largest resource plus one compact
// identity per resource (`IdentityIndex`), which the document-wide rules need: duplicates, lid
// consistency and reachability of included resources. Every violation is collected, not only the
// first, up to `maximumViolations`.
//
// The rules for each object live in `DocumentRules` (Validation/DocumentRules.swift and the files beside it), which the decoder also
// runs on error documents, so that `flatten` and `validate` word the same fault the same way.

public import Foundation
public import SluiceJSON

/// One way a document breaks the JSON:API specification.
public struct JSONAPIViolation: Sendable, Hashable, CustomStringConvertible {
    /// How serious a violation is.
    public enum Severity: String, Sendable, Hashable {
        /// The document breaks a MUST of the specification.
        case error
        /// The document is suspicious but may be valid, such as included resources unreachable
        /// from primary data, which sparse fieldsets can cause; or it holds members the
        /// specification does not define, which readers must ignore (an error with
        /// ``JSONAPIValidator/strictMembers``).
        case warning
    }

    /// A JSON Pointer (RFC 6901) to the offending value: empty for the document's root, `/` for a
    /// top-level member named with the empty string.
    public var pointer: String
    /// Where the offending value starts in the input.
    public var position: JSONPosition
    /// One sentence naming the rule broken.
    public var message: String
    /// How serious it is.
    public var severity: Severity

    /// Creates a violation.
    public init(pointer: String, position: JSONPosition, message: String, severity: Severity) {
        self.pointer = pointer
        self.position = position
        self.message = message
        self.severity = severity
    }

    /// `line 3, column 7: /data/0/id: message`; the root is named `(root)`, as in
    /// ``JSONAPIDecodingError``, since an empty pointer would print as nothing.
    public var description: String {
        "line \(position.line), column \(position.column): \(pointer.isEmpty ? "(root)" : pointer): \(message)"
    }
}

/// Checks documents against JSON:API 1.1 and reports every violation with a JSON Pointer.
///
/// ```swift
/// var validator = JSONAPIValidator()
/// validator.strictMembers = true
/// let violations = try validator.validate(FileChunkReader(path: "response.json"))
/// for violation in violations { print(violation) }
/// ```
///
/// Members the specification does not define in its objects (the top level, `jsonapi`, resource
/// objects, resource identifiers, relationship objects, link objects, error objects and their
/// `source`) are warnings by default and errors with ``strictMembers``. A member named
/// `namespace:name` belongs to an extension: it is allowed when the extension is applied, that
/// is, announced in the document's `jsonapi.ext` or named in ``appliedExtensions``. `@`-members
/// are always allowed.
///
/// ## Memory
///
/// The document is read as a stream: one resource object (or top-level member) is held whole at a
/// time, up to `JSONLimits.maxHeldBytes`. Beside it, the document-wide rules keep each resource
/// identity once, compactly: about 12 bytes for an identity with a decimal id, plus the id's
/// length for other ids, and a 4-byte slot in a table at most three-quarters full (some 18 bytes
/// a resource in all; ten million resources in under 256 MB). Linkage from an included resource
/// that nothing had reached when it was read is kept until the end, 8 bytes a target; documents
/// that put primary data first, as servers write them, keep none.
public struct JSONAPIValidator: Sendable {
    /// Where a request document is sent, which decides what its primary data must be.
    public enum RequestTarget: String, Sendable, Hashable, CaseIterable {
        /// A resource collection (`POST`) or a resource (`PATCH`): primary data must be a single
        /// resource object, and each relationship it provides must have `data`. A new resource may
        /// have a `lid` instead of an `id`.
        case resource
        /// A resource, to update it (`PATCH`): as ``resource``, and the resource object must have
        /// the `id` of the resource it updates.
        case update
        /// A relationship endpoint: primary data is resource linkage (`null`, a resource
        /// identifier object, or an array of them).
        case relationship
    }

    /// The endpoint the document is a request to, or `nil` (the default) for a response.
    /// In a request, a new resource may have a `lid` instead of an `id`.
    public var request: RequestTarget?

    /// Whether documents are requests (to a resource endpoint, unless ``request`` says otherwise).
    public var isRequestDocument: Bool {
        get { request != nil }
        set { request = newValue ? (request ?? .resource) : nil }
    }

    /// Whether members the specification does not define are errors rather than warnings.
    /// Default: `false`, since readers must ignore such members.
    public var strictMembers = false

    /// Whether an included resource that primary data does not reach through relationships is an
    /// error rather than a warning. Default: `false`, since sparse fieldsets can leave the linkage
    /// out; turn it on for a server testing its own output, which should include only what it
    /// links.
    public var requiresFullLinkage = false

    /// The URIs of extensions applied to the document beyond those its `jsonapi.ext` announces,
    /// such as those of the `ext` parameter of its `Content-Type`. An extension's namespace is
    /// taken to be its URI's last path segment, as the official extensions' URIs have it
    /// (`https://jsonapi.org/ext/atomic` is `atomic`). A bare namespace (`atomic`) is accepted too.
    public var appliedExtensions: [String] = []

    /// Limits on the input. Default: `JSONLimits.streaming`, whose `JSONLimits.maxHeldBytes`
    /// bounds the one resource or top-level member held whole at a time.
    public var limits = JSONLimits.streaming

    /// The most violations a validation returns. Past it the rest are only counted, and
    /// a last violation at the root says how many errors and warnings were left out (an error when
    /// any of them was one), so that a document with millions of faults is reported in bounded
    /// memory. Default: 10 000.
    public var maximumViolations = 10_000

    /// Creates a validator of responses, or of requests to a resource endpoint.
    public init(isRequestDocument: Bool = false) {
        self.request = isRequestDocument ? .resource : nil
    }

    /// Creates a validator.
    ///
    /// - Parameters:
    ///   - request: The endpoint the documents are requests to, or `nil` for responses.
    ///   - strictMembers: Whether members the specification does not define are errors.
    public init(request: RequestTarget?, strictMembers: Bool = false) {
        self.request = request
        self.strictMembers = strictMembers
    }

    /// Validates a document read from a file or standard input.
    ///
    /// - Returns: Every violation, in document order, document-wide ones last.
    /// - Throws: `JSONError` when the input is not well-formed JSON, or `FileChunkReader.Failure`.
    public func validate(_ reader: FileChunkReader) throws -> [JSONAPIViolation] {
        var run = ValidationRun(self)
        try reader.forEachChunk { try run.feed($0) }
        return try run.finish()
    }

    /// Validates a document held in memory.
    ///
    /// - Returns: Every violation, in document order, document-wide ones last.
    /// - Throws: `JSONError` when the input is not well-formed JSON.
    public func validate(_ bytes: some ContiguousBytes) throws -> [JSONAPIViolation] {
        var run = ValidationRun(self)
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

/// The state of one validation: the parser and the document reader, feeding `DocumentRules`.
struct ValidationRun {
    let parser: JSONParser
    var reader = DocumentReader(skipsOtherMembers: true)
    var rules: DocumentRules
    var sawRoot = false

    init(_ validator: JSONAPIValidator) {
        parser = JSONParser(limits: validator.limits)
        rules = DocumentRules(validator)
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer) throws {
        try parser.parse(chunk)
        try drain()
    }

    mutating func finish() throws -> [JSONAPIViolation] {
        try parser.finish()
        try drain()
        rules.checkDocumentWideRules()
        return rules.violations
    }

    private mutating func drain() throws {
        defer { parser.removeTokens(before: reader.releasableIndex) }
        let tape = parser.tape
        if !sawRoot, let first = tape.first {
            sawRoot = true
            rules.rootPosition = first.position
        }
        while true {
            switch reader.next(in: tape) {
            case .needMoreInput, .finished:
                return
            case .rootNotObject(let valueIndex):
                // The root may still be open (a long array arriving in chunks): read its first token only.
                rules.rootNotObject(tape[valueIndex])
            case .primaryCollectionStarted(let valueIndex), .primaryNull(let valueIndex):
                rules.primaryStarted(tape[valueIndex])
            case .primaryResource(let valueIndex):
                let value = try tape.value(at: valueIndex)
                rules.primaryStarted(tape[valueIndex])
                rules.checkPrimary(value, pointer: "/data", position: nil)
            case .primaryElement(let valueIndex, let position):
                rules.checkPrimary(try tape.value(at: valueIndex), pointer: "/data/\(position)", position: position)
            case .includedCollectionStarted(let valueIndex):
                rules.memberSeen(.included, pointer: "/included", position: tape[valueIndex].position)
            case .includedElement(let valueIndex, let position):
                rules.checkIncluded(
                    try tape.value(at: valueIndex),
                    pointer: "/included/\(position)",
                    position: position
                )
            case .skippedMember(let keyIndex):
                // The value's first token follows its key; the rest is released unread.
                rules.checkOtherTopLevelMember(
                    tape.text(of: tape[keyIndex]),
                    keyPosition: tape[keyIndex].position,
                    valueToken: keyIndex + 1 < tape.endIndex ? tape[keyIndex + 1] : nil
                )
            case .member(let member, let keyIndex, let valueIndex):
                let value = try tape.value(at: valueIndex)
                rules.checkTopLevelMember(member, name: tape.text(of: tape[keyIndex]), value: value)
            }
        }
    }
}
