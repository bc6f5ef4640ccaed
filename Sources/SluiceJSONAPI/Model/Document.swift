public import SluiceJSON

/// A decoded JSON:API document: primary data of the shape `Primary`, with everything else the
/// top level held ([Top Level](https://jsonapi.org/format/1.1/#document-top-level)).
///
/// `Primary` is one of:
/// - `Linked<T>`: a single resource; `Linked<T>?`: a single resource or `null`;
/// - `[Linked<T>]`: a collection;
/// - `ResourceIdentifier`, `ResourceIdentifier?`, `[ResourceIdentifier]`: identifiers, as from a
///   relationship endpoint;
/// - `AnyResource`, `AnyResource?`, `[AnyResource]`: resources of any registered type.
public struct Document<Primary: PrimaryData> {
    /// The primary data.
    public let data: Primary
    /// The included resources, in document order, each decoded to its registered model.
    public let included: [AnyResource]
    /// The top-level `meta`.
    public let meta: JSONValue?
    /// The top-level `links`.
    public let links: Links?
    /// The `jsonapi` object.
    public let jsonapi: JSONAPIObject?
    /// Every resource of the document by identity, through which relationships resolve.
    public let store: ResourceStore
    /// Primary data as read, before it took the shape `Primary`: what a page appended to this
    /// document is merged with.
    let content: PrimaryContent

    @usableFromInline
    init(
        data: Primary,
        included: [AnyResource],
        meta: JSONValue?,
        links: Links?,
        jsonapi: JSONAPIObject?,
        store: ResourceStore,
        content: PrimaryContent
    ) {
        self.data = data
        self.included = included
        self.meta = meta
        self.links = links
        self.jsonapi = jsonapi
        self.store = store
        self.content = content
    }
}

/// A document crosses tasks and actors whole: its models are `Sendable` (see ``Resource``) and its
/// store locks its own map.
extension Document: Sendable where Primary: Sendable {}

extension Document {
    /// The top-level `meta` decoded as `T` (a page count, a cursor), or `nil` when the document
    /// has none.
    ///
    /// ```swift
    /// struct PageMeta: Decodable { var totalPages: Int }
    /// let pages = try document.meta(as: PageMeta.self)?.totalPages
    /// ```
    ///
    /// - Throws: The `DecodingError` that decoding `meta` as `T` raised, with its coding path.
    public func meta<T: Decodable>(as type: T.Type, using decoder: StreamingJSONDecoder = .init()) throws -> T? {
        try meta.map { try $0.decode(T.self, using: decoder) }
    }
}

extension Document {
    /// Primary data as read, element by element, whatever shape it was given: what paging looks
    /// at (how many resources a page held, its first and last).
    public var primaryItems: [PrimaryItem] {
        switch content {
        case .absent, .null: []
        case .single(let item): [item]
        case .collection(let items): items
        }
    }

    /// This document with the primary data and included resources of `next` (the next page of
    /// the same collection) added after its own.
    ///
    /// Identity is preserved: a resource already in this document (as primary data or included)
    /// keeps its first version and position, and is not repeated; relationships of either page
    /// resolve against every resource of both. The top-level `links` and `meta` become those of
    /// `next`, so `links.next` points at the page after it.
    ///
    /// The two documents share one identity map: after the call, this document's relationships
    /// also resolve to resources that only `next` held.
    public func appending<Element>(_ next: Document<[Element]>) -> Document<[Element]> where Primary == [Element] {
        var items: [PrimaryItem] = []
        if case .collection(let own) = content { items = own }
        var included = self.included
        // Primary identities seen so far: a resource that is primary data on both pages (page
        // boundaries that shifted while paging) is listed once, where it first appeared.
        var primaryIdentities = Set<ResourceIdentity>()
        for item in items { if let identity = item.identity { primaryIdentities.insert(identity) } }
        if case .collection(let more) = next.content {
            for item in more {
                if let identity = item.identity, !primaryIdentities.insert(identity).inserted { continue }
                if case .resource(let resource) = item { store.add(resource) }
                items.append(item)
            }
        }
        for resource in next.included {
            if let identity = resource.identity {
                if store[identity] != nil { continue }
                store.add(resource)
            }
            included.append(resource)
        }
        // A resource that became primary data on the new page is not also listed as included.
        included.removeAll { resource in resource.identity.map { primaryIdentities.contains($0) } ?? false }
        let content = PrimaryContent.collection(items)
        let data: [Element]
        switch Primary.make(from: content, store: store) {
        case .success(let merged): data = merged
        // Both documents were made from collections of `Element`, so their union is one too.
        case .failure: data = self.data + next.data
        }
        return Document(
            data: data,
            included: included,
            meta: next.meta,
            links: next.links,
            jsonapi: next.jsonapi ?? jsonapi,
            store: store,
            content: content
        )
    }
}

extension PrimaryItem {
    /// The identity of the resource or identifier.
    public var identity: ResourceIdentity? {
        switch self {
        case .resource(let resource): resource.identity
        case .identifier(let identifier): identifier.identity
        }
    }
}

/// One element of primary data, as the document hands it to ``PrimaryData``.
public enum PrimaryItem: Sendable {
    /// A resource object, decoded to its registered model or kept raw.
    case resource(AnyResource)
    /// A resource identifier object.
    case identifier(ResourceIdentifier)
}

/// The primary data of a document as read, before it takes the shape a ``Document`` asks for.
public enum PrimaryContent: Sendable {
    /// The document has no `data` member.
    case absent
    /// `"data": null`.
    case null
    /// `"data": {...}`.
    case single(PrimaryItem)
    /// `"data": [...]`.
    case collection([PrimaryItem])
}

/// A shape of primary data a ``Document`` can take. Sluice provides the conformances listed on
/// ``Document``.
public protocol PrimaryData {
    /// Model types primary data decodes to, registered with the decoder for the document.
    static var primaryModelTypes: [any Resource.Type] { get }
    /// Whether primary data holds resource identifier objects rather than resource objects.
    static var holdsIdentifiers: Bool { get }
    /// The primary data from what was read, or a sentence saying why it does not fit.
    static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch>
}

/// Why primary data does not have the shape asked for.
public struct PrimaryShapeMismatch: Error, Sendable {
    /// A JSON Pointer to the mismatching value.
    public var pointer: String
    /// One sentence naming what was expected and found.
    public var message: String

    @usableFromInline
    init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }
}

extension JSONAPIDecodingError {
    /// The error for primary data that does not have the shape asked for.
    @usableFromInline
    static func primaryShape(_ mismatch: PrimaryShapeMismatch) -> JSONAPIDecodingError {
        JSONAPIDecodingError(pointer: mismatch.pointer, position: nil, message: mismatch.message)
    }
}

/// A shape of primary data that is one element: `Linked<T>`, `ResourceIdentifier`, `AnyResource`.
public protocol SingularPrimaryData: PrimaryData {
    /// One element, or a sentence saying why it does not fit.
    static func make(item: PrimaryItem, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch>
}

// The conformances' `make` functions are inlinable so that, called from the inlinable
// `JSONAPIDecoder.decode`, they are specialized for the caller's models.

extension SingularPrimaryData {
    @inlinable
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        switch content {
        case .single(let item):
            return make(item: item, store: store)
        case .absent:
            return .failure(
                PrimaryShapeMismatch(pointer: "", message: "The document has no primary data (no data member).")
            )
        case .null:
            return .failure(PrimaryShapeMismatch(pointer: "/data", message: "Expected a resource, found null."))
        case .collection:
            return .failure(
                PrimaryShapeMismatch(pointer: "/data", message: "Expected a single resource, found an array.")
            )
        }
    }
}

extension Linked: PrimaryData, SingularPrimaryData {
    public static var primaryModelTypes: [any Resource.Type] { [Model.self] }
    public static var holdsIdentifiers: Bool { false }

    @inlinable
    public static func make(item: PrimaryItem, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        guard case .resource(let resource) = item else {
            return .failure(
                PrimaryShapeMismatch(pointer: "/data", message: "Expected a resource object, found an identifier.")
            )
        }
        guard let linked = Linked(resolving: resource, store: store) else {
            return .failure(
                PrimaryShapeMismatch(
                    pointer: "/data",
                    message: "Expected a resource of type \"\(Model.resourceType)\", found type \"\(resource.type)\"."
                )
            )
        }
        return .success(linked)
    }
}

extension AnyResource: PrimaryData, SingularPrimaryData {
    public static var primaryModelTypes: [any Resource.Type] { [] }
    public static var holdsIdentifiers: Bool { false }

    @inlinable
    public static func make(item: PrimaryItem, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        switch item {
        case .resource(let resource): return .success(resource)
        case .identifier(let identifier):
            return .success(AnyResource(type: identifier.type, identity: identifier.identity, model: nil, raw: nil))
        }
    }
}

extension ResourceIdentifier: PrimaryData, SingularPrimaryData {
    public static var primaryModelTypes: [any Resource.Type] { [] }
    public static var holdsIdentifiers: Bool { true }

    @inlinable
    public static func make(item: PrimaryItem, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        switch item {
        case .identifier(let identifier): return .success(identifier)
        case .resource(let resource):
            // From the identity, which model-backed resources have too (they keep no raw form).
            let identity = resource.identity
            return .success(
                ResourceIdentifier(
                    type: resource.type,
                    id: identity.flatMap { $0.isLocal ? nil : $0.key },
                    lid: identity.flatMap { $0.isLocal ? $0.key : nil }
                )
            )
        }
    }
}

extension Optional: PrimaryData where Wrapped: SingularPrimaryData {
    public static var primaryModelTypes: [any Resource.Type] { Wrapped.primaryModelTypes }
    public static var holdsIdentifiers: Bool { Wrapped.holdsIdentifiers }

    @inlinable
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        switch content {
        case .null: return .success(nil)
        case .single(let item): return Wrapped.make(item: item, store: store).map { $0 }
        case .absent:
            return .failure(
                PrimaryShapeMismatch(pointer: "", message: "The document has no primary data (no data member).")
            )
        case .collection:
            return .failure(
                PrimaryShapeMismatch(pointer: "/data", message: "Expected a single resource or null, found an array.")
            )
        }
    }
}

extension Array: PrimaryData where Element: SingularPrimaryData {
    public static var primaryModelTypes: [any Resource.Type] { Element.primaryModelTypes }
    public static var holdsIdentifiers: Bool { Element.holdsIdentifiers }

    @inlinable
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        switch content {
        case .collection(let items):
            var elements: [Element] = []
            elements.reserveCapacity(items.count)
            for (position, item) in items.enumerated() {
                switch Element.make(item: item, store: store) {
                case .success(let element): elements.append(element)
                case .failure(var mismatch):
                    mismatch.pointer = "/data/\(position)"
                    return .failure(mismatch)
                }
            }
            return .success(elements)
        case .absent:
            return .failure(
                PrimaryShapeMismatch(pointer: "", message: "The document has no primary data (no data member).")
            )
        case .null:
            return .failure(
                PrimaryShapeMismatch(pointer: "/data", message: "Expected an array of resources, found null.")
            )
        case .single:
            return .failure(
                PrimaryShapeMismatch(
                    pointer: "/data",
                    message: "Expected an array of resources, found a single resource."
                )
            )
        }
    }
}
