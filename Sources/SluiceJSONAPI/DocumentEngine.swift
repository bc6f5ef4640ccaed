// Drives the parser and the document reader over chunks of input, decoding each resource object
// as soon as it closes and releasing its tokens. Both the whole-document decoder and the
// streaming APIs run on it; they differ only in what they do with each event.

import Foundation
public import SluiceJSON

/// Where a streamed resource stands in its document.
public enum DocumentSection: Sendable, Hashable {
    /// In primary data (`data`).
    case primary
    /// In `included`.
    case included
}

/// One resource of a document read as a stream.
public struct StreamedResource: Sendable {
    /// Whether the resource is primary data or included.
    public let section: DocumentSection
    /// Its index in `data` (`nil` when `data` is a single resource) or in `included`.
    public let position: Int?
    /// The resource, decoded to its registered model or kept raw.
    public let resource: AnyResource

    /// A JSON Pointer to the resource object, such as `/data/3` or `/included/0`.
    public var pointer: String {
        let base = section == .primary ? "/data" : "/included"
        return position.map { "\(base)/\($0)" } ?? base
    }
}

/// What a document held besides its resources, known once it has been read to the end.
public struct DocumentSummary: Sendable {
    /// The top-level `meta`.
    public var meta: JSONValue?
    /// The top-level `links`.
    public var links: Links?
    /// The `jsonapi` object.
    public var jsonapi: JSONAPIObject?
    /// How many resources primary data held: 0 for `null` or an empty array, 1 for one resource
    /// or an array of one.
    public var primaryCount = 0
    /// How many resources `included` held.
    public var includedCount = 0
}

final class DocumentEngine {
    enum Event {
        case primaryShape(isCollection: Bool)
        case primaryNull
        case primary(PrimaryItem, position: Int?)
        case included(AnyResource, position: Int)
    }

    private let limits: JSONLimits
    /// Made on first use: a worker's engine decodes batches the splitter has parsed, and never
    /// feeds a parser of its own.
    private(set) lazy var parser = JSONParser(limits: limits)
    private var reader = DocumentReader(skipsOtherMembers: true)
    private let registry: ResourceRegistry
    private let context: TapeDecodingContext
    /// For the specification's own objects (links, `jsonapi`, error objects, identifiers, raw
    /// resources): the caller's key strategy is for model properties, and a custom one would not
    /// find `href` or `status`.
    private let specContext: TapeDecodingContext
    private let rejectsUnknownTypes: Bool
    private let primaryHoldsIdentifiers: Bool
    /// What resources without a model become instead of `RawResource`s, if anything.
    private let rawEncoding: RawResourceEncoding?
    /// The size of the last encoded resource: the next buffer starts that large, so that a
    /// resource's bytes are one allocation rather than several regrowths.
    private var encodedSizeHint = 256
    private(set) var summary = DocumentSummary()
    private var errorObjects: [ErrorObject]?
    /// Where `data` starts, once seen: a document must not hold both it and `errors`.
    private var dataPosition: JSONPosition?
    /// Reused for every resource a model decodes (see `ResourceFields`).
    private let fields = ResourceFields()
    /// The parallel path's driver, when other threads help (see ParallelBatches.swift in
    /// SluiceJSON): `data` and `included` are cut into batches that workers decode, each worker
    /// with an engine of its own; this engine reads the rest and hands everything over in order.
    private let driver: ParallelSplitDriver<[Event]>?
    /// The events of the batch whose stand-in is being read.
    private var standIn: [Event]?
    /// How many batches workers decoded: tests check the parallel path ran.
    private(set) var batchesMerged = 0

    init(
        registry: ResourceRegistry,
        options: TapeDecodingOptions,
        limits: JSONLimits,
        rejectsUnknownTypes: Bool,
        primaryHoldsIdentifiers: Bool,
        rawEncoding: RawResourceEncoding? = nil,
        parallel: ParallelOptions = ParallelOptions.sequential
    ) {
        self.limits = limits
        self.registry = registry
        self.context = TapeDecodingContext(options: options)
        self.specContext = context.withDefaultKeys
        self.rejectsUnknownTypes = rejectsUnknownTypes
        self.primaryHoldsIdentifiers = primaryHoldsIdentifiers
        self.rawEncoding = rawEncoding
        // Uniquing ties resources together through the one decoding context, which threads
        // cannot share: such documents are read on one thread.
        guard options.uniquing.isEmpty && options.identityStore == nil else {
            driver = nil
            return
        }
        driver = ParallelSplitDriver(
            paths: ["data", "included"],
            threads: parallel.threads.threadCount,
            batchBytes: parallel.batchBytes
        ) {
            let worker = DocumentEngine(
                registry: registry,
                options: options,
                limits: limits,
                rejectsUnknownTypes: rejectsUnknownTypes,
                primaryHoldsIdentifiers: primaryHoldsIdentifiers,
                rawEncoding: rawEncoding
            )
            return { batch, _ in worker.decode(batch) }
        }
    }

    /// Parses a chunk and handles every event it completes.
    func feed(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws {
        if let driver {
            try driver.feed(chunk, bytes: { try feedSequentially($0, handle) }, batch: { try merge($0, $1, handle) })
        } else {
            try feedSequentially(chunk, handle)
        }
    }

    private func feedSequentially(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws {
        try parsing({ () throws(JSONError) in try parser.parse(chunk) }, handle)
        try drain(handle)
    }

    /// A batch a worker decoded: the parser steps over it with a stand-in, which the reader reports
    /// as one element of `data` or `included`; `drain` hands over the worker's events in its place.
    private func merge(_ batch: JSONBatch, _ events: [Event], _ handle: (Event) throws -> Void) throws {
        try parsing({ () throws(JSONError) in try parser.parseStandIn(for: batch) }, handle)
        standIn = events
        defer { standIn = nil }
        try drain(handle)
        precondition(standIn == nil, "Internal inconsistency: a batch's stand-in was not read as one element")
        batchesMerged += 1
    }

    /// A worker's part: the events of the resources in `batch`, or `nil` when anything in it is
    /// amiss, for the merger to read the batch itself and meet the fault where one thread would.
    private func decode(_ batch: JSONBatch) -> [Event]? {
        // The batch's array is the root object's member: depth 2.
        guard let parser = batch.parseAsArray(limits: limits, arrayDepth: 2) else { return nil }
        let tape = parser.tape
        var events: [Event] = []
        events.reserveCapacity(batch.elementCount)
        // The driver's paths are `data`, then `included`.
        let member: DocumentReader.Member = batch.target == 0 ? .data : .included
        var index = tape.startIndex + 1
        do {
            for position in batch.firstElement..<(batch.firstElement + batch.elementCount) {
                guard let end = tape.endOfValue(at: index) else { return nil }
                events.append(try element(of: member, at: index, position: position, tape: tape))
                index = end
            }
        } catch {
            return nil
        }
        return events
    }

    /// Ends the input; throws the error document if the document was one.
    func finish(_ handle: (Event) throws -> Void) throws {
        try driver?.finish(bytes: { try feedSequentially($0, handle) }, batch: { try merge($0, $1, handle) })
        try parsing({ () throws(JSONError) in try parser.finish() }, handle)
        try drain(handle)
        if let errorObjects {
            throw JSONAPIErrorDocument(
                errors: errorObjects,
                meta: summary.meta,
                links: summary.links,
                jsonapi: summary.jsonapi
            )
        }
    }

    /// Runs a parser call. On a syntax fault the tokens before it are still on the tape: they are
    /// read first, so the events before the fault are handled (faults come in document order)
    /// and the fault gets the pointer of the resource or member it interrupted.
    private func parsing(_ call: () throws(JSONError) -> Void, _ handle: (Event) throws -> Void) throws {
        do {
            try call()
        } catch var error {
            try drain(handle)
            if error.pointer == nil { error.pointer = reader.pointer }
            throw error
        }
    }

    private func drain(_ handle: (Event) throws -> Void) throws {
        defer { parser.removeTokens(before: reader.releasableIndex) }
        let tape = parser.tape
        while true {
            let action = reader.next(in: tape)
            if let events = standIn, action.isElement {
                // The stand-in for a batch a worker decoded: its resources, in its place.
                standIn = nil
                reader.skipElements(events.count - 1)
                for event in events {
                    if case .primary = event { summary.primaryCount += 1 } else { summary.includedCount += 1 }
                    try handle(event)
                }
                continue
            }
            switch action {
            case .needMoreInput, .finished:
                return
            case .includedCollectionStarted, .skippedMember:
                continue
            case .rootNotObject(let valueIndex):
                // The root may still be open (a long array arriving in chunks): read its first token only.
                let value = tape[valueIndex]
                throw JSONAPIDecodingError(
                    pointer: "",
                    position: value.position,
                    message: SpecificationText.documentNotObject(value.kind)
                )
            case .primaryCollectionStarted(let valueIndex):
                try dataStarted(at: tape[valueIndex].position)
                try handle(.primaryShape(isCollection: true))
            case .primaryNull(let valueIndex):
                try dataStarted(at: tape[valueIndex].position)
                try handle(.primaryNull)
            case .primaryResource(let valueIndex):
                try dataStarted(at: tape[valueIndex].position)
                try handle(.primaryShape(isCollection: false))
                summary.primaryCount = 1
                try handle(
                    .primary(
                        try primaryItem(
                            at: valueIndex,
                            place: ResourcePlace(section: "/data", position: nil),
                            tape: tape
                        ),
                        position: nil
                    )
                )
            case .primaryElement(let valueIndex, let position):
                summary.primaryCount += 1
                try handle(try element(of: .data, at: valueIndex, position: position, tape: tape))
            case .includedElement(let valueIndex, let position):
                summary.includedCount += 1
                try handle(try element(of: .included, at: valueIndex, position: position, tape: tape))
            case .member(let member, _, let valueIndex):
                try readMember(member, value: try tape.value(at: valueIndex))
            }
        }
    }

    /// The event for the element `position` of `data` or `included`, whose value starts at
    /// `valueIndex`: read by this engine, or by a worker's for a batch.
    private func element(
        of member: DocumentReader.Member,
        at valueIndex: Int,
        position: Int,
        tape: JSONTape
    ) throws -> Event {
        if member == .data {
            let place = ResourcePlace(section: "/data", position: position)
            return .primary(try primaryItem(at: valueIndex, place: place, tape: tape), position: position)
        }
        let place = ResourcePlace(section: "/included", position: position)
        return .included(try resource(at: valueIndex, place: place, tape: tape), position: position)
    }

    /// `data` starts at `position`: a fault if `errors` came first.
    private func dataStarted(at position: JSONPosition) throws {
        dataPosition = position
        if errorObjects != nil {
            throw JSONAPIDecodingError(pointer: "/data", position: position, message: SpecificationText.dataAndErrors)
        }
    }

    private func readMember(_ member: DocumentReader.Member, value: JSONTape.Value) throws {
        switch member {
        case .meta:
            summary.meta = try value.jsonValue()
        case .links:
            summary.links = try decode(Links.self, from: value, pointer: "/links", as: .links)
        case .jsonapi:
            summary.jsonapi = try decode(JSONAPIObject.self, from: value, pointer: "/jsonapi", as: .jsonapi)
        case .errors:
            if let dataPosition {
                throw JSONAPIDecodingError(
                    pointer: "/data",
                    position: dataPosition,
                    message: SpecificationText.dataAndErrors
                )
            }
            // The validator's rules first, so that a malformed error object is reported in the
            // words `sluice validate` uses, not in those of the Codable decoding below.
            if let fault = DocumentRules.errors(in: value, as: .errors, at: "/errors").first {
                throw JSONAPIDecodingError(pointer: fault.pointer, position: fault.position, message: fault.message)
            }
            errorObjects = try decode([ErrorObject].self, from: value, pointer: "/errors", as: .errors)
        case .data:
            throw JSONAPIDecodingError(
                pointer: "/data",
                position: value.position,
                message: SpecificationText.primaryData(value.kind)
            )
        case .included:
            throw JSONAPIDecodingError(
                pointer: "/included",
                position: value.position,
                message: SpecificationText.included(value.kind)
            )
        case .other:
            break
        }
    }

    /// Decodes `value`, read as `role` (which names the rules that word a fault).
    private func decode<T: Decodable>(
        _ type: T.Type,
        from value: JSONTape.Value,
        pointer: @autoclosure () -> String,
        as role: DocumentRules.Role
    ) throws -> T {
        do {
            return try value.decode(type, context: specContext)
        } catch let error as DecodingError {
            throw translate(error, at: value, pointer: pointer(), as: role)
        }
    }

    private func primaryItem(at valueIndex: Int, place: ResourcePlace, tape: JSONTape) throws -> PrimaryItem {
        if primaryHoldsIdentifiers {
            return .identifier(
                try decode(
                    ResourceIdentifier.self,
                    from: try tape.value(at: valueIndex),
                    pointer: place.pointer,
                    as: .identifier
                )
            )
        }
        return .resource(try resource(at: valueIndex, place: place, tape: tape))
    }

    /// Decodes the resource object at `valueIndex` to its registered model, or keeps it raw.
    private func resource(at valueIndex: Int, place: ResourcePlace, tape: JSONTape) throws -> AnyResource {
        // The pointer is made only for an error: building "/included/1234" for every resource
        // cost more than reading a small one.
        var pointer: String { place.pointer }
        let value = try tape.value(at: valueIndex)
        guard value.kind == .objectStart else {
            throw JSONAPIDecodingError(
                pointer: pointer,
                position: value.position,
                message: SpecificationText.expectedResourceObject(value.kind)
            )
        }
        let view = ResourceObjectView(value)
        guard let typeValue = view.type else {
            throw JSONAPIDecodingError(
                pointer: pointer,
                position: value.position,
                message: SpecificationText.resourceWithoutType
            )
        }
        guard typeValue.kind == .string else {
            throw JSONAPIDecodingError(
                pointer: pointer + "/type",
                position: typeValue.position,
                message: SpecificationText.mustBeString("type", typeValue.kind)
            )
        }
        try requireString(view.id, named: "id", pointer: place)
        try requireString(view.lid, named: "lid", pointer: place)
        if let (modelType, generated, typeName, storage) = registry.model(forTypeToken: typeValue.token, on: tape) {
            do {
                let identity = view.identity(type: typeName)
                if let generated, case let reader = filedReader(for: view, members: generated.jsonModelMembers),
                    !reader.needsGeneralPath
                {
                    return try makeResource(
                        generated,
                        storage: storage,
                        from: reader,
                        type: typeName,
                        identity: identity
                    )
                }
                fields.load(view)
                let decoder = ResourceDecoder(view: view, context: context, fields: fields)
                return try makeResource(modelType, storage: storage, from: decoder, type: typeName, identity: identity)
            } catch let error as DecodingError {
                throw translate(error, in: view, pointer: pointer, model: modelType)
            }
        }
        let typeName = try typeValue.string()
        if rejectsUnknownTypes {
            let known = registry.typeNames.map { "\"\($0)\"" }.joined(separator: ", ")
            throw JSONAPIDecodingError(
                pointer: pointer + "/type",
                position: typeValue.position,
                message:
                    "No model is registered for the resource type \"\(typeName)\" (registered: \(known.isEmpty ? "none" : known))."
            )
        }
        if let rawEncoding {
            // The tape straight into bytes; the shapes the encoding leaves go through RawResource,
            // whose decoding reports any fault as always.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(encodedSizeHint)
            if !rawEncoding.fromTape(value, specContext, &bytes) {
                bytes.removeAll(keepingCapacity: true)
                rawEncoding.fromRawResource(
                    try decode(RawResource.self, from: value, pointer: pointer, as: .resource),
                    &bytes
                )
            }
            encodedSizeHint = bytes.count + 16
            // No identity: the bytes carry the key, and a String per key is what they save.
            return AnyResource(type: typeName, encoded: bytes)
        }
        let raw = try decode(RawResource.self, from: value, pointer: pointer, as: .resource)
        return AnyResource(type: typeName, identity: raw.identity, model: nil, raw: raw)
    }

    /// A generated reader with `view`'s members filed under a `@JSONModel` resource's properties,
    /// as `ResourceDecoder` finds them: `id`, `lid` and `type` from the resource object, each
    /// other property from the member of `attributes` or `relationships` its name stands for
    /// under the key strategy, else the resource's own `meta` and `links`. The reader says
    /// `needsGeneralPath` where the general path must read the resource: an option needs it, or a
    /// name stands for two properties or is given twice (which one wins depends on the order the
    /// general path asks in).
    private func filedReader(for view: ResourceObjectView, members: JSONModelMembers) -> JSONModelReader {
        var reader = JSONModelReader(
            filing: view.value,
            context: context,
            members: members,
            missingMember: { name, resource in ResourceDecoder.missing(AnyCodingKey(name), in: resource) }
        )
        if reader.needsGeneralPath { return reader }
        let fixed = members.resourceFields
        if fixed.type >= 0 && view.typeIndex >= 0 { reader.file(fixed.type, at: view.typeIndex) }
        if fixed.id >= 0 && view.idIndex >= 0 { reader.file(fixed.id, at: view.idIndex) }
        if fixed.lid >= 0 && view.lidIndex >= 0 { reader.file(fixed.lid, at: view.lidIndex) }
        let tape = view.value.tape
        var needsGeneralPath = false
        view.forEachField { key, valueIndex, _ in
            guard !needsGeneralPath else { return }
            let field = tape.withUnsafeText(of: key) { reader.field(named: $0) }
            guard field >= 0 else {
                needsGeneralPath = field == JSONModelMembers.ambiguousMember
                return
            }
            // The general path never looks among the fields for these.
            if field == fixed.id || field == fixed.lid || field == fixed.type { return }
            if reader.hasMember(field) {
                needsGeneralPath = true  // given twice
            } else {
                reader.file(field, at: valueIndex)
            }
        }
        if needsGeneralPath {
            reader.needGeneralPath()
            return reader
        }
        // A field of the same name wins over the resource's own meta and links.
        if fixed.meta >= 0 && view.metaIndex >= 0 && !reader.hasMember(fixed.meta) {
            reader.file(fixed.meta, at: view.metaIndex)
        }
        if fixed.links >= 0 && view.linksIndex >= 0 && !reader.hasMember(fixed.links) {
            reader.file(fixed.links, at: view.linksIndex)
        }
        return reader
    }

    /// Checks that `id` or `lid`, when present, is a string.
    private func requireString(_ member: JSONTape.Value?, named name: String, pointer place: ResourcePlace) throws {
        guard let member, member.kind != .string else { return }
        throw JSONAPIDecodingError(
            pointer: place.pointer + "/" + name,
            position: member.position,
            message: SpecificationText.mustBeString(name, member.kind)
        )
    }

    /// A model's `DecodingError` as a `JSONAPIDecodingError` whose pointer names the member in the
    /// document: `/data/0/attributes/title`, `/included/2/relationships/author/data`.
    private func translate(
        _ error: DecodingError,
        in view: ResourceObjectView,
        pointer: String,
        model: any Resource.Type
    ) -> JSONAPIDecodingError {
        let (path, context) = Self.pathAndContext(of: error)
        let resourcePointer = pointer
        var pointer = pointer
        var value = view.value
        if let first = path.first {
            let name = first.stringValue
            if ["id", "lid", "type"].contains(name) {
                pointer += "/" + name
                value = (name == "id" ? view.id : name == "lid" ? view.lid : view.type) ?? value
            } else if let field = view.field(name, strategy: self.context.options.keyStrategy) {
                // The member's name as written: the key token just before its value.
                let written = field.value.tape.text(of: field.value.tape[field.value.index - 1])
                pointer += (field.isRelationship ? "/relationships/" : "/attributes/") + escape(written)
                value = field.value
            } else if name == "meta" || name == "links" {
                pointer += "/" + name
                value = (name == "meta" ? view.meta : view.links) ?? value
            }
            (pointer, value) = descend(
                path.dropFirst(),
                from: value,
                pointer: pointer,
                strategy: self.context.options.keyStrategy
            )
        }
        var message = Self.sentence(context?.debugDescription ?? "\(error)", without: value)
        if case .keyNotFound(let key, _) = error, path.count <= 1 {
            message = "The resource has no attribute or relationship \"\(key.stringValue)\"."
            if ["id", "lid", "type"].contains(key.stringValue) {
                message = "The resource object has no \(key.stringValue) member."
            } else if let hint = spellingHint(for: key.stringValue, in: view) {
                message += " " + hint
            }
        }
        let excerpt = Self.excerpt(of: value)
        return Self.inSpecificationWords(
            JSONAPIDecodingError(
                pointer: pointer,
                position: value.position,
                message: message,
                underlyingError: error,
                property: Self.swiftName(of: error, path: path, model: model),
                excerpt: excerpt.text,
                excerptColumn: excerpt.column
            ),
            faults: DocumentRules.errors(in: view.value, as: .resource, at: resourcePointer)
        )
    }

    /// `error`, or the validator's sentence when one of `faults` (what the validator's rules find
    /// in the value that failed) stands at the same pointer (or, for a missing member, at the
    /// object that lacks it, which the validator names since the member has no position): a value
    /// that breaks the specification reads the same here as in `sluice validate`. The rules run
    /// only once decoding has failed, so they cost nothing on the way to success.
    private static func inSpecificationWords(
        _ error: JSONAPIDecodingError,
        faults: [JSONAPIViolation]
    ) -> JSONAPIDecodingError {
        var missingMember = false
        if case .keyNotFound? = error.underlyingError as? DecodingError { missingMember = true }
        let parent = error.pointer.lastIndex(of: "/").map { String(error.pointer[..<$0]) }
        guard
            let fault = faults.first(where: { $0.pointer == error.pointer })
                ?? (missingMember ? faults.first(where: { $0.pointer == parent }) : nil)
        else { return error }
        var worded = error
        worded.pointer = fault.pointer
        worded.position = fault.position
        worded.message = fault.message
        return worded
    }

    /// A decoder message without the position phrase the tape decoder put in it, since the
    /// error states the position once, first.
    private static func sentence(_ message: String, without value: JSONTape.Value) -> String {
        message.replacingOccurrences(of: " " + value.locationPhrase, with: "")
    }

    /// `Post.publishedAt: Date`: the model type, the coding path in Swift's notation, and the type
    /// the model asked for when the error names it.
    private static func swiftName(of error: DecodingError, path: [any CodingKey], model: any Resource.Type) -> String {
        var name = String(describing: model)
        for key in path {
            // An element key's name is its index; a member key's is its name, even when it has
            // an integer value too (CodingKeys with Int raw values).
            if let index = key.intValue, key.stringValue == String(index) {
                name += "[\(index)]"
            } else {
                name += "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(let type, _), .valueNotFound(let type, _): name += ": \(type)"
        default: break
        }
        return name
    }

    /// When a property's member is missing but one spelled differently is there, the key strategy
    /// that would find it: `"published-at" is present: set keyDecodingStrategy = .convertFromKebabCase.`
    private func spellingHint(for key: String, in view: ResourceObjectView) -> String? {
        let tape = view.value.tape
        var found: String?
        JSONKeyStrategy.loose.withMatcher(forKey: key) { matches in
            view.forEachField { name, _, _ in
                guard found == nil else { return }
                tape.withUnsafeText(of: name) { bytes in if matches(bytes) { found = tape.text(of: name) } }
            }
        }
        guard let found else { return nil }
        let strategy =
            found.contains("-") ? ".convertFromKebabCase" : found.contains("_") ? ".convertFromSnakeCase" : ".loose"
        return "\"\(found)\" is present: set keyDecodingStrategy = \(strategy)."
    }

    /// The value as it reads in the document, member name first, on one line of at most 72
    /// characters, and the column where the value starts. Rendered from the tape (the input's
    /// bytes are gone by now), so spacing is the canonical one, not the input's.
    private static func excerpt(of value: JSONTape.Value) -> (text: String, column: Int) {
        let tape = value.tape
        var text = ""
        if value.index > tape.startIndex, tape[value.index - 1].kind == .key {
            var bytes: [UInt8] = []
            JSONValue.writeString(tape.text(of: tape[value.index - 1]), into: &bytes)
            text = String(decoding: bytes, as: UTF8.self) + ": "
        }
        let column = text.count
        let limit = 72
        guard column < limit, let rendered = try? value.jsonValue().jsonText else { return ("", 0) }
        text += rendered
        if text.count > limit { text = String(text.prefix(limit - 1)) + "\u{2026}" }
        return (text, column)
    }

    private func translate(
        _ error: DecodingError,
        at value: JSONTape.Value,
        pointer: String,
        as role: DocumentRules.Role
    ) -> JSONAPIDecodingError {
        let (path, context) = Self.pathAndContext(of: error)
        let (fullPointer, deepest) = descend(path[...], from: value, pointer: pointer, strategy: .useDefaultKeys)
        let excerpt = Self.excerpt(of: deepest)
        return Self.inSpecificationWords(
            JSONAPIDecodingError(
                pointer: fullPointer,
                position: deepest.position,
                message: Self.sentence(context?.debugDescription ?? "\(error)", without: deepest),
                underlyingError: error,
                excerpt: excerpt.text,
                excerptColumn: excerpt.column
            ),
            faults: DocumentRules.errors(in: value, as: role, at: pointer)
        )
    }

    /// Follows coding keys down from `value`, extending the pointer as far as the values go.
    /// Members are found as the decoder found them, under `strategy`, and named as written.
    private func descend(
        _ path: ArraySlice<any CodingKey>,
        from value: JSONTape.Value,
        pointer: String,
        strategy: JSONKeyStrategy
    ) -> (String, JSONTape.Value) {
        var pointer = pointer
        var value = value
        for key in path {
            if let index = key.intValue, value.kind == .arrayStart, let element = value[index] {
                pointer += "/\(index)"
                value = element
            } else if value.kind == .objectStart,
                let member = strategy.withMatcher(forKey: key.stringValue, { value.firstMember(where: $0) })
            {
                pointer += "/" + escape(member.tape.text(of: member.tape[member.index - 1]))
                value = member
            } else {
                pointer += "/" + escape(key.stringValue)
                break
            }
        }
        return (pointer, value)
    }

    private static func pathAndContext(of error: DecodingError) -> ([any CodingKey], DecodingError.Context?) {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return (context.codingPath, context)
        case .keyNotFound(let key, let context):
            return (context.codingPath + [key], context)
        @unknown default:
            return ([], nil)
        }
    }

    private func escape(_ token: String) -> String { jsonPointerEscaped(token) }
}

/// Where a resource stands: `/data`, `/data/3` or `/included/12`, spelled out only when an error
/// needs it.
struct ResourcePlace {
    /// `/data` or `/included`.
    let section: String
    /// The index in the section's array; `nil` for a single primary resource.
    let position: Int?

    var pointer: String { position.map { "\(section)/\($0)" } ?? section }
}
