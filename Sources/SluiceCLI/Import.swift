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
            (credentials are never printed).

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
            resources that is. The exit code is 0 on success, 1 when the input is invalid, 2 when \
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

    @Flag(help: "Continue an interrupted import of the same file from its last committed batch.")
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

    @OptionGroup var timeouts: HTTPTimeouts

    @OptionGroup var jobs: JobsOption

    func validate() throws {
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
        if files.count <= 1, sources.count == 1, sources[0].path == file {
            return try await importOne(sources[0])
        }
        try await importMany(sources)
    }

    private func importOne(_ source: ImportSource) async throws {
        let name = source.name
        var report = FaultReport()
        let input: OpenedImportSource
        do {
            input = try source.open()
        } catch {
            try report.add(error, in: name)
            throw ExitCode(report.exitCode)
        }
        try await withTarget { target in try await importFile(input, name: name, into: target) }
    }

    private func importFile(_ input: OpenedImportSource, name: String, into target: ImportTarget) async throws {
        var report = FaultReport()
        let display = ProgressDisplay(quiet: quiet, interval: progressInterval)
        do {
            let summary = try await target.importDocument(from: input.reader, source: name, display: display).get()
            if let fault = input.finish() {
                // A document that parsed although gzip failed (a damaged trailer, say).
                try report.add(fault, in: name)
                throw ExitCode(report.exitCode)
            }
            guard !quiet else { return }
            if summary.format.isPlain {
                try Terminal.standardOutput.write(Self.plainSummary(summary, from: name, into: target.name))
                return
            }
            var line = "Imported \(summary.resources) resources (\(summary.primaryCount) primary, "
            line += "\(summary.includedCount) included), \(summary.toOneLinks) to-one links and "
            line += "\(summary.relationshipRows) relationship rows "
            line += "from \(name) into \(target.name) in \(Terminal.formatted(summary.seconds, decimals: 2)) s "
            line += "(\(Terminal.formatted(throughputOf: summary.bytes, seconds: summary.seconds)), "
            line += "\(summary.batches) transaction\(summary.batches == 1 ? "" : "s")).\n"
            if summary.resumedAfter > 0 {
                line += "Resumed after the \(summary.resumedAfter) resources an interrupted import had committed.\n"
            }
            line += Self.tableRates(summary)
            if summary.unidentified > 0 {
                line += "\(summary.unidentified) resources had neither id nor lid and were left out.\n"
            }
            if summary.typeMismatches > 0 {
                line += "\(summary.typeMismatches) values differed from their column's declared type; "
                line +=
                    postgres == nil
                    ? "SQLite's type affinity applied to them.\n"
                    : "columns that could not hold them were widened.\n"
            }
            try Terminal.standardOutput.write(line)
        } catch let failure as ImportFailure {
            // A truncated gzip file reads as JSON cut short: gzip's fault is the one to report.
            let failure = input.stop(after: failure)
            do {
                try report.add(failure.underlying, in: name)
            } catch {
                Terminal.message("sluice: \(target.name): \(error)\n")
                Terminal.message("\(Self.count(failure.committedResources)) imported before the fault.\n")
                throw ExitCode(2)
            }
            reportCommitted(failure.committedResources)
            throw ExitCode(report.exitCode)
        }
    }
}

extension Import {
    /// The database, opened with the options given; exit 2 when it cannot be.
    func openTarget() async throws -> ImportTarget {
        let options = importOptions(parallelism: jobs.parallelism)
        return ImportTarget(destination: try await openDestination(options))
    }

    /// One set of options for either database (both importers take `ImportOptions`).
    func importOptions(parallelism: Parallelism) -> ImportOptions {
        var options = ImportOptions()
        options.batchSize = batchSize
        options.parallelism = parallelism
        options.resume = resume
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

    /// Runs `body` with the database opened, closing it however `body` ends.
    func withTarget(_ body: (ImportTarget) async throws -> Void) async throws {
        let target = try await openTarget()
        do {
            try await body(target)
        } catch {
            await target.close()
            throw error
        }
        await target.close()
    }

    /// The summary of an import of plain records: records, child rows, the format it was read as,
    /// the rate and each table's rows.
    static func plainSummary(_ summary: ImportSummary, from name: String, into database: String) -> String {
        var line = "Imported \(summary.primaryCount) record\(summary.primaryCount == 1 ? "" : "s")"
        if summary.includedCount > 0 {
            line += " and \(summary.includedCount) child row\(summary.includedCount == 1 ? "" : "s")"
        }
        line += " from \(name) (\(summary.format)) into \(database) "
        line += "in \(Terminal.formatted(summary.seconds, decimals: 2)) s "
        line += "(\(Terminal.formatted(throughputOf: summary.bytes, seconds: summary.seconds)), "
        line += "\(summary.batches) transaction\(summary.batches == 1 ? "" : "s")).\n"
        if summary.resumedAfter > 0 {
            line += "Resumed after the \(summary.resumedAfter) rows an interrupted import had committed.\n"
        }
        // Plain records have no linkage: the empty relationships table says nothing.
        var shown = summary
        shown.tables.removeAll { $0.table == "relationships" && $0.rows == 0 }
        line += tableRates(shown)
        if summary.typeMismatches > 0 {
            line += "\(summary.typeMismatches) values differed from their column's declared type.\n"
        }
        return line
    }

    /// Rows and rows per second of each table the import wrote, one line each.
    static func tableRates(_ summary: ImportSummary) -> String {
        let width = summary.tables.map(\.table.count).max() ?? 0
        return summary.tables.map { table in
            let name = table.table.padding(toLength: max(width, table.table.count), withPad: " ", startingAt: 0)
            let rate = Int(summary.rowsPerSecond(table).rounded())
            return "  \(name)  \(table.rows) rows, \(rate) rows/s\n"
        }.joined()
    }

    /// Imports a paginated collection: each page's body goes through a pipe into the importer
    /// (which parses on its own thread, as for a file) while it arrives, then the page's next link
    /// is followed. One page is in flight at a time, so memory stays that of one import.
    func importURL() async throws {
        try HTTPSource.checkHeaders(headers)
        let source = try HTTPSource(url: file, include: nil, headers: headers, timeouts: timeouts)
        try await source.using { source in
            try await withTarget { target in try await importPages(from: source, into: target) }
        }
    }

    private func importPages(from source: HTTPSource, into importer: ImportTarget) async throws {
        let client = source.client
        let display = ProgressDisplay(quiet: quiet, interval: progressInterval)
        let started = ContinuousClock.now
        // The page being read, unredacted: its next link is resolved against it.
        var current = source.start
        let outcomes: [ImportJob.Outcome]
        do {
            let report: @Sendable (ImportSource, ImportProgress) -> Void = { _, progress in display.update(progress) }
            outcomes = try await ImportJob.importPages(
                into: importer.destination,
                maxPages: maxPages,
                progress: report
            ) { previous in
                if let previous {
                    let page = PageSummary(parameters: [:], count: previous.summary.primaryCount)
                    guard let next = try client.link(.next, from: current, links: previous.summary.links, page: page)
                    else { return nil }
                    current = next
                }
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
                reportCommitted(stop.committedResources)
                throw ExitCode(code)
            }
        }
        var totals = (resources: 0, primary: 0, included: 0, toOne: 0, relationships: 0, bytes: 0)
        for outcome in outcomes {
            switch outcome.result {
            case .success(let summary):
                totals.resources += summary.resources
                totals.primary += summary.primaryCount
                totals.included += summary.includedCount
                totals.toOne += summary.toOneLinks
                totals.relationships += summary.relationshipRows
                totals.bytes += summary.bytes
            case .failure(let failure):
                var report = FaultReport()
                var code: Int32 = 1
                if failure.underlying is JSONAPIClientError {
                    code = source.report(failure.underlying)
                } else {
                    do {
                        try report.add(failure.underlying, in: outcome.source.name)
                    } catch {
                        Terminal.message("sluice: \(outcome.source.name): \(error)\n")
                    }
                }
                reportCommitted(totals.resources + failure.committedResources)
                throw ExitCode(max(report.exitCode, code))
            }
        }
        guard !quiet else { return }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let pages = outcomes.count
        var line = "Imported \(totals.resources) resources (\(totals.primary) primary, \(totals.included) included), "
        line += "\(totals.toOne) to-one links and \(totals.relationships) relationship rows "
        line +=
            "from \(pages) page\(pages == 1 ? "" : "s") of \(HTTPSource.redacted(source.start)) into \(importer.name) "
        line += "in \(Terminal.formatted(seconds, decimals: 2)) s "
        line += "(\(Terminal.formatted(throughputOf: totals.bytes, seconds: seconds))).\n"
        try Terminal.standardOutput.write(line)
    }

    /// A first page without a document (204, or an empty body).
    private struct NoDocument: Error, CustomStringConvertible {
        var description: String { "the server returned no document" }
    }

    /// Says how many resources an import that stopped at a fault left in the database.
    func reportCommitted(_ resources: Int) {
        Terminal.message(
            "\(Self.count(resources)) imported before the fault and \(resources == 1 ? "is" : "are") in \(postgres.flatMap { try? PostgresTarget(url: $0).description } ?? database).\n"
        )
    }

    /// `1 resource was`, `2 resources were`.
    static func count(_ resources: Int) -> String {
        resources == 1 ? "1 resource was" : "\(resources) resources were"
    }
}

/// Import progress on standard error: one line redrawn in place on a terminal, a plain line every
/// `interval` seconds otherwise.
final class ProgressDisplay: @unchecked Sendable {
    // @unchecked: one import at a time updates it, from the thread or task that import runs on;
    // the CLI awaits each import before the next.
    private let enabled: Bool
    private let inPlace: Bool
    /// Seconds between lines: a terminal is redrawn ten times a second at most.
    private let interval: Double
    /// When the last line was shown. A terminal shows the first report at once; a log's first
    /// line comes after one interval (a line at 0:00 would say nothing yet).
    private var lastShown: Double
    private var drewLine = false

    init(quiet: Bool, interval: Double) {
        enabled = !quiet
        inPlace = isatty(STDERR_FILENO) == 1
        self.interval = inPlace ? 0.1 : interval
        lastShown = inPlace ? -.infinity : 0
    }

    func update(_ progress: SQLiteImporter.Progress) {
        guard enabled else { return }
        if progress.finished {
            // The in-place line gives way to the summary; a plain log gets its last line.
            if inPlace, drewLine { Terminal.message("\r\u{1B}[K") }
            return
        }
        guard progress.elapsed - lastShown >= interval else { return }
        lastShown = progress.elapsed
        let line = Self.describe(progress)
        if inPlace {
            Terminal.message("\r\u{1B}[K" + line)
            drewLine = true
        } else {
            Terminal.message(line + "\n")
        }
    }

    /// `52.4 MB of 150.0 MB (35%), 41210 resources, 23400/s, 0:02 elapsed, 0:04 left`.
    static func describe(_ progress: SQLiteImporter.Progress) -> String {
        let megabytes = Terminal.formatted(Double(progress.bytesRead) / 1_000_000, decimals: 1)
        var line = "\(megabytes) MB"
        var remaining: Double?
        if let total = progress.totalBytes, total > 0 {
            let fraction = Double(progress.bytesRead) / Double(total)
            line += " of \(Terminal.formatted(Double(total) / 1_000_000, decimals: 1)) MB"
            line += " (\(Int((fraction * 100).rounded(.down)))%)"
            if fraction > 0 { remaining = progress.elapsed * (1 - fraction) / fraction }
        }
        let rate = progress.elapsed > 0 ? Double(progress.resources) / progress.elapsed : 0
        line += ", \(progress.resources) resources, \(Int(rate))/s, \(clock(progress.elapsed)) elapsed"
        if let remaining { line += ", \(clock(remaining)) left" }
        return line
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}

/// Where `sluice import` writes: an SQLite file or a PostgreSQL database, behind one call.
final class ImportTarget: @unchecked Sendable {
    // @unchecked: a destination is used by one import at a time (the CLI awaits each).
    let destination: any ImportDestination
    /// The database as messages name it (a path, or the URL without its password).
    var name: String { destination.destinationName }

    init(destination: any ImportDestination) {
        self.destination = destination
    }

    /// Imports `reader`'s document.
    func importDocument(
        from reader: any ChunkSource,
        source: String,
        display: ProgressDisplay
    ) async -> Result<ImportSummary, any Error> {
        do {
            return .success(
                try await destination.importDocument(reading: reader, source: source) { display.update($0) }
            )
        } catch {
            return .failure(error)
        }
    }

    /// Closes a PostgreSQL connection (SQLite's file closes with the importer).
    func close() async {
        try? await destination.close()
    }
}
