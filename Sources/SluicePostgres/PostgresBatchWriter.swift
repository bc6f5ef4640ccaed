// Writing a PostgreSQL import's batches, one transaction each, while the session stages the next:
// a batch leaves the session as COPY text with everything its SQL needs, so the server works on
// one batch while the client turns the following records into rows.

import PostgresNIO
import SluiceImport

/// One batch, ready for the server: its rows as COPY text, grouped by table and column set, with
/// the names the SQL needs and the counts its commit records. Made after the batch's schema
/// changes, so nothing in it changes while it is written.
struct PostgresBatch: Sendable {
    /// The rows of one table's resources that set the same columns.
    struct Group: Sendable {
        /// The table's resource type: whether its rows need upserting is settled per type.
        let type: String
        let table: String
        let quotedTable: String
        /// The columns as they are (`id` first), as COPY names them.
        let columns: [String]
        /// The columns after `id`, quoted, with each one's PostgreSQL type.
        let quotedColumns: [String]
        let types: [String]
        /// What identifies the group's staging table (its type and column set).
        let stageSignature: String
        let rows: [UInt8]
    }

    var groups: [Group] = []
    /// Relationship rows (see `PostgresSession.linkRows`), and how many.
    var linkRows: [UInt8] = []
    var linkRowCount = 0
    /// To-one relationships with a target among the batch's rows.
    var toOneLinks = 0
    var linkCounts: [UInt8] = []
    var emptiedLinks: [UInt8] = []
    /// Records set aside while the batch filled (few: one statement each).
    var faults: [ImportFault] = []
    /// What the `documents` row records when the batch commits.
    var bytes = 0
    var resources = 0
    var relationshipRows = 0
    var resourcesRead = 0
}

/// Writes batches on the import's connection, one at a time.
///
/// `@unchecked Sendable` because a batch is written in a task of its own while the session goes on
/// staging: the session touches neither this writer nor the importer's connection until it has
/// awaited that task, so only one task uses them at any time.
final class PostgresBatchWriter: @unchecked Sendable {
    private let importer: PostgresImporter
    /// The document's name in `documents` (set when the import is prepared, before any batch).
    var source = ""
    /// Types whose rows go in by upsert: once a plain COPY or INSERT met a key already there.
    private var upsertedTypes: Set<String> = []
    /// Whether relationship rows go in by upsert (see `insertOrUpsert`).
    private var linksNeedUpsert = false
    /// Batches written again after a deadlock or a serialization failure with another import.
    private(set) var retries = 0

    init(importer: PostgresImporter) {
        self.importer = importer
    }

    /// Writes `batch` in one transaction, with the `documents` row saying how far it reaches.
    /// Other imports may write the same tables at the same time; a deadlock or serialization
    /// failure with one of them rolls the batch back and writes it again.
    func write(_ batch: PostgresBatch) async throws {
        try await retryingConflicts { try await writeOnce(batch) }
    }

    private func writeOnce(_ batch: PostgresBatch) async throws {
        try await importer.execute(sql: "BEGIN")
        do {
            for group in batch.groups { try await upsert(group) }
            try await writeLinks(batch)
            for fault in batch.faults { try await importer.execute(PostgresSchema.recordFault(fault)) }
            try await importer.execute(
                PostgresSchema.recordProgress(
                    source: source,
                    bytes: batch.bytes,
                    resources: batch.resources,
                    relationshipRows: batch.relationshipRows,
                    resourcesRead: batch.resourcesRead
                )
            )
            try await importer.execute(sql: "COMMIT")
        } catch {
            try? await importer.execute(sql: "ROLLBACK")
            // Staging tables made in the rolled-back transaction are gone with it.
            importer.forgetStagingTables()
            throw error
        }
    }

    /// Runs `body` again, after a short random wait, while it fails with a deadlock or a
    /// serialization failure: conflicts with another import, which PostgreSQL resolves by failing
    /// one side. At most 20 tries, then the error stands.
    func retryingConflicts(_ body: () async throws -> Void) async throws {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as PSQLError
                where ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "") && attempt < 20
            {
                attempt += 1
                retries += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...25) * min(attempt, 8)))
            }
        }
    }

    private func upsert(_ group: PostgresBatch.Group) async throws {
        var needsUpsert = upsertedTypes.contains(group.type)
        defer { if needsUpsert { upsertedTypes.insert(group.type) } }
        if !needsUpsert, !group.table.contains("\""), !group.columns.contains(where: { $0.contains("\"") }) {
            // Straight into the table (see `copyDirectly`).
            if try await copyDirectly(group.rows, into: group.table, columns: group.columns) { return }
            needsUpsert = true
        }
        let stageName = importer.stageName(for: group.stageSignature, columns: group.columns.count)
        try await importer.copy(group.rows, into: stageName, columns: group.columns.count)
        let names = (["id"] + group.quotedColumns).joined(separator: ", ")
        let selected = (["c0"] + group.types.enumerated().map { "c\($0.offset + 1)::\($0.element)" })
            .joined(separator: ", ")
        let updates = group.quotedColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates)"
        try await insertOrUpsert(
            plain: "INSERT INTO \(group.quotedTable) (\(names)) SELECT \(selected) FROM \(stageName)",
            upsert: """
                INSERT INTO \(group.quotedTable) (\(names))
                SELECT DISTINCT ON (c0) \(selected) FROM \(stageName) ORDER BY c0, ord DESC
                ON CONFLICT (id) \(conflict)
                """,
            needsUpsert: &needsUpsert
        )
    }

    /// Copies `rows` straight into `table`, which is what a fresh import needs: PostgreSQL inserts
    /// each row once, with no staging table, no sort for DISTINCT ON and no speculative insertion.
    /// When a key is already there (a re-import, or a resource given twice) the COPY fails, is
    /// rolled back to its savepoint, and `false` says to stage and upsert instead (for this batch
    /// and every later one of the table).
    private func copyDirectly(_ rows: [UInt8], into table: String, columns: [String]) async throws -> Bool {
        try await importer.execute(sql: "SAVEPOINT sluice_copy")
        do {
            try await importer.copy(rows, into: table, columns: columns)
            try await importer.execute(sql: "RELEASE SAVEPOINT sluice_copy")
            return true
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            try await importer.execute(sql: "ROLLBACK TO SAVEPOINT sluice_copy")
            return false
        }
    }

    /// Moves a staging table's rows into place: first as a plain INSERT, which is what a fresh
    /// import needs and costs PostgreSQL a third of an upsert's work (no sort for DISTINCT ON, no
    /// speculative insertion per row); when a key is already there (a re-import, or a resource given
    /// twice), the plain INSERT fails, is rolled back to its savepoint, and the upsert runs instead,
    /// for this batch and every later one of the table.
    private func insertOrUpsert(plain: String, upsert: String, needsUpsert: inout Bool) async throws {
        if !needsUpsert {
            try await importer.execute(sql: "SAVEPOINT sluice_plain")
            do {
                try await importer.execute(sql: plain)
                try await importer.execute(sql: "RELEASE SAVEPOINT sluice_plain")
                return
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                try await importer.execute(sql: "ROLLBACK TO SAVEPOINT sluice_plain")
                needsUpsert = true
            }
        }
        try await importer.execute(sql: upsert)
    }

    /// The batch's relationship rows. Straight in with COPY while no row is there yet; else
    /// upserted, then the rows past each relationship's new identifier count deleted: an earlier
    /// import's, or a concurrent one's that committed first (its rows made this batch's insert
    /// wait, so they are visible by then). Any earlier linkage has a row at position 0, which a
    /// non-empty linkage also writes, so a COPY that goes through proves there was none to replace.
    private func writeLinks(_ batch: PostgresBatch) async throws {
        let linkColumns = ["source_type", "source_id", "name", "position", "target_type", "target_id", "meta"]
        if !batch.linkRows.isEmpty {
            var copied = false
            if !linksNeedUpsert {
                copied = try await copyDirectly(batch.linkRows, into: "relationships", columns: linkColumns)
                linksNeedUpsert = !copied
            }
            if !copied {
                try await importer.copy(batch.linkRows, into: "sluice_stage_links", columns: 7)
                try await importer.execute(
                    sql: """
                        INSERT INTO relationships (source_type, source_id, name, position, target_type, target_id, meta)
                        SELECT DISTINCT ON (c0, c1, c2, c3::integer) c0, c1, c2, c3::integer, c4, c5, c6::jsonb
                        FROM sluice_stage_links ORDER BY c0, c1, c2, c3::integer, ord DESC
                        ON CONFLICT (source_type, source_id, name, position) DO UPDATE SET target_type = excluded.target_type,
                            target_id = excluded.target_id, meta = excluded.meta
                        """
                )
                try await deleteRows(past: batch.linkCounts, staging: "sluice_stage_counts")
            }
        }
        if !batch.emptiedLinks.isEmpty {
            try await deleteRows(past: batch.emptiedLinks, staging: "sluice_stage_emptied")
        }
    }

    /// Deletes each listed relationship's rows at and past its count.
    private func deleteRows(past counts: [UInt8], staging: String) async throws {
        try await importer.copy(counts, into: staging, columns: 4)
        try await importer.execute(
            sql: """
                DELETE FROM relationships r USING (SELECT c0, c1, c2, MIN(c3::integer) AS n FROM \(staging) GROUP BY c0, c1, c2) s
                WHERE r.source_type = s.c0 AND r.source_id = s.c1 AND r.name = s.c2 AND r.position >= s.n
                """
        )
    }
}
