// Key columns (a type table's `id`, a to-one relationship's `NAME_id`, `relationships.source_id`
// and `target_id`) are INTEGER while every id they hold is a canonical decimal, as most servers'
// ids are: SQLite then keeps a type's rows in its rowid B-tree in id order, with no second index
// of text keys, and compares integers where it would compare strings (Benchmarks/SQLiteFloor
// measures the difference; the performance page has it). The first id that is not one
// (`"007"`, `"a1"`, a UUID) rebuilds the table with the column as TEXT, every id turned into the text it was read from, in the open batch's
// transaction. Queries need not care: an INTEGER column compares with a text such as '42' as
// with 42, and joins between an INTEGER and a TEXT key column compare numerically.

import GRDB
import SluiceImport

extension SQLiteResourceWriter {
    /// The value the row of `key` is keyed by in `table`: its integer while the table's keys are,
    /// else its text (after turning the table's keys into text when this one cannot be an integer).
    func keyValue(_ key: UnsafeRawBufferPointer, in table: TypeTable) throws -> BoundValue {
        guard table.integerKeys == true else { return .text(key) }
        if let number = Self.integerKey(key) { return .integer(number) }
        try convertToText(table, columns: [])
        return .text(key)
    }

    /// An id as `relationships` stores it (see `keyValue`).
    func linkKey(_ key: UnsafeRawBufferPointer) throws -> BoundValue {
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
    func convertToText(_ table: TypeTable, columns ordinals: [Int]) throws {
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
    func rebuild(table name: String, textColumns: Set<String>, primaryKey: [String], withoutRowID: Bool) throws {
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
    static func declaredType(of column: String, in table: String, _ db: Database) throws -> String? {
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

    func hasEarlierLinks(_ table: TypeTable) throws -> Bool {
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
}
