// Writes one resource at a time into its type's table and its linkage into `relationships`,
// growing the schema as types and attributes appear. Lives for one import, inside the importer's
// database access, so it can hold prepared statements.

import Foundation
import GRDB
import GRDBSQLite
import SluiceJSON
import SluiceJSONAPI

/// A value bound to a statement parameter. Bound through sqlite3's C API, not GRDB's
/// `StatementArguments`: building those (an existential per value, a dispatch-queue check per
/// execution) took as long as SQLite's own work on an import (callgrind and perf).
enum BoundValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// SQLite copies the bytes of a text bound with this destructor before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

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
            case .text(var text):
                text.withUTF8 { bytes in
                    // A null pointer would bind NULL, not "": an empty string gets a real one.
                    guard let start = bytes.baseAddress else {
                        _ = sqlite3_bind_text64(statement, index, "", 0, transient, UInt8(SQLITE_UTF8))
                        return
                    }
                    _ = sqlite3_bind_text64(statement, index, start, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
                }
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

final class SQLiteResourceWriter {
    private let db: Database
    /// Tables by resource type.
    private var tables: [String: TypeTable] = [:]
    /// Every table name in the database, lowercased (SQLite's names ignore ASCII case).
    private var takenTableNames: Set<String>
    private let deleteRelationship: Statement
    private let insertRelationship: Statement
    private(set) var relationshipRows = 0
    private(set) var typeMismatches = 0
    /// Reused per resource: the columns (by ordinal) and values of the row being written.
    private var rowColumns: [Int] = []
    private var rowValues: [BoundValue] = []
    /// Whether a type had relationship rows when the import first met it: only then can a
    /// resource's linkage replace earlier rows, which must be deleted first. A fresh import
    /// skips a delete per relationship (a third of its SQLite work).
    private var typesWithEarlierLinks: [String: Bool] = [:]

    /// The SQL type a column is declared with, after its attribute's first non-null value.
    enum DeclaredType: String {
        case text = "TEXT"
        case integer = "INTEGER"
        case real = "REAL"

        /// The type `value` asks for; `nil` for `null`, which makes no column.
        init?(for value: JSONValue) {
            switch value {
            case .null: return nil
            case .bool: self = .integer
            case .number(let text):
                if Int64(text) != nil {
                    self = .integer
                } else if let real = Double(text), real.isFinite {
                    self = .real
                } else {
                    // Beyond a double's range: kept as its text (a REAL column would make it an
                    // infinity).
                    self = .text
                }
            case .string, .array, .object: self = .text
            }
        }
    }

    struct Column {
        /// Its index among its table's columns: rows name their columns by it, so comparing
        /// and looking up column sets costs integer compares, not string ones.
        let ordinal: Int
        let quoted: String
        let type: DeclaredType
    }

    final class TypeTable {
        let type: String
        let quotedName: String
        /// Columns by attribute name.
        var columns: [String: Column] = [:]
        /// Quoted column names by ordinal.
        var quotedNames: [String] = []
        /// Column names in use, lowercased; `id` always.
        var takenColumns: Set<String> = ["id"]
        /// Upserts by the ordinals of the columns they set (resources of a type mostly share
        /// one set, so this holds a statement or two).
        var upserts: [[Int]: Statement] = [:]

        /// Adds a column named `name` for `attribute`.
        func add(_ attribute: String, name: String, type: DeclaredType) -> Column {
            let column = Column(ordinal: quotedNames.count, quoted: SQLiteSchemaNames.quoted(name), type: type)
            quotedNames.append(column.quoted)
            columns[attribute] = column
            takenColumns.insert(name.lowercased())
            return column
        }

        init(type: String, name: String) {
            self.type = type
            self.quotedName = SQLiteSchemaNames.quoted(name)
        }
    }

    init(db: Database) throws {
        self.db = db
        takenTableNames = Set(
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").map {
                $0.lowercased()
            }
        )
        deleteRelationship = try db.makeStatement(
            sql: "DELETE FROM relationships WHERE source_type = ? AND source_id = ? AND name = ?"
        )
        insertRelationship = try db.makeStatement(
            sql: """
                INSERT INTO relationships (source_type, source_id, name, position, target_type, target_id, meta)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO UPDATE SET target_type = excluded.target_type, target_id = excluded.target_id,
                    meta = excluded.meta
                """
        )
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

    /// Writes `resource`; `false` when it has neither `id` nor `lid` and so cannot be keyed.
    func write(_ resource: RawResource) throws -> Bool {
        guard let key = resource.id ?? resource.lid else { return false }
        let table = try table(for: resource.type)
        rowColumns.removeAll(keepingCapacity: true)
        rowValues.removeAll(keepingCapacity: true)
        rowValues.append(.text(key))
        let attributes = resource.attributes
        for (name, value) in zip(attributes.keys, attributes.values) {
            let column: Column
            if let known = table.columns[name] {
                column = known
            } else {
                // A null before any value makes no column: an absent column reads as NULL.
                guard let type = DeclaredType(for: value) else { continue }
                column = try addColumn(name, type, to: table)
            }
            let stored = boundValue(value, for: column)
            // A member named twice: the last value wins, as for the readers.
            if let earlier = rowColumns.firstIndex(of: column.ordinal) {
                rowValues[earlier + 1] = stored
            } else {
                rowColumns.append(column.ordinal)
                rowValues.append(stored)
            }
        }
        try upsertStatement(for: table).run(rowValues, on: db)
        guard !resource.relationshipNames.isEmpty else { return true }
        let replacesLinks = try hasEarlierLinks(resource.type)
        for (name, relationship) in zip(resource.relationshipNames, resource.relationshipValues) {
            guard let linkage = relationship.data else { continue }
            // The linkage replaces what an earlier import wrote for this relationship.
            if replacesLinks { try deleteRelationship.run([.text(resource.type), .text(key), .text(name)], on: db) }
            // The relationship's meta rides on each of its rows, so a join on the links sees it
            // without a second table.
            let meta = relationship.meta.map { BoundValue.text($0.jsonText) } ?? .null
            switch linkage {
            case .null: break
            case .one(let identifier): try writeLink(resource.type, key, name, 0, identifier, meta)
            case .many(let identifiers):
                for (position, identifier) in identifiers.enumerated() {
                    try writeLink(resource.type, key, name, position, identifier, meta)
                }
            }
        }
        return true
    }

    private func writeLink(
        _ type: String,
        _ key: String,
        _ name: String,
        _ position: Int,
        _ identifier: ResourceIdentifier,
        _ meta: BoundValue
    ) throws {
        guard let target = identifier.id ?? identifier.lid else { return }
        try insertRelationship.run(
            [
                .text(type), .text(key), .text(name), .integer(Int64(position)), .text(identifier.type), .text(target),
                meta,
            ],
            on: db
        )
        relationshipRows += 1
    }

    private func hasEarlierLinks(_ type: String) throws -> Bool {
        if let known = typesWithEarlierLinks[type] { return known }
        let found =
            try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM relationships WHERE source_type = ?)",
                arguments: [type]
            )
            ?? false
        typesWithEarlierLinks[type] = found
        return found
    }

    /// The value stored for `value` in `column`, counting a kind the column was not declared for.
    private func boundValue(_ value: JSONValue, for column: Column) -> BoundValue {
        switch value {
        case .null:
            return .null
        case .bool(let flag):
            if column.type == .text { typeMismatches += 1 }
            return .integer(flag ? 1 : 0)
        case .number(let text):
            // Into a TEXT column a number keeps its digits as written.
            if column.type == .text {
                // (A number beyond a double's range asks for TEXT itself.)
                if DeclaredType(for: value) != .text { typeMismatches += 1 }
                return .text(text)
            }
            if let integer = Int64(text) { return .integer(integer) }
            if let real = Double(text), real.isFinite { return .real(real) }
            // Beyond a double's range: the text (SQLite's REAL affinity makes it an infinity).
            typeMismatches += 1
            return .text(text)
        case .string(let text):
            if column.type != .text { typeMismatches += 1 }
            return .text(text)
        case .array, .object:
            if column.type != .text { typeMismatches += 1 }
            return .text(value.jsonText)
        }
    }

    /// The table of `type`, created on first sight.
    private func table(for type: String) throws -> TypeTable {
        if let known = tables[type] { return known }
        let wanted = SQLiteSchemaNames.isReservedTable(type) ? "\(type)_resources" : type
        let name = SQLiteSchemaNames.unique(wanted, avoiding: takenTableNames)
        let table = TypeTable(type: type, name: name)
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table.quotedName) (id TEXT PRIMARY KEY)")
        try db.execute(sql: "INSERT INTO sluice_tables (type, table_name) VALUES (?, ?)", arguments: [type, name])
        takenTableNames.insert(name.lowercased())
        tables[type] = table
        return table
    }

    private func addColumn(_ attribute: String, _ type: DeclaredType, to table: TypeTable) throws -> Column {
        let wanted = attribute.lowercased() == "id" ? "\(attribute)_attribute" : attribute
        let name = SQLiteSchemaNames.unique(wanted, avoiding: table.takenColumns)
        try db.execute(
            sql: "ALTER TABLE \(table.quotedName) ADD COLUMN \(SQLiteSchemaNames.quoted(name)) \(type.rawValue)"
        )
        try db.execute(
            sql: "INSERT INTO sluice_columns (type, attribute, column_name, declared_type) VALUES (?, ?, ?, ?)",
            arguments: [table.type, attribute, name, type.rawValue]
        )
        return table.add(attribute, name: name, type: type)
    }

    /// `INSERT ... ON CONFLICT (id) DO UPDATE` for the columns of the current row, prepared once
    /// per column set (resources of a type mostly share one).
    private func upsertStatement(for table: TypeTable) throws -> Statement {
        if let known = table.upserts[rowColumns] { return known }
        let quoted = rowColumns.map { table.quotedNames[$0] }
        let names = (["id"] + quoted).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: quoted.count + 1).joined(separator: ", ")
        let updates = quoted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates)"
        let statement = try db.makeStatement(
            sql: "INSERT INTO \(table.quotedName) (\(names)) VALUES (\(placeholders)) ON CONFLICT (id) \(conflict)"
        )
        table.upserts[rowColumns] = statement
        return statement
    }
}
