import ArgumentParser
import Foundation
import SluiceHTTP
import SluiceImport
import SluiceJSON
import SluiceJSONAPI
import SluicePostgres
import SluiceSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `sluice import`: a JSON:API document streamed into SQLite or PostgreSQL.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Imports JSON:API documents or plain JSON (JSON Lines, arrays of objects) into SQLite or PostgreSQL, as a stream.",
        discussion: """
            Plain JSON (see --format for how it is told from JSON:API) goes into one table, --table \
            (default: the file's name without extensions), a row per record and a column per member \
            with the types below; the records are the lines of a JSON Lines file, the elements of an \
            array (the one at --at POINTER, or the top-level one), or one object. Nested objects \
            become columns named by their path (--nested flatten, the default), stay JSON text \
            (--nested json), or, with arrays, rows of child tables (--nested tables). A record's id is \
            its --pk members' value, else FILE:LINE (or FILE:INDEX), so a re-import updates either \
            way. A bad line stops the import at FILE:LINE:COLUMN, as any fault does.

            Every resource, primary or included, becomes a row of the table named as its type, keyed \
            by its id (its lid when it has none), with one column per attribute: TEXT, INTEGER or REAL \
            after the attribute's first value, objects and arrays as JSON text, Booleans as 0 or 1, null \
            as NULL. Columns are added as new attributes appear. Every identifier of a relationship's \
            linkage becomes a row of relationships(source_type, source_id, name, position, target_type, \
            target_id), and the document a row of documents with its status, meta, links and counts.

            With --postgres URL the same tables go into a PostgreSQL database (objects and arrays as \
            jsonb, numbers beyond a double as numeric), written with COPY in one transaction per \
            batch. The URL is postgres://USER@HOST:PORT/DATABASE?sslmode=MODE (disable, prefer, \
            require, verify-full); the password comes from the URL or PGPASSWORD and is never printed.

            Rows are written in transactions of --batch-size resources, so an import that is stopped \
            leaves every committed batch whole. Importing the same document again updates the rows \
            instead of adding new ones; --resume instead continues an interrupted import of the same \
            file from its last committed batch (the documents row records how far it got). A name \
            ending in .gz is read through gzip. The summary gives rows per second for each table.

            Given an http or https URL, each page is imported as it arrives and the next link is \
            followed to the last page (a documents row per page); --header adds request headers \
            (credentials are never printed). A page without a next link whose last link names \
            another page draws a warning: the server stopped early, and what lies between was not read.

            Several documents (files, and directories standing for their .json, .jsonl, .ndjson and \
            .json-seq files, each also .gz) \
            are imported in one run, each with its own documents row, progress lines and resume \
            point; a file named twice goes once. Into PostgreSQL, --jobs of them go at once \
            (default: the cores), each read on one thread; into SQLite, whose file has one writer, \
            one after another. A document that \
            fails is reported with its position and the others go on; the summary has a line per \
            document and the totals, and the exit code is the worst document's.

            On a terminal, progress (bytes read of the total, resources per second, elapsed and \
            remaining time) is updated in place on standard error; otherwise a line is printed every \
            --progress-interval seconds. A fault in the input stops the import with \
            FILE:LINE:COLUMN: POINTER: message; what was committed stays, and the message says how many \
            resources that is. With --on-fault skip, a fault of one record sets it aside in the faults \
            table instead, and the import goes on. The exit code is 0 on success, 1 when the input is \
            invalid (or records were set aside), 2 when \
            it cannot be read, the database cannot be written or the command is called wrongly, and 3 \
            when the input is a JSON:API error document.

            Examples:
              sluice import export.json
              sluice import export.json.gz --sqlite /var/tmp/export.sqlite --batch-size 20000
              PGPASSWORD=secret sluice import export.json --postgres postgres://importer@db:5432/exports
              sluice import export.json --resume
              sluice import events.ndjson.gz --pk id --table events
              sluice import users.json --at /results --nested tables
              sluice import exports/ part-7.json.gz --postgres postgres://importer@db:5432/exports --jobs 4
              sluice generate --articles 1000 | sluice import - --quiet
              sluice import 'https://api.example.com/articles?page[size]=500' -H 'Authorization: Bearer $TOKEN'
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The documents to import: files, directories (their .json, .jsonl, .ndjson and .json-seq files, also .gz), - for standard input (the default), or one URL.",
            valueName: "document"
        )
    )
    var files: [String] = []

    /// The one document of a single import.
    var file: String { files.first ?? "-" }

    @Option(name: .customLong("sqlite"), help: "The SQLite database to write, created when missing.")
    var database = "sluice.sqlite"

    @Option(
        name: .customLong("postgres"),
        help: ArgumentHelp(
            "A PostgreSQL database to write instead of SQLite.",
            valueName: "postgres://user@host:port/database"
        )
    )
    var postgres: String?

    @Option(help: "Resources per transaction.")
    var batchSize = ImportOptions().batchSize

    @Flag(
        help:
            "Continue an interrupted import of the same file from its last committed batch; of a URL, from the first page not complete."
    )
    var resume = false

    @Option(help: "Seconds between progress lines when standard error is not a terminal.")
    var progressInterval = 5.0

    @Flag(help: "Print neither progress nor the summary.")
    var quiet = false

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: "With a URL: a header field, 'Name: value'; repeatable."
    )
    var headers: [String] = []

    @Option(help: "With a URL: stop after this many pages.")
    var maxPages: Int?

    @Option(
        help: ArgumentHelp(
            "What the input is: automatic, jsonapi, json, lines or json-seq.",
            discussion: """
                automatic (the default) decides per file: .jsonl and .ndjson files (also .gz) are JSON \
                Lines and .json-seq files JSON text sequences; otherwise a first byte 0x1E means a text \
                sequence, [ an array of records, an object followed by another value JSON Lines, an \
                object with a top-level data, errors or included member a JSON:API document, and any \
                other object one record.
                """,
            valueName: "format"
        ),
        transform: rawValueOption
    )
    var format = ImportFormat.automatic

    @Option(
        name: .customLong("at"),
        help: ArgumentHelp(
            "Plain JSON: the array of records is at this JSON Pointer (or dotted path), not at the top.",
            valueName: "pointer"
        )
    )
    var recordsAt: String?

    @Option(help: "Plain JSON: the table the records go into. Default: the file's name without extensions.")
    var table: String?

    @Option(
        name: .customLong("pk"),
        help: ArgumentHelp(
            "Plain JSON: the members that key a record, comma-separated; a re-import updates their rows.",
            discussion: """
                Without it a record is keyed by its file and place (events.ndjson:17 for line 17), so a \
                re-import of the same file still updates rather than duplicates.
                """,
            valueName: "member[,member]"
        )
    )
    var primaryKey: String?

    @Option(
        help: ArgumentHelp(
            "Plain JSON: what nested objects and arrays become: flatten (the default), json or tables.",
            discussion: """
                flatten: an object's members become columns named by their path joined with _ \
                (actor.login is actor_login), arrays stay JSON text. json: objects and arrays stay JSON \
                text (jsonb in PostgreSQL). tables: objects are flattened and each array becomes rows of \
                a child table TABLE_MEMBER with _parent_id, _position and the element's members (or \
                value), arrays within them grandchild tables.
                """,
            valueName: "mode"
        ),
        transform: rawValueOption
    )
    var nested = NestedValues.flatten

    @Option(
        help: ArgumentHelp(
            "What a fault of one record does: stop (the default) or skip.",
            discussion: """
                skip sets aside each record that leaves the rest readable (a resource JSON:API rejects, \
                a record --pk cannot key, a line of JSON Lines that is not JSON) and goes on: each goes \
                into the faults table (source, byte_offset, line_number, column_number, pointer, message \
                and the record's text), is counted in the documents row and the summary, and makes the \
                exit code 1. Broken syntax inside one JSON document still stops it: nothing after it \
                can be trusted.
                """,
            valueName: "stop|skip"
        ),
        transform: rawValueOption
    )
    var onFault = ImportFaultPolicy.stop

    @Option(help: "With --on-fault skip: stop a document that sets aside more records than this.")
    var maxFaults = ImportOptions().maxFaults

    @OptionGroup var timeouts: HTTPTimeouts

    @OptionGroup var jobs: JobsOption

    func validate() throws {
        guard maxFaults >= 0 else { throw ValidationError("--max-faults must not be negative.") }
        if format == .jsonAPI, recordsAt != nil || table != nil || primaryKey != nil {
            throw ValidationError("--at, --table and --pk are for plain JSON, not --format jsonapi.")
        }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive.") }
        guard progressInterval > 0 else { throw ValidationError("--progress-interval must be positive.") }
        if files.count > 1, files.contains(where: HTTPSource.isURL) {
            throw ValidationError("A URL is imported alone: give it as the only document.")
        }
    }

    func run() async throws {
        if HTTPSource.isURL(file) { return try await importURL() }
        let sources: [ImportSource]
        do {
            sources = try ImportSource.expanding(files.isEmpty ? ["-"] : files)
        } catch {
            Terminal.message("\(error)\n")
            throw ExitCode(2)
        }
        guard !sources.isEmpty else {
            Terminal.message(
                "sluice: no .json, .jsonl, .ndjson or .json-seq documents (or .gz) in \(files.joined(separator: ", "))\n"
            )
            throw ExitCode(2)
        }
        try await importFiles(sources)
    }

    /// Imports the files as one job (a single file is a job of one): up to
    /// ``concurrentDocuments`` at a time, then one summary.
    private func importFiles(_ sources: [ImportSource]) async throws {
        let concurrent = min(concurrentDocuments, sources.count)
        let options = importOptions(parallelism: concurrent > 1 ? .workers(1) : jobs.parallelism)
        let summaries = ImportSummaries(quiet: quiet, database: databaseName, postgres: postgres != nil)
        let progress = summaries.progress(documents: sources.count, interval: progressInterval)
        let job = ImportJob(sources: sources, concurrentDocuments: concurrent) {
            try await openDestination(options)
        }
        let started = ContinuousClock.now
        let outcomes = try await job.run(
            progress: { source, report in progress.update(source.name, report) },
            finished: { outcome in progress.finished(outcome) }
        )
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let code = try summaries.report(files: outcomes, seconds: seconds, concurrent: concurrent)
        if code != 0 { throw ExitCode(code) }
    }
}

extension Import {
    /// How many documents go at once: with PostgreSQL `--jobs` (default: the cores), each read on
    /// one thread; with SQLite one, since its file has one writer, read with `--jobs` threads
    /// (default: one fewer than the cores, the writer keeping one).
    var concurrentDocuments: Int {
        guard postgres != nil else { return 1 }
        return jobs.jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The database as messages name it: the SQLite path, or the PostgreSQL URL without its
    /// password.
    var databaseName: String {
        postgres.map { (try? PostgresTarget(url: $0).description) ?? $0 } ?? database
    }

    /// One set of options for either database (both importers take `ImportOptions`).
    func importOptions(parallelism: Parallelism) -> ImportOptions {
        var options = ImportOptions()
        options.batchSize = batchSize
        options.parallelism = parallelism
        options.resume = resume
        options.onFault = onFault
        options.maxFaults = maxFaults
        options.format = format
        options.records.table = table
        options.records.nested = nested
        options.records.recordsAt = recordsAt.map { JSONPath($0) }
        options.records.primaryKey =
            primaryKey?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            ?? []
        return options
    }

    /// The database, opened with `options`; exit 2 when it cannot be.
    func openDestination(_ options: ImportOptions) async throws -> any ImportDestination {
        if let postgres {
            let target: PostgresTarget
            do {
                target = try PostgresTarget(url: postgres)
            } catch {
                Terminal.message("sluice: \(error)\n")
                throw ExitCode(2)
            }
            do {
                return try await PostgresImporter.connect(to: target, options: options)
            } catch {
                Terminal.message("sluice: \(target): cannot open the database: \(error)\n")
                throw ExitCode(2)
            }
        }
        do {
            return try SQLiteImporter(path: database, options: options)
        } catch {
            Terminal.message("sluice: \(database): cannot open the database: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// Imports a paginated collection: each page's body goes through a pipe into the importer
    /// (which parses on its own thread, as for a file) while it arrives, then the page's next link
    /// is followed. One page is in flight at a time, so memory stays that of one import.
    func importURL() async throws {
        try HTTPSource.checkHeaders(headers)
        let source = try HTTPSource(url: file, include: nil, headers: headers, timeouts: timeouts)
        let destination = try await openDestination(importOptions(parallelism: jobs.parallelism))
        do {
            try await source.using { source in try await importPages(from: source, into: destination) }
        } catch {
            try? await destination.close()
            throw error
        }
        try? await destination.close()
    }

    private func importPages(from source: HTTPSource, into destination: any ImportDestination) async throws {
        let client = source.client
        let summaries = ImportSummaries(quiet: quiet, database: databaseName, postgres: postgres != nil)
        let progress = summaries.progress(documents: 1, interval: progressInterval)
        let started = ContinuousClock.now
        // The page being read, unredacted: its next link is resolved against it.
        var current = source.start
        if resume {
            // Pages an earlier run completed are passed over: their rows keep their links, and
            // the import goes on at the first page not complete (resumed from its last batch).
            let (start, complete) = try await firstIncompletePage(from: source, in: destination)
            guard let start else {
                if !quiet {
                    print("All \(complete) pages of \(HTTPSource.redacted(source.start)) were imported already.")
                }
                return
            }
            if complete > 0, !quiet {
                print(
                    "Resuming at page \(complete + 1) (\(HTTPSource.redacted(start))): \(complete) pages were complete."
                )
            }
            current = start
        }
        var pages = 0
        // The page that ended the import early, and the page its last link names.
        var unreached: (page: Int, last: URL)?
        let outcomes: [ImportJob.Outcome]
        do {
            let report: @Sendable (ImportSource, ImportProgress) -> Void = { page, report in
                progress.update(page.name, report)
            }
            outcomes = try await ImportJob.importPages(into: destination, maxPages: maxPages, progress: report) {
                previous in
                if let previous {
                    let page = PageSummary(parameters: [:], count: previous.summary.primaryCount)
                    guard let next = try client.link(.next, from: current, links: previous.summary.links, page: page)
                    else {
                        if let last = JSONAPIClient.unreachedLastPage(of: current, links: previous.summary.links) {
                            unreached = (pages, last)
                        }
                        return nil
                    }
                    current = next
                }
                pages += 1
                guard let body = try await client.documentBody(at: current) else {
                    // 204 or an empty body: nothing to import; on the first page that is a fault.
                    if previous == nil { throw NoDocument() }
                    return nil
                }
                return ImportSource(name: HTTPSource.redacted(current), chunks: body)
            }
        } catch let stop as ImportPagesError {
            switch stop.reason {
            case .leadsBack(let name):
                Terminal.message("\(name): the next link leads back to a page already imported\n")
                throw ExitCode(1)
            case .nextPage(let error as NoDocument):
                Terminal.message("\(HTTPSource.redacted(current)): \(error)\n")
                throw ExitCode(1)
            case .nextPage(let error):
                let code = source.report(error)
                summaries.reportCommitted(stop.committedResources)
                throw ExitCode(code)
            }
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let code = try summaries.report(pages: outcomes, of: HTTPSource.redacted(source.start), seconds: seconds) {
            // An HTTP fault of a page's body is worded by the client's report.
            $0 is JSONAPIClientError ? source.report($0) : nil
        }
        if let unreached {
            let warning = HTTPSource.unreachedLastWarning(page: unreached.page, last: unreached.last)
            Terminal.message("sluice: " + warning)
            // In the summary too, which a nightly job's log keeps.
            if !quiet { print(warning, terminator: "") }
        }
        if code != 0 { throw ExitCode(code) }
    }

    /// Where an interrupted import of `source`'s pages goes on: the first page whose `documents`
    /// row is missing or not complete, following the links the complete ones recorded (`nil`
    /// when the last page is complete); and how many pages were complete.
    private func firstIncompletePage(
        from source: HTTPSource,
        in destination: any ImportDestination
    ) async throws -> (URL?, Int) {
        var current = source.start
        var complete = 0
        var visited = Set<String>()
        while let record = try await destination.recordedDocument(source: HTTPSource.redacted(current)),
            record.isComplete, visited.insert(current.absoluteString).inserted
        {
            complete += 1
            let links = try record.links.map { try StreamingJSONDecoder().decode(Links.self, from: Data($0.utf8)) }
            let page = PageSummary(parameters: [:], count: record.primaryCount ?? 0)
            guard let next = try source.client.link(.next, from: current, links: links, page: page) else {
                return (nil, complete)
            }
            current = next
        }
        return (current, complete)
    }

    /// A first page without a document (204, or an empty body).
    private struct NoDocument: Error, CustomStringConvertible {
        var description: String { "the server returned no document" }
    }
}
