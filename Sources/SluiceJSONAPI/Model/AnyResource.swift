public import SluiceJSON

/// A resource of any type: the model the registry decoded it to, or, for a type no model is
/// registered for, its raw form. Use it for heterogeneous `included` and for polymorphic
/// relationships (`ToOne<AnyResource>`, `ToMany<AnyResource>`).
///
/// ```swift
/// if let article = resource.as(Article.self) { ... }
/// ```
public struct AnyResource: Resource {
    /// Every part in one reference: copying a resource (into the store, an event, `included`, a
    /// `Linked` view) costs one retain rather than one per field, and a model decoded by the
    /// document decoder sits inline in it, not in an existential's separate box.
    @usableFromInline let storage: ResourceStorage

    /// `AnyResource` stands for every type; it is never a resource object's `type`.
    public static var resourceType: String { "" }

    /// The resource's type.
    public var type: String { storage.type }
    /// Its identity (by `id`, else `lid`), if it has one.
    public var identity: ResourceIdentity? { storage.identity }
    /// The decoded model, when a model is registered for ``type``.
    public var model: (any Resource)? { storage.anyModel }
    /// The raw resource object, kept when no model is registered for ``type``.
    public var raw: RawResource? { storage.raw }
    /// The bytes a ``RawResourceEncoding`` made of a resource no model is registered for, in place
    /// of ``raw``, when the decoder was given one (the flattener's lines, the importers' records).
    package var encoded: [UInt8]? { storage.encoded }

    /// Creates a resource from its parts.
    public init(type: String, identity: ResourceIdentity?, model: (any Resource)?, raw: RawResource?) {
        if let model {
            storage = Self.storage(holding: model, type: type, identity: identity, raw: raw)
        } else {
            storage = ResourceStorage(type: type, identity: identity, raw: raw, encoded: nil)
        }
    }

    /// A resource whose model is `model`, held in `storage`, which must be `ModelStorage<Model>`
    /// (the registry's, looked up once per model type).
    init<Model: Resource>(
        model: consuming Model,
        storage: ResourceStorage.Type,
        type: String,
        identity: ResourceIdentity?
    ) {
        // Safe: the registry pairs each model type with its own storage class (checked in debug
        // builds, where the lookup this avoids does not matter).
        assert(storage == ModelStorage<Model>.self, "a model's resource made with another model's storage")
        let storageType = unsafeBitCast(storage, to: ModelStorage<Model>.Type.self)
        self.storage = storageType.init(model, type: type, identity: identity, raw: nil)
    }

    /// A resource kept as the bytes a ``RawResourceEncoding`` made of it.
    package init(type: String, encoded: [UInt8]) {
        storage = ResourceStorage(type: type, identity: nil, raw: nil, encoded: encoded)
    }

    @usableFromInline
    init(storage: ResourceStorage) {
        self.storage = storage
    }

    /// The storage for a model given as an existential: opened, so that it is held as its own type.
    private static func storage<Model: Resource>(
        holding model: Model,
        type: String,
        identity: ResourceIdentity?,
        raw: RawResource?
    ) -> ResourceStorage {
        ModelStorage(model, type: type, identity: identity, raw: raw)
    }

    /// The resource's `id`, if it has one.
    public var id: String? {
        guard let identity, !identity.isLocal else { return nil }
        return identity.key
    }

    /// The resource's `lid`, when it has no `id` but a local identifier.
    public var lid: String? {
        guard let identity, identity.isLocal else { return nil }
        return identity.key
    }

    /// The model as `T`, if it is one.
    @inlinable
    public func `as`<T: Resource>(_ type: T.Type) -> T? {
        if T.self == AnyResource.self { return self as? T }
        // The model's own type, compared as metatypes: a dynamic cast from an existential costs
        // hundreds of instructions, and a consumer asks each resource for its type, often several
        // times. Only a class can be a `T` without being exactly `T` (a subclass), so only then
        // does the cast run.
        if let model = storage.model(as: T.self) { return model }
        return T.self is AnyObject.Type ? storage.anyModel as? T : nil
    }

    /// Calls `body` with the model where it lies, when it is a `T`, and returns what `body`
    /// returns; `nil` when the model is of another type.
    ///
    /// ``as(_:)`` copies the model out, which retains each of its strings, arrays and
    /// relationships and releases them again when the copy goes; a consumer that keeps a few
    /// fields of each streamed resource reads them here instead:
    ///
    /// ```swift
    /// for try await streamed in decoder.resources(from: chunks) {
    ///     if let (id, likes) = streamed.resource.withModel(as: Comment.self, { ($0.id, $0.likes) }) {
    ///         totals[id] = likes
    ///     }
    /// }
    /// ```
    @inlinable
    public func withModel<T: Resource, Result>(as type: T.Type, _ body: (T) throws -> Result) rethrows -> Result? {
        if storage.modelType == ObjectIdentifier(T.self) {
            // Safe: only a ModelStorage<T> records T's identifier. Its model is a `let` of a
            // class the resource keeps alive, so `body` borrows it without a copy.
            return try body(unsafeDowncast(storage, to: ModelStorage<T>.self).model)
        }
        guard let model = self.as(T.self) else { return nil }
        return try body(model)
    }

    /// Decodes a resource object as a raw resource (no model): what any decoder other than the
    /// document decoder, which picks registered models, can give.
    public init(from decoder: any Decoder) throws {
        let raw = try RawResource(from: decoder)
        self.init(type: raw.type, identity: raw.identity, model: nil, raw: raw)
    }
}

/// The parts of an ``AnyResource``; a ``ModelStorage`` when it has a model.
///
/// Immutable once made, so sharing it between threads is safe.
@usableFromInline
class ResourceStorage: @unchecked Sendable {
    @usableFromInline let type: String
    @usableFromInline let identity: ResourceIdentity?
    let raw: RawResource?
    let encoded: [UInt8]?
    /// The model's type when a ``ModelStorage`` holds one: what ``model(as:)`` compares.
    @usableFromInline let modelType: ObjectIdentifier?

    init(
        type: String,
        identity: ResourceIdentity?,
        raw: RawResource?,
        encoded: [UInt8]?,
        modelType: ObjectIdentifier? = nil
    ) {
        self.type = type
        self.identity = identity
        self.raw = raw
        self.encoded = encoded
        self.modelType = modelType
    }

    /// The model as an existential (which copies it): for callers that do not know its type.
    @usableFromInline var anyModel: (any Resource)? { nil }

    /// The model, when it is exactly a `T`.
    @inlinable @inline(__always)
    final func model<T: Resource>(as type: T.Type) -> T? {
        guard modelType == ObjectIdentifier(T.self) else { return nil }
        // Safe: only a ModelStorage<T> records T's identifier.
        return unsafeDowncast(self, to: ModelStorage<T>.self).model
    }
}

/// A resource's parts with its model, of a type known when it was made, held inline.
@usableFromInline
final class ModelStorage<Model: Resource>: ResourceStorage, @unchecked Sendable {
    @usableFromInline let model: Model

    init(_ model: consuming Model, type: String, identity: ResourceIdentity?, raw: RawResource?) {
        self.model = model
        super.init(type: type, identity: identity, raw: raw, encoded: nil, modelType: ObjectIdentifier(Model.self))
    }

    @usableFromInline override var anyModel: (any Resource)? { model }
}

/// A resource object as written: for types no model is registered for, and for `sluice flatten`.
public struct RawResource: Hashable, Sendable, Decodable {
    /// The resource's type.
    public var type: String
    /// The resource's `id`.
    public var id: String?
    /// The resource's local identifier.
    public var lid: String?
    /// The attributes, in input order, numbers as written.
    public var attributes: JSONObject
    /// The relationships, in input order, as pairs. Builds an array on every access: code that
    /// walks many resources reads ``relationshipNames`` and ``relationshipValues`` instead.
    public var relationships: [(name: String, relationship: RawRelationship)] {
        zip(relationshipNames, relationshipValues).map { ($0, $1) }
    }
    /// The relationships' names, in input order (kept apart from the values so that the
    /// resource stays `Hashable`).
    public private(set) var relationshipNames: [String]
    /// The relationships, in the order of ``relationshipNames``.
    public private(set) var relationshipValues: [RawRelationship]
    /// The resource's `meta`.
    public var meta: JSONValue?
    /// The resource's `links`.
    public var links: Links?

    /// The identity by `id`, else `lid`.
    public var identity: ResourceIdentity? { ResourceIdentity(type: type, id: id, lid: lid) }

    private enum Keys: String, CodingKey {
        case type, id, lid, attributes, relationships, meta, links
    }

    init(
        type: String,
        id: String?,
        lid: String?,
        attributes: JSONObject,
        relationshipNames: [String],
        relationshipValues: [RawRelationship],
        meta: JSONValue?,
        links: Links?
    ) {
        self.type = type
        self.id = id
        self.lid = lid
        self.attributes = attributes
        self.relationshipNames = relationshipNames
        self.relationshipValues = relationshipValues
        self.meta = meta
        self.links = links
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        type = try container.decode(String.self, forKey: .type)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        lid = try container.decodeIfPresent(String.self, forKey: .lid)
        if case .object(let object)? = try container.decodeIfPresent(JSONValue.self, forKey: .attributes) {
            attributes = object
        } else {
            attributes = JSONObject()
        }
        relationshipNames = []
        relationshipValues = []
        if container.contains(.relationships) {
            let relationships = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .relationships)
            for key in relationships.allKeys {
                relationshipNames.append(key.stringValue)
                relationshipValues.append(try relationships.decode(RawRelationship.self, forKey: key))
            }
        }
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
        links = try container.decodeIfPresent(Links.self, forKey: .links)
    }
}

/// A relationship as written.
public struct RawRelationship: Hashable, Sendable, Decodable {
    /// The relationship's resource linkage.
    public enum Linkage: Hashable, Sendable {
        /// `"data": null`: an empty to-one relationship.
        case null
        /// A to-one relationship.
        case one(ResourceIdentifier)
        /// A to-many relationship.
        case many([ResourceIdentifier])
    }

    /// The linkage, or `nil` when the relationship has no `data` member.
    public var data: Linkage?
    /// The relationship's `meta`.
    public var meta: JSONValue?
    /// The relationship's `links`.
    public var links: Links?

    init(data: Linkage?, meta: JSONValue?, links: Links?) {
        self.data = data
        self.meta = meta
        self.links = links
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RelationshipKeys.self)
        if !container.contains(.data) {
            data = nil
        } else if try container.decodeNil(forKey: .data) {
            data = .null
        } else if let many = try? container.decode([ResourceIdentifier].self, forKey: .data) {
            data = .many(many)
        } else {
            data = .one(try container.decode(ResourceIdentifier.self, forKey: .data))
        }
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
        links = try container.decodeIfPresent(Links.self, forKey: .links)
    }
}

/// A form in bytes for the resources no model is registered for, which a decoder makes in place
/// of a ``RawResource`` on whichever thread reads each resource (the parallel workers among
/// them): the lines `sluice flatten` prints, the records an import stores.
///
/// Why: a `RawResource` is a tree of strings, `JSONValue`s and arrays, built on the reading
/// threads and torn down wherever it is consumed; a caller that only wants bytes paid more for
/// the tree's allocations, retains and frees than for reading the document.
package struct RawResourceEncoding: Sendable {
    /// Writes the resource object (its value on the tape) into the buffer, or returns `false`
    /// for a shape it leaves to the general reader: the decoder then decodes a ``RawResource``,
    /// which throws the fault a decoder reports, and calls ``fromRawResource``. So the bytes
    /// say exactly what the `RawResource` would.
    package var fromTape: @Sendable (JSONTape.Value, TapeDecodingContext, inout [UInt8]) -> Bool
    /// Writes a resource the general reader decoded.
    package var fromRawResource: @Sendable (RawResource, inout [UInt8]) -> Void
    /// Set when what the bytes go to cannot store U+0000: a resource with it in a string or a
    /// member name is then a fault of that resource, with this message, the string's position
    /// and its pointer.
    package var nulRefusal: String?

    package init(
        fromTape: @escaping @Sendable (JSONTape.Value, TapeDecodingContext, inout [UInt8]) -> Bool,
        fromRawResource: @escaping @Sendable (RawResource, inout [UInt8]) -> Void
    ) {
        self.fromTape = fromTape
        self.fromRawResource = fromRawResource
    }
}
