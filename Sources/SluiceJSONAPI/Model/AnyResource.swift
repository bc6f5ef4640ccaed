public import SluiceJSON

/// A resource of any type: the model the registry decoded it to, or, for a type no model is
/// registered for, its raw form. Use it for heterogeneous `included` and for polymorphic
/// relationships (`ToOne<AnyResource>`, `ToMany<AnyResource>`).
///
/// ```swift
/// if let article = resource.as(Article.self) { ... }
/// ```
///
/// A decoder keeps the models it reads in blocks of up to 256 of one type: a resource (or a
/// `Linked` view) kept after its document is gone keeps the models decoded beside it in memory
/// too. To keep a few resources of a large stream, keep their models (``as(_:)``) instead.
public struct AnyResource: Resource {
    /// Where the resource lies: entry `index` of `storage`. A decoded model sits inline in a
    /// block of its type's models (``ModelStorage``), shared with the resources read after it, so
    /// copying a resource (into the store, an event, `included`, a `Linked` view) costs one
    /// retain, and a document of many resources is a few allocations per type rather than one
    /// per resource.
    @usableFromInline let storage: ResourceStorage
    @usableFromInline let index: Int

    /// `AnyResource` stands for every type; it is never a resource object's `type`.
    public static var resourceType: String { "" }

    /// The resource's type.
    public var type: String { storage.type }
    /// Its identity (by `id`, else `lid`), if it has one.
    public var identity: ResourceIdentity? { storage.identity(at: index) }
    /// The decoded model, when a model is registered for ``type``.
    public var model: (any Resource)? { storage.anyModel(at: index) }
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
        index = 0
    }

    /// A resource kept as the bytes a ``RawResourceEncoding`` made of it.
    package init(type: String, encoded: [UInt8]) {
        storage = ResourceStorage(type: type, identity: nil, raw: nil, encoded: encoded)
        index = 0
    }

    @usableFromInline
    init(storage: ResourceStorage, index: Int) {
        self.storage = storage
        self.index = index
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
        if let model = storage.model(as: T.self, at: index) { return model }
        return T.self is AnyObject.Type ? storage.anyModel(at: index) as? T : nil
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
            // Safe: only a ModelStorage<T> records T's identifier. Its entries are never written
            // again once handed out, and the resource keeps the block alive, so `body` borrows
            // the model without a copy.
            return try body(unsafeDowncast(storage, to: ModelStorage<T>.self).models[index])
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

/// The parts of an ``AnyResource``: one resource without a model (raw, encoded or bare), or, as
/// a ``ModelStorage``, a block of models of one type.
///
/// Immutable once an entry is handed out, so sharing it between threads is safe.
@usableFromInline
class ResourceStorage: @unchecked Sendable {
    /// The type of every resource here.
    @usableFromInline let type: String
    /// The identity of a resource without a model, alone in its storage.
    private let soleIdentity: ResourceIdentity?
    /// The identities of a block's entries, by index, freed with the storage; `nil` for a
    /// resource alone.
    let identities: UnsafeMutablePointer<ResourceIdentity?>?
    let raw: RawResource?
    let encoded: [UInt8]?
    /// The model's type when a ``ModelStorage`` holds models: what ``model(as:at:)`` compares.
    @usableFromInline let modelType: ObjectIdentifier?
    /// How many entries the storage has room for, and how many are taken (1 and 1 for a
    /// resource alone). Here rather than in ``ModelStorage``: the decoder asks whether a block is
    /// full from code generic over the model, where a generic class's property is a call.
    let capacity: Int
    /// Written only by the decoder that fills the block, before it hands out the entry; read by
    /// `deinit`, which runs after every reference is gone.
    @exclusivity(unchecked) final var count: Int

    init(
        type: String,
        identity: ResourceIdentity?,
        raw: RawResource?,
        encoded: [UInt8]?,
        modelType: ObjectIdentifier? = nil,
        identities: UnsafeMutablePointer<ResourceIdentity?>? = nil,
        capacity: Int = 1,
        count: Int = 1
    ) {
        self.type = type
        self.soleIdentity = identity
        self.raw = raw
        self.encoded = encoded
        self.modelType = modelType
        self.identities = identities
        self.capacity = capacity
        self.count = count
    }

    deinit {
        if let identities {
            identities.deinitialize(count: count)
            identities.deallocate()
        }
    }

    /// Whether every entry is taken.
    final var isFull: Bool { count == capacity }

    /// The identity of entry `index`.
    @inline(__always)
    final func identity(at index: Int) -> ResourceIdentity? {
        if let identities { return identities[index] }
        return soleIdentity
    }

    /// The model of entry `index` as an existential (which copies it): for callers that do not
    /// know its type.
    @usableFromInline func anyModel(at index: Int) -> (any Resource)? { nil }

    /// The model of entry `index`, when it is exactly a `T`.
    @inlinable @inline(__always)
    final func model<T: Resource>(as type: T.Type, at index: Int) -> T? {
        guard modelType == ObjectIdentifier(T.self) else { return nil }
        // Safe: only a ModelStorage<T> records T's identifier.
        return unsafeDowncast(self, to: ModelStorage<T>.self).models[index]
    }
}

/// Models of one type, held inline, each with its identity: a block the decoder fills in
/// document order, or one model made into a resource by hand.
///
/// Why blocks: a storage object per resource was an allocation, a header to initialize and,
/// when the document went, a free of a block too large for the allocator's fast bins (which
/// sent it merging free chunks for every resource); most of a document's release. A block's
/// entries are written once, before any resource naming them is handed out, and its buffers
/// never move, so readers of the entries handed out (on any thread) and the decoder appending the
/// next entry never touch the same memory.
@usableFromInline
final class ModelStorage<Model: Resource>: ResourceStorage, @unchecked Sendable {
    /// The entries' models; the first `count` are initialized.
    @usableFromInline let models: UnsafeMutablePointer<Model>

    /// An empty block for `capacity` models of the type named `type`.
    init(capacity: Int, type: String) {
        models = .allocate(capacity: capacity)
        let identities = UnsafeMutablePointer<ResourceIdentity?>.allocate(capacity: capacity)
        super.init(
            type: type,
            identity: nil,
            raw: nil,
            encoded: nil,
            modelType: ObjectIdentifier(Model.self),
            identities: identities,
            capacity: capacity,
            count: 0
        )
    }

    /// One model alone: a resource made by hand.
    init(_ model: consuming Model, type: String, identity: ResourceIdentity?, raw: RawResource?) {
        models = .allocate(capacity: 1)
        models.initialize(to: model)
        super.init(type: type, identity: identity, raw: raw, encoded: nil, modelType: ObjectIdentifier(Model.self))
    }

    deinit {
        models.deinitialize(count: count)
        models.deallocate()
    }

    /// Adds the model `read` returns, with `identity`, as the next entry, which must be free;
    /// returns its index. Nothing is added when `read` throws.
    func append(identity: consuming ResourceIdentity?, reading read: () throws -> Model) rethrows -> Int {
        precondition(count < capacity && identities != nil, "a resource added to a full block")
        (models + count).initialize(to: try read())
        (identities.unsafelyUnwrapped + count).initialize(to: identity)
        count += 1
        return count - 1
    }

    @usableFromInline override func anyModel(at index: Int) -> (any Resource)? { models[index] }
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
