import GRDB
import GRDBSQLite

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
