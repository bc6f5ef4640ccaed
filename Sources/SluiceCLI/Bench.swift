import ArgumentParser
import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTools

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `sluice bench`: Sluice against Foundation's `JSONSerialization` on a JSON:API document, with no
/// user models: both turn every resource into the generic flattened form (type, id, attributes,
/// relationship linkage).
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measures Sluice against Foundation's JSONSerialization on a JSON:API document.",
        discussion: """
            Both contenders read the whole document and turn every resource of data and included into \
            the same generic form: its type, id or lid, attributes and relationship linkage. Sluice \
            streams the file in 64 KiB chunks and hands over each resource as its object closes; \
            Foundation reads the file into memory, parses it with JSONSerialization and maps the \
            dictionaries by hand. Their results are compared, and a difference is an error.

            Each run of each contender is a process of its own, so that its peak memory (resident \
            set size) is its own. The table gives the median wall-clock time of the runs as MB/s, the \
            median CPU time, the largest peak memory, and how many times faster and smaller Sluice is. \
            Without a file, a generated document of --articles articles is written to a temporary \
            file first (100 000 articles make about 150 MB). Foundation's contender needs some 70 \
            times the document's size in memory (about 10 GB at 100 000 articles).

            Examples:
              sluice bench
              sluice bench export.json --runs 5
              sluice bench --articles 10000 --format json
            """
    )

    @Argument(help: "The JSON:API document to measure. Default: a generated document.")
    var file: String?

    @Option(help: "How many articles the generated document holds when no file is given.")
    var articles = 100_000

    @Option(help: "How many times each contender runs; medians are reported.")
    var runs = 3

    @Option(help: "How to print the results: a table, or one JSON object for scripts.")
    var format = OutputFormat.text

    @Flag(help: "Print no progress lines on standard error (--format json prints none either).")
    var quiet = false

    @Option(help: .hidden)
    var contender: BenchContender?

    @OptionGroup var jobs: JobsOption

    private var showsProgress: Bool { format == .text && !quiet }

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1.") }
        guard articles >= 1 else { throw ValidationError("--articles must be at least 1.") }
        if contender != nil && file == nil { throw ValidationError("--contender needs a file.") }
        if file == "-" {
            throw ValidationError("bench reads its input once per run and contender: give a file, not standard input.")
        }
    }

    func run() async throws {
        if let contender, let file {
            // One measured run, in a process of its own; the parent reads the JSON line it prints.
            let result: BenchMeasurement
            do {
                result = try contender.measure(path: file, parallelism: jobs.parallelism)
            } catch let refusal as BenchContender.Refusal {
                Terminal.message("\(file): \(refusal)\n")
                throw ExitCode(1)
            } catch {
                var report = FaultReport()
                try report.add(error, in: Input.displayName(of: file))
                throw ExitCode(report.exitCode)
            }
            try Terminal.standardOutput.write(result.json.jsonText + "\n")
            return
        }
        let path: String
        if let file {
            path = file
        } else {
            path =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("sluice-bench-\(UUID().uuidString).json").path
            if showsProgress { Terminal.message("Generating a document of \(articles) articles…\n") }
        }
        defer { if file == nil { try? FileManager.default.removeItem(atPath: path) } }
        if file == nil { try Generate.write(SampleDocumentGenerator(articles: articles), to: path) }

        // Opening the input here reports an unreadable file as every command does, and gives its size.
        var report = FaultReport()
        let bytes: Int
        do {
            bytes = try FileChunkReader(path: path).size ?? 0
        } catch {
            try report.add(error, in: path)
            throw ExitCode(report.exitCode)
        }
        // With more than one thread, Sluice also runs on one, so that the table shows what the
        // threads bring, in the same run.
        let threads = jobs.parallelism.threadCount
        let entrants =
            (threads > 1 ? [Entrant(.sluice, threads: 1)] : []) + [
                Entrant(.sluice, threads: threads), Entrant(.foundation, threads: 1),
            ]
        var results: [Entrant: [BenchMeasurement]] = [:]
        for run in 1...runs {
            for entrant in entrants {
                if showsProgress { Terminal.message("Run \(run) of \(runs): \(entrant.title)…\n") }
                results[entrant, default: []].append(try Self.spawn(entrant, path: path))
            }
        }
        let checksums = Set(results.values.joined().map(\.checksum))
        guard checksums.count == 1, let checksum = checksums.first else {
            Terminal.message("The runs disagree on what the document holds: \(checksums.map(\.description)).\n")
            throw ExitCode(1)
        }
        let outcome = Outcome(
            input: file ?? "generated document of \(articles) articles",
            bytes: bytes,
            threads: threads,
            sluice: BenchSummary(results[Entrant(.sluice, threads: threads)] ?? [], checksum: checksum),
            oneThread: threads > 1
                ? BenchSummary(results[Entrant(.sluice, threads: 1)] ?? [], checksum: checksum) : nil,
            foundation: BenchSummary(results[Entrant(.foundation, threads: 1)] ?? [], checksum: checksum)
        )
        switch format {
        case .text: try Terminal.standardOutput.write(table(outcome))
        case .json: try Terminal.standardOutput.write(json(outcome).jsonText + "\n")
        }
    }

    /// What a run measured: the medians of each entrant, and what they read.
    struct Outcome {
        var input: String
        var bytes: Int
        /// The threads Sluice read with (`--jobs`).
        var threads: Int
        var sluice: BenchSummary
        /// Sluice on one thread, measured beside it when `threads` is more than one.
        var oneThread: BenchSummary?
        var foundation: BenchSummary
    }

    /// A contender with its thread count: one row of the table.
    struct Entrant: Hashable {
        var contender: BenchContender
        var threads: Int

        init(_ contender: BenchContender, threads: Int) {
            self.contender = contender
            self.threads = threads
        }

        var title: String {
            switch contender {
            case .sluice: "Sluice streaming, \(threads) thread\(threads == 1 ? "" : "s")"
            case .foundation: contender.title
            }
        }
    }

    /// Runs one contender in a child process of this executable and reads its measurement.
    private static func spawn(_ entrant: Entrant, path: String) throws -> BenchMeasurement {
        let contender = entrant.contender
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = ["bench", "--contender", contender.rawValue, "--jobs", String(entrant.threads), path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            // Nothing was said by a child the system stopped: Foundation's contender holds the whole
            // document as dictionaries, some 70 bytes of memory per byte of input.
            Terminal.message(
                "The \(contender.title) run was stopped by signal \(process.terminationStatus) (out of memory?).\n"
            )
            throw ExitCode(1)
        }
        guard process.terminationStatus == 0 else {
            // The child has already said what went wrong on standard error, which it shares.
            throw ExitCode(
                [2, FaultReport.errorDocumentExitCode].contains(process.terminationStatus)
                    ? process.terminationStatus : 1
            )
        }
        let tape = try JSONParser.parse(Array(output))
        return try tape.value(at: tape.startIndex).decode(BenchMeasurement.self)
    }

    /// This executable's path, for the child processes.
    private static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func table(_ outcome: Outcome) -> String {
        let (sluice, foundation, threads) = (outcome.sluice, outcome.foundation, outcome.threads)
        let megabytes = Double(outcome.bytes) / 1_000_000
        var text = "Input: \(outcome.input), \(Terminal.formatted(megabytes, decimals: 1)) MB, "
        text += "\(sluice.checksum.resources) resources. Medians of \(runs) run\(runs == 1 ? "" : "s").\n\n"
        let header = ["", "MB/s", "wall s", "CPU s", "peak memory"]
        var rows = [header]
        var named = [(Entrant(.sluice, threads: threads).title, sluice), (BenchContender.foundation.title, foundation)]
        if let oneThread = outcome.oneThread { named.insert((Entrant(.sluice, threads: 1).title, oneThread), at: 0) }
        for (name, summary) in named {
            rows.append([
                name,
                Self.text(Self.ratio(megabytes, summary.seconds), decimals: 1),
                Terminal.formatted(summary.seconds, decimals: 2),
                Terminal.formatted(summary.cpuSeconds, decimals: 2),
                Terminal.formatted(Double(summary.peakMemoryBytes) / 1_048_576, decimals: 1) + " MiB",
            ])
        }
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            var line = row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0)
            for column in 1..<row.count {
                line += "  " + String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }
            text += line + "\n"
        }
        let timeRatio = Self.text(Self.ratio(foundation.seconds, sluice.seconds), decimals: 2)
        let cpuRatio = Self.text(Self.ratio(foundation.cpuSeconds, sluice.cpuSeconds), decimals: 2)
        let memoryRatio = Self.text(
            Self.ratio(Double(foundation.peakMemoryBytes), Double(sluice.peakMemoryBytes)),
            decimals: 1
        )
        text += "\nFoundation takes \(timeRatio)x Sluice's time, \(cpuRatio)x its CPU time "
        text += "and \(memoryRatio)x its peak memory.\n"
        if let oneThread = outcome.oneThread {
            let speedup = Self.text(Self.ratio(oneThread.seconds, sluice.seconds), decimals: 2)
            let extra = Double(sluice.peakMemoryBytes - oneThread.peakMemoryBytes) / 1_048_576
            text += "\(threads) threads read it \(speedup)x as fast as 1, with "
            text += "\(Terminal.formatted(abs(extra), decimals: 1)) MiB \(extra < 0 ? "less" : "more") peak memory.\n"
        }
        return text
    }

    /// `numerator / denominator`, or `nil` when the denominator is zero: a run on a tiny file can
    /// take less CPU time than the clock's resolution, and an infinite ratio has no JSON form.
    private static func ratio(_ numerator: Double, _ denominator: Double) -> Double? {
        denominator > 0 ? numerator / denominator : nil
    }

    private static func text(_ value: Double?, decimals: Int) -> String {
        value.map { Terminal.formatted($0, decimals: decimals) } ?? "-"
    }

    private static func number(_ value: Double?) -> JSONValue {
        value.map { .number(String($0)) } ?? .null
    }

    private func json(_ outcome: Outcome) -> JSONValue {
        let (sluice, foundation, bytes) = (outcome.sluice, outcome.foundation, outcome.bytes)
        func entry(_ summary: BenchSummary) -> JSONValue {
            [
                "megabytesPerSecond": Self.number(Self.ratio(Double(bytes) / 1_000_000, summary.seconds)),
                "seconds": .number(String(summary.seconds)),
                "cpuSeconds": .number(String(summary.cpuSeconds)),
                "peakMemoryBytes": .number(String(summary.peakMemoryBytes)),
            ]
        }
        var result: JSONValue = [
            "input": .string(outcome.input),
            "bytes": .number(String(bytes)),
            "runs": .number(String(runs)),
            "resources": .number(String(sluice.checksum.resources)),
            "sluice": entry(sluice),
            "foundation": entry(foundation),
            "speedup": Self.number(Self.ratio(foundation.seconds, sluice.seconds)),
            "cpuRatio": Self.number(Self.ratio(foundation.cpuSeconds, sluice.cpuSeconds)),
            "memoryRatio": Self.number(Self.ratio(Double(foundation.peakMemoryBytes), Double(sluice.peakMemoryBytes))),
            "threads": .number(String(outcome.threads)),
        ]
        if let oneThread = outcome.oneThread, case .object(var members) = result {
            members["sluiceOneThread"] = entry(oneThread)
            members["threadSpeedup"] = Self.number(Self.ratio(oneThread.seconds, sluice.seconds))
            result = .object(members)
        }
        return result
    }
}

extension BenchContender: ExpressibleByArgument {}
