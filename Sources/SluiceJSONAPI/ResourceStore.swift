import Foundation
import SluiceJSON

/// Every resource of a document (primary and included), by identity: the identity map through
/// which relationships resolve.
///
/// Relationships hold identifiers, never references, and resolve through the store on demand. So
/// cycles (an article's author whose articles include the article) need no special care, nothing
/// is resolved twice, and releasing the document releases every model.
///
/// Thread-safe: a document (and every `Linked` view of it) may be read from several tasks while
/// another appends a page to it (`Document.appending(_:)` adds to the shared store).
public final class ResourceStore: @unchecked Sendable {
    // @unchecked Sendable: every access to `resources` holds `lock`. An uncontended lock costs a
    // few nanoseconds next to the hash lookup it guards.
    private let lock = NSLock()
    private var resources: [ResourceIdentity: AnyResource] = [:]

    /// Creates an empty store.
    public init() {}

    /// The number of resources with an identity.
    public var count: Int { lock.withLock { resources.count } }

    /// Adds `resource`; returns `false`, leaving the first in place, when one with the same identity
    /// is already there.
    @discardableResult
    public func add(_ resource: AnyResource) -> Bool {
        guard let identity = resource.identity else { return true }
        return lock.withLock {
            if resources[identity] != nil { return false }
            resources[identity] = resource
            return true
        }
    }

    /// `add(_:)` without the lock, for the decoder filling a store that no other thread can see
    /// yet (it is published with the document when the decode returns): a decode adds every
    /// resource of the document, and the lock was a measurable share of linking.
    func addBeforePublishing(_ resource: AnyResource) {
        guard let identity = resource.identity, resources[identity] == nil else { return }
        resources[identity] = resource
    }

    /// The resource with `identity`.
    public subscript(identity: ResourceIdentity) -> AnyResource? { lock.withLock { resources[identity] } }

    /// The model an identifier names, if the document holds it and it is a `T`.
    @inlinable
    public func resolve<T: Resource>(_ identifier: ResourceIdentifier?, as type: T.Type = T.self) -> T? {
        guard let identity = identifier?.identity, let resource = self[identity] else { return nil }
        return resource.as(T.self)
    }
}

/// A resource model seen through its document: its fields as they are, and its relationships
/// resolved to the related models, which are `Linked` in turn.
///
/// ```swift
/// let document = try decoder.decode([Linked<Article>].self, from: data)
/// let name = document.data[0].author?.name          // ToOne<Person> → Linked<Person>?
/// let bodies = document.data[0].comments.map(\.body) // ToMany<Comment> → [Linked<Comment>]
/// ```
///
/// A related resource the document does not include resolves to `nil` (to-one) or is left out
/// (to-many); its identifier stays on the model (`linked.model.author.identifier`).
@dynamicMemberLookup
public struct Linked<Model: Resource>: Sendable {
    /// The resource's model.
    public let model: Model
    /// The document's resources.
    public let store: ResourceStore

    /// Creates a view of `model` through `store`.
    public init(_ model: Model, store: ResourceStore) {
        self.model = model
        self.store = store
    }

    // The subscripts below are inlinable, so that they are specialized where the models are
    // declared: unspecialized, making each `Linked<Target>` looked its generic metadata up at
    // run time, which cost more than finding the resource.

    /// A field of the model.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<Model, Value>) -> Value {
        model[keyPath: keyPath]
    }

    /// A to-one relationship, resolved.
    @inlinable
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToOne<Target>>) -> Linked<Target>? {
        resolve(model[keyPath: keyPath].identifier)
    }

    /// An optional to-one relationship, resolved.
    @inlinable
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToOne<Target>?>) -> Linked<Target>? {
        resolve(model[keyPath: keyPath]?.identifier)
    }

    /// A to-many relationship, resolved; members the document does not include are left out.
    @inlinable
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToMany<Target>>) -> [Linked<Target>] {
        model[keyPath: keyPath].identifiers.compactMap { resolve($0) }
    }

    /// An optional to-many relationship, resolved.
    @inlinable
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToMany<Target>?>) -> [Linked<Target>] {
        (model[keyPath: keyPath]?.identifiers ?? []).compactMap { resolve($0) }
    }

    @inlinable
    func resolve<Target>(_ identifier: ResourceIdentifier?) -> Linked<Target>? {
        store.resolve(identifier, as: Target.self).map { Linked<Target>($0, store: store) }
    }

    /// This resource as a `T`, for polymorphic relationships (`Linked<AnyResource>`).
    public func `as`<T: Resource>(_ type: T.Type) -> Linked<T>? {
        if let direct = model as? T { return Linked<T>(direct, store: store) }
        if let any = model as? AnyResource, let typed = any.as(T.self) { return Linked<T>(typed, store: store) }
        return nil
    }
}

/// A linked resource is identified as its model is, so lists of them work with SwiftUI's `ForEach`
/// and anything else that takes `Identifiable` elements.
extension Linked: Identifiable where Model: Identifiable {
    /// The model's identity.
    public var id: Model.ID { model.id }
}
