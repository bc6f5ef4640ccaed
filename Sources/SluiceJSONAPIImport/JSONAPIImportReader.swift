// JSON:API as a format the import reads: the document engine streams the resources (on the
// parallel workers when the options ask for them), each written as an import record as it
// closes; the top-level `meta`, `links` and `jsonapi` go to the engine as JSON text for the
// document's `documents` row.

import Foundation
public import SluiceImport
public import SluiceJSON
public import SluiceJSONAPI

/// Reads JSON:API documents for an import: each resource (primary data and included) becomes a
/// record of its type's table, keyed by `id` (else `lid`), with its attributes as columns and its
/// relationships as links.
///
/// The SQLite and PostgreSQL importers use one when `ImportOptions.documents` is `nil`; set it
/// to read JSON:API into a destination of your own:
///
/// ```swift
/// var options = ImportOptions()
/// options.documents = JSONAPIImportReader()
/// ```
public struct JSONAPIImportReader: ImportDocumentReader {
    /// A reader of JSON:API documents.
    public init() {}

    /// `ImportFormat.jsonAPI`.
    public var format: ImportFormat { .jsonAPI }

    /// The members a JSON:API document's top level may have: `data`, `errors`, `included`,
    /// `meta`, `links`, `jsonapi`.
    public var leadingMembers: Set<String> { ["data", "errors", "included", "meta", "links", "jsonapi"] }

    /// `data`, `errors` and `included`, which plain records rarely have.
    public var distinctiveMembers: Set<String> { ["data", "errors", "included"] }

    /// Streams the document's resources into records, with `options`' limits and parallelism;
    /// the first fault stops it.
    public func read(
        _ input: any ChunkSource,
        options: ImportOptions,
        emit: (ImportRecord) throws -> Void
    ) throws -> ImportDocumentSummary {
        var strict = options
        strict.onFault = .stop
        return try read(input, options: strict, emit: emit, setAside: { _ in })
    }

    /// Streams the document's resources into records; with `ImportOptions.onFault` `.skip`, a
    /// resource that breaks a rule of JSON:API (an `id` that is a number, a relationship that is
    /// not an object...) goes to `setAside` with its pointer, position and text, and the rest
    /// are read on.
    public func read(
        _ input: any ChunkSource,
        options: ImportOptions,
        emit: (ImportRecord) throws -> Void,
        setAside: (ImportFault) throws -> Void
    ) throws -> ImportDocumentSummary {
        let decoder = JSONAPIDecoder()
        decoder.limits = options.limits
        decoder.parallelism = options.readingParallelism
        var encoding = ImportRecord.jsonAPIEncoding
        if !options.destinationStoresNUL { encoding.nulRefusal = ImportRecord.nulMessage }
        decoder.rawEncoding = encoding
        // The decoder hands a failed resource over on this thread, between the resources around
        // it: kept here, it goes to `setAside` before the next record, in document order.
        let skipped = SkippedResources()
        if options.onFault == .skip {
            let limit = options.faultRecordBytes
            decoder.onUndecodableResource = { resource in
                let text = resource.value.map { value in
                    var bytes: [UInt8] = []
                    value.write(into: &bytes)
                    return bytes
                }
                skipped.faults.append(
                    ImportFault(
                        position: resource.error.position ?? resource.position,
                        pointer: resource.error.pointer,
                        message: resource.error.message,
                        text: text,
                        limit: limit
                    )
                )
            }
        }
        func passOn() throws {
            for fault in skipped.faults { try setAside(fault) }
            skipped.faults.removeAll(keepingCapacity: true)
        }
        let document = try decoder.forEachResource(in: input) { streamed in
            try passOn()
            guard let encoded = streamed.resource.encoded else { return }
            try emit(ImportRecord(encoded: encoded))
        }
        try passOn()
        var members: [String: String] = [:]
        if let meta = document.meta { members["meta"] = meta.jsonText }
        if let links = document.links { members["links"] = try ImportText.json(links) }
        if let jsonapi = document.jsonapi { members["jsonapi"] = try ImportText.json(jsonapi) }
        return ImportDocumentSummary(
            primaryCount: document.primaryCount,
            includedCount: document.includedCount,
            members: members
        )
    }
}

/// The faults the decoder's handler collects for the reading thread: the handler runs on that
/// thread, synchronously, and nothing else touches them.
private final class SkippedResources: @unchecked Sendable {
    var faults: [ImportFault] = []
}

extension ImportSummary {
    /// The document's top-level `links` (where a paginated export's next page is), for a JSON:API
    /// document that has them.
    public var links: Links? {
        guard let text = documentMembers["links"] else { return nil }
        return try? StreamingJSONDecoder().decode(Links.self, from: Data(text.utf8))
    }
}

extension ImportOptions {
    /// These options, reading JSON:API documents with ``JSONAPIImportReader`` unless
    /// `ImportOptions.documents` names a reader already.
    package var readingJSONAPI: ImportOptions {
        var options = self
        if options.documents == nil { options.documents = JSONAPIImportReader() }
        return options
    }
}
