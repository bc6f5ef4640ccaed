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

    /// Streams the document's resources into records, with `options`' limits and parallelism.
    public func read(
        _ input: any ChunkSource,
        options: ImportOptions,
        emit: (ImportRecord) throws -> Void
    ) throws -> ImportDocumentSummary {
        let decoder = JSONAPIDecoder()
        decoder.limits = options.limits
        decoder.parallelism = options.readingParallelism
        decoder.rawEncoding = ImportRecord.jsonAPIEncoding
        let document = try decoder.forEachResource(in: input) { streamed in
            guard let encoded = streamed.resource.encoded else { return }
            try emit(ImportRecord(encoded: encoded))
        }
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
