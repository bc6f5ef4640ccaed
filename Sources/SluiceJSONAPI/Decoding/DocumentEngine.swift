// Drives the parser and the document reader over chunks of input, handing each resource object to
// a ResourceObjectReader as soon as it closes and releasing its tokens. Both the whole-document
// decoder and the streaming APIs run on it; they differ only in what they do with each event.

import Foundation
public import SluiceJSON

extension JSONPath {
    /// Where a JSON:API document's bulk is: `data` and `included`, after a root array (a file of
    /// resources, as some exports are). The parallel readers split a document at these arrays;
    /// pass them to `JSONParser.validateSyntax(of:limits:parallelism:splittingArraysAt:)` to
    /// check a JSON:API document's syntax on every core.
    public static let jsonAPIBulk: [JSONPath] = [""] + DocumentEngine.splitMembers.map { JSONPath($0.name) }
}

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

    /// A summary with these counts and no top-level members (what a reader of another format
    /// reports).
    package init(primaryCount: Int = 0, includedCount: Int = 0) {
        self.primaryCount = primaryCount
        self.includedCount = includedCount
    }
}

/// Drives the parser and the document reader over a document's chunks, and the parallel path when
/// other threads help: `data` and `included` are cut into batches that workers read, each with a
/// `ResourceObjectReader` of its own, while this engine reads the rest and hands everything over
/// in document order.
final class DocumentEngine: SplitDocumentReader {
    typealias Event = DocumentEvent

    /// The arrays the parallel path cuts into batches, in the order of the splitter's targets: a
    /// batch's `target` indexes this list.
    static let splitMembers: [DocumentReader.Member] = [.data, .included]

    let parser: JSONParser
    // Unchecked exclusivity for the state touched per resource: an engine is driven by one
    // thread at a time, no access overlaps another, and the run-time checks cost some 150
    // instructions a resource.
    @exclusivity(unchecked) private var reader = DocumentReader(skipsOtherMembers: true)
    private let resources: ResourceObjectReader
    @exclusivity(unchecked) private(set) var summary = DocumentSummary()
    private var errorObjects: [ErrorObject]?
    /// Where `data` starts, once seen: a document must not hold both it and `errors`.
    private var dataPosition: JSONPosition?
    /// The parallel path's driver, when other threads help (see ParallelBatches.swift in SluiceJSON).
    let splitDriver: ParallelSplitDriver<[Event]>?
    /// The events of the batch whose stand-in is being read.
    @exclusivity(unchecked) private var standIn: [Event]?
    /// How many batches workers decoded: tests check the parallel path ran.
    private(set) var batchesMerged = 0
    /// Where resources that fail go instead of thrown (see `JSONAPIDecoder.onUndecodableResource`).
    private let onUndecodableResource: (@Sendable (JSONAPISkippedResource) -> Void)?

    init(
        registry: ResourceRegistry,
        options: TapeDecodingOptions,
        limits: JSONLimits,
        rejectsUnknownTypes: Bool,
        primaryHoldsIdentifiers: Bool,
        rawEncoding: RawResourceEncoding? = nil,
        parallel: ParallelOptions = ParallelOptions.sequential,
        onUndecodableResource: (@Sendable (JSONAPISkippedResource) -> Void)? = nil
    ) {
        parser = JSONParser(limits: limits)
        self.onUndecodableResource = onUndecodableResource
        func makeReader() -> ResourceObjectReader {
            ResourceObjectReader(
                registry: registry,
                options: options,
                rejectsUnknownTypes: rejectsUnknownTypes,
                primaryHoldsIdentifiers: primaryHoldsIdentifiers,
                rawEncoding: rawEncoding
            )
        }
        resources = makeReader()
        // Uniquing ties resources together through the one decoding context, which threads
        // cannot share: such documents are read on one thread.
        guard options.uniquing.isEmpty && options.identityStore == nil else {
            splitDriver = nil
            return
        }
        splitDriver = ParallelSplitDriver(
            paths: Self.splitMembers.map { JSONPath($0.name) },
            threads: parallel.threads.threadCount,
            batchBytes: parallel.batchBytes
        ) {
            let worker = makeReader()
            return { batch, _ in worker.events(of: batch, limits: limits) }
        }
    }

    /// Parses a chunk and handles every event it completes.
    func feed(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws {
        try feedDocument(chunk, handle)
    }

    /// Ends the input; throws the error document if the document was one.
    func finish(_ handle: (Event) throws -> Void) throws {
        try finishDocument(handle)
        if let errorObjects {
            throw JSONAPIErrorDocument(
                errors: errorObjects,
                meta: summary.meta,
                links: summary.links,
                jsonapi: summary.jsonapi
            )
        }
    }

    /// A fault gets the pointer of the resource or member it interrupted; a comma after an
    /// array's last element, the array's (the element it seems to announce does not exist).
    func parseFailure(_ error: JSONError) -> any Error {
        var error = error
        if error.pointer == nil {
            error.pointer = error.isTrailingComma ? reader.containerPointer : reader.pointer
        }
        return error
    }

    /// A batch a worker decoded: the reader reports its stand-in as one element of `data` or
    /// `included`, and `drain` hands over the worker's events in its place.
    func handOver(_ events: [Event], _ handle: (Event) throws -> Void) throws {
        standIn = events
        defer { standIn = nil }
        try drain(handle)
        precondition(standIn == nil, "Internal inconsistency: a batch's stand-in was not read as one element")
        batchesMerged += 1
    }

    func drain(_ handle: (Event) throws -> Void) throws {
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
                let item: PrimaryItem
                do {
                    item = try resources.primaryItem(
                        at: valueIndex,
                        place: ResourcePlace(section: "/data", position: nil),
                        tape: tape
                    )
                } catch let error as JSONAPIDecodingError {
                    try passOver(error, pointer: "/data", at: valueIndex, on: tape)
                    continue
                }
                summary.primaryCount = 1
                try handle(.primary(item, position: nil))
            case .primaryElement(let valueIndex, let position):
                try readElement(of: .data, at: valueIndex, position, on: tape, counting: &summary.primaryCount, handle)
            case .includedElement(let valueIndex, let position):
                try readElement(
                    of: .included,
                    at: valueIndex,
                    position,
                    on: tape,
                    counting: &summary.includedCount,
                    handle
                )
            case .member(let member, _, let valueIndex):
                try readMember(member, value: try tape.value(at: valueIndex))
            }
        }
    }

    /// Reads the element `position` of `data` or `included` and hands its event over, counting
    /// it; one that fails is passed over when the caller asked for that. Without the option the
    /// read is the plain call it always was: a closure or an optional event around it cost about
    /// a hundred instructions a resource, the event held in a `let` a retain (callgrind).
    @inline(__always)
    private func readElement(
        of member: DocumentReader.Member,
        at valueIndex: Int,
        _ position: Int,
        on tape: JSONTape,
        counting count: inout Int,
        _ handle: (Event) throws -> Void
    ) throws {
        guard onUndecodableResource != nil else {
            count += 1
            return try handle(try resources.element(of: member, at: valueIndex, position: position, tape: tape))
        }
        let event: Event
        do {
            event = try resources.element(of: member, at: valueIndex, position: position, tape: tape)
        } catch let error as JSONAPIDecodingError {
            return try passOver(error, pointer: "/\(member.name)/\(position)", at: valueIndex, on: tape)
        }
        count += 1
        try handle(event)
    }

    /// Hands the resource at `valueIndex`, which failed with `error`, to the caller when it asked
    /// for such resources to be passed over; else throws `error`.
    private func passOver(_ error: JSONAPIDecodingError, pointer: String, at valueIndex: Int, on tape: JSONTape) throws
    {
        guard let onUndecodableResource else { throw error }
        onUndecodableResource(
            JSONAPISkippedResource(pointer: pointer, value: try tape.value(at: valueIndex), error: error)
        )
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
            summary.links = try resources.decode(Links.self, from: value, pointer: "/links", as: .links)
        case .jsonapi:
            summary.jsonapi = try resources.decode(JSONAPIObject.self, from: value, pointer: "/jsonapi", as: .jsonapi)
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
            errorObjects = try resources.decode([ErrorObject].self, from: value, pointer: "/errors", as: .errors)
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
}
