public import Foundation
public import SluiceJSON

/// Decodes JSON:API documents into resource models, whole or as a stream.
///
/// ```swift
/// let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self])
/// decoder.keyDecodingStrategy = .convertFromKebabCase
/// decoder.dateDecodingStrategy = .iso8601
/// let document = try decoder.decode([Linked<Article>].self, from: data)
/// print(document.data[0].author?.name ?? "anonymous")
/// ```
///
/// A class, as every Sluice coder is and as Foundation's are: configure one and share it.
/// Settings may be changed while other threads decode; each decode takes the settings in force
/// when it starts. ``copy()`` makes one to configure apart.
///
/// Errors:
/// - `JSONError`: the input is not well-formed JSON (with its line and column);
/// - ``JSONAPIErrorDocument``: the document is an error document; it carries every error object;
/// - ``JSONAPIDecodingError``: the document does not fit the models; it names the cause with a JSON
///   Pointer and a position.
public final class JSONAPIDecoder: TapeDecodingConfigurable {
    /// Everything a decode reads, taken at once when it starts.
    struct Settings {
        var registry: ResourceRegistry
        var options = TapeDecodingOptions()
        var rejectsUnknownTypes = false
        var limits = JSONLimits()
        var chunkSize = 64 * 1024
        var parallel = ParallelOptions()
        var rawEncoding: RawResourceEncoding?
        var onUndecodableResource: (@Sendable (JSONAPISkippedResource) -> Void)?
    }

    private let settings: LockedSettings<Settings>

    /// The resource models, by type. The primary data's model is added for each decode.
    public var registry: ResourceRegistry {
        get { settings[\.registry] }
        set { settings[\.registry] = newValue }
    }
    /// How attribute values are read: keys, dates, data, special numbers, conversions, converters
    /// and member checks, the same options `StreamingJSONDecoder` has, set one by one under
    /// Foundation's names through `TapeDecodingConfigurable` (`keyDecodingStrategy`,
    /// `dateDecodingStrategy`, ...). The key strategy matches model properties to attributes and
    /// relationships; the members JSON:API itself defines (`type`, `id`, `attributes`, ...) are
    /// always read as written. Most JSON:API servers send dates in ISO 8601: set
    /// `dateDecodingStrategy = .iso8601`.
    public var options: TapeDecodingOptions {
        get { settings[\.options] }
        set { settings[\.options] = newValue }
    }

    /// Changes ``options`` in one step under the decoder's lock.
    public func updateOptions(_ change: (inout TapeDecodingOptions) -> Void) {
        settings.update { change(&$0.options) }
    }

    /// Whether a resource of a type with no registered model is an error (naming the type and
    /// where it stands) rather than kept raw. Off by default; turn it on while developing to catch
    /// models you forgot to register.
    public var rejectsUnknownTypes: Bool {
        get { settings[\.rejectsUnknownTypes] }
        set { settings[\.rejectsUnknownTypes] = newValue }
    }
    /// Limits on the input.
    public var limits: JSONLimits {
        get { settings[\.limits] }
        set { settings[\.limits] = newValue }
    }
    /// How many bytes the decoder hands the parser at a time when given a whole document in memory.
    /// Resources are decoded and their tokens released as they close, so this bounds the parser's
    /// working memory.
    public var chunkSize: Int {
        get { settings[\.chunkSize] }
        set {
            precondition(newValue > 0, "JSONAPIDecoder.chunkSize must be positive")
            settings[\.chunkSize] = newValue
        }
    }

    /// How many threads read one document: the resources of `data` and `included` are cut into
    /// batches that other threads decode while this one reads on (see `Parallelism`). Default:
    /// `.automatic`. Documents, resources, their order, the identity map and every
    /// error are the same for any setting. Decoders with `uniquing` or an
    /// identity store read on one thread.
    public var parallelism: Parallelism {
        get { settings[\.parallel.threads] }
        set { settings[\.parallel.threads] = newValue }
    }
    /// The parallel path's settings; tests cut small batches through `batchBytes`.
    var parallel: ParallelOptions {
        get { settings[\.parallel] }
        set { settings[\.parallel] = newValue }
    }
    /// What resources without a registered model become in place of a `RawResource`: bytes in
    /// `AnyResource.encoded`, made on the thread that reads each one (see ``RawResourceEncoding``).
    package var rawEncoding: RawResourceEncoding? {
        get { settings[\.rawEncoding] }
        set { settings[\.rawEncoding] = newValue }
    }

    /// Where resources that fail to decode go instead of failing the whole document: when set,
    /// a resource of `data` or `included` that breaks a rule of JSON:API or does not fit its
    /// model (an `id` that is a number, an attribute of the wrong type) is passed over and handed
    /// here, with its pointer, position and error, and the decode goes on. Faults of the document
    /// itself (its JSON, its top level, a limit crossed) still throw. Called on the thread that
    /// decodes, in document order. Default: `nil`, every fault throws.
    ///
    /// ```swift
    /// decoder.onUndecodableResource = { skipped in log.warning("\(skipped)") }
    /// try decoder.forEachResource(in: FileChunkReader(path: "export.json")) { try save($0) }
    /// ```
    public var onUndecodableResource: (@Sendable (JSONAPISkippedResource) -> Void)? {
        get { settings[\.onUndecodableResource] }
        set { settings[\.onUndecodableResource] = newValue }
    }

    /// Creates a decoder for the resource models in `registry`.
    public init(registry: ResourceRegistry = []) {
        settings = LockedSettings(Settings(registry: registry))
    }

    private init(settings: Settings) {
        self.settings = LockedSettings(settings)
    }

    /// A decoder of its own with this one's settings: changes to either leave the other as it is.
    public func copy() -> JSONAPIDecoder {
        JSONAPIDecoder(settings: settingsSnapshot)
    }

    // Both `decode` methods are inlinable: reading the document is done once, in this module, by
    // `DocumentAssembly` (not generic); only the last step, giving primary data its shape, is
    // generic, and inlined it is specialized for the caller's models. Unspecialized, making each
    // `Linked<Article>` looked up generic metadata and copied through value witnesses at run
    // time, for every primary resource.

    /// Decodes a whole document whose primary data has the shape `Primary`.
    ///
    /// - Parameters:
    ///   - primary: `Linked<Article>`, `[Linked<Article>]`, `Linked<Article>?`, `[AnyResource]`,
    ///     `ResourceIdentifier`, ... (see ``Document``).
    ///   - bytes: The document.
    @inlinable
    public func decode<Primary: PrimaryData>(
        _ primary: Primary.Type,
        from bytes: some ContiguousBytes
    ) throws -> Document<Primary> {
        let assembly = makeAssembly(
            primaryModels: Primary.primaryModelTypes,
            holdsIdentifiers: Primary.holdsIdentifiers
        )
        try bytes.withUnsafeBytes { try assembly.feedWhole($0, chunkSize: chunkSize) }
        return try assembly.finish().document(as: Primary.self)
    }

    /// Decodes a whole document arriving as an asynchronous sequence of byte chunks (an HTTP body),
    /// parsing each chunk as it comes, so decoding is done when the last byte is in.
    @inlinable
    public func decode<Primary: PrimaryData, Chunks: AsyncSequence>(
        _ primary: Primary.Type,
        from chunks: Chunks
    ) async throws -> Document<Primary> where Chunks.Element: ContiguousBytes {
        let assembly = makeAssembly(
            primaryModels: Primary.primaryModelTypes,
            holdsIdentifiers: Primary.holdsIdentifiers
        )
        for try await chunk in chunks {
            try chunk.withUnsafeBytes { try assembly.feed($0) }
        }
        return try assembly.finish().document(as: Primary.self)
    }

    @usableFromInline
    func makeAssembly(primaryModels: [any Resource.Type], holdsIdentifiers: Bool) -> DocumentAssembly {
        DocumentAssembly(decoder: self, primaryModels: primaryModels, holdsIdentifiers: holdsIdentifiers)
    }

    /// Reads a document from a file (or standard input for `-`), or any other `ChunkSource`, as a
    /// stream, calling `body` with each resource as soon as its object closes, primary data and
    /// included alike, in document order. Memory stays bounded by the largest resource, not the
    /// document.
    ///
    /// - Returns: The document's `meta`, `links` and `jsonapi`, and its resource counts.
    @discardableResult
    public func forEachResource(
        in reader: some ChunkSource,
        _ body: (StreamedResource) throws -> Void
    ) throws -> DocumentSummary {
        try forEachResource(in: reader, primaryStarted: {}, body)
    }

    /// ``forEachResource(in:_:)`` that also calls `primaryStarted` when `data` begins (an array,
    /// a resource or `null`), for a caller that writes the sections in an order of its own and
    /// must know whether `included` came first.
    package func forEachResource(
        in reader: some ChunkSource,
        primaryStarted: () throws -> Void,
        _ body: (StreamedResource) throws -> Void
    ) throws -> DocumentSummary {
        let engine = makeEngine(primaryModels: [], holdsIdentifiers: false)
        func handle(_ event: DocumentEngine.Event) throws {
            switch event {
            case .primaryShape, .primaryNull: try primaryStarted()
            default: try Self.dispatch(event, to: body)
            }
        }
        try reader.forEachChunk { chunk in try engine.feed(chunk, handle) }
        try engine.finish(handle)
        return engine.summary
    }

    /// The resources of a document arriving as an asynchronous sequence of byte chunks (an HTTP
    /// body, a file read asynchronously), each delivered as soon as its object closes.
    ///
    /// ```swift
    /// for try await streamed in decoder.resources(from: body) {
    ///     if let article = streamed.resource.as(Article.self) { try await database.save(article) }
    /// }
    /// ```
    public func resources<Chunks: AsyncSequence>(from chunks: Chunks) -> StreamedResources<Chunks>
    where Chunks.Element: ContiguousBytes {
        StreamedResources(chunks: chunks, decoder: self)
    }

    /// The resources of the document in the file at `path` (`-` for standard input), each
    /// delivered as soon as its object closes: ``resources(from:)`` over the file's chunks, in
    /// memory bounded by the largest resource.
    ///
    /// ```swift
    /// for try await streamed in decoder.resources(fromFileAt: "export.json") {
    ///     print(streamed.pointer, streamed.resource.type, streamed.resource.id ?? "-")
    /// }
    /// ```
    public func resources(fromFileAt path: String) -> StreamedResources<FileChunks> {
        resources(from: FileChunkReader.chunks(ofFileAt: path))
    }

    /// The settings in force now, for one decode.
    var settingsSnapshot: Settings { settings.snapshot }

    func makeEngine(primaryModels: [any Resource.Type], holdsIdentifiers: Bool) -> DocumentEngine {
        Self.makeEngine(settingsSnapshot, primaryModels: primaryModels, holdsIdentifiers: holdsIdentifiers)
    }

    /// An engine for one decode under `settings`, the primary data's models registered.
    static func makeEngine(
        _ settings: Settings,
        primaryModels: [any Resource.Type],
        holdsIdentifiers: Bool
    ) -> DocumentEngine {
        var registry = settings.registry
        for type in primaryModels where !registry.typeNames.contains(type.resourceType) { registry.register(type) }
        return DocumentEngine(
            registry: registry,
            options: settings.options,
            limits: settings.limits,
            rejectsUnknownTypes: settings.rejectsUnknownTypes,
            primaryHoldsIdentifiers: holdsIdentifiers,
            rawEncoding: settings.rawEncoding,
            parallel: settings.parallel,
            onUndecodableResource: settings.onUndecodableResource
        )
    }

    /// Hands the resources among `event` to a streaming consumer.
    static func dispatch(_ event: DocumentEngine.Event, to body: (StreamedResource) throws -> Void) throws {
        switch event {
        case .primary(.resource(let resource), let position):
            try body(StreamedResource(section: .primary, position: position, resource: resource))
        case .primary(.identifier(let identifier), let position):
            let resource = AnyResource(type: identifier.type, identity: identifier.identity, model: nil, raw: nil)
            try body(StreamedResource(section: .primary, position: position, resource: resource))
        case .included(let resource, let position):
            try body(StreamedResource(section: .included, position: position, resource: resource))
        case .primaryShape, .primaryNull:
            break
        }
    }
}

/// The resources of a document read from an asynchronous sequence of byte chunks; see
/// ``JSONAPIDecoder/resources(from:)``.
public struct StreamedResources<Chunks: AsyncSequence>: AsyncSequence where Chunks.Element: ContiguousBytes {
    public typealias Element = StreamedResource

    let chunks: Chunks
    let decoder: JSONAPIDecoder

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            chunks: chunks.makeAsyncIterator(),
            engine: decoder.makeEngine(primaryModels: [], holdsIdentifiers: false)
        )
    }

    /// Pulls chunks only when the resources of the previous one have all been taken.
    public struct Iterator: AsyncIteratorProtocol {
        var pump: ChunkPump<Chunks>
        let engine: DocumentEngine
        private var ready = ReadyResults<StreamedResource>()
        private var finished = false

        /// The document's top-level members and counts, once ``next()`` has returned `nil` (a
        /// document's `links` and `meta` may come after its data, so they are known only at the end).
        public var summary: DocumentSummary? { finished ? engine.summary : nil }

        init(chunks: Chunks.AsyncIterator, engine: DocumentEngine) {
            pump = ChunkPump(chunks)
            self.engine = engine
        }

        public mutating func next() async throws -> StreamedResource? {
            if let resource = ready.take() { return resource }
            let engine = engine
            let more = try await pump.refill(&ready) { chunk, batch in
                if let chunk {
                    try engine.feed(chunk) { try JSONAPIDecoder.dispatch($0) { batch.append($0) } }
                } else {
                    try engine.finish { try JSONAPIDecoder.dispatch($0) { batch.append($0) } }
                }
            }
            if !more { finished = true }
            return more ? ready.take() : nil
        }
    }
}

/// A whole document being read: the engine's events gathered into primary data, included
/// resources and the identity map, whether the bytes come at once or chunk by chunk. Not generic:
/// the shape of primary data is given at the end (`AssembledDocument.document(as:)`).
@usableFromInline
final class DocumentAssembly {
    private let store: ResourceStore
    // Unchecked exclusivity: every resource of the document is appended here, and the run-time
    // check cost a call into the runtime's access set for each. One thread feeds an assembly at
    // a time, and nothing it calls reaches back into these.
    @exclusivity(unchecked) private var content = PrimaryContent.absent
    @exclusivity(unchecked) private var items: [PrimaryItem] = []
    @exclusivity(unchecked) private var included: [AnyResource] = []
    private let engine: DocumentEngine

    init(decoder: JSONAPIDecoder, primaryModels: [any Resource.Type], holdsIdentifiers: Bool) {
        // One snapshot for both: another thread may change the decoder's registry meanwhile.
        let settings = decoder.settingsSnapshot
        // The registry's types first, so that their numbers are the registry's order.
        store = ResourceStore(typeNames: settings.registry.typeNames)
        engine = JSONAPIDecoder.makeEngine(settings, primaryModels: primaryModels, holdsIdentifiers: holdsIdentifiers)
    }

    private func handle(_ event: DocumentEngine.Event) {
        switch event {
        case .primaryShape(let isCollection):
            content = isCollection ? .collection([]) : .absent
        case .primaryNull:
            content = .null
        case .primary(let item, let position):
            if case .resource(let resource) = item { store.addBeforePublishing(resource) }
            if position == nil { content = .single(item) } else { items.append(item) }
        case .included(let resource, _):
            store.addBeforePublishing(resource)
            included.append(resource)
        }
    }

    @usableFromInline
    func feed(_ chunk: UnsafeRawBufferPointer) throws {
        try engine.feed(chunk) { handle($0) }
    }

    /// Feeds a whole document in chunks of `chunkSize` bytes.
    @usableFromInline
    func feedWhole(_ buffer: UnsafeRawBufferPointer, chunkSize: Int) throws {
        // The tape holds about a chunk at a time (each resource's tokens are released once it is
        // read): sized for that at once rather than doubled up to it, its tokens copied each time
        // and each old buffer's free making malloc sweep its bins.
        engine.parser.reserveTape(forInputBytes: min(chunkSize, buffer.count))
        var offset = 0
        while offset < buffer.count {
            let end = min(offset + chunkSize, buffer.count)
            try feed(UnsafeRawBufferPointer(rebasing: buffer[offset..<end]))
            offset = end
        }
    }

    @usableFromInline
    func finish() throws -> AssembledDocument {
        try engine.finish { handle($0) }
        if case .collection = content { content = .collection(items) }
        return AssembledDocument(content: content, included: included, summary: engine.summary, store: store)
    }
}

/// Everything a whole-document read gathered, before primary data takes its shape.
@usableFromInline
struct AssembledDocument {
    @usableFromInline let content: PrimaryContent
    @usableFromInline let included: [AnyResource]
    @usableFromInline let summary: DocumentSummary
    @usableFromInline let store: ResourceStore

    init(content: PrimaryContent, included: [AnyResource], summary: DocumentSummary, store: ResourceStore) {
        self.content = content
        self.included = included
        self.summary = summary
        self.store = store
    }

    /// The document with primary data of the shape `Primary`, or the error saying why the data
    /// does not have that shape.
    @inlinable
    func document<Primary: PrimaryData>(as primary: Primary.Type) throws -> Document<Primary> {
        switch Primary.make(from: content, store: store) {
        case .success(let data):
            return Document(
                data: data,
                included: included,
                meta: summary.meta,
                links: summary.links,
                jsonapi: summary.jsonapi,
                store: store,
                content: content
            )
        case .failure(let mismatch):
            throw JSONAPIDecodingError.primaryShape(mismatch)
        }
    }
}
