import ArgumentParser
import SluiceJSON
import SluiceJSONAPI

/// `--request resource|update|relationship`: the library's request targets, as the CLI spells them.
enum RequestEndpoint: String, CaseIterable, ExpressibleByArgument {
    case resource, update, relationship

    var target: JSONAPIValidator.RequestTarget {
        switch self {
        case .resource: .resource
        case .update: .update
        case .relationship: .relationship
        }
    }
}

/// `sluice validate`: checks files and reports every fault with its position.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Checks that files are valid JSON:API documents, or well-formed JSON with --syntax.",
        discussion: """
            Each file is read as a stream in 64 KiB chunks, so a file of any size is checked in little \
            memory. By default every rule of JSON:API 1.1 that a reader can check is applied and every \
            violation is reported, each as FILE:LINE:COLUMN: POINTER: message on standard error. \
            Included resources that primary data does not reach are reported as warnings, which do not \
            make a file invalid (sparse fieldsets can cause them) unless --full-linkage makes them \
            errors; so are members that the specification \
            does not define in its objects (readers must ignore them), unless --strict-members makes \
            them errors. A member named namespace:name belongs to an extension and is allowed when the \
            document's jsonapi.ext announces that extension, or --extension names it. POINTER is a JSON \
            Pointer (RFC 6901): the document's root is the empty pointer, so a fault of the whole \
            document reads FILE:LINE:COLUMN: : message. With --syntax only JSON syntax is \
            checked, and faults read FILE:LINE:COLUMN: message. Columns count UTF-8 bytes. With \
            --syntax, --jobs threads check each file (the elements of a root array, or of data and \
            included, go to other threads in batches); the first fault is the same for any number. \
            The JSON:API rules are checked on one thread.

            Memory: one resource object (or top-level member) is held whole at a time, up to \
            --max-held-bytes, and the document-wide rules keep each resource identity compactly: about \
            18 bytes a resource with a decimal id (plus the id's length for other ids), so ten million \
            resources are checked in under 256 MB. Linkage from an included resource that nothing had \
            reached when it was read waits for the end, 8 bytes a target. At most --max-violations \
            violations are listed per file; a last line counts the rest.

            A valid file prints nothing, so scripts need only the exit code; --verbose prints NAME: valid \
            for each valid file and a closing summary on standard output, and on a terminal the summary \
            is printed anyway.

            The exit code is 0 when every file is valid, 1 when any file is invalid, and 2 when a \
            file cannot be read or the command is called wrongly.

            Examples:
              sluice validate response.json
              sluice validate --request --format json new-article.json
              sluice validate --request relationship new-tags.json
              sluice validate --request update article-patch.json
              sluice validate --full-linkage --strict-members our-response.json
              sluice validate --strict-members --extension https://jsonapi.org/ext/atomic ops.json
              curl -s https://example.com/api/articles | sluice validate --syntax -
            """
    )

    @Flag(help: "Check JSON syntax only: the grammar of RFC 8259, strict UTF-8, and the limits below.")
    var syntax = false

    @Flag(
        help: ArgumentHelp(
            "With --syntax: read each file as JSON Lines, one value per line, and list every bad line.",
            discussion:
                "Files named .jsonl or .ndjson are read so without it, and .json-seq files as RFC 7464 sequences."
        )
    )
    var lines = false

    @Option(
        help: ArgumentHelp(
            "Treat the documents as requests to a resource endpoint (resource, the default when the value is left out), updates of a resource (update) or requests to a relationship endpoint (relationship).",
            discussion:
                "A request to a resource endpoint holds a single resource object as primary data, which may have a lid instead of an id, and every relationship it provides has data; an update's resource object must have the id of the resource it updates; a request to a relationship endpoint holds resource linkage.",
            valueName: "endpoint"
        )
    )
    var request: RequestEndpoint?

    @Flag(help: "Report members the specification does not define as errors rather than warnings.")
    var strictMembers = false

    @Flag(
        help:
            "Report included resources that primary data does not reach through relationships as errors rather than warnings (for a server testing its own output)."
    )
    var fullLinkage = false

    @Option(
        name: .customLong("extension"),
        help: ArgumentHelp(
            "An extension applied to the documents beyond those their jsonapi.ext announces, by URI or namespace (repeatable).",
            valueName: "uri"
        )
    )
    var extensions: [String] = []

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

    @Option(
        help:
            "The most bytes of tokens and text held at once: the one resource object or top-level member read whole (32 bytes a token, plus its text)."
    )
    var maxHeldBytes = JSONLimits.streaming.maxHeldBytes

    @Option(help: "The most violations listed per file; a last one counts those left out.")
    var maxViolations = JSONAPIValidator().maximumViolations

    @Argument(help: "The files to check. Give - to read standard input.")
    var files: [String]

    @OptionGroup var jobs: JobsOption

    func validate() throws {
        guard maxDepth > 0 else { throw ValidationError("--max-depth must be at least 1.") }
        guard maxStringBytes >= 0 else { throw ValidationError("--max-string-bytes must not be negative.") }
        guard maxHeldBytes > 0 else { throw ValidationError("--max-held-bytes must be at least 1.") }
        if lines && !syntax { throw ValidationError("--lines checks syntax: give --syntax with it.") }
        guard maxViolations > 0 else { throw ValidationError("--max-violations must be at least 1.") }
    }

    func run() async throws {
        let limits = JSONLimits(maxDepth: maxDepth, maxStringBytes: maxStringBytes, maxHeldBytes: maxHeldBytes)
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
                if syntax, let format = lineFormat(of: path) {
                    // Each line stands alone: every bad one is listed, not only the first.
                    let faults = try Self.checkLines(of: reader, format: format, limits: limits, limit: maxViolations)
                    for fault in faults.listed { try report.add(fault, in: name) }
                    if faults.more > 0 {
                        Terminal.message("\(name): \(faults.more) more bad \(format == .lines ? "lines" : "values")\n")
                    }
                    isValid = faults.listed.isEmpty
                    bytes = reader.bytesRead
                } else if syntax {
                    bytes = try JSONParser.validateSyntax(
                        of: reader,
                        limits: limits,
                        parallelism: jobs.parallelism,
                        splittingArraysAt: JSONPath.jsonAPIBulk
                    )
                } else {
                    var validator = JSONAPIValidator(request: request?.target, strictMembers: strictMembers)
                    validator.appliedExtensions = extensions
                    validator.requiresFullLinkage = fullLinkage
                    validator.limits = limits
                    validator.maximumViolations = maxViolations
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

extension Validate {
    /// The sequence format `--syntax` checks `path` as: `--lines`, or its extension (`.jsonl`,
    /// `.ndjson`, `.json-seq`); `nil` for one JSON value.
    func lineFormat(of path: String) -> JSONSequenceFormat? {
        lines ? .lines : JSONSequenceFormat(fileName: path)
    }

    /// The values of a JSON Lines input (or a text sequence) that are not valid JSON, the first
    /// `limit` of them, and how many more there are.
    static func checkLines(
        of reader: FileChunkReader,
        format: JSONSequenceFormat,
        limits: JSONLimits,
        limit: Int
    ) throws -> (listed: [JSONError], more: Int) {
        let sequence = JSONSequenceReader(format: format, limits: limits)
        var listed: [JSONError] = []
        var more = 0
        sequence.valueFault = { fault, _ in
            if listed.count < limit { listed.append(fault) } else { more += 1 }
        }
        do {
            try reader.forEachChunk { chunk in try sequence.feed(chunk) { _, _ in } }
            try sequence.finish { _, _ in }
        } catch let fault as JSONError {
            // A fault of the sequence itself (a line past the limit) ends the check.
            listed.append(fault)
        }
        return (listed, more)
    }

    /// `--request` alone means `--request resource`: it was a flag before it took a value, and
    /// it still reads best that way for the common case. ArgumentParser has no option whose value
    /// may be left out, so the arguments of `sluice validate` are completed before parsing.
    static func completingRequestOption(_ arguments: [String]) -> [String] {
        guard arguments.first == "validate" else { return arguments }
        var completed: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            completed.append(argument)
            if argument == "--" {
                completed.append(contentsOf: arguments[(index + 1)...])
                break
            }
            let next = index + 1 < arguments.endIndex ? arguments[index + 1] : nil
            if argument == "--request", next.flatMap(RequestEndpoint.init(rawValue:)) == nil {
                completed.append(RequestEndpoint.resource.rawValue)
            }
            index += 1
        }
        return completed
    }
}
