// The schema a session's batches need: tables and columns made, widened or re-collated before the
// rows that need them, each change checked against the catalog again under the schema lock.

import PostgresNIO
import SluiceImport

extension PostgresSession {
    /// A change to the schema this session needs.
    enum SchemaChange {
        /// The type's table.
        case table(PostgresTable)
        /// A column for the attribute at this ordinal.
        case column(PostgresTable, Int)
        /// The column at this ordinal, widened to hold this session's values.
        case widen(PostgresTable, Int)
        /// The linkage column at this ordinal, made by an earlier version of the importer in the
        /// database's collation, given the keys' (`isLinkageKey`).
        case collateAsKeys(PostgresTable, Int)
    }

    /// Makes the tables and columns the batch needs, in a transaction of its own that holds the
    /// schema lock: each change first reads the catalog again, so that a table or column another
    /// import made in the meantime is used as it is (widened if this one's values need more),
    /// and two imports that meet the same new type or attribute both succeed.
    func applySchemaChanges() async throws {
        guard !pendingSchema.isEmpty else { return }
        try await writer.retryingConflicts {
            try await importer.execute(sql: "BEGIN")
            do {
                try await importer.execute(sql: "SELECT pg_advisory_xact_lock(\(PostgresSchema.schemaLock))")
                for change in pendingSchema { try await apply(change) }
                try await importer.execute(sql: "COMMIT")
            } catch {
                try? await importer.execute(sql: "ROLLBACK")
                throw error
            }
        }
        pendingSchema.removeAll()
    }

    func apply(_ change: SchemaChange) async throws {
        switch change {
        case .table(let table):
            let known = try await importer.query("SELECT table_name FROM sluice_tables WHERE type = \(table.type)")
            if let row = known.first {
                table.catalog.rename(try row.decode(String.self))
                return
            }
            var taken: Set<String> = []
            for row in try await importer.query(
                """
                SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
                UNION SELECT table_name FROM sluice_tables
                """
            ) {
                taken.insert(try row.decode(String.self).lowercased())
            }
            table.catalog.rename(ImportNames.table(for: table.type, avoiding: taken))
            takenTableNames.insert(table.name.lowercased())
            try await importer.execute(
                PostgresQuery(
                    unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table.quotedName) (id text COLLATE \"C\" PRIMARY KEY)"
                )
            )
            try await importer.execute(
                "INSERT INTO sluice_tables (type, table_name) VALUES (\(table.type), \(table.name))"
            )
        case .column(let table, let ordinal):
            let attribute = table.catalog.columns[ordinal].attribute
            if try await settleKnownColumn(ordinal, of: table) { return }
            var taken: Set<String> = ["id"]
            for row in try await importer.query("SELECT column_name FROM sluice_columns WHERE type = \(table.type)") {
                taken.insert(try row.decode(String.self).lowercased())
            }
            let column = table.catalog.columns[ordinal]
            table.catalog.renameColumn(ordinal, to: ImportNames.column(for: attribute, avoiding: taken))
            let collation = Self.isLinkageKey(attribute) ? " COLLATE \"C\"" : ""
            try await importer.execute(
                PostgresQuery(
                    unsafeSQL:
                        "ALTER TABLE \(table.quotedName) ADD COLUMN \(table.catalog.columns[ordinal].quoted) \(column.type.sql)\(collation)"
                )
            )
            try await importer.execute(
                """
                INSERT INTO sluice_columns (type, attribute, column_name, declared_type)
                VALUES (\(table.type), \(attribute), \(table.catalog.columns[ordinal].name), \(column.type.rawValue))
                """
            )
        case .widen(let table, let ordinal):
            _ = try await settleKnownColumn(ordinal, of: table)
        case .collateAsKeys(let table, let ordinal):
            try await collateAsKeys(ordinal, of: table)
        }
    }

    /// Takes the catalog's column for the attribute at `ordinal`, when there is one: its name, and
    /// its type joined with this session's (the column widened when this session's values need
    /// more). `false` when the catalog has no such column.
    func settleKnownColumn(_ ordinal: Int, of table: PostgresTable) async throws -> Bool {
        let attribute = table.catalog.columns[ordinal].attribute
        let known = try await importer.query(
            "SELECT column_name, declared_type FROM sluice_columns WHERE type = \(table.type) AND attribute = \(attribute)"
        )
        guard let row = known.first else { return false }
        let (name, declared) = try row.decode((String, String).self)
        let theirs = ImportColumnType(rawValue: declared) ?? .text
        table.catalog.renameColumn(ordinal, to: name)
        let joined = theirs.joined(with: table.catalog.columns[ordinal].type)
        if joined != theirs {
            let quoted = table.catalog.columns[ordinal].quoted
            try await importer.execute(
                PostgresQuery(
                    unsafeSQL:
                        "ALTER TABLE \(table.quotedName) ALTER COLUMN \(quoted) TYPE \(joined.sql) USING \(quoted)::\(joined.sql)"
                )
            )
            // The column's type as it now is, for the next import to start from.
            try await importer.execute(
                """
                UPDATE sluice_columns SET declared_type = \(joined.rawValue)
                WHERE type = \(table.type) AND attribute = \(attribute)
                """
            )
        }
        table.catalog.retype(ordinal, to: joined)
        return true
    }

    /// Whether the `sluice_columns` key names a to-one relationship's type or id column. Those
    /// compare as the keys they point at (`COLLATE "C"`, as every table's `id`): a join such as
    /// `comments.article_id = articles.id` otherwise compares in "C" while the column's index is
    /// in the database's collation, which the planner cannot use, and scans the table.
    static func isLinkageKey(_ key: String) -> Bool {
        guard let (_, part) = ImportNames.toOnePart(ofKey: key) else { return false }
        return part != .meta
    }

    /// Mends a linkage column an earlier version made, if it can: no rewrite of the table, its
    /// index rebuilt. Only a speed-up of joins, so it never fails the import: a column a view
    /// uses, a table this role does not own, or a lock not had within two seconds (a long
    /// reader) leave the column as it was, for a later import to try again. Read again under the
    /// schema lock first: another import may have mended it.
    func collateAsKeys(_ ordinal: Int, of table: PostgresTable) async throws {
        let column = table.catalog.columns[ordinal]
        let rows = try await importer.query(
            """
            SELECT collation_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table.name) AND column_name = \(column.name)
            """
        )
        guard let row = rows.first, try row.decode(String?.self) != "C" else { return }
        try await importer.execute(sql: "SAVEPOINT sluice_collate")
        do {
            try await importer.execute(sql: "SET LOCAL lock_timeout = '2s'")
            try await importer.execute(
                PostgresQuery(
                    unsafeSQL:
                        "ALTER TABLE \(table.quotedName) ALTER COLUMN \(column.quoted) TYPE text COLLATE \"C\""
                )
            )
            try await importer.execute(sql: "RELEASE SAVEPOINT sluice_collate")
            // The rest of the schema's changes wait for their locks as before.
            try await importer.execute(sql: "SET LOCAL lock_timeout = DEFAULT")
        } catch is PSQLError {
            try await importer.execute(sql: "ROLLBACK TO SAVEPOINT sluice_collate")
        }
    }

    /// The text columns of this schema's tables not in the "C" collation, as [table, column].
    static func uncollatedColumns(on importer: PostgresImporter) async throws -> Set<[String]> {
        var columns: Set<[String]> = []
        for row in try await importer.query(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'
            """
        ) {
            let (table, column) = try row.decode((String, String).self)
            columns.insert([table, column])
        }
        return columns
    }
}
