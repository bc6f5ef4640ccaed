// The import's fixed tables and the names of the per-type ones.

import Foundation
import GRDB
import SluiceImport
import SluiceJSON

/// The tables every import database has, and the rows `documents` gets.
enum SQLiteSchema {
    /// `relationships` starts with `INTEGER` ids, as every key column does (see
    /// `SQLiteResourceWriter.integerKey`): the first id that is not a canonical decimal turns
    /// its `source_id` and `target_id` into `TEXT`.
    static func createFixedTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS documents (
                    source TEXT PRIMARY KEY,
                    status TEXT NOT NULL,
                    started_at TEXT NOT NULL,
                    finished_at TEXT,
                    bytes INTEGER,
                    resources INTEGER,
                    primary_count INTEGER,
                    included_count INTEGER,
                    relationship_rows INTEGER,
                    meta TEXT,
                    links TEXT,
                    jsonapi TEXT,
                    error TEXT,
                    source_size INTEGER,
                    resume_resources INTEGER,
                    faults INTEGER
                );
                CREATE TABLE IF NOT EXISTS faults (
                    source TEXT NOT NULL,
                    byte_offset INTEGER NOT NULL,
                    line_number INTEGER NOT NULL,
                    column_number INTEGER NOT NULL,
                    pointer TEXT,
                    message TEXT NOT NULL,
                    record TEXT,
                    record_truncated INTEGER NOT NULL,
                    PRIMARY KEY (source, byte_offset)
                );
                CREATE TABLE IF NOT EXISTS relationships (
                    source_type TEXT NOT NULL,
                    source_id INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    target_type TEXT NOT NULL,
                    target_id INTEGER NOT NULL,
                    meta TEXT,
                    PRIMARY KEY (source_type, source_id, name, position)
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS sluice_tables (
                    type TEXT PRIMARY KEY,
                    table_name TEXT NOT NULL UNIQUE
                );
                CREATE TABLE IF NOT EXISTS sluice_columns (
                    type TEXT NOT NULL,
                    attribute TEXT NOT NULL,
                    column_name TEXT NOT NULL,
                    declared_type TEXT NOT NULL,
                    PRIMARY KEY (type, attribute)
                );
                """
        )
    }

    /// Adds what later versions added to the fixed tables of a database an earlier version made:
    /// `relationships.meta` (relationship meta used to be dropped), `documents.source_size`
    /// and `documents.resume_resources` (where a resumed import goes on), `documents.faults` and
    /// the `faults` table (records set aside).
    static func upgradeFixedTables(_ db: Database) throws {
        let columns = try db.columns(in: "relationships").map { $0.name.lowercased() }
        if !columns.contains("meta") {
            try db.execute(sql: "ALTER TABLE relationships ADD COLUMN meta TEXT")
        }
        let documentColumns = try db.columns(in: "documents").map { $0.name.lowercased() }
        for (column, type) in [("source_size", "INTEGER"), ("resume_resources", "INTEGER"), ("faults", "INTEGER")]
        where !documentColumns.contains(column) {
            try db.execute(sql: "ALTER TABLE documents ADD COLUMN \(column) \(type)")
        }
    }

    /// Where the interrupted import of `source` stopped: `nil` when there is none to continue
    /// (no row, or a complete one).
    static func resumePoint(_ db: Database, source: String) throws -> ResumePoint? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT status, bytes, resources, relationship_rows, source_size, resume_resources
                    FROM documents WHERE source = ?
                    """,
                arguments: [source]
            )
        else { return nil }
        let status: String = row["status"]
        guard status != "complete" else { return nil }
        return ResumePoint(
            resourcesRead: row["resume_resources"] ?? 0,
            resources: row["resources"] ?? 0,
            relationshipRows: row["relationship_rows"] ?? 0,
            bytes: row["bytes"] ?? 0,
            sourceSize: row["source_size"]
        )
    }

    /// The counts a batch reaches, written into the batch's own transaction: what a resumed
    /// import reads back.
    static func recordProgress(
        _ db: Database,
        source: String,
        bytes: Int,
        resources: Int,
        relationshipRows: Int,
        resourcesRead: Int
    ) throws {
        try db.execute(
            sql: """
                UPDATE documents SET bytes = ?, resources = ?, relationship_rows = ?, resume_resources = ?
                WHERE source = ?
                """,
            arguments: [bytes, resources, relationshipRows, resourcesRead, source]
        )
    }

    /// A resumed import's row: importing again, the fault of the interrupted run cleared.
    static func markResumed(_ db: Database, source: String) throws {
        try db.execute(
            sql: "UPDATE documents SET status = 'importing', finished_at = NULL, error = NULL WHERE source = ?",
            arguments: [source]
        )
    }

    /// The index for reverse lookups (who links to a resource), made at the end of the first
    /// import: building it once from sorted rows is several times cheaper than growing it row by
    /// row; later imports keep it up to date as they go.
    static func createIndexes(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS relationships_target ON relationships (target_type, target_id)")
    }

    /// Writes records set aside into the open transaction; one met again (a resumed import
    /// reads the document from its start) replaces its earlier row.
    static func recordFaults(_ db: Database, _ faults: [ImportFault]) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO faults
                    (source, byte_offset, line_number, column_number, pointer, message, record, record_truncated)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        for fault in faults {
            try statement.execute(arguments: [
                fault.source, fault.position.byteOffset, fault.position.line, fault.position.column,
                fault.pointer, fault.message, fault.record, fault.recordTruncated,
            ])
        }
    }

    /// Starts (or restarts) the row of `source`.
    static func recordDocument(_ db: Database, source: String, status: String, sourceSize: Int?) throws {
        try db.execute(
            sql: """
                INSERT INTO documents (source, status, started_at, source_size, resume_resources)
                VALUES (?, ?, ?, ?, 0)
                ON CONFLICT (source) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
                    finished_at = NULL, error = NULL, source_size = excluded.source_size, resume_resources = 0
                """,
            arguments: [source, status, timestamp(), sourceSize]
        )
        // Imported again from its start, a document's earlier faults go: it meets them again.
        try db.execute(sql: "DELETE FROM faults WHERE source = ?", arguments: [source])
    }

    static func finishDocument(
        _ db: Database,
        source: String,
        summary: ImportSummary,
        document: ImportDocumentSummary
    ) throws {
        try db.execute(
            sql: """
                UPDATE documents SET status = 'complete', finished_at = ?, bytes = ?, resources = ?,
                    primary_count = ?, included_count = ?, relationship_rows = ?, meta = ?, links = ?,
                    jsonapi = ?, error = NULL, faults = ?
                WHERE source = ?
                """,
            arguments: [
                timestamp(), summary.bytes, summary.resources, document.primaryCount, document.includedCount,
                summary.relationshipRows, document.members["meta"], document.members["links"],
                document.members["jsonapi"], summary.faults, source,
            ]
        )
    }

    static func failDocument(_ db: Database, source: String, summary: ImportSummary, error: any Error) throws {
        try db.execute(
            sql: """
                UPDATE documents SET status = 'failed', finished_at = ?, bytes = ?, resources = ?,
                    relationship_rows = ?, error = ?, faults = ?
                WHERE source = ?
                """,
            arguments: [
                timestamp(), summary.bytes, summary.resources, summary.relationshipRows, "\(error)", summary.faults,
                source,
            ]
        )
    }

    private static func timestamp() -> String {
        ImportText.timestamp()
    }
}
