import ArgumentParser
import Foundation
import SluiceImport
import SluiceJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything `sluice import` prints when documents end, in one place: one document's full
/// summary, or for several a line each and the totals, or the totals of a URL's pages; every
/// fault with its position and what stayed committed; and the exit code, the worst document's.
struct ImportSummaries: Sendable {
    let quiet: Bool
    /// The database as messages name it.
    let database: String
    /// Whether it is PostgreSQL, whose columns widen where SQLite's keep a value as it is.
    let postgres: Bool

    /// The progress display for `documents` documents: one line redrawn in place (or a line every
    /// `interval` seconds) for one, a named line per document for several.
    func progress(documents: Int, interval: Double) -> any ImportProgressDisplay {
        documents == 1
            ? ProgressDisplay(quiet: quiet, interval: interval)
            : DocumentsProgress(quiet: quiet, interval: interval)
    }

    /// Reports the outcomes of files imported in one run, in order; returns the exit code.
    ///
    /// - Throws: A write error of standard output.
    func report(files outcomes: [ImportJob.Outcome], seconds: Double, concurrent: Int) throws -> Int32 {
        let alone = outcomes.count == 1
        var code: Int32 = 0
        for outcome in outcomes {
            switch outcome.result {
            case .failure(let failure):
                code = max(code, reportFault(failure, of: outcome.source.name, alone: alone))
            case .success(let summary):
                code = max(code, reportSetAside(summary))
            }
        }
        guard !quiet else { return code }
        if alone {
            if case .success(let summary) = outcomes[0].result {
                try Terminal.standardOutput.write(describe(summary, from: outcomes[0].source.name))
            }
            return code
        }
        var text = ""
        var totals = (documents: 0, resources: 0, relationships: 0, bytes: 0)
        for outcome in outcomes {
            switch outcome.result {
            case .success(let summary):
                totals.documents += 1
                totals.resources += summary.resources
                totals.relationships += summary.relationshipRows
                totals.bytes += summary.bytes
                text += "\(outcome.source.name): \(line(summary))\n"
            case .failure(let failure):
                totals.resources += failure.committedResources
                text += "\(outcome.source.name): failed\n"
            }
        }
        let failed = outcomes.count - totals.documents
        text += "Imported \(totals.documents) of \(outcomes.count) documents"
        text += failed > 0 ? " (\(failed) failed)" : ""
        text += ": \(totals.resources) resources and \(totals.relationships) relationship rows into \(database) in "
        text += "\(Terminal.formatted(seconds, decimals: 2)) s "
        text += "(\(Terminal.formatted(throughputOf: totals.bytes, seconds: seconds)), \(concurrent) at a time).\n"
        try Terminal.standardOutput.write(text)
        return code
    }

    /// Reports the outcomes of a URL's pages, which stop at the first that fails; returns the exit
    /// code. `transportFault` words a fault of the page's transfer and gives its exit code (`nil`
    /// for a fault of the document).
    ///
    /// - Throws: A write error of standard output.
    func report(
        pages outcomes: [ImportJob.Outcome],
        of url: String,
        seconds: Double,
        transportFault: (any Error) -> Int32?
    ) throws -> Int32 {
        var totals = (resources: 0, primary: 0, included: 0, toOne: 0, relationships: 0, bytes: 0)
        var setAsideCode: Int32 = 0
        for outcome in outcomes {
            switch outcome.result {
            case .success(let summary):
                setAsideCode = max(setAsideCode, reportSetAside(summary))
                totals.resources += summary.resources
                totals.primary += summary.primaryCount
                totals.included += summary.includedCount
                totals.toOne += summary.toOneLinks
                totals.relationships += summary.relationshipRows
                totals.bytes += summary.bytes
            case .failure(let failure):
                if let code = transportFault(failure.underlying) {
                    reportCommitted(totals.resources + failure.committedResources)
                    return code
                }
                return max(
                    setAsideCode,
                    reportFault(failure, of: outcome.source.name, alone: true, committedBefore: totals.resources)
                )
            }
        }
        guard !quiet else { return setAsideCode }
        let pages = outcomes.count
        var line = "Imported \(totals.resources) resources (\(totals.primary) primary, \(totals.included) included), "
        line += "\(totals.toOne) to-one links and \(totals.relationships) relationship rows "
        line += "from \(pages) page\(pages == 1 ? "" : "s") of \(url) into \(database) "
        line += "in \(Terminal.formatted(seconds, decimals: 2)) s "
        line += "(\(Terminal.formatted(throughputOf: totals.bytes, seconds: seconds))).\n"
        try Terminal.standardOutput.write(line)
        return setAsideCode
    }

    /// Lists on standard error the first records a document set aside (`--on-fault skip`) and
    /// where the rest are; returns the exit code they make: 1 when there are any, since the
    /// input was not all imported.
    private func reportSetAside(_ summary: ImportSummary) -> Int32 {
        guard summary.faults > 0 else { return 0 }
        for fault in summary.firstFaults { Terminal.message("\(fault) (set aside)\n") }
        let more = summary.faults - summary.firstFaults.count
        let records = summary.faults == 1 ? "1 record was" : "\(summary.faults) records were"
        var text = "\(records) set aside"
        if more > 0 { text += " (\(more) not listed here)" }
        Terminal.message(text + "; the faults table of \(database) has each with where and why.\n")
        return 1
    }

    /// Says how many resources an import that stopped at a fault left in the database.
    func reportCommitted(_ resources: Int) {
        let verb = resources == 1 ? "is" : "are"
        Terminal.message("\(Self.count(resources)) imported before the fault and \(verb) in \(database).\n")
    }

    /// `1 resource was`, `2 resources were`.
    static func count(_ resources: Int) -> String {
        resources == 1 ? "1 resource was" : "\(resources) resources were"
    }

    /// Words the fault that stopped document `name` (a fault of the input with its position, or
    /// the database's) and what stayed committed (`committedBefore` from earlier pages too);
    /// returns its exit code.
    private func reportFault(
        _ failure: ImportFailure,
        of name: String,
        alone: Bool,
        committedBefore: Int = 0
    ) -> Int32 {
        var report = FaultReport()
        var code: Int32
        do {
            try report.add(failure.underlying, in: name)
            code = report.exitCode
        } catch {
            // Not the input's fault: the database's, worded as its own.
            Terminal.message("sluice: \(alone ? database : name): \(error)\n")
            code = 2
        }
        let unopened =
            failure.committedResources == 0
            && (failure.underlying is FileChunkReader.Failure || failure.underlying is ImportSourceError)
        guard !unopened || committedBefore > 0 else { return code }
        if alone {
            reportCommitted(committedBefore + failure.committedResources)
        } else {
            Terminal.message("\(name): \(Self.count(failure.committedResources)) imported before the fault.\n")
        }
        return code
    }

    /// One document's summary when it was imported alone: what it held, the rate, each table's
    /// rows, and what deserves a word.
    private func describe(_ summary: ImportSummary, from name: String) -> String {
        var text: String
        if summary.format.isPlain {
            text = "Imported \(summary.primaryCount) record\(summary.primaryCount == 1 ? "" : "s")"
            if summary.includedCount > 0 {
                text += " and \(summary.includedCount) child row\(summary.includedCount == 1 ? "" : "s")"
            }
            text += " from \(name) (\(summary.format)) into \(database) "
        } else {
            text = "Imported \(summary.resources) resources (\(summary.primaryCount) primary, "
            text += "\(summary.includedCount) included), \(summary.toOneLinks) to-one links and "
            text += "\(summary.relationshipRows) relationship rows from \(name) into \(database) "
        }
        text += "in \(Terminal.formatted(summary.seconds, decimals: 2)) s "
        text += "(\(Terminal.formatted(throughputOf: summary.bytes, seconds: summary.seconds)), "
        text += "\(summary.batches) transaction\(summary.batches == 1 ? "" : "s")).\n"
        if summary.resumedAfter > 0 {
            let what = summary.format.isPlain ? "rows" : "resources"
            text += "Resumed after the \(summary.resumedAfter) \(what) an interrupted import had committed.\n"
        }
        var shown = summary
        if summary.format.isPlain {
            // Plain records have no linkage: the empty relationships table says nothing.
            shown.tables.removeAll { $0.table == "relationships" && $0.rows == 0 }
        }
        text += Self.tableRates(shown)
        if summary.unidentified > 0 {
            text += "\(summary.unidentified) resources had neither id nor lid and were left out.\n"
        }
        if summary.faults > 0 {
            let what = summary.format.isPlain ? "records" : "resources"
            text += "\(summary.faults) \(what) were set aside as faults (the faults table lists them).\n"
        }
        if summary.typeMismatches > 0 {
            text += "\(summary.typeMismatches) values differed from their column's declared type"
            if summary.format.isPlain {
                text += ".\n"
            } else {
                text +=
                    postgres
                    ? "; columns that could not hold them were widened.\n"
                    : "; SQLite's type affinity applied to them.\n"
            }
        }
        return text
    }

    /// One document's line among several.
    private func line(_ summary: ImportSummary) -> String {
        var text =
            summary.format.isPlain
            ? "\(summary.primaryCount) records (\(summary.format)), \(summary.resources) rows"
            : "\(summary.resources) resources and \(summary.relationshipRows) relationship rows"
        text += " in \(Terminal.formatted(summary.seconds, decimals: 2)) s"
        text += " (\(Terminal.formatted(throughputOf: summary.bytes, seconds: summary.seconds)))"
        if summary.faults > 0 { text += ", \(summary.faults) set aside" }
        return text
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
}

/// Where import progress goes while documents are read.
protocol ImportProgressDisplay: Sendable {
    /// Document `name` reports `progress`.
    func update(_ name: String, _ progress: ImportProgress)
    /// Document `outcome.source` ended.
    func finished(_ outcome: ImportJob.Outcome)
}

extension ImportProgressDisplay {
    func finished(_ outcome: ImportJob.Outcome) {}
}

/// Import progress on standard error: one line redrawn in place on a terminal, a plain line every
/// `interval` seconds otherwise.
final class ProgressDisplay: ImportProgressDisplay, @unchecked Sendable {
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

    func update(_ name: String, _ progress: ImportProgress) {
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
    static func describe(_ progress: ImportProgress) -> String {
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

/// Progress of several documents on standard error: a line per document every `interval`
/// seconds (on a terminal too: several lines cannot share one redrawn line), each named.
final class DocumentsProgress: ImportProgressDisplay, @unchecked Sendable {
    // @unchecked: every access holds `lock` (documents report from several tasks at once).
    private let lock = NSLock()
    private let enabled: Bool
    private let interval: Double
    private var lastShown: [String: Double] = [:]

    init(quiet: Bool, interval: Double) {
        enabled = !quiet
        self.interval = interval
    }

    func update(_ name: String, _ progress: ImportProgress) {
        guard enabled, !progress.finished else { return }
        let line: String? = lock.withLock {
            guard progress.elapsed - (lastShown[name] ?? 0) >= interval else { return nil }
            lastShown[name] = progress.elapsed
            return "\(name): \(ProgressDisplay.describe(progress))\n"
        }
        if let line { Terminal.message(line) }
    }

    func finished(_ outcome: ImportJob.Outcome) {
        guard enabled, case .success(let summary) = outcome.result else { return }
        Terminal.message("\(outcome.source.name): done, \(summary.resources) resources\n")
    }
}

/// Reads a `RawRepresentable` option (`--format`, `--nested`) by its raw value, naming the
/// accepted ones when it is none of them.
func rawValueOption<Value: RawRepresentable & CaseIterable>(_ text: String) throws -> Value
where Value.RawValue == String {
    guard let value = Value(rawValue: text) else {
        let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
        throw ValidationError("'\(text)' is not one of \(names).")
    }
    return value
}
