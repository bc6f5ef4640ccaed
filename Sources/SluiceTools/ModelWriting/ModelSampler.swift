// Reading samples for `sluice models`: a JSON:API document's resources one by one, through the
// same document reader as the validator, or plain JSON (a root array element by element, a root
// object member by member), each value turned into counts (`SampledShapes.swift`) and released.

public import SluiceJSON
public import SluiceJSONAPI

/// Learns the shapes of JSON:API documents, or of plain JSON, from samples, and writes Swift
/// models that decode them (what `sluice models` prints).
///
/// ```swift
/// let sampler = ModelSampler()
/// try sampler.read(FileChunkReader(path: "response.json"))
/// print(sampler.models().source)   // @JSONModel structs, one per resource type
/// ```
///
/// A sample is read as a stream: one resource (or one element of a root array, or one member of a
/// root object) is held at a time, and what is kept is counts per type and member, so a sample of
/// any length is learned in memory that grows with its shapes only. A document is taken for
/// JSON:API when its resources have a `type`; anything else is plain JSON.
public final class ModelSampler {
    /// The most resources read per type (or elements of a root array); the rest of the sample is
    /// still read, to check it, but not counted. `nil`: every one.
    public var maximumPerType: Int?
    /// Limits on each sample. Default: `JSONLimits.streaming`.
    public var limits = JSONLimits.streaming

    /// Resource types, in the order first seen.
    private(set) var resources: [ResourceShape] = []
    private var resourcePositions: [String: Int] = [:]
    /// The members of root objects, for samples that are plain JSON objects.
    let rootObject = ObjectShape()
    /// The elements of root arrays, for samples that are plain JSON arrays.
    let rootElements = ValueShape()
    /// Root values that are neither (a string, a number).
    let rootScalars = ValueShape()
    /// The elements of `data` arrays without a `type`: a plain JSON object with a `data` member.
    let untypedData = ValueShape()
    /// Samples read.
    private(set) var samples = 0

    /// Creates a sampler with no samples.
    public init() {}

    /// Reads one sample to its end.
    ///
    /// - Throws: `JSONError` (with its position and JSON Pointer) for input that is not JSON or
    ///   passes a limit, or the reader's error.
    public func read(_ source: some ChunkSource) throws {
        let parser = JSONParser(limits: limits)
        var run = SampleRun(sampler: self)
        do {
            try source.forEachChunk { chunk in
                try parser.parse(chunk)
                try run.drain(parser)
            }
            try parser.finish()
            try run.drain(parser)
        } catch var error as JSONError {
            // The fault gets the pointer of the resource or member it interrupted, as
            // `sluice validate` words it.
            if error.pointer == nil && run.arrayCursor == nil && run.scalarRoot == nil && !run.reader.pointer.isEmpty {
                error.pointer = run.reader.pointer
            }
            throw error
        }
        run.finish(parser)
        samples += 1
    }

    /// Reads the file at `path` (`-`: standard input) to its end. A JSON:API document's resources
    /// are decoded on `parallelism` threads, the parallel path of `JSONAPIDecoder`; what is
    /// learned is the same for any number. Anything else (plain JSON, a document whose resources
    /// lack a `type`, a fault, standard input) is read on this thread by ``read(_:)``, which
    /// reports the fault.
    public func read(fileAt path: String, parallelism: Parallelism) throws {
        if path != "-" && parallelism.threadCount > 1 {
            let attempt = ModelSampler()
            attempt.maximumPerType = maximumPerType
            attempt.limits = limits
            let decoder = JSONAPIDecoder()
            decoder.parallelism = parallelism
            decoder.limits = limits
            let summary = try? decoder.forEachResource(in: try FileChunkReader(path: path)) { streamed in
                if let raw = streamed.resource.raw { attempt.add(raw) }
            }
            if let summary, summary.primaryCount + summary.includedCount > 0, !attempt.resources.isEmpty {
                for resource in attempt.resources { resourceShape(resource.type).absorb(resource) }
                samples += 1
                return
            }
        }
        try read(try FileChunkReader(path: path))
    }

    /// Adds one resource decoded elsewhere (a page of `JSONAPIClient`'s, say) as a sample of its
    /// type: counted as ``read(_:)`` counts the resources of a document.
    public func add(_ resource: RawResource) {
        let shape = resourceShape(resource.type)
        if counts(shape.count) { shape.observe(resource) }
    }

    /// Counts a sample read through ``add(_:)``.
    public func finishSample() { samples += 1 }

    /// The resource shape for `type`, made when first met.
    fileprivate func resourceShape(_ type: String) -> ResourceShape {
        if let position = resourcePositions[type] { return resources[position] }
        resourcePositions[type] = resources.count
        let shape = ResourceShape(type: type)
        resources.append(shape)
        return shape
    }

    fileprivate func counts(_ count: Int) -> Bool { maximumPerType.map { count < $0 } ?? true }
}

/// One sample being read.
private struct SampleRun {
    let sampler: ModelSampler
    var reader = DocumentReader(skipsOtherMembers: false)
    /// Where the next element of a root array starts, once the root turned out to be one.
    var arrayCursor: Int?
    /// The root value's index, when it is not an object and not an array.
    var scalarRoot: Int?
    var rootIsObject = false

    init(sampler: ModelSampler) {
        self.sampler = sampler
    }

    mutating func drain(_ parser: JSONParser) throws {
        let tape = parser.tape
        if arrayCursor != nil {
            try drainArray(parser)
            return
        }
        if scalarRoot != nil { return }
        while true {
            switch reader.next(in: tape) {
            case .needMoreInput, .finished:
                parser.removeTokens(before: reader.releasableIndex)
                return
            case .rootNotObject(let valueIndex):
                if tape[valueIndex].kind == .arrayStart {
                    arrayCursor = valueIndex + 1
                    try drainArray(parser)
                } else {
                    scalarRoot = valueIndex
                }
                return
            case .primaryResource(let valueIndex), .primaryElement(let valueIndex, _),
                .includedElement(let valueIndex, _):
                rootIsObject = true
                try resource(try tape.value(at: valueIndex).jsonValue())
            case .primaryCollectionStarted, .primaryNull, .includedCollectionStarted, .skippedMember:
                rootIsObject = true
            case .member(_, let keyIndex, let valueIndex):
                rootIsObject = true
                sampler.rootObject.observeMember(
                    tape.text(of: tape[keyIndex]),
                    try tape.value(at: valueIndex).jsonValue()
                )
            }
        }
    }

    /// A resource object of `data` or `included`: counted under its type; an element without a
    /// string `type` (`{"data": [...]}` from an API that is not JSON:API) under the root's
    /// `data` member, as plain JSON.
    private func resource(_ value: JSONValue) throws {
        guard case .object(let object) = value, case .string(let type)? = object["type"] else {
            if sampler.counts(sampler.untypedData.count) { sampler.untypedData.observe(value) }
            return
        }
        let shape = sampler.resourceShape(type)
        if sampler.counts(shape.count) { shape.observe(object) }
    }

    /// The elements of a root array that are complete on the tape, each counted and released.
    private mutating func drainArray(_ parser: JSONParser) throws {
        let tape = parser.tape
        guard var cursor = arrayCursor else { return }
        while cursor < tape.endIndex, tape[cursor].kind != .arrayEnd, let end = tape.endOfValue(at: cursor) {
            if sampler.counts(sampler.rootElements.count) {
                sampler.rootElements.observe(try tape.value(at: cursor).jsonValue())
            }
            cursor = end
        }
        arrayCursor = cursor
        parser.removeTokens(before: min(cursor, tape.endIndex))
    }

    func finish(_ parser: JSONParser) {
        if rootIsObject && sampler.resources.isEmpty {
            sampler.rootObject.countObject()
            if sampler.untypedData.count > 0 {
                let data = ValueShape()
                data.observeArray(of: sampler.untypedData)
                sampler.rootObject.adoptMember("data", data)
            }
        }
        if let scalarRoot, let value = try? parser.tape.value(at: scalarRoot).jsonValue() {
            sampler.rootScalars.observe(value)
        }
    }
}
