// One PostgreSQL import: records are turned into COPY rows as they arrive (on the writing task,
// grouped by table and by the set of columns a resource gives; a to-one relationship is columns of
// its resource's row, a to-many one rows of `relationships`), and each batch is flushed: the
// schema changes it needs in a short transaction under the schema lock, then its rows in one
// transaction of their own, written by `PostgresBatchWriter` while the next batch is staged.

import PostgresNIO
import SluiceImport
import SluiceJSON

/// Stages an import's records as COPY rows and hands each batch to its writer.
///
/// Used by one task at a time (the import's), so the properties staging touches for every
/// resource skip the run-time exclusivity check, as ``PostgresTable``'s do.
final class PostgresSession: ImportWriter {
    unowned let importer: PostgresImporter
    private var source = ""
    /// Relationship rows written by earlier runs of a resumed import.
    private var earlierRelationshipRows = 0
    @exclusivity(unchecked) private var tables: [String: PostgresTable] = [:]
    private var tableOrder: [PostgresTable] = []
    var takenTableNames: Set<String> = []
    @exclusivity(unchecked) private var lastTable: PostgresTable?
    /// Tables, columns and widenings this session needs that the catalog may not have yet,
    /// settled before the next batch is written (see `applySchemaChanges`).
    var pendingSchema: [SchemaChange] = []
    /// The batch's relationship rows, one per identifier of a to-many linkage: source type, id
    /// and relationship name, the identifier's position, target type and id, and the meta.
    @exclusivity(unchecked) private var linkRows = CopyText()
    /// For each relationship of the batch whose linkage has identifiers: source type, id, name and
    /// the identifier count. Rows past that count, from an earlier import's or a concurrent one's
    /// longer linkage, are deleted after the batch's own rows are in.
    @exclusivity(unchecked) private var linkCounts = CopyText()
    /// The same for relationships whose rows all go: empty to-many linkage, and to-one
    /// relationships of a type that had rows when the import began.
    @exclusivity(unchecked) private var emptiedLinks = CopyText()
    /// The types `relationships` had rows of when the import began: a database from before
    /// to-one relationships became columns has rows for them, which a to-one linkage replaces.
    private var earlierLinkTypes: Set<String> = []
    /// Writes the batches, each while the next one is staged.
    let writer: PostgresBatchWriter
    /// Relationship rows handed to the writer so far (committed or not).
    private var relationshipRowsStaged = 0
    /// To-one links with a target in the batch being staged, and in committed batches.
    @exclusivity(unchecked) private var toOneLinksStaged = 0
    private var toOneLinksWritten = 0
    /// Whether a flush failed: its batch is gone, and nothing may be flushed after it.
    private var flushFailed = false
    private var relationshipRowsWritten = 0
    @exclusivity(unchecked) private var typeMismatches = 0
    /// Records set aside since the last batch was taken: written in the next batch's transaction.
    private var faults: [ImportFault] = []
    private var values: [(ordinal: Int, value: ImportRecord.Value)] = []

    init(importer: PostgresImporter) {
        self.importer = importer
        writer = PostgresBatchWriter(importer: importer)
    }

    func resumePoint(for source: String) async throws -> ResumePoint? {
        try await PostgresSchema.resumePoint(on: importer, source: source)
    }

    /// Reads the tables and columns the database has, and records the document as importing.
    func prepare(source: String, sourceSize: Int?, resumingFrom resume: ResumePoint?) async throws {
        self.source = source
        writer.source = source
        earlierRelationshipRows = resume?.relationshipRows ?? 0
        // A commit does not wait for its WAL to reach the disk. A server crash may lose the
        // last batches, but never half of one, and the documents row's progress is in the
        // same transactions: a resumed import goes on from the last commit the server kept.
        try await importer.execute(sql: "SET synchronous_commit = off")
        for row in try await importer.query("SELECT type, table_name FROM sluice_tables") {
            let (type, name) = try row.decode((String, String).self)
            let table = PostgresTable(type: type, name: name)
            tables[type] = table
            takenTableNames.insert(name.lowercased())
        }
        // Linkage columns an earlier version made in the database's collation.
        var linkage: [(PostgresTable, Int)] = []
        for row in try await importer.query(
            "SELECT type, attribute, column_name, declared_type FROM sluice_columns ORDER BY type, column_name"
        ) {
            let (type, attribute, name, declared) = try row.decode((String, String, String, String).self)
            guard let table = tables[type] else { continue }
            let kind = ImportColumnType(rawValue: declared) ?? .text
            let ordinal = add(attribute, name: name, type: kind, to: table)
            if Self.isLinkageKey(attribute) { linkage.append((table, ordinal)) }
        }
        if !linkage.isEmpty {
            let uncollated = try await Self.uncollatedColumns(on: importer)
            for (table, ordinal) in linkage
            where uncollated.contains([table.name, table.catalog.columns[ordinal].name]) {
                pendingSchema.append(.collateAsKeys(table, ordinal))
            }
        }
        for row in try await importer.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ) {
            takenTableNames.insert(try row.decode(String.self).lowercased())
        }
        // The distinct source types, one index probe each (PostgreSQL has no skip scan).
        for row in try await importer.query(
            """
            WITH RECURSIVE t (type) AS (
                SELECT min(source_type) FROM relationships
                UNION ALL SELECT (SELECT min(source_type) FROM relationships WHERE source_type > t.type)
                FROM t WHERE t.type IS NOT NULL
            )
            SELECT type FROM t WHERE type IS NOT NULL
            """
        ) {
            earlierLinkTypes.insert(try row.decode(String.self))
        }
        if resume == nil {
            try await importer.execute(PostgresSchema.recordDocument(source: source, sourceSize: sourceSize))
            try await importer.execute(PostgresSchema.clearFaults(source: source))
        } else {
            try await importer.execute(PostgresSchema.markResumed(source: source))
        }
    }

    /// Staged with the batch being filled, and written in its transaction.
    func setAside(_ faults: [ImportFault]) {
        self.faults.append(contentsOf: faults)
    }

    /// Adds the column `name` of `attribute` to `table`; its ordinal.
    @discardableResult
    private func add(_ attribute: String, name: String, type: ImportColumnType, to table: PostgresTable) -> Int {
        table.catalog.addColumn(attribute, name: name, type: type)
    }

    /// Stages records into this batch up to the first whose key it already holds: that resource
    /// goes in after a commit, so that the later occurrence wins as it does in SQLite, whatever
    /// columns each gives.
    func write(_ records: ArraySlice<ImportRecord>) -> ImportBlockWrite {
        var written = 0
        for (taken, record) in zip(0..., records) {
            switch stage(record) {
            case .staged: written += 1
            case .unidentified: break
            case .repeatedKey: return ImportBlockWrite(taken: taken, written: written)
            }
        }
        return ImportBlockWrite(taken: records.count, written: written)
    }

    /// Hands the batch to the writer, which commits it while the next one is staged; when
    /// `closing`, waits for it too.
    func commit(_ mark: ImportMark, closing: Bool) async throws -> [ImportMark] {
        var durable = try await flush(mark)
        if closing { durable += try await settleInFlight() }
        return durable
    }

    // MARK: Staging

    /// What staging a record did.
    private enum Staging {
        case staged
        /// It has neither `id` nor `lid`.
        case unidentified
        /// Its key is already in this batch: nothing was staged.
        case repeatedKey
    }

    /// Appends the record's rows to this batch.
    private func stage(_ record: ImportRecord) -> Staging {
        record.withReader { reader in
            let type = reader.text()
            let (keyKind, key) = reader.key()
            guard keyKind != .none else { return .unidentified }
            let table = table(for: type)
            guard table.batchKeys.insert(String(decoding: key, as: UTF8.self)).inserted else { return .repeatedKey }
            // A local row, its storage kept in `values` between resources: set per value on a
            // class's property, it would cost an exclusivity check each time.
            var row: [(ordinal: Int, value: ImportRecord.Value)] = []
            swap(&row, &values)
            defer { swap(&row, &values) }
            row.removeAll(keepingCapacity: true)
            for position in 0..<reader.count() {
                let name = reader.text()
                let value = reader.value()
                let ordinal: Int
                if let known = table.catalog.ordinal(named: name, at: position) {
                    ordinal = known
                } else {
                    guard let type = ImportColumnType(for: value) else { continue }
                    ordinal = addColumn(String(decoding: name, as: UTF8.self), type, to: table)
                }
                set(ordinal, of: table, to: value, in: &row)
            }

            let relationships = reader.count()
            for position in 0..<relationships {
                let name = reader.text()
                let linkage = reader.linkage()
                let meta = reader.meta()
                let identifiers = reader.count()
                guard linkage != .absent else { continue }
                let toOne = table.catalog.toOneOrdinals(named: name, at: position)
                guard linkage == .many else {
                    let target = reader.toOneTarget(identifiers: identifiers)
                    setToOne(toOne, of: name, in: table, target: target, meta: meta, row: &row)
                    // Rows of this relationship from a database made before to-one columns go.
                    if earlierLinkTypes.contains(table.type) { emptyLinks(type, key, name) }
                    continue
                }
                // To-many: a row per identifier; columns the name had as a to-one are cleared.
                setToOne(toOne, of: name, in: table, target: nil, meta: nil, row: &row)
                // The linkage replaces what an earlier import wrote for this relationship,
                // empty linkage included.
                if identifiers == 0 {
                    emptyLinks(type, key, name)
                } else {
                    linkCounts.text(type)
                    linkCounts.text(key)
                    linkCounts.text(name)
                    linkCounts.integer(identifiers)
                    linkCounts.endRow()
                }
                for position in 0..<identifiers {
                    let targetType = reader.text()
                    let (targetKind, target) = reader.key()
                    guard targetKind != .none else { continue }
                    linkRows.text(type)
                    linkRows.text(key)
                    linkRows.text(name)
                    linkRows.integer(position)
                    linkRows.text(targetType)
                    linkRows.text(target)
                    linkRows.text(orNull: meta)
                    linkRows.endRow()
                }
            }
            table.stageRow(key: key, row)
            table.catalog.rowsWritten += 1
            return .staged
        }
    }

    /// Sets the column at `ordinal` in the row being staged, widening it when `value` needs
    /// more. A member named twice: the last value wins, as for the readers.
    private func set(
        _ ordinal: Int,
        of table: PostgresTable,
        to value: ImportRecord.Value,
        in row: inout [(ordinal: Int, value: ImportRecord.Value)]
    ) {
        let column = table.catalog.columns[ordinal]
        if column.declared.countsMismatch(value) { typeMismatches += 1 }
        if let wider = column.type.widened(for: value) {
            pendingSchema.append(.widen(table, ordinal))
            table.catalog.retype(ordinal, to: wider)
        }
        if let earlier = row.firstIndex(where: { $0.ordinal == ordinal }) {
            row[earlier].value = value
        } else {
            row.append((ordinal, value))
        }
    }

    /// Sets the columns of the to-one relationship `name` in the row being staged: the target's
    /// type and key, or NULL (`null` linkage, or linkage that is not to-one); its meta, or NULL.
    /// Columns are made on their first non-null value, as an attribute's are.
    private func setToOne(
        _ toOne: ImportTable.ToOneOrdinals,
        of name: UnsafeRawBufferPointer,
        in table: PostgresTable,
        target: ImportRecord.ToOneTarget?,
        meta: UnsafeRawBufferPointer?,
        row: inout [(ordinal: Int, value: ImportRecord.Value)]
    ) {
        func ordinal(_ part: ImportNames.ToOnePart, _ type: ImportColumnType) -> Int {
            if let known = toOne[part] { return known }
            return addColumn(ImportNames.toOneKey(String(decoding: name, as: UTF8.self), part), type, to: table)
        }
        if let target {
            toOneLinksStaged += 1
            set(ordinal(.type, .text), of: table, to: .string(target.type), in: &row)
            set(ordinal(.id, .text), of: table, to: .string(target.key), in: &row)
        } else {
            for part in [ImportNames.ToOnePart.type, .id] {
                if let known = toOne[part] { set(known, of: table, to: .null, in: &row) }
            }
        }
        if let meta {
            set(ordinal(.meta, .json), of: table, to: .json(meta), in: &row)
        } else if let known = toOne.meta {
            set(known, of: table, to: .null, in: &row)
        }
    }

    /// Lists the relationship `name` of the resource `type`/`key` as one whose earlier rows all go.
    private func emptyLinks(
        _ type: UnsafeRawBufferPointer,
        _ key: UnsafeRawBufferPointer,
        _ name: UnsafeRawBufferPointer
    ) {
        emptiedLinks.text(type)
        emptiedLinks.text(key)
        emptiedLinks.text(name)
        emptiedLinks.verbatim("0".utf8)
        emptiedLinks.endRow()
    }

    private func table(for bytes: UnsafeRawBufferPointer) -> PostgresTable {
        if let lastTable, lastTable.catalog.typeBytes.withUnsafeBytes({ $0.hasSameBytes(as: bytes) }) {
            return lastTable
        }
        let type = String(decoding: bytes, as: UTF8.self)
        let table: PostgresTable
        if let known = tables[type] {
            table = known
        } else {
            let name = ImportNames.table(for: type, avoiding: takenTableNames)
            table = PostgresTable(type: type, name: name)
            takenTableNames.insert(name.lowercased())
            tables[type] = table
            pendingSchema.append(.table(table))
        }
        if !tableOrder.contains(where: { $0 === table }) { tableOrder.append(table) }
        lastTable = table
        return table
    }

    /// Adds a column for `attribute`, first met with a value of `type`; its ordinal.
    private func addColumn(_ attribute: String, _ type: ImportColumnType, to table: PostgresTable) -> Int {
        let name = ImportNames.column(for: attribute, avoiding: table.catalog.takenColumns)
        let ordinal = add(attribute, name: name, type: type, to: table)
        pendingSchema.append(.column(table, ordinal))
        return ordinal
    }

    // MARK: Flushing

    /// The batch being written, and the counts that become committed when it is.
    private var inFlight: (task: Task<Void, any Error>, mark: ImportMark, linkRows: Int, toOne: Int)?
    /// The batch whose write failed, until `fail` has learned whether the server kept it.
    private var unsettled: (mark: ImportMark, linkRows: Int, toOne: Int)?

    /// Hands this batch to the writer, which writes it in one transaction while the next one is
    /// staged: first the previous batch must be in (the connection takes one at a time), then the
    /// schema this one needs (a short transaction of its own). The previous batch's failure is
    /// thrown here; returns its mark once it is durable.
    private func flush(_ mark: ImportMark) async throws -> [ImportMark] {
        let durable = try await settleInFlight()
        do {
            try await applySchemaChanges()
        } catch {
            flushFailed = true
            throw error
        }
        let batch = takeBatch(mark)
        let writer = self.writer
        inFlight = (Task { try await writer.write(batch) }, mark, batch.linkRowCount, batch.toOneLinks)
        return durable
    }

    /// Waits for the batch being written, if any; the counts it records become committed. A
    /// cancelled caller still waits for it: cancelling postgres-nio inside a COPY can leave the
    /// connection out of its copy state while a write is under way, which stops the process;
    /// the engine stops a cancelled import before its next batch.
    private func settleInFlight() async throws -> [ImportMark] {
        guard let (task, mark, linkRows, toOne) = inFlight else { return [] }
        inFlight = nil
        do {
            try await task.value
        } catch {
            flushFailed = true
            // A connection lost during the batch's COMMIT may have lost only the answer: the
            // server may have committed it. `fail` asks the row (see `committedUncertainBatch`).
            unsettled = (mark, linkRows, toOne)
            throw error
        }
        relationshipRowsWritten += linkRows
        toOneLinksWritten += toOne
        return [mark]
    }

    /// This batch as the writer takes it (after its schema changes, so names and types are
    /// settled), with the staging buffers emptied for the next.
    private func takeBatch(_ mark: ImportMark) -> PostgresBatch {
        var batch = PostgresBatch()
        for table in tableOrder where !table.groups.isEmpty {
            // Groups in a fixed order, rows in key order within an upsert: two imports that
            // write the same keys lock them in the same order, which keeps deadlocks rare.
            for group in table.groups.sorted(by: { $0.ordinals.lexicographicallyPrecedes($1.ordinals) }) {
                let ordinals = group.ordinals
                let columns = ordinals.map { table.catalog.columns[$0] }
                batch.groups.append(
                    PostgresBatch.Group(
                        type: table.type,
                        table: table.name,
                        quotedTable: table.quotedName,
                        columns: ["id"] + columns.map(\.name),
                        quotedColumns: columns.map(\.quoted),
                        types: columns.map(\.type.sql),
                        stageSignature: "\(table.type)\u{0}\(ordinals)",
                        rows: group.rows.bytes
                    )
                )
            }
            table.removeGroups()
            table.batchKeys.removeAll(keepingCapacity: true)
        }
        batch.faults = faults
        faults.removeAll()
        batch.linkRows = linkRows.bytes
        batch.linkRowCount = linkRows.rows
        batch.toOneLinks = toOneLinksStaged
        toOneLinksStaged = 0
        batch.linkCounts = linkCounts.bytes
        batch.emptiedLinks = emptiedLinks.bytes
        relationshipRowsStaged += linkRows.rows
        batch.bytes = mark.bytes
        batch.resources = mark.resources
        batch.relationshipRows = earlierRelationshipRows + relationshipRowsStaged
        batch.resourcesRead = mark.resourcesRead
        linkRows.removeAll()
        linkCounts.removeAll()
        emptiedLinks.removeAll()
        return batch
    }

    private var relationshipRows: Int { earlierRelationshipRows + relationshipRowsWritten }

    /// Records the document's row, then makes the indexes (every batch is in).
    func finish(_ document: ImportDocumentSummary, summary: ImportSummary) async throws {
        try await importer.execute(
            try PostgresSchema.finishDocument(source: source, summary: summary, document: document)
        )
        // Under the schema lock: two imports ending together would both try to make it.
        try await writer.retryingConflicts {
            try await importer.execute(sql: "BEGIN")
            do {
                try await importer.execute(sql: "SELECT pg_advisory_xact_lock(\(PostgresSchema.schemaLock))")
                try await importer.execute(sql: PostgresSchema.indexes)
                try await createToOneIndexes()
                try await importer.execute(sql: "COMMIT")
            } catch {
                try? await importer.execute(sql: "ROLLBACK")
                throw error
            }
        }
    }

    /// The indexes on the to-one id columns of the tables this import wrote: joins from a
    /// related resource back to those that link to it (made at the end of an import, which is
    /// cheaper than growing them row by row on the first).
    private func createToOneIndexes() async throws {
        // An index's name is fixed, so a later import finds it made; only a table or view that
        // took the name first makes it another.
        var tableNames: Set<String> = []
        for row in try await importer.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ) {
            tableNames.insert(try row.decode(String.self).lowercased())
        }
        for table in tableOrder {
            for ordinal in table.catalog.toOneIDOrdinals {
                let column = table.catalog.columns[ordinal]
                let name = ImportNames.unique(
                    ImportNames.index(table: table.name, column: column.name),
                    avoiding: tableNames
                )
                let index = ImportNames.quoted(name)
                try await importer.execute(
                    sql: "CREATE INDEX IF NOT EXISTS \(index) ON \(table.quotedName) (\(column.quoted))"
                )
            }
        }
    }

    /// Flushes what was read before `error` (whole resources) when the connection still works.
    func fail(_ error: any Error, at mark: ImportMark) async -> (durable: [ImportMark], keepingBytesRead: Bool) {
        let isServerFault = error is PSQLError || error is PostgresImporter.ConnectionClosed
        // The batch being written goes in (or fails) first; then what was staged after it, unless
        // the caller stopped the import, which commits nothing more.
        var durable = (try? await settleInFlight()) ?? []
        durable += await committedUncertainBatch()
        let cancelled = Self.stoppedByCaller(error)
        if !isServerFault, !flushFailed, !cancelled {
            durable += (try? await flush(mark)) ?? []
            durable += (try? await settleInFlight()) ?? []
        }
        // What the row records is what was committed: a batch the server did not take is gone.
        return (durable, !(isServerFault || flushFailed || cancelled))
    }

    /// The batch whose write failed, when the server committed it all the same: its `COMMIT` went
    /// out and the connection was lost before the answer came back. The batch's transaction
    /// wrote how far it reaches into the `documents` row, so the row (read on a new connection
    /// when the old one is gone) tells; otherwise the report would count a batch fewer than the
    /// tables hold.
    private func committedUncertainBatch() async -> [ImportMark] {
        guard let (mark, linkRows, toOne) = unsettled else { return [] }
        unsettled = nil
        guard let recorded = await importer.recordedResources(source: source), recorded >= mark.resources else {
            return []
        }
        relationshipRowsWritten += linkRows
        toOneLinksWritten += toOne
        return [mark]
    }

    /// Marks the row failed (on a new connection when the old one is gone).
    func recordFailure(_ error: any Error, summary: ImportSummary) async {
        let query = PostgresSchema.failDocument(source: source, summary: summary, error: describe(error))
        do {
            try await importer.execute(query)
        } catch {
            await importer.executeOnNewConnection(query)
        }
    }

    /// The error as the documents row records it: worded as the importer throws it, so that a
    /// fault of the connection (whatever type NIO or postgres-nio gave it) reads as PostgreSQL's
    /// in both places, and a fault of the input as the input's.
    private func describe(_ error: any Error) -> any Error {
        let keepsItsWords =
            PostgresImporter.isInputFault(error) || error is PostgresImportError || error is CancellationError
        return keepsItsWords ? error : PostgresImportError(error, doing: "importing")
    }

    /// Whether `error` ends the import because its caller stopped it: a `CancellationError`, or
    /// whatever the connection made of a cancelled task's statement (not a fault of the input,
    /// which stands as it is). Such an import commits nothing more and reports the cancellation.
    static func stoppedByCaller(_ error: any Error) -> Bool {
        error is CancellationError || (Task.isCancelled && !PostgresImporter.isInputFault(error))
    }

    /// The fault as the import throws it.
    func reported(_ error: any Error) -> any Error {
        if Self.stoppedByCaller(error) {
            // The caller stopped the import: a CancellationError, whatever the connection made
            // of it (postgres-nio may answer a cancelled query with an error of its own), not
            // "PostgreSQL: CancellationError() while importing", which blamed the server.
            return CancellationError()
        }
        if PostgresImporter.isInputFault(error) || error is PostgresImportError { return error }
        return PostgresImportError(error, doing: "importing")
    }

    /// PostgreSQL's `text` and `jsonb` cannot hold U+0000 (SQLSTATE 22021, 22P05): the reading
    /// side finds such records, with their positions, before a batch meets the server.
    var storesNUL: Bool { false }

    var counts: ImportWriterCounts {
        var rows = tableOrder.map { ImportSummary.TableRows(table: $0.name, rows: $0.catalog.rowsWritten) }
        rows.append(ImportSummary.TableRows(table: "relationships", rows: relationshipRowsWritten))
        return ImportWriterCounts(
            relationshipRows: relationshipRows,
            toOneLinks: toOneLinksWritten,
            typeMismatches: typeMismatches,
            tables: rows
        )
    }
}
