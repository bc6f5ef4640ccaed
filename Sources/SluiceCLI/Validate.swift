import ArgumentParser
import SluiceJSON
import SluiceJSONAPI

/// `sluice validate`: checks files and reports every fault with its position.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Checks that files are valid JSON:API documents, or well-formed JSON with --syntax.",
        discussion: """
            Each file is read as a stream in 64 KiB chunks, so a file of any size is checked in little \
            memory. By default every rule of JSON:API 1.1 that a reader can check is applied and every \
            violation is reported, each as FILE:LINE:COLUMN: POINTER: message on standard error. \
            Included resources that primary data does not reach are reported as warnings, which do not \
            make a file invalid (sparse fieldsets can cause them). With --syntax only JSON syntax is \
            checked, and faults read FILE:LINE:COLUMN: message. Columns count UTF-8 bytes. With \
            --syntax, --jobs threads check each file (the elements of a root array, or of data and \
            included, go to other threads in batches); the first fault is the same for any number. \
            The JSON:API rules are checked on one thread.

            A valid file prints nothing, so scripts need only the exit code; --verbose prints NAME: valid \
            for each valid file and a closing summary on standard output, and on a terminal the summary \
            is printed anyway.

            The exit code is 0 when every file is valid, 1 when any file is invalid, and 2 when a \
            file cannot be read or the command is called wrongly.

            Examples:
              sluice validate response.json
              sluice validate --request --format json new-article.json
              curl -s https://example.com/api/articles | sluice validate --syntax -
            """
    )

    @Flag(help: "Check JSON syntax only: the grammar of RFC 8259, strict UTF-8, and the limits below.")
    var syntax = false

    @Flag(help: "Treat the documents as requests, where a new resource may have a lid instead of an id.")
    var request = false

    @Option(help: "How to report faults: text lines on standard error, or one JSON array on standard output.")
    var format = OutputFormat.text

    @Flag(
        help:
            "Print each valid file's size, the time taken and the throughput: on standard output, or on standard error with --format json."
    )
    var stats = false

    @Flag(name: .shortAndLong, help: "Print NAME: valid for each valid file, and a summary at the end.")
    var verbose = false

    @Option(help: "The deepest nesting of arrays and objects accepted.")
    var maxDepth = JSONLimits.default.maxDepth

    @Option(help: "The longest string, key or number accepted, in bytes as written.")
    var maxStringBytes = JSONLimits.default.maxStringBytes

    @Argument(help: "The files to check. Give - to read standard input.")
    var files: [String]

    @OptionGroup var jobs: JobsOption

    func validate() throws {
        guard maxDepth > 0 else { throw ValidationError("--max-depth must be at least 1.") }
        guard maxStringBytes >= 0 else { throw ValidationError("--max-string-bytes must not be negative.") }
    }

    func run() async throws {
        let limits = JSONLimits(maxDepth: maxDepth, maxStringBytes: maxStringBytes)
        var report = FaultReport(format: format)
        // With --format json, standard output carries the one JSON array and nothing else.
        let statistics = format == .json ? Terminal.standardError : Terminal.standardOutput
        var validFiles = 0
        for path in files {
            let name = Input.displayName(of: path)
            let started = ContinuousClock.now
            do {
                let reader = try FileChunkReader(path: path)
                let bytes: Int
                var isValid = true
                if syntax {
                    bytes = try JSONParser.validateSyntax(of: reader, limits: limits, parallelism: jobs.parallelism)
                } else {
                    var validator = JSONAPIValidator(isRequestDocument: request)
                    validator.limits = limits
                    let violations = try validator.validate(reader)
                    for violation in violations { report.add(violation, in: name) }
                    isValid = !violations.contains { $0.severity == .error }
                    bytes = reader.bytesRead
                }
                if isValid { validFiles += 1 }
                if verbose && !stats && isValid && format == .text {
                    try Terminal.standardOutput.write("\(name): valid\n")
                }
                if stats && isValid {
                    let seconds = (ContinuousClock.now - started).seconds
                    try statistics.write(
                        "\(name): valid, \(bytes) bytes in \(Terminal.formatted(milliseconds: seconds * 1000)) "
                            + "(\(Terminal.formatted(throughputOf: bytes, seconds: seconds)))\n"
                    )
                }
            } catch {
                try report.add(error, in: name)
            }
        }
        try report.finish()
        if format == .text && (verbose || Terminal.standardOutput.isTerminal) {
            let invalid = files.count - validFiles
            let noun = files.count == 1 ? "file" : "files"
            try Terminal.standardOutput.write(
                invalid == 0
                    ? "\(files.count) \(noun) checked: all valid.\n"
                    : "\(files.count) \(noun) checked: \(invalid) invalid or unreadable.\n"
            )
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
