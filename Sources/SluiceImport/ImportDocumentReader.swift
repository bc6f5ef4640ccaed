// The seam between the engine and a format of documents. The engine reads plain JSON records
// itself (they need nothing but JSON); a format with members of its own (JSON:API: `data`,
// `included`, resource objects) is read by the layer that knows it, which hands the engine the
// same import records and a summary of the document's top level. So the engine, the pipe and the
// destinations name no member of any document format.

public import SluiceJSON

/// Reads a format of documents into import records: what a format layer gives the import engine
/// for input that is not plain records. `JSONAPIImportReader` (SluiceJSONAPIImport) reads JSON:API
/// documents; the SQLite and PostgreSQL importers use it unless ``ImportOptions/documents`` names
/// another.
///
/// The engine calls ``read(_:options:emit:)`` on a reading thread of its own, once per document,
/// after deciding the document is of ``format`` (by ``ImportOptions/format``, or by content with
/// ``leadingMembers`` and ``distinctiveMembers``).
public protocol ImportDocumentReader: Sendable {
    /// The format this reader reads; not one of the plain formats.
    var format: ImportFormat { get }

    /// Top-level member names that, as the first member of an input's first object, make the
    /// input a document of this format at once (without a look at the rest).
    var leadingMembers: Set<String> { get }

    /// Top-level member names that only documents of this format have: an input that is one
    /// object with one of these is such a document, not a plain record.
    var distinctiveMembers: Set<String> { get }

    /// Reads the document `input` holds to its end, handing `emit` each record in document
    /// order, with `options`' limits and parallelism.
    ///
    /// - Returns: The document's counts and the top-level members the `documents` row keeps.
    /// - Throws: The document's first fault (with its position), or what `emit` throws.
    func read(
        _ input: any ChunkSource,
        options: ImportOptions,
        emit: (ImportRecord) throws -> Void
    ) throws -> ImportDocumentSummary

    /// ``read(_:options:emit:)``, and when ``ImportOptions/onFault`` is `.skip`, each record the
    /// format rejects handed to `setAside` (in document order with the records) instead of
    /// thrown; the engine names its source. The engine calls this one. The default reads with
    /// ``read(_:options:emit:)``, so that every fault stops the document.
    func read(
        _ input: any ChunkSource,
        options: ImportOptions,
        emit: (ImportRecord) throws -> Void,
        setAside: (ImportFault) throws -> Void
    ) throws -> ImportDocumentSummary
}

extension ImportDocumentReader {
    /// Reads with ``read(_:options:emit:)``: every fault stops the document.
    public func read(
        _ input: any ChunkSource,
        options: ImportOptions,
        emit: (ImportRecord) throws -> Void,
        setAside: (ImportFault) throws -> Void
    ) throws -> ImportDocumentSummary {
        try read(input, options: options, emit: emit)
    }
}

/// What a document held besides its records: counts, and the top-level members an import keeps
/// in the document's `documents` row.
public struct ImportDocumentSummary: Sendable {
    /// Records at the top of the document: a JSON:API document's primary data, or the plain
    /// records themselves.
    public var primaryCount: Int
    /// The other records: a JSON:API document's included resources, or the rows of a plain
    /// record's child tables.
    public var includedCount: Int
    /// Top-level members kept beside the records, as compact JSON text by name; the `documents`
    /// table has a column for `meta`, `links` and `jsonapi`.
    public var members: [String: String]

    /// A summary with these counts and members.
    public init(primaryCount: Int = 0, includedCount: Int = 0, members: [String: String] = [:]) {
        self.primaryCount = primaryCount
        self.includedCount = includedCount
        self.members = members
    }
}

/// The input was said to be (``ImportOptions/format``) a format of documents that no reader in
/// ``ImportOptions/documents`` reads.
public struct ImportFormatUnavailable: Error, CustomStringConvertible {
    /// The format asked for.
    public var format: ImportFormat

    /// The format asked for, as a sentence.
    public var description: String {
        "The import has no reader for \(format) documents (ImportOptions.documents is not set for them)."
    }
}
