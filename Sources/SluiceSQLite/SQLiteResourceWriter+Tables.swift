// A resource type's table as the import meets it: made on its first resource, given a column per
// new attribute, and the upsert statements that write its queued rows.

import GRDB
import SluiceImport
import SluiceJSON

extension SQLiteResourceWriter {
    /// The table of the type spelled `bytes`: the last one when it is the same type again.
    /// `firstKey` decides the key column of a table made now.
    func table(for bytes: UnsafeRawBufferPointer, firstKey: UnsafeRawBufferPointer) throws -> TypeTable {
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
    func table(for type: String, firstKey: UnsafeRawBufferPointer) throws -> TypeTable {
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
    func addColumn(_ attribute: String, _ type: DeclaredType, to table: TypeTable) throws -> Column {
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
    func upsertStatement(for table: TypeTable, columns: [Int], rows: Int) throws -> Statement {
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
