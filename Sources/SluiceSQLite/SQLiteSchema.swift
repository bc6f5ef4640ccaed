// The import's fixed tables and the names of the per-type ones.

import Foundation
import GRDB
import SluiceJSON
import SluiceJSONAPI

/// The tables every import database has, and the rows `documents` gets.
enum SQLiteSchema {
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
                    error TEXT
                );
                CREATE TABLE IF NOT EXISTS relationships (
                    source_type TEXT NOT NULL,
                    source_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    target_type TEXT NOT NULL,
                    target_id TEXT NOT NULL,
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
    /// `relationships.meta` (relationship meta used to be dropped).
    static func upgradeFixedTables(_ db: Database) throws {
        let columns = try db.columns(in: "relationships").map { $0.name.lowercased() }
        if !columns.contains("meta") {
            try db.execute(sql: "ALTER TABLE relationships ADD COLUMN meta TEXT")
        }
    }

    /// The index for reverse lookups (who links to a resource), made at the end of the first
    /// import: building it once from sorted rows is several times cheaper than growing it row by
    /// row; later imports keep it up to date as they go.
    static func createIndexes(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS relationships_target ON relationships (target_type, target_id)")
    }

    /// Starts (or restarts) the row of `source`.
    static func recordDocument(_ db: Database, source: String, status: String) throws {
        try db.execute(
            sql: """
                INSERT INTO documents (source, status, started_at) VALUES (?, ?, ?)
                ON CONFLICT (source) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
                    finished_at = NULL, error = NULL
                """,
            arguments: [source, status, timestamp()]
        )
    }

    static func finishDocument(
        _ db: Database,
        source: String,
        summary: SQLiteImporter.Summary,
        document: DocumentSummary
    ) throws {
        try db.execute(
            sql: """
                UPDATE documents SET status = 'complete', finished_at = ?, bytes = ?, resources = ?,
                    primary_count = ?, included_count = ?, relationship_rows = ?, meta = ?, links = ?,
                    jsonapi = ?, error = NULL
                WHERE source = ?
                """,
            arguments: [
                timestamp(), summary.bytes, summary.resources, document.primaryCount, document.includedCount,
                summary.relationshipRows, document.meta.map(\.jsonText),
                try document.links.map { try jsonText($0) }, try document.jsonapi.map { try jsonText($0) }, source,
            ]
        )
    }

    static func failDocument(_ db: Database, source: String, summary: SQLiteImporter.Summary, error: any Error) throws {
        try db.execute(
            sql: """
                UPDATE documents SET status = 'failed', finished_at = ?, bytes = ?, resources = ?,
                    relationship_rows = ?, error = ?
                WHERE source = ?
                """,
            arguments: [timestamp(), summary.bytes, summary.resources, summary.relationshipRows, "\(error)", source]
        )
    }

    private static func jsonText(_ value: some Encodable) throws -> String {
        String(decoding: try StreamingJSONEncoder().encode(value), as: UTF8.self)
    }

    private static func timestamp() -> String {
        JSONDateText.iso8601String(Date(), fractionalDigits: 3)
    }
}

/// How types and attribute names become SQLite names.
///
/// A type's table is named as the type, and an attribute's column as the attribute, unless SQLite
/// cannot tell the name from one already taken: SQLite compares names without regard to ASCII
/// case, so of `Name` and `name` the one seen second gets `name_2` (or `Name_2`). The import's own tables (`documents`,
/// `relationships`, names starting `sluice_` or `sqlite_`) and the key column (`id`) are never
/// given to a type or attribute: such a type's table is `TYPE_resources`, such an attribute's
/// column `ATTRIBUTE_attribute`. `sluice_tables` and `sluice_columns` record every choice, so a
/// later import (and a query) finds the same names.
enum SQLiteSchemaNames {
    /// Table names no resource type gets.
    static func isReservedTable(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "documents" || lower == "relationships" || lower.hasPrefix("sluice_")
            || lower.hasPrefix("sqlite_")
    }

    /// A name not in `taken` (lowercased names), from `wanted`.
    static func unique(_ wanted: String, avoiding taken: Set<String>) -> String {
        guard taken.contains(wanted.lowercased()) else { return wanted }
        var suffix = 2
        while taken.contains("\(wanted)_\(suffix)".lowercased()) { suffix += 1 }
        return "\(wanted)_\(suffix)"
    }

    /// `name` quoted as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
