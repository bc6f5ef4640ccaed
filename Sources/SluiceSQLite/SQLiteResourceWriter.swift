// Writes resources into their types' tables and their linkage into `relationships`, growing the
// schema as types and attributes appear; rows are queued and run several to a statement
// (SQLiteRowQueue.swift). Lives for one import, inside the importer's database access, so it can
// hold prepared statements. Key columns and their widening to text: +KeyColumns.

import Foundation
import GRDB
import GRDBSQLite
import SluiceImport
import SluiceJSON

/// Its state is used by the import's thread alone, one access at a time: the hot properties
/// skip the run-time exclusivity check (`@exclusivity(unchecked)`), which was about a tenth of the
/// writer's own work per resource.
final class SQLiteResourceWriter {
    let db: Database
    /// Tables by resource type.
    var tables: [String: TypeTable] = [:]
    /// Every table and index name in the database, lowercased (SQLite's names ignore ASCII case,
    /// and tables and indexes share one namespace).
    var takenTableNames: Set<String>
    private let deleteRelationship: Statement
    /// Relationship rows: one at a time, and a full queue of them at a time.
    private let insertRelationship: Statement
    private let insertRelationships: Statement
    /// Queued relationship rows, and the texts of every queued row (see `RowQueue`).
    @exclusivity(unchecked) private var links = RowQueue()
    /// Whether `relationships.source_id` and `target_id` are INTEGER (see the file's comment).
    @exclusivity(unchecked) var integerLinks: Bool
    private let arena = TextArena()
    /// SQLite's most parameters a statement may have.
    private let variableLimit: Int32
    /// The table of the resource written last.
    @exclusivity(unchecked) var lastTable: TypeTable?
    /// The tables this import wrote to, in the order first met.
    var tablesWritten: [TypeTable] = []

    /// Rows this import wrote into each resource table, in the order first met.
    var tableRows: [(table: String, rows: Int)] {
        tablesWritten.map { ($0.name, $0.catalog.rowsWritten) }
    }
    @exclusivity(unchecked) private(set) var relationshipRows = 0
    /// To-one relationships written with a target (as columns).
    @exclusivity(unchecked) private(set) var toOneLinks = 0
    @exclusivity(unchecked) private(set) var typeMismatches = 0
    /// Reused per resource (its arrays keep their capacity): see `write(_:)`.
    @exclusivity(unchecked) private var rowBuffer = PendingRow()

    /// The row being written: the columns it sets, by ordinal, and the values, the key first.
    struct PendingRow {
        var columns: [Int] = []
        var values: [BoundValue] = []
        /// Where each ordinal's value is in `values`, valid for this row when its `marks` entry is
        /// the row's `mark`: a column set again is found without a search of the row's columns
        /// (which was most of the cost of setting a value in a wide row).
        private var slots: [Int32] = []
        private var marks: [UInt32] = []
        private var mark: UInt32 = 0

        mutating func start(key: BoundValue) {
            columns.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
            values.append(key)
            mark &+= 1
            if mark == 0 {
                // Wrapped: forget every mark of earlier rows.
                for index in marks.indices { marks[index] = 0 }
                mark = 1
            }
        }

        /// Sets `column`. A member named twice: the last value wins, as for the readers.
        mutating func set(_ column: Column, to value: BoundValue) {
            let ordinal = column.ordinal
            if ordinal >= marks.count {
                marks.append(contentsOf: repeatElement(0, count: ordinal + 1 - marks.count))
                slots.append(contentsOf: repeatElement(0, count: ordinal + 1 - slots.count))
            }
            if marks[ordinal] == mark {
                values[Int(slots[ordinal])] = value
            } else {
                marks[ordinal] = mark
                slots[ordinal] = Int32(values.count)
                columns.append(ordinal)
                values.append(value)
            }
        }
    }

    /// The SQL type a column is declared with, after its attribute's first non-null value.
    enum DeclaredType: String {
        case text = "TEXT"
        case integer = "INTEGER"
        case real = "REAL"

        /// The type `value` asks for (SluiceImport's inference, as every destination's); `nil`
        /// for `null`, which makes no column.
        init?(for value: ImportRecord.Value) {
            guard let kind = ImportColumnType(for: value) else { return nil }
            self.init(kind)
        }

        /// SQLite's declared type for `kind`: it has none for numbers beyond a double (a REAL
        /// column would make them infinities) or for JSON, which are kept as their text.
        init(_ kind: ImportColumnType) {
            switch kind {
            case .integer: self = .integer
            case .real: self = .real
            case .text, .numeric, .json: self = .text
            }
        }

        /// The kind a column so declared takes, as the shared catalog records it.
        var kind: ImportColumnType {
            switch self {
            case .text: .text
            case .integer: .integer
            case .real: .real
            }
        }
    }

    /// A column as a row sets it. Its names are its table's (`ImportTable.columns`), not its
    /// own: a column is copied for every value written, and two strings in it cost two retains
    /// and releases each time (about 2% of the writer's samples).
    struct Column {
        /// Its index among its table's columns: rows name their columns by it, so comparing
        /// and looking up column sets costs integer compares, not string ones.
        let ordinal: Int
        var type: DeclaredType
    }

    /// A canonical decimal id as the integer it spells (see `decimalIDValue`); `nil` for any
    /// other id. Only such ids go into INTEGER key columns: SQLite would turn `"007"` or `"1e3"`
    /// into a number that no longer spells the id.
    static func integerKey(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        decimalIDValue(bytes).map { Int64($0) }
    }

    /// A table as this writer writes it: the catalog every destination shares (`ImportTable`),
    /// and SQLite's own state: prepared upserts, queued rows, how its keys are stored.
    final class TypeTable {
        /// Its name, columns and lookups.
        let catalog: ImportTable
        var type: String { catalog.type }
        var name: String { catalog.name }
        var quotedName: String { catalog.quotedName }
        /// Upserts by the ordinals of the columns they set and their number of rows (a queue's
        /// full number, or a power of two for what is left of one at a flush).
        var upserts: [UpsertShape: Statement] = [:]
        /// Rows written but not yet run, a queue per set of columns (see `RowQueue`), and where
        /// each set's queue is. Records of one kind differ in their optional members (an event's
        /// payload, a resource's optional attributes) and come in no order: one queue for all of
        /// them ran nearly every row as a statement of its own, which took a third of the plain
        /// import's writing time; a queue per set fills whole statements.
        @exclusivity(unchecked) var queues: [RowQueue] = []
        var queueIndex: [[Int]: Int] = [:]
        /// The queue the last row went into (rows in a row mostly share one).
        @exclusivity(unchecked) var lastQueue = -1
        /// Hashes of the keys of the rows queued since the table's queues were last run: a row
        /// whose key is among them runs every queue first, so that a record given twice is
        /// written in order although the queues run out of order. (A hash that collides only
        /// runs the queues early.)
        @exclusivity(unchecked) var pendingKeys: Set<Int> = []
        /// Whether the table had relationship rows when the import first met the type: only then
        /// can a resource's linkage replace earlier rows, which must be deleted first. A fresh
        /// import skips a delete per relationship (a third of its SQLite work).
        @exclusivity(unchecked) var hasEarlierLinks: Bool?
        /// Whether `id` is `INTEGER PRIMARY KEY` (every id so far a canonical decimal); `nil`
        /// until the table is first written.
        @exclusivity(unchecked) var integerKeys: Bool?

        init(type: String, name: String) {
            catalog = ImportTable(type: type, name: name)
        }

        /// The column of the attribute `name`, the attribute at `position` of its resource.
        func column(named name: UnsafeRawBufferPointer, at position: Int) -> Column? {
            catalog.ordinal(named: name, at: position).map(column(at:))
        }

        /// The column at `ordinal` as its table now declares it.
        func column(at ordinal: Int) -> Column {
            Column(ordinal: ordinal, type: DeclaredType(catalog.columns[ordinal].type))
        }

        /// The column's name, as is and quoted.
        func columnName(_ ordinal: Int) -> String { catalog.columns[ordinal].name }
        func quotedColumnName(_ ordinal: Int) -> String { catalog.columns[ordinal].quoted }

        /// Adds a column named `name` for `attribute` (an attribute's name, or a to-one
        /// relationship column's key: see `ImportNames.toOneKey`).
        func add(_ attribute: String, name: String, type: DeclaredType) -> Column {
            column(at: catalog.addColumn(attribute, name: name, type: type.kind))
        }

        /// The id columns of the table's to-one relationships: what their indexes are on.
        var toOneIDColumns: [Column] { catalog.toOneIDOrdinals.map(column(at:)) }
    }

    init(db: Database) throws {
        self.db = db
        takenTableNames = Set(
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view', 'index')").map
            {
                $0.lowercased()
            }
        )
        deleteRelationship = try db.makeStatement(
            sql: "DELETE FROM relationships WHERE source_type = ? AND source_id = ? AND name = ?"
        )
        variableLimit = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1)
        integerLinks = try Self.declaredType(of: "source_id", in: "relationships", db) == "INTEGER"
        links.start(columns: [], valuesPerRow: 7, parameterLimit: variableLimit)
        func insertLinks(rows: Int) throws -> Statement {
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
            return try db.makeStatement(
                sql: """
                    INSERT INTO relationships (source_type, source_id, name, position, target_type, target_id, meta)
                    VALUES \(values)
                    ON CONFLICT DO UPDATE SET target_type = excluded.target_type, target_id = excluded.target_id,
                        meta = excluded.meta
                    """
            )
        }
        insertRelationship = try insertLinks(rows: 1)
        insertRelationships = try insertLinks(rows: links.rowsPerStatement)
        // The names earlier imports chose.
        for row in try Row.fetchAll(db, sql: "SELECT type, table_name FROM sluice_tables") {
            let type: String = row["type"]
            tables[type] = TypeTable(type: type, name: row["table_name"])
        }
        for row in try Row.fetchAll(db, sql: "SELECT type, attribute, column_name, declared_type FROM sluice_columns") {
            let type: String = row["type"]
            guard let table = tables[type] else { continue }
            _ = table.add(
                row["attribute"],
                name: row["column_name"],
                type: DeclaredType(rawValue: row["declared_type"]) ?? .text
            )
        }
    }

    /// Writes the resource `record` holds; `false` when it has neither `id` nor `lid` and so
    /// cannot be keyed. Attributes and to-one relationships go into the type's row, to-many
    /// linkage into `relationships`. The rows are queued (their texts copied), and written with
    /// others of their table, or by `flush()`.
    func write(_ record: ImportRecord) throws -> Bool {
        try record.withReader { reader in
            let type = reader.text()
            let (keyKind, key) = reader.key()
            guard keyKind != .none else { return false }
            let table = try table(for: type, firstKey: key)
            // A local row: set per value on a class's property, it would cost an exclusivity
            // check each time.
            var row = PendingRow()
            swap(&row, &rowBuffer)
            defer { swap(&row, &rowBuffer) }
            row.start(key: try keyValue(key, in: table))
            let attributeCount = reader.count()
            for position in 0..<attributeCount {
                let name = reader.text()
                let value = reader.value()
                let column: Column
                if let known = table.column(named: name, at: position) {
                    column = known
                } else {
                    // A null before any value makes no column: an absent column reads as NULL.
                    guard let type = DeclaredType(for: value) else { continue }
                    column = try addColumn(String(decoding: name, as: UTF8.self), type, to: table)
                    table.catalog.remember(column.ordinal, named: name, at: position)
                }
                row.set(column, to: boundValue(value, for: column))
            }
            let relationshipCount = reader.count()
            var linkSource: BoundValue?
            let replacesLinks = relationshipCount > 0 ? try hasEarlierLinks(table) : false
            for position in 0..<relationshipCount {
                let name = reader.text()
                let linkage = reader.linkage()
                let meta = reader.meta()
                let identifiers = reader.count()
                guard linkage != .absent else { continue }
                // The linkage replaces what an earlier import wrote for this relationship (rows,
                // also when it is to-one now: a database from before to-one columns had rows).
                if replacesLinks {
                    // Rows queued for the same relationship (a resource given twice) go first.
                    try flushLinks()
                    try deleteRelationship.run([.text(type), .text(key), .text(name)], on: db)
                }
                let toOne = table.catalog.toOneOrdinals(named: name, at: position)
                guard linkage == .many else {
                    let target = reader.toOneTarget(identifiers: identifiers)
                    try setToOne(toOne, of: name, in: table, target: target, meta: meta, row: &row)
                    continue
                }
                // To-many: a row per identifier; columns the name had as a to-one are cleared.
                try setToOne(toOne, of: name, in: table, target: nil, meta: nil, row: &row)
                // The relationship's meta rides on each of its rows, so a join on the links sees
                // it without a second table.
                let rowMeta = meta.map { BoundValue.text($0) } ?? .null
                for position in 0..<identifiers {
                    let targetType = reader.text()
                    let (targetKind, target) = reader.key()
                    guard targetKind != .none else { continue }
                    // The resource's key as `relationships` keeps it, once per resource.
                    let source = try linkSource ?? linkKey(key)
                    linkSource = source
                    try enqueueLink(
                        .text(type),
                        source,
                        .text(name),
                        .integer(Int64(position)),
                        .text(targetType),
                        try linkKey(target),
                        rowMeta
                    )
                    relationshipRows += 1
                }
            }
            try enqueue(row, into: table)
            table.catalog.rowsWritten += 1
            return true
        }
    }

    /// Queues `row` for `table` with the rows that set the same columns; writes that queue once
    /// it fills a statement. A row whose key a queued row has (a resource given twice) runs the
    /// table's queues first, so the later one wins.
    private func enqueue(_ row: PendingRow, into table: TypeTable) throws {
        let key = Self.keyHash(row.values[0])
        if !table.pendingKeys.insert(key).inserted {
            try flush(table)
            table.pendingKeys.insert(key)
        }
        try makeRoom(for: row.values)
        let index = try queueIndex(for: row, in: table)
        table.queues[index].append(row.values, keepingTextsIn: arena)
        if table.queues[index].isFull { try run(queueAt: index, of: table) }
    }

    /// The index of the queue of `row`'s columns in `table`, made when there is none. A table
    /// whose records each set other columns would keep a queue (and statements) per record: past
    /// `maximumQueues` sets, the queues are run and started again.
    private func queueIndex(for row: PendingRow, in table: TypeTable) throws -> Int {
        let last = table.lastQueue
        if last >= 0, table.queues[last].columns == row.columns { return last }
        if let known = table.queueIndex[row.columns] {
            table.lastQueue = known
            return known
        }
        if table.queues.count >= Self.maximumQueues {
            try flush(table)
            table.queues.removeAll()
            table.queueIndex.removeAll()
        }
        var queue = RowQueue()
        queue.start(columns: row.columns, valuesPerRow: row.values.count, parameterLimit: variableLimit)
        table.queues.append(queue)
        table.queueIndex[row.columns] = table.queues.count - 1
        table.lastQueue = table.queues.count - 1
        return table.queues.count - 1
    }

    /// Column sets a table queues rows for at once.
    private static let maximumQueues = 64

    /// A key's hash for `TypeTable.pendingKeys`: an integer key is its own (no collisions, no
    /// hashing per row), a text key its bytes' hash.
    private static func keyHash(_ key: BoundValue) -> Int {
        switch key {
        case .integer(let number): return Int(truncatingIfNeeded: number)
        case .text(let text):
            var hasher = Hasher()
            hasher.combine(bytes: text)
            return hasher.finalize()
        case .null, .real: return 0
        }
    }

    private func enqueueLink(_ values: BoundValue...) throws {
        try makeRoom(for: values)
        links.append(values, keepingTextsIn: arena)
        if links.isFull { try flushLinks() }
    }

    /// Room in the arena for the texts of `values`: when there is none, every queued row is
    /// written and the arena emptied.
    private func makeRoom(for values: some Collection<BoundValue>) throws {
        let bytes = TextArena.textBytes(values)
        guard !arena.fits(bytes) else { return }
        try flush()
        arena.reset(minimumCapacity: bytes)
    }

    /// Writes every queued row: before a commit, and before the arena is reused.
    func flush() throws {
        for table in tablesWritten { try flush(table) }
        try flushLinks()
        arena.reset()
    }

    /// Drops the queued rows (their batch is being rolled back).
    func discardQueued() {
        for table in tablesWritten {
            for index in table.queues.indices { table.queues[index].removeAll() }
            table.pendingKeys.removeAll(keepingCapacity: true)
        }
        links.removeAll()
        arena.reset()
    }

    /// Runs every queue of `table`.
    private func flush(_ table: TypeTable) throws {
        for index in table.queues.indices where !table.queues[index].isEmpty {
            try run(queueAt: index, of: table)
        }
        table.pendingKeys.removeAll(keepingCapacity: true)
    }

    /// Runs the rows of the queue at `index` of `table` and empties it.
    private func run(queueAt index: Int, of table: TypeTable) throws {
        try run(table.queues[index], of: table)
        table.queues[index].removeAll()
    }

    /// Runs the rows of `queue`: a full queue with one statement, what is left of one at a flush
    /// with statements of 16, 8, 4, 2 and 1 rows.
    private func run(_ queue: RowQueue, of table: TypeTable) throws {
        var start = 0
        while start < queue.rows {
            let left = queue.rows - start
            let rows =
                left >= queue.rowsPerStatement
                ? queue.rowsPerStatement : 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
            let statement = try upsertStatement(for: table, columns: queue.columns, rows: rows)
            try statement.run(queue.rows(start..<(start + rows)), on: db)
            start += rows
        }
    }

    private func flushLinks() throws {
        guard !links.isEmpty else { return }
        if links.isFull {
            try insertRelationships.run(links.values, on: db)
        } else {
            for index in 0..<links.rows { try insertRelationship.run(links.row(index), on: db) }
        }
        links.removeAll()
    }

    /// Sets the columns of the to-one relationship `name` in the row being written: the target's
    /// type and key, or NULL (`null` linkage, or linkage that is not to-one); its meta, or NULL.
    /// Columns are made on their first non-null value, as an attribute's are.
    private func setToOne(
        _ columns: ImportTable.ToOneOrdinals,
        of name: UnsafeRawBufferPointer,
        in table: TypeTable,
        target: ImportRecord.ToOneTarget?,
        meta: UnsafeRawBufferPointer?,
        row: inout PendingRow
    ) throws {
        if let target {
            toOneLinks += 1
            row.set(try toOneColumn(columns, .type, of: name, in: table, type: .text), to: .text(target.type))
            let number = Self.integerKey(target.key)
            var id = try toOneColumn(columns, .id, of: name, in: table, type: number == nil ? .text : .integer)
            if id.type == .integer, let number {
                row.set(id, to: .integer(number))
            } else {
                if id.type == .integer {
                    try convertToText(table, columns: [id.ordinal])
                    id = table.column(at: id.ordinal)
                }
                row.set(id, to: .text(target.key))
            }
        } else {
            if let ordinal = columns.type { row.set(table.column(at: ordinal), to: .null) }
            if let ordinal = columns.id { row.set(table.column(at: ordinal), to: .null) }
        }
        if let meta {
            row.set(try toOneColumn(columns, .meta, of: name, in: table, type: .text), to: .text(meta))
        } else if let ordinal = columns.meta {
            row.set(table.column(at: ordinal), to: .null)
        }
    }

    /// The column of `part` of the to-one relationship `name`, made (declared `type`) when it
    /// has none.
    private func toOneColumn(
        _ columns: ImportTable.ToOneOrdinals,
        _ part: ImportNames.ToOnePart,
        of name: UnsafeRawBufferPointer,
        in table: TypeTable,
        type: DeclaredType
    ) throws -> Column {
        if let known = columns[part] { return table.column(at: known) }
        return try addColumn(ImportNames.toOneKey(String(decoding: name, as: UTF8.self), part), type, to: table)
    }

    /// The value stored for `value` in `column`, counting a kind the column was not declared for.
    private func boundValue(_ value: ImportRecord.Value, for column: Column) -> BoundValue {
        switch value {
        case .null:
            return .null
        case .bool(let flag):
            if column.type == .text { typeMismatches += 1 }
            return .integer(flag ? 1 : 0)
        case .integer(let integer, let text):
            // Into a TEXT column a number keeps its digits as written.
            if column.type == .text {
                typeMismatches += 1
                return .text(text)
            }
            return .integer(integer)
        case .real(let real, let text):
            if column.type == .text {
                typeMismatches += 1
                return .text(text)
            }
            return .real(real)
        case .bigNumber(let text):
            // Beyond a double's range: the text (SQLite's REAL affinity would make it an
            // infinity); it asks for TEXT itself.
            if column.type != .text { typeMismatches += 1 }
            return .text(text)
        case .string(let text), .json(let text):
            if column.type != .text { typeMismatches += 1 }
            return .text(text)
        }
    }
}
