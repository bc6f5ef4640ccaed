import ArgumentParser
import Foundation
import SluiceImport
import SluiceJSON
import SluicePostgres

/// `sluice import` of several documents: an `ImportJob`, with a progress line and a summary line
/// per document, and the totals.
extension Import {
    /// How many documents go at once: with PostgreSQL `--jobs` (default: the cores), each read on
    /// one thread; with SQLite one, since its file has one writer, read with `--jobs` threads
    /// (default: one fewer than the cores, the writer keeping one).
    var concurrentDocuments: Int {
        guard postgres != nil else { return 1 }
        return jobs.jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    func importMany(_ sources: [ImportSource]) async throws {
        let concurrent = min(concurrentDocuments, sources.count)
        let options = importOptions(parallelism: concurrent > 1 ? .workers(1) : jobs.parallelism)
        let display = DocumentsProgress(quiet: quiet, interval: progressInterval)
        let job = ImportJob(sources: sources, concurrentDocuments: concurrent) {
            try await openDestination(options)
        }
        let started = ContinuousClock.now
        let outcomes = try await job.run(
            progress: { source, progress in display.update(source.name, progress) },
            finished: { outcome in display.finished(outcome) }
        )
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        var report = FaultReport()
        var totals = (documents: 0, resources: 0, relationships: 0, bytes: 0)
        for outcome in outcomes {
            switch outcome.result {
            case .success(let summary):
                totals.documents += 1
                totals.resources += summary.resources
                totals.relationships += summary.relationshipRows
                totals.bytes += summary.bytes
            case .failure(let failure):
                totals.resources += failure.committedResources
                do {
                    try report.add(failure.underlying, in: outcome.source.name)
                } catch {
                    Terminal.message("sluice: \(outcome.source.name): \(error)\n")
                    report.recordDatabaseFault()
                }
                Terminal.message(
                    "\(outcome.source.name): \(Self.count(failure.committedResources)) imported before the fault.\n"
                )
            }
        }
        if !quiet {
            var text = ""
            for outcome in outcomes {
                guard case .success(let summary) = outcome.result else {
                    text += "\(outcome.source.name): failed\n"
                    continue
                }
                if summary.format.isPlain {
                    text += "\(outcome.source.name): \(summary.primaryCount) records (\(summary.format)), "
                    text += "\(summary.resources) rows in \(Terminal.formatted(summary.seconds, decimals: 2)) s"
                } else {
                    text += "\(outcome.source.name): \(summary.resources) resources and \(summary.relationshipRows) "
                    text += "relationship rows in \(Terminal.formatted(summary.seconds, decimals: 2)) s"
                }
                text += " (\(Terminal.formatted(throughputOf: summary.bytes, seconds: summary.seconds)))\n"
            }
            let failed = outcomes.count - totals.documents
            text += "Imported \(totals.documents) of \(outcomes.count) documents"
            text += failed > 0 ? " (\(failed) failed)" : ""
            text += ": \(totals.resources) resources and \(totals.relationships) relationship rows into "
            text += "\(postgres.flatMap { try? PostgresTarget(url: $0).description } ?? database) in "
            text +=
                "\(Terminal.formatted(seconds, decimals: 2)) s (\(Terminal.formatted(throughputOf: totals.bytes, seconds: seconds)), "
            text += "\(concurrent) at a time).\n"
            try Terminal.standardOutput.write(text)
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

/// Progress of several documents on standard error: a line per document every `interval`
/// seconds (on a terminal too: several lines cannot share one redrawn line), each named.
final class DocumentsProgress: @unchecked Sendable {
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
