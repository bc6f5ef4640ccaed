// The PostgreSQL import's fixed tables and its `documents` rows: the SQLite importer's, with
// PostgreSQL's types (jsonb for JSON, bigint for counts).

import PostgresNIO
import SluiceImport
import SluiceJSON

enum PostgresSchema {
    /// The key of the lock held while the schema changes: the fixed tables made, a type's table
    /// or an attribute's column added, a column widened, the reverse index made. Rows are written
    /// without it, so imports into one database run side by side.
    static let schemaLock = 0x5_1c1f

    static let fixedTables = [
        """
        CREATE TABLE IF NOT EXISTS documents (
            source text PRIMARY KEY, status text NOT NULL, started_at text NOT NULL, finished_at text,
            bytes bigint, resources bigint, primary_count bigint, included_count bigint,
            relationship_rows bigint, meta jsonb, links jsonb, jsonapi jsonb, error text,
            source_size bigint, resume_resources bigint, faults bigint
        )
        """,
        // Added by a later version. Only when missing: ALTER TABLE locks the table even when the
        // column is there, and would wait for (and stop) every import running beside this one.
        """
        DO $$ BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'documents' AND column_name = 'faults'
            ) THEN
                ALTER TABLE documents ADD COLUMN faults bigint;
            END IF;
        END $$
        """,
        """
        CREATE TABLE IF NOT EXISTS faults (
            source text NOT NULL, byte_offset bigint NOT NULL, line_number bigint NOT NULL,
            column_number bigint NOT NULL, pointer text, message text NOT NULL, record text,
            record_truncated boolean NOT NULL,
            PRIMARY KEY (source, byte_offset)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS relationships (
            source_type text COLLATE "C" NOT NULL, source_id text COLLATE "C" NOT NULL,
            name text COLLATE "C" NOT NULL, position integer NOT NULL,
            target_type text COLLATE "C" NOT NULL, target_id text COLLATE "C" NOT NULL, meta jsonb,
            PRIMARY KEY (source_type, source_id, name, position)
        )
        """,
        "CREATE TABLE IF NOT EXISTS sluice_tables (type text PRIMARY KEY, table_name text NOT NULL UNIQUE)",
        """
        CREATE TABLE IF NOT EXISTS sluice_columns (
            type text NOT NULL, attribute text NOT NULL, column_name text NOT NULL, declared_type text NOT NULL,
            PRIMARY KEY (type, attribute)
        )
        """,
    ]

    /// Reverse lookups (who links to a resource), made at the end of the first import.
    static let indexes = "CREATE INDEX IF NOT EXISTS relationships_target ON relationships (target_type, target_id)"

    static func recordDocument(source: String, sourceSize: Int?) -> PostgresQuery {
        """
        INSERT INTO documents (source, status, started_at, source_size, resume_resources)
        VALUES (\(source), 'importing', \(ImportText.timestamp()), \(sourceSize), 0)
        ON CONFLICT (source) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
            finished_at = NULL, error = NULL, source_size = excluded.source_size, resume_resources = 0
        """
    }

    /// Imported again from its start, a document's earlier faults go: it meets them again.
    static func clearFaults(source: String) -> PostgresQuery {
        "DELETE FROM faults WHERE source = \(source)"
    }

    /// A record set aside; one met again (a resumed import reads the document from its start)
    /// replaces its earlier row.
    static func recordFault(_ fault: ImportFault) -> PostgresQuery {
        """
        INSERT INTO faults (source, byte_offset, line_number, column_number, pointer, message, record, record_truncated)
        VALUES (\(fault.source), \(fault.position.byteOffset), \(fault.position.line), \(fault.position.column),
            \(fault.pointer), \(fault.message), \(fault.record), \(fault.recordTruncated))
        ON CONFLICT (source, byte_offset) DO UPDATE SET line_number = excluded.line_number,
            column_number = excluded.column_number, pointer = excluded.pointer, message = excluded.message,
            record = excluded.record, record_truncated = excluded.record_truncated
        """
    }

    static func markResumed(source: String) -> PostgresQuery {
        "UPDATE documents SET status = 'importing', finished_at = NULL, error = NULL WHERE source = \(source)"
    }

    static func recordProgress(
        source: String,
        bytes: Int,
        resources: Int,
        relationshipRows: Int,
        resourcesRead: Int
    ) -> PostgresQuery {
        """
        UPDATE documents SET bytes = \(bytes), resources = \(resources), relationship_rows = \(relationshipRows),
            resume_resources = \(resourcesRead)
        WHERE source = \(source)
        """
    }

    static func finishDocument(
        source: String,
        summary: ImportSummary,
        document: ImportDocumentSummary
    ) throws
        -> PostgresQuery
    {
        let meta = document.members["meta"]
        let links = document.members["links"]
        let jsonapi = document.members["jsonapi"]
        return """
            UPDATE documents SET status = 'complete', finished_at = \(ImportText.timestamp()), bytes = \(summary.bytes),
                resources = \(summary.resources), primary_count = \(document.primaryCount),
                included_count = \(document.includedCount), relationship_rows = \(summary.relationshipRows),
                meta = \(meta)::jsonb, links = \(links)::jsonb, jsonapi = \(jsonapi)::jsonb, error = NULL,
                faults = \(summary.faults)
            WHERE source = \(source)
            """
    }

    /// The counts of what was written stay as the last committed batch recorded them in its own
    /// transaction (the bytes are those read): when the connection is lost around a COMMIT, the
    /// server may have committed a batch whose outcome the client never heard, and only the row
    /// knows.
    static func failDocument(source: String, summary: ImportSummary, error: any Error) -> PostgresQuery {
        """
        UPDATE documents SET status = 'failed', finished_at = \(ImportText.timestamp()), bytes = \(summary.bytes),
            resources = COALESCE(resources, 0), relationship_rows = COALESCE(relationship_rows, 0),
            error = \("\(error)"), faults = \(summary.faults)
        WHERE source = \(source)
        """
    }

    /// Where the interrupted import of `source` stopped; `nil` when there is none to continue.
    static func resumePoint(on importer: PostgresImporter, source: String) async throws -> ResumePoint? {
        let rows = try await importer.query(
            """
            SELECT status, bytes, resources, relationship_rows, source_size, resume_resources
            FROM documents WHERE source = \(source)
            """
        )
        guard let row = rows.first else { return nil }
        let (status, bytes, resources, relationshipRows, sourceSize, resumeResources) = try row.decode(
            (String, Int?, Int?, Int?, Int?, Int?).self
        )
        guard status != "complete" else { return nil }
        return ResumePoint(
            resourcesRead: resumeResources ?? 0,
            resources: resources ?? 0,
            relationshipRows: relationshipRows ?? 0,
            bytes: bytes ?? 0,
            sourceSize: sourceSize
        )
    }
}
