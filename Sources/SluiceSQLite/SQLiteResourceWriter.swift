// Writes resources into their types' tables and their linkage into `relationships`, growing the
// schema as types and attributes appear; rows are queued and run several to a statement
// (SQLiteRowQueue.swift). Lives for one import, inside the importer's database access, so it can
// hold prepared statements.
//
// Key columns (a type table's `id`, a to-one relationship's `NAME_id`, `relationships.source_id`
// and `target_id`) are INTEGER while every id they hold is a canonical decimal, as most servers'
// ids are: SQLite then keeps a type's rows in its rowid B-tree in id order, with no second index
// of text keys, and compares integers where it would compare strings (Benchmarks/SQLiteFloor
// measures the difference; the performance page has it). The first id that is not one
// (`"007"`, `"a1"`, a UUID) rebuilds the table with the column as TEXT, every id turned into the text it was read from, in the open batch's
// transaction. Queries need not care: an INTEGER column compares with a text such as '42' as
// with 42, and joins between an INTEGER and a TEXT key column compare numerically.

import Foundation
import GRDB
import GRDBSQLite
import SluiceImport
import SluiceJSON

/// A value bound to a statement parameter. Bound through sqlite3's C API, not GRDB's
/// `StatementArguments`: building those (an existential per value, a dispatch-queue check per
/// execution) took as long as SQLite's own work on an import (callgrind and perf).
enum BoundValue {
    case null
    case integer(Int64)
    case real(Double)
    /// UTF-8 that outlives the statement's step (a record's bytes, or their copy in a
    /// `TextArena`).
    case text(UnsafeRawBufferPointer)
}

/// SQLite reads a text bound with this destructor where it is, for as long as the binding stays
/// (a reset keeps it). Safe here because the bytes (a record's, or the arena's copy of a queued
/// row's) outlive the step, and every parameter is bound again before the statement's next step.
private let staticText = unsafeBitCast(0, to: sqlite3_destructor_type.self)

/// A non-null address for an empty text: a null pointer would bind NULL, not "".
private var emptyText: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

extension Statement {
    /// Binds `values` to parameters 1... and runs the statement to completion.
    /// (Every use resets the statement after its step, so it is ready for the next.)
    func run(_ values: some Collection<BoundValue>, on db: Database) throws {
        let statement = sqliteStatement
        var index: Int32 = 1
        for value in values {
            switch value {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let integer): sqlite3_bind_int64(statement, index, integer)
            case .real(let real): sqlite3_bind_double(statement, index, real)
            case .text(let text):
                let start = text.count == 0 ? emptyText : text.baseAddress ?? emptyText
                _ = sqlite3_bind_text64(
                    statement,
                    index,
                    start.assumingMemoryBound(to: CChar.self),
                    UInt64(text.count),
                    staticText,
                    UInt8(SQLITE_UTF8)
                )
            }
            index += 1
        }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            let message = db.lastErrorMessage
            sqlite3_reset(statement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        sqlite3_reset(statement)
    }
}

/// Its state is used by the import's thread alone, one access at a time: the hot properties
/// skip the run-time exclusivity check (`@exclusivity(unchecked)`), which was about a tenth of the
/// writer's own work per resource.
final class SQLiteResourceWriter {
    private let db: Database
    /// Tables by resource type.
    private var tables: [String: TypeTable] = [:]
    /// Every table and index name in the database, lowercased (SQLite's names ignore ASCII case,
    /// and tables and indexes share one namespace).
    private var takenTableNames: Set<String>
    private let deleteRelationship: Statement
    /// Relationship rows: one at a time, and a full queue of them at a time.
    private let insertRelationship: Statement
    private let insertRelationships: Statement
    /// Queued relationship rows, and the texts of every queued row (see `RowQueue`).
    @exclusivity(unchecked) private var links = RowQueue()
    /// Whether `relationships.source_id` and `target_id` are INTEGER (see the file's comment).
    @exclusivity(unchecked) private var integerLinks: Bool
    private let arena = TextArena()
    /// SQLite's most parameters a statement may have.
    private let variableLimit: Int32
    /// The table of the resource written last.
    @exclusivity(unchecked) private var lastTable: TypeTable?
    /// The tables this import wrote to, in the order first met.
    private var tablesWritten: [TypeTable] = []

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

    // MARK: Key columns

    /// The value the row of `key` is keyed by in `table`: its integer while the table's keys are,
    /// else its text (after turning the table's keys into text when this one cannot be an integer).
    private func keyValue(_ key: UnsafeRawBufferPointer, in table: TypeTable) throws -> BoundValue {
        guard table.integerKeys == true else { return .text(key) }
        if let number = Self.integerKey(key) { return .integer(number) }
        try convertToText(table, columns: [])
        return .text(key)
    }

    /// An id as `relationships` stores it (see `keyValue`).
    private func linkKey(_ key: UnsafeRawBufferPointer) throws -> BoundValue {
        guard integerLinks else { return .text(key) }
        if let number = Self.integerKey(key) { return .integer(number) }
        try flush()
        try rebuild(
            table: "relationships",
            textColumns: ["source_id", "target_id"],
            primaryKey: ["source_type", "source_id", "name", "position"],
            withoutRowID: true
        )
        integerLinks = false
        return .text(key)
    }

    /// Turns `table`'s key (unless it is text already) and the columns at `ordinals` into TEXT.
    private func convertToText(_ table: TypeTable, columns ordinals: [Int]) throws {
        try flush()
        var names = ordinals.map { table.columnName($0) }
        if table.integerKeys == true { names.append("id") }
        try rebuild(table: table.name, textColumns: Set(names), primaryKey: ["id"], withoutRowID: false)
        table.integerKeys = false
        for ordinal in ordinals {
            table.catalog.retype(ordinal, to: .text)
            try db.execute(
                sql: "UPDATE sluice_columns SET declared_type = 'TEXT' WHERE type = ? AND column_name = ?",
                arguments: [table.type, table.columnName(ordinal)]
            )
        }
        // Prepared against the old table (SQLite would prepare them again, but once is enough).
        table.upserts = [:]
    }

    /// Rebuilds the table `name` with the columns `textColumns` declared TEXT and their values
    /// turned into text (a canonical decimal's text is the id it was read from), its other
    /// columns, primary key and indexes as they were. Runs in the open transaction, so the batch
    /// commits with it or not at all.
    private func rebuild(table name: String, textColumns: Set<String>, primaryKey: [String], withoutRowID: Bool) throws
    {
        let quotedName = ImportNames.quoted(name)
        let columns = try Row.fetchAll(
            db,
            sql: "SELECT name, type, \"notnull\" FROM pragma_table_info(?)",
            arguments: [name]
        )
        let indexes = try String.fetchAll(
            db,
            sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [name]
        )
        let temporary = ImportNames.unique("sluice_rebuilding", avoiding: takenTableNames)
        var definitions: [String] = []
        var copied: [String] = []
        var selected: [String] = []
        for column in columns {
            let column: (name: String, type: String, notNull: Bool) = (
                column["name"], column["type"], column["notnull"]
            )
            let quoted = ImportNames.quoted(column.name)
            let toText = textColumns.contains(column.name)
            definitions.append("\(quoted) \(toText ? "TEXT" : column.type)\(column.notNull ? " NOT NULL" : "")")
            copied.append(quoted)
            selected.append(toText ? "CAST(\(quoted) AS TEXT)" : quoted)
        }
        definitions.append("PRIMARY KEY (\(primaryKey.map(ImportNames.quoted).joined(separator: ", ")))")
        let quotedTemporary = ImportNames.quoted(temporary)
        try db.execute(
            sql:
                "CREATE TABLE \(quotedTemporary) (\(definitions.joined(separator: ", ")))\(withoutRowID ? " WITHOUT ROWID" : "")"
        )
        try db.execute(
            sql: """
                INSERT INTO \(quotedTemporary) (\(copied.joined(separator: ", ")))
                SELECT \(selected.joined(separator: ", ")) FROM \(quotedName)
                """
        )
        try db.execute(sql: "DROP TABLE \(quotedName)")
        try db.execute(sql: "ALTER TABLE \(quotedTemporary) RENAME TO \(quotedName)")
        for index in indexes { try db.execute(sql: index) }
    }

    /// The declared type of `column` in `table`, uppercased; `nil` when there is no such column.
    private static func declaredType(of column: String, in table: String, _ db: Database) throws -> String? {
        try String.fetchOne(
            db,
            sql: "SELECT upper(type) FROM pragma_table_info(?) WHERE name = ?",
            arguments: [table, column]
        )
    }

    /// The indexes on the to-one id columns of the tables this import wrote: joins from a
    /// related resource back to those that link to it (made at the end of an import, which is
    /// cheaper than growing them row by row on the first).
    func createToOneIndexes() throws {
        // An index's name is fixed, so a later import finds it made; only a table or view that
        // took the name first makes it another.
        let tableNames = Set(
            try String.fetchAll(db, sql: "SELECT lower(name) FROM sqlite_master WHERE type IN ('table', 'view')")
        )
        for table in tablesWritten {
            for column in table.toOneIDColumns {
                let name = ImportNames.unique(
                    ImportNames.index(table: table.name, column: table.columnName(column.ordinal)),
                    avoiding: tableNames
                )
                let index = ImportNames.quoted(name)
                let quoted = table.quotedColumnName(column.ordinal)
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(index) ON \(table.quotedName) (\(quoted))")
            }
        }
    }

    private func hasEarlierLinks(_ table: TypeTable) throws -> Bool {
        if let known = table.hasEarlierLinks { return known }
        let found =
            try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM relationships WHERE source_type = ?)",
                arguments: [table.type]
            )
            ?? false
        table.hasEarlierLinks = found
        return found
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

    /// The table of the type spelled `bytes`: the last one when it is the same type again.
    /// `firstKey` decides the key column of a table made now.
    private func table(for bytes: UnsafeRawBufferPointer, firstKey: UnsafeRawBufferPointer) throws -> TypeTable {
        if let lastTable, lastTable.catalog.typeBytes.withUnsafeBytes({ $0.hasSameBytes(as: bytes) }) {
            return lastTable
        }
        let table = try table(for: String(decoding: bytes, as: UTF8.self), firstKey: firstKey)
        if table.integerKeys == nil {
            // A table an earlier import made: its key column says.
            table.integerKeys = try Self.declaredType(of: "id", in: table.name, db) == "INTEGER"
        }
        lastTable = table
        if !tablesWritten.contains(where: { $0 === table }) { tablesWritten.append(table) }
        return table
    }

    /// The table of `type`, created on first sight: keyed by INTEGER when `firstKey` is a
    /// canonical decimal.
    private func table(for type: String, firstKey: UnsafeRawBufferPointer) throws -> TypeTable {
        if let known = tables[type] { return known }
        let name = ImportNames.table(for: type, avoiding: takenTableNames)
        let table = TypeTable(type: type, name: name)
        let integerKeys = Self.integerKey(firstKey) != nil
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS \(table.quotedName) (id \(integerKeys ? "INTEGER" : "TEXT") PRIMARY KEY)"
        )
        table.integerKeys = integerKeys
        try db.execute(sql: "INSERT INTO sluice_tables (type, table_name) VALUES (?, ?)", arguments: [type, name])
        takenTableNames.insert(name.lowercased())
        tables[type] = table
        return table
    }

    /// Adds and records the column of `attribute` (or of a to-one column's key).
    private func addColumn(_ attribute: String, _ type: DeclaredType, to table: TypeTable) throws -> Column {
        let name = ImportNames.column(for: attribute, avoiding: table.catalog.takenColumns)
        try db.execute(
            sql: "ALTER TABLE \(table.quotedName) ADD COLUMN \(ImportNames.quoted(name)) \(type.rawValue)"
        )
        try db.execute(
            sql: "INSERT INTO sluice_columns (type, attribute, column_name, declared_type) VALUES (?, ?, ?, ?)",
            arguments: [table.type, attribute, name, type.rawValue]
        )
        return table.add(attribute, name: name, type: type)
    }

    /// `INSERT ... ON CONFLICT (id) DO UPDATE` of `rows` rows for a set of columns, prepared once
    /// per column set and number of rows. SQLite upserts the rows of one statement in order, as if
    /// one by one.
    private func upsertStatement(for table: TypeTable, columns: [Int], rows: Int) throws -> Statement {
        let shape = UpsertShape(columns: columns, rows: rows)
        if let known = table.upserts[shape] { return known }
        let quoted = columns.map { table.quotedColumnName($0) }
        let names = (["id"] + quoted).joined(separator: ", ")
        let row = "(" + Array(repeating: "?", count: quoted.count + 1).joined(separator: ", ") + ")"
        let values = Array(repeating: row, count: rows).joined(separator: ", ")
        let updates = quoted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates)"
        let statement = try db.makeStatement(
            sql: "INSERT INTO \(table.quotedName) (\(names)) VALUES \(values) ON CONFLICT (id) \(conflict)"
        )
        table.upserts[shape] = statement
        return statement
    }

    /// What an upsert statement is prepared for: the columns its rows set, and how many rows.
    struct UpsertShape: Hashable {
        let columns: [Int]
        let rows: Int
    }
}
