import ArgumentParser
import SluiceJSON

#if canImport(Glibc)
import Glibc
#endif

/// `sluice validate`: checks files and reports every fault with its position.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Checks that files are well-formed JSON, reporting each fault with its line and column.",
        discussion: """
            Each file is read as a stream in 64 KiB chunks, so a file of any size is checked in a few \
            megabytes of memory. Faults are printed to standard error as FILE:LINE:COLUMN: message, \
            followed by the line of input around the fault. Columns count UTF-8 bytes.

            The exit code is 0 when every file is valid, 1 when any file is invalid, and 2 when a \
            file cannot be read or the command is called wrongly.

            Examples:
              sluice validate --syntax export.json page-2.json
              curl -s https://example.com/api/articles | sluice validate --syntax -
            """
    )

    @Flag(help: "Check JSON syntax: the grammar of RFC 8259, strict UTF-8, and the limits below.")
    var syntax = false

    @Flag(help: "Print each valid file's size, the time taken and the throughput to standard output.")
    var stats = false

    @Option(help: "The deepest nesting of arrays and objects accepted.")
    var maxDepth = JSONLimits.default.maxDepth

    @Option(help: "The longest string, key or number accepted, in bytes as written.")
    var maxStringBytes = JSONLimits.default.maxStringBytes

    @Argument(help: "The files to check. Give - to read standard input.")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file to check, or - for standard input.") }
        guard maxDepth > 0 else { throw ValidationError("--max-depth must be at least 1.") }
        guard maxStringBytes >= 0 else { throw ValidationError("--max-string-bytes must not be negative.") }
    }

    func run() async throws {
        let limits = JSONLimits(maxDepth: maxDepth, maxStringBytes: maxStringBytes)
        var worst: Int32 = 0
        for path in files {
            let name = path == "-" ? "<stdin>" : path
            let started = ContinuousClock.now
            do {
                let reader = try FileChunkReader(path: path)
                let bytes = try JSONParser.validateSyntax(of: reader, limits: limits)
                if stats {
                    let seconds = (ContinuousClock.now - started).seconds
                    Terminal.standardOutput.write(
                        "\(name): valid, \(bytes) bytes in \(Terminal.formatted(milliseconds: seconds * 1000)) (\(Terminal.formatted(throughputOf: bytes, seconds: seconds)))\n"
                    )
                }
            } catch let error as JSONError {
                worst = max(worst, 1)
                Terminal.standardError.write(Terminal.describe(error, in: name))
            } catch let error as FileChunkReader.Failure {
                worst = 2
                Terminal.standardError.write("\(name): cannot read: \(error.reason)\n")
            }
        }
        if worst != 0 { throw ExitCode(worst) }
    }
}
