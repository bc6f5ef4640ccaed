// Streams a JSON:API document into PostgreSQL: the same reading threads and import records as the
// SQLite importer, the same tables and columns, written with COPY ... FROM STDIN straight into the
// tables while no key repeats, else into temporary staging tables moved into place with INSERT ...
// ON CONFLICT; one transaction per batch.

import Foundation
import Logging
import PostgresNIO
@_exported public import SluiceImport
public import SluiceJSON
import SluiceJSONAPI
@_exported public import SluiceJSONAPIImport

/// Imports JSON:API documents into a PostgreSQL database.
///
/// ```swift
/// let target = try PostgresTarget(url: "postgres://importer@127.0.0.1:5432/exports")
/// let importer = try await PostgresImporter.connect(to: target)
/// let summary = try await importer.importDocument(from: try FileChunkReader(path: "export.json"), source: "export.json")
/// try await importer.close()
/// ```
///
/// The schema is the SQLite importer's (see `SQLiteImporter`), with PostgreSQL's types: one table per
/// resource type keyed by `id text COLLATE "C" PRIMARY KEY` (to-one linkage columns in the same
/// collation, so joins back to them use their index), a column per attribute (`text`, `bigint` for
/// integers and Booleans as 0/1, `double precision`, `numeric` for numbers beyond a double,
/// `jsonb` for objects and arrays); `relationships` with `meta jsonb`; `documents` with `meta`,
/// `links` and `jsonapi` as `jsonb`; `sluice_tables` and `sluice_columns`. A value a column's type
/// cannot hold widens the column first (`bigint` to `double precision` or `numeric`, anything to
/// `text`; `jsonb` turned into text keeps PostgreSQL's spelling of it), where SQLite would keep the
/// value under its column affinity.
///
/// Each batch is one transaction, with the `documents` row's counts: its rows are copied straight
/// into their tables (`COPY ... FROM STDIN`) while no key repeats; from a table's first repeated
/// key on (a re-import), they are copied into temporary tables and upserted (`INSERT ... SELECT
/// DISTINCT ON ... ON CONFLICT DO UPDATE`, the last occurrence of a key winning, as in SQLite). A lost connection
/// or a fault in the input stops the import with the batches before it whole; the `documents` row
/// says `failed` (written on a new connection when the old one is gone), and the `resume` option
/// continues from the last committed batch.
///
/// Several imports, from one machine or many, may write one database at once. Only schema changes
/// take turns (a short transaction under an advisory lock that reads the catalog again, so that
/// two imports meeting the same new type or attribute share one table or column); rows go in
/// side by side, a batch that deadlocks with another import's is written again, and a key that
/// several documents carry ends with the value of the batch committed last.
public final class PostgresImporter {
    /// How an import runs (the same options for every target).
    public typealias Options = ImportOptions

    /// The server and database written to.
    public let target: PostgresTarget
    /// How the import runs. Documents that are not plain records are read as JSON:API unless
    /// `ImportOptions.documents` names another reader.
    public var options: Options {
        didSet { options = options.readingJSONAPI }
    }
    private var connection: PostgresConnection
    private let logger: Logger
    private var stagesCreated: Set<String> = []
    /// Staging table names by the signature of what they stage, for the connection's life: its
    /// temporary tables outlive one import (the pages of a URL import share the connection), and
    /// a name must keep its number of columns.
    private var stageNames: [String: String] = [:]

    /// An importer released without ``close()`` closes its connection: otherwise the socket and
    /// the server's backend would stay for the life of the process (and postgres-nio asserts on
    /// it in debug builds). The close runs on the connection's event loop; the closure keeps the
    /// connection until it is done.
    deinit {
        let connection = connection
        guard !connection.isClosed else { return }
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private init(target: PostgresTarget, options: Options, connection: PostgresConnection, logger: Logger) {
        self.target = target
        self.options = options.readingJSONAPI
        self.connection = connection
        self.logger = logger
    }

    /// Connects to `target` and creates the fixed tables when missing (under an advisory lock:
    /// two connections creating one table at once would collide).
    public static func connect(
        to target: PostgresTarget,
        options: Options = Options()
    ) async throws
        -> PostgresImporter
    {
        let logger = Logger(label: "sluice-postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try target.configuration(),
                id: 1,
                logger: logger
            )
        } catch {
            throw PostgresImportError(error, doing: "connecting to \(target)")
        }
        let importer = PostgresImporter(target: target, options: options, connection: connection, logger: logger)
        do {
            // A lock of its own, not the imports' one: a connection opened while an import runs
            // (to watch it, say) must not wait for the import to end.
            // COPY text and bound values are UTF-8 whatever the database's default.
            try await importer.execute(sql: "SET client_encoding = 'UTF8'")
            try await importer.execute(sql: "BEGIN")
            try await importer.execute(sql: "SELECT pg_advisory_xact_lock(\(PostgresSchema.schemaLock))")
            for statement in PostgresSchema.fixedTables { try await importer.execute(sql: statement) }
            try await importer.execute(sql: "COMMIT")
        } catch {
            try? await connection.close()
            throw PostgresImportError(error, doing: "creating the fixed tables")
        }
        return importer
    }

    /// Closes the connection and waits until it is closed. An importer released without this call
    /// closes its connection too, without waiting (on the connection's event loop).
    public func close() async throws {
        try await connection.close()
    }

    /// Runs `sql` (no parameters) and returns its rows, each column as text (`nil` for NULL):
    /// for queries beside the import, as `SQLiteImporter.database` serves. Integers and `numeric`
    /// read in decimal, `double precision` as Swift prints a `Double` (`3.0`, `4.5`), Booleans as
    /// `true` or `false`, `jsonb` as JSON text, text as it is.
    public func rows(_ sql: String) async throws -> [[String?]] {
        var result: [[String?]] = []
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await row in rows {
            var values: [String?] = []
            for cell in row {
                values.append(try Self.text(of: cell))
            }
            result.append(values)
        }
        return result
    }

    private static func text(of cell: PostgresCell) throws -> String? {
        guard cell.bytes != nil else { return nil }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return String(try cell.decode(Int.self))
        case .float4, .float8: return String(try cell.decode(Double.self))
        case .numeric: return "\(try cell.decode(Decimal.self))"
        case .bool: return String(try cell.decode(Bool.self))
        default: return try cell.decode(String.self)
        }
    }

    /// Imports the document `reader` reads, recorded under `source` in `documents`.
    ///
    /// - Parameters:
    ///   - reader: The document, read in chunks; not to be used elsewhere until the call returns.
    ///   - source: The name the import is recorded under (a path or a URL).
    ///   - progress: Called after every block of a few hundred resources and once at the end.
    /// - Throws: `ImportFailure` with the fault (a `PostgresImportError` for the server's, a
    ///   `CancellationError` when the calling task was cancelled) and how many resources were
    ///   committed before it. A cancelled import lets the batch it is writing finish (a COPY is
    ///   not broken off mid-stream) and stops before the next one: the batches before it whole,
    ///   nothing read after them committed, and its `documents` row says `failed`.
    @discardableResult
    public func importDocument(
        from reader: any ChunkSource,
        source: String,
        progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> ImportSummary {
        try await importDocument(ImportDocument(reading: reader, source: source, options: options, progress: progress))
    }

    /// Whether `error` is a fault of the input (its bytes, its JSON:API, the resume point), which
    /// is reported as it is; any other fault is the connection's or the server's.
    static func isInputFault(_ error: any Error) -> Bool {
        error is JSONError || error is JSONAPIDecodingError || error is JSONAPIErrorDocument
            || error is FileChunkReader.Failure || error is ImportResumeError || error is ImportTooManyFaults
    }

    // MARK: Statements

    /// Runs SQL text as it is (identifiers already quoted; no values in it).
    func execute(sql: String) async throws {
        try await execute(PostgresQuery(unsafeSQL: sql))
    }

    func execute(_ query: PostgresQuery) async throws {
        let (connection, logger) = (connection, logger)
        try await untilClosed { _ in _ = try await connection.query(query, logger: logger) }
    }

    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let (connection, logger) = (connection, logger)
        return try await untilClosed { _ in try await connection.query(query, logger: logger).collect() }
    }

    /// Runs `operation` on the connection and returns its answer, or throws ``ConnectionClosed``
    /// as soon as the connection closes, whichever comes first; the caller's cancellation reaches
    /// the operation. It runs as a task preferring `executor` (the connection's event loop, for a
    /// COPY), and is handed the outcome it may settle itself (a COPY that finds the connection
    /// gone reports that and stays suspended).
    ///
    /// Why: postgres-nio 1.33 leaves an operation waiting for good when the server ends the
    /// connection as it is sent (a look at `isClosed` first narrows that window but cannot shut
    /// it), and the import, waiting with it, never ended. The close itself is now an answer. An
    /// operation left waiting is abandoned: its task stays suspended, holding the closed
    /// connection.
    private func untilClosed<Value: Sendable>(
        on executor: (any TaskExecutor)? = nil,
        _ operation: @escaping @Sendable (FirstOutcome<Value>) async throws -> Value
    ) async throws -> Value {
        // Closed already (the server ended it, or the network failed): nothing is sent.
        if connection.isClosed { throw ConnectionClosed() }
        let closed = connection.closeFuture
        let handle = OperationTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let outcome = FirstOutcome(continuation)
                closed.whenComplete { _ in outcome.resume(with: .failure(ConnectionClosed())) }
                handle.set(
                    Task(executorPreference: executor) {
                        do {
                            outcome.resume(with: .success(try await operation(outcome)))
                        } catch {
                            outcome.resume(with: .failure(error))
                        }
                    }
                )
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// The connection closed under the import.
    struct ConnectionClosed: Error {}

    /// The staging table for rows of `signature` (a type and its column set), with `columns`
    /// columns, named in lowercase letters, digits and underscores: postgres-nio quotes the name in
    /// COPY, and unquoted elsewhere it must name the same table.
    func stageName(for signature: String, columns: Int) -> String {
        if let known = stageNames[signature] { return known }
        let name = "sluice_stage_\(stageNames.count + 1)_\(columns)"
        stageNames[signature] = name
        return name
    }

    /// Forgets which staging tables exist, after a rollback that may have taken new ones with it:
    /// each is made again (`IF NOT EXISTS`) when next used.
    func forgetStagingTables() {
        stagesCreated = []
    }

    /// Copies `rows` (COPY's text format) into the staging table `stage`, created on first use with
    /// `columns` text columns after its `ord` (temporary, emptied at each commit; `ord` numbers
    /// the rows in the order copied, which is the document's: the last of a key wins).
    func copy(_ rows: [UInt8], into stage: String, columns: Int) async throws {
        if !stagesCreated.contains(stage) {
            let definitions = (["ord bigserial"] + (0..<columns).map { "c\($0) text COLLATE \"C\"" })
                .joined(separator: ", ")
            try await execute(
                sql: "CREATE TEMPORARY TABLE IF NOT EXISTS \(stage) (\(definitions)) ON COMMIT DELETE ROWS"
            )
            stagesCreated.insert(stage)
        }
        try await copy(rows, into: stage, columns: (0..<columns).map { "c\($0)" })
    }

    /// Copies `rows` into `table`'s `columns` as they are (names without a double quote: postgres-nio
    /// puts each in quotes without escaping).
    ///
    /// Why the detour: postgres-nio 1.33 stops the process (a precondition) when its COPY finds
    /// the connection gone: in a write, and in the `CopyDone` or `CopyFail` it sends once the
    /// writing closure ends, whichever way it ends. So the COPY runs as a task on the connection's
    /// event loop, where the closure sees the channel as the connection's state machine does:
    /// while it is active, the closure returns and `CopyDone` follows on the same thread before
    /// any other event; once it is not, the closure reports the loss and never returns, leaving
    /// that one COPY suspended for good instead of the process stopped.
    ///
    /// The connection's close ends the wait too (see ``untilClosed(on:_:)``): a COPY begun as the
    /// server ended the connection may never reach its writing closure.
    func copy(_ rows: [UInt8], into table: String, columns: [String]) async throws {
        let (connection, logger) = (connection, logger)
        try await untilClosed(on: EventLoopTaskExecutor(connection.eventLoop)) { outcome in
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                try await Self.writeWhileOpen(rows, with: writer, on: connection, outcome: outcome)
            }
        }
    }

    /// The COPY's one write (the channel still streams it to the server, which parses as it
    /// arrives), between looks at the connection: see `copy(_:into:columns:)`. Runs on the
    /// connection's event loop.
    private static func writeWhileOpen(
        _ rows: [UInt8],
        with writer: PostgresCopyFromWriter,
        on connection: PostgresConnection,
        outcome: FirstOutcome<Void>
    ) async throws {
        if connection.isClosed { await abandonCopy(outcome) }
        do {
            try await writer.write(ByteBuffer(bytes: rows))
        } catch {
            if connection.isClosed { await abandonCopy(outcome) }
            throw error
        }
        if connection.isClosed { await abandonCopy(outcome) }
    }

    /// Reports the lost connection through `outcome` and suspends the COPY for good.
    private static func abandonCopy(_ outcome: FirstOutcome<Void>) async -> Never {
        outcome.resume(with: .failure(ConnectionClosed()))
        // Never resumed: an unsafe continuation, which has no leak check to complain of it.
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        preconditionFailure("an abandoned COPY was resumed")
    }

    /// Runs `sql` on a new connection, which replaces the import's own (gone after a connection
    /// loss): how the `documents` row still says `failed`. Does nothing when no connection can be made.
    func executeOnNewConnection(_ sql: PostgresQuery) async {
        if await reconnect() { try? await execute(sql) }
    }

    /// The resources the `documents` row of `source` records as committed, read on the import's
    /// connection or, when that is gone, on a new one that replaces it; `nil` when neither answers.
    func recordedResources(source: String) async -> Int? {
        let sql: PostgresQuery = "SELECT resources FROM documents WHERE source = \(source)"
        var rows = connection.isClosed ? nil : try? await query(sql)
        if rows == nil, await reconnect() { rows = try? await query(sql) }
        guard let row = rows?.first else { return nil }
        return try? row.decode(Int?.self)
    }

    /// Replaces the import's connection with a new one; false when none can be made.
    private func reconnect() async -> Bool {
        guard let configuration = try? target.configuration(),
            let fresh = try? await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        else { return false }
        try? await connection.close()
        connection = fresh
        stagesCreated = []
        stageNames = [:]
        return true
    }
}

extension PostgresImporter: ImportDestination {
    /// The target's URL without its password.
    public var destinationName: String { target.description }

    /// `true`: imports write one database side by side, each on a connection of its own.
    public static var allowsConcurrentDocuments: Bool { true }

    /// Runs `document` on the calling task, through a writer on this importer's connection.
    public func importDocument(_ document: ImportDocument) async throws -> ImportSummary {
        try await document.run(through: PostgresSession(importer: self))
    }

    /// The `documents` row of `source`, if there is one (none before the first import made the
    /// table).
    public func recordedDocument(source: String) async throws -> RecordedDocument? {
        let exists = try await query("SELECT to_regclass('documents') IS NOT NULL")
        guard try exists.first?.decode(Bool.self) == true else { return nil }
        let rows = try await query("SELECT status, primary_count, links::text FROM documents WHERE source = \(source)")
        guard let row = rows.first else { return nil }
        let (status, primaryCount, links) = try row.decode((String, Int?, String?).self)
        return RecordedDocument(
            source: source,
            isComplete: status == "complete",
            primaryCount: primaryCount,
            links: links
        )
    }
}
