// Reading one resource object from the tape into what the caller asked for: its registered
// model (through the generated reader when it can, else the general path), a raw resource, or
// encoded bytes. This is the part of a document's reading that a worker thread does for a batch
// of `data` or `included`, and the document engine for everything else.

import Foundation
import SluiceJSON

/// What reading a document hands over, in document order.
enum DocumentEvent {
    case primaryShape(isCollection: Bool)
    case primaryNull
    case primary(PrimaryItem, position: Int?)
    case included(AnyResource, position: Int)
}

/// Reads resource objects off a tape. One per thread: it keeps what it reuses from one resource
/// to the next (the fields of a resource, the size of the last encoding).
final class ResourceObjectReader {
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
    /// Reused for every resource a model decodes (see `ResourceFields`).
    private let fields = ResourceFields()
    /// Where the models this reader decodes are kept.
    private let blocks = ResourceBlocks()

    init(
        registry: ResourceRegistry,
        options: TapeDecodingOptions,
        rejectsUnknownTypes: Bool,
        primaryHoldsIdentifiers: Bool,
        rawEncoding: RawResourceEncoding?
    ) {
        self.registry = registry
        self.context = TapeDecodingContext(options: options)
        self.specContext = context.withDefaultKeys
        self.rejectsUnknownTypes = rejectsUnknownTypes
        self.primaryHoldsIdentifiers = primaryHoldsIdentifiers
        self.rawEncoding = rawEncoding
    }

    /// A worker's part: the events of the resources in `batch`, elements of the array
    /// `DocumentEngine.splitMembers[batch.target]`, or `nil` when anything in it is amiss, for the
    /// merger to read the batch itself and meet the fault where one thread would.
    func events(of batch: JSONBatch, limits: JSONLimits) -> [DocumentEvent]? {
        // The batch's array is the root object's member: depth 2.
        guard let parser = batch.parseAsArray(limits: limits, arrayDepth: 2) else { return nil }
        let tape = parser.tape
        var events: [DocumentEvent] = []
        events.reserveCapacity(batch.elementCount)
        let member = DocumentEngine.splitMembers[batch.target]
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

    /// The event for the element `position` of `data` or `included`, whose value starts at
    /// `valueIndex`.
    func element(
        of member: DocumentReader.Member,
        at valueIndex: Int,
        position: Int,
        tape: JSONTape
    ) throws -> DocumentEvent {
        if member == .data {
            let place = ResourcePlace(section: "/data", position: position)
            return .primary(try primaryItem(at: valueIndex, place: place, tape: tape), position: position)
        }
        let place = ResourcePlace(section: "/included", position: position)
        return .included(try resource(at: valueIndex, place: place, tape: tape), position: position)
    }

    /// Decodes `value`, read as `role` (which names the rules that word a fault).
    func decode<T: Decodable>(
        _ type: T.Type,
        from value: JSONTape.Value,
        pointer: @autoclosure () -> String,
        as role: DocumentRules.Role
    ) throws -> T {
        do {
            return try value.decode(type, context: specContext)
        } catch let error as DecodingError {
            throw JSONAPIDecodingError.translating(error, at: value, pointer: pointer(), as: role)
        }
    }

    func primaryItem(at valueIndex: Int, place: ResourcePlace, tape: JSONTape) throws -> PrimaryItem {
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
    func resource(at valueIndex: Int, place: ResourcePlace, tape: JSONTape) throws -> AnyResource {
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
        guard view.members.type >= 0 else {
            throw JSONAPIDecodingError(
                pointer: pointer,
                position: view.value.position,
                message: SpecificationText.resourceWithoutType
            )
        }
        // The type's token alone: a value made of it (a counted reference to the tape and a walk
        // to its end) is made only for an error, or for a type without a model.
        let typeToken = tape[view.members.type]
        func typeValue() throws -> JSONTape.Value { try tape.value(at: view.members.type) }
        guard typeToken.kind == .string else {
            let nonString = try typeValue()
            throw JSONAPIDecodingError(
                pointer: pointer + "/type",
                position: nonString.position,
                message: SpecificationText.mustBeString("type", nonString.kind)
            )
        }
        try requireString(view.nonString(at: view.members.id), named: "id", pointer: place)
        try requireString(view.nonString(at: view.members.lid), named: "lid", pointer: place)
        if let unmanagedModel = registry.model(forTypeToken: typeToken, on: tape) {
            // Borrowed, not retained: the registry holds the model for the whole decode.
            return try unmanagedModel._withUnsafeGuaranteedRef { model in
                do {
                    // A generated reader counts no reference to the tape: the view holds it until here.
                    defer { withExtendedLifetime(view) {} }
                    let identity = view.identity(type: model.name)
                    if let generated = model.generated, let members = model.members,
                        case let reader = filedReader(for: view, members: members, fixed: model.fields),
                        !reader.needsGeneralPath
                    {
                        return try makeResource(
                            generated,
                            in: blocks,
                            from: reader,
                            type: model.name,
                            identity: identity
                        )
                    }
                    fields.load(view)
                    let decoder = ResourceDecoder(view: view, context: context, fields: fields)
                    return try makeResource(
                        model.type,
                        in: blocks,
                        from: decoder,
                        type: model.name,
                        identity: identity
                    )
                } catch let error as DecodingError {
                    throw JSONAPIDecodingError.translating(
                        error,
                        in: view,
                        pointer: pointer,
                        model: model.type,
                        keyStrategy: context.options.keyStrategy
                    )
                }
            }
        }
        let unknownType = try typeValue()
        let typeName = try unknownType.string()
        if rejectsUnknownTypes {
            let known = registry.typeNames.map { "\"\($0)\"" }.joined(separator: ", ")
            throw JSONAPIDecodingError(
                pointer: pointer + "/type",
                position: unknownType.position,
                message:
                    "No model is registered for the resource type \"\(typeName)\" (registered: \(known.isEmpty ? "none" : known))."
            )
        }
        if let rawEncoding {
            // The tape straight into bytes; the shapes the encoding leaves go through RawResource,
            // whose decoding reports any fault as always.
            if let refusal = rawEncoding.nulRefusal, let (holder, inner) = view.value.firstTextHoldingNUL() {
                throw JSONAPIDecodingError(pointer: pointer + inner, position: holder.position, message: refusal)
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(encodedSizeHint)
            if !rawEncoding.fromTape(view.value, specContext, &bytes) {
                bytes.removeAll(keepingCapacity: true)
                rawEncoding.fromRawResource(
                    try decode(RawResource.self, from: view.value, pointer: pointer, as: .resource),
                    &bytes
                )
            }
            encodedSizeHint = bytes.count + 16
            // No identity: the bytes carry the key, and a String per key is what they save.
            return AnyResource(type: typeName, encoded: bytes)
        }
        let raw = try decode(RawResource.self, from: view.value, pointer: pointer, as: .resource)
        return AnyResource(type: typeName, identity: raw.identity, model: nil, raw: raw)
    }

    /// A generated reader with `view`'s members filed under a `@JSONModel` resource's properties,
    /// as `ResourceDecoder` finds them: `id`, `lid` and `type` from the resource object, each
    /// other property from the member of `attributes` or `relationships` its name stands for
    /// under the key strategy, else the resource's own `meta` and `links`. The reader says
    /// `needsGeneralPath` where the general path must read the resource: an option needs it, or a
    /// name stands for two properties or is given twice (which one wins depends on the order the
    /// general path asks in).
    private func filedReader(
        for view: ResourceObjectView,
        members: JSONModelMembers,
        fixed: ResourceFieldIndices
    ) -> JSONModelReader {
        var reader = JSONModelReader(
            filing: view.value,
            context: context,
            members: members,
            missingMember: { name, resource in ResourceDecoder.missing(AnyCodingKey(name), in: resource) }
        )
        if reader.needsGeneralPath { return reader }
        if fixed.type >= 0 && view.members.type >= 0 { reader.file(fixed.type, at: view.members.type) }
        if fixed.id >= 0 && view.members.id >= 0 { reader.file(fixed.id, at: view.members.id) }
        if fixed.lid >= 0 && view.members.lid >= 0 { reader.file(fixed.lid, at: view.members.lid) }
        // Members of `attributes`, then of `relationships`, filed on the tape's tokens.
        // Two calls, not a loop over an array literal, whose storage the optimizer does not
        // always keep off the heap.
        let skipping = (fixed.type, fixed.id, fixed.lid)
        let (attributes, relationships) = (view.members.attributes, view.members.relationships)
        if attributes >= 0 && !reader.fileMembers(ofObjectAt: attributes, skipping: skipping) { return reader }
        if relationships >= 0 && !reader.fileMembers(ofObjectAt: relationships, skipping: skipping) { return reader }
        // A field of the same name wins over the resource's own meta and links.
        if fixed.meta >= 0 && view.members.meta >= 0 && !reader.hasMember(fixed.meta) {
            reader.file(fixed.meta, at: view.members.meta)
        }
        if fixed.links >= 0 && view.members.links >= 0 && !reader.hasMember(fixed.links) {
            reader.file(fixed.links, at: view.members.links)
        }
        return reader
    }

    /// Throws for `id` or `lid` given as `member`, a value that is not a string (see
    /// `ResourceObjectView.nonString(at:)`); nothing for `nil`.
    private func requireString(_ member: JSONTape.Value?, named name: String, pointer place: ResourcePlace) throws {
        guard let member, member.kind != .string else { return }
        throw JSONAPIDecodingError(
            pointer: place.pointer + "/" + name,
            position: member.position,
            message: SpecificationText.mustBeString(name, member.kind)
        )
    }
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
