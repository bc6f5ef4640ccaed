import ArgumentParser
import SluiceImport
import SluiceJSON
import SluiceJSONAPI

/// Collects the faults of every input and prints them in the chosen format, and decides the exit
/// code: the same for every command. Pointers print as written (RFC 6901), so the document's root
/// is the empty pointer: `FILE:1:1: : message`.
struct FaultReport {
    /// The exit code of an input that is a JSON:API error document: well-formed, but the server
    /// reported errors instead of data, which a script may want to tell from invalid input (1).
    static let errorDocumentExitCode: Int32 = 3

    /// `.text`: `FILE:LINE:COLUMN: [POINTER: ]message` on standard error, as each fault is found.
    /// `.json`: one JSON array on standard output at the end.
    let format: OutputFormat
    private(set) var exitCode: Int32 = 0
    private var entries: [JSONValue] = []

    init(format: OutputFormat = .text) {
        self.format = format
    }

    /// Reports `error` against `file` if it is a fault of the input (syntax, JSON:API, an error
    /// document, an unreadable file); rethrows anything else.
    mutating func add(_ error: any Error, in file: String) throws {
        switch error {
        case let error as JSONError:
            record(1, file, error.position, pointer: error.pointer, "error", "syntax", error.message) {
                Terminal.describe(error, in: file)
            }
        case let error as JSONAPIDecodingError:
            record(1, file, error.position, pointer: error.pointer, "error", "jsonapi", error.message) {
                "\(file):\(error.position.map { "\($0.line):\($0.column): " } ?? "")\(error.pointer): \(error.message)\n"
            }
        case let error as JSONAPIErrorDocument:
            record(
                Self.errorDocumentExitCode,
                file,
                nil,
                pointer: "/errors",
                "error",
                "error-document",
                error.description
            ) {
                "\(file): \(error.description)\n"
            }
        case let error as ImportTooManyFaults:
            record(1, file, error.last.position, pointer: error.last.pointer, "error", "faults", error.description) {
                "\(file): \(error.description)\n"
            }
        case let error as FileChunkReader.Failure:
            unreadable(file, error.reason)
        case let error as ImportSourceError:
            unreadable(file, error.reason)
        case let error as ImportGzipError:
            unreadable(file, error.description)
        default:
            throw error
        }
    }

    private mutating func unreadable(_ file: String, _ reason: String) {
        record(2, file, nil, pointer: nil, "error", "unreadable", "cannot read: \(reason)") {
            "\(file): cannot read: \(reason)\n"
        }
    }

    mutating func add(_ violation: JSONAPIViolation, in file: String) {
        let isError = violation.severity == .error
        record(
            isError ? 1 : 0,
            file,
            violation.position,
            pointer: violation.pointer,
            violation.severity.rawValue,
            "jsonapi",
            violation.message
        ) {
            let severity = isError ? "" : "warning: "
            return
                "\(file):\(violation.position.line):\(violation.position.column): \(violation.pointer): \(severity)\(violation.message)\n"
        }
    }

    /// Raises the exit code to 2 for a fault already printed that is not the input's (the
    /// database's, say).
    mutating func recordDatabaseFault() {
        if Self.rank(of: 2) > Self.rank(of: exitCode) { exitCode = 2 }
    }

    /// How much an exit code says: unreadable (2) outranks invalid (1), which outranks an error
    /// document (3), which outranks success (0).
    private static func rank(of code: Int32) -> Int {
        switch code {
        case 0: 0
        case errorDocumentExitCode: 1
        case 1: 2
        default: 3
        }
    }

    /// Prints the JSON array, if that is the format.
    func finish() throws {
        guard format == .json else { return }
        try Terminal.standardOutput.write(JSONValue.array(entries).jsonText + "\n")
    }

    /// Raises the exit code to `code` and prints the fault as text now, or keeps it for the array.
    private mutating func record(
        _ code: Int32,
        _ file: String,
        _ position: JSONPosition?,
        pointer: String?,
        _ severity: String,
        _ kind: String,
        _ message: String,
        text: () -> String
    ) {
        if Self.rank(of: code) > Self.rank(of: exitCode) { exitCode = code }
        switch format {
        case .text: Terminal.message(text())
        case .json:
            entries.append(
                entry(
                    file: file,
                    position: position,
                    pointer: pointer,
                    severity: severity,
                    kind: kind,
                    message: message
                )
            )
        }
    }

    private func entry(
        file: String,
        position: JSONPosition?,
        pointer: String?,
        severity: String,
        kind: String,
        message: String
    ) -> JSONValue {
        .object(
            JSONObject([
                ("file", .string(file)),
                ("line", position.map { .number(String($0.line)) } ?? .null),
                ("column", position.map { .number(String($0.column)) } ?? .null),
                ("byteOffset", position.map { .number(String($0.byteOffset)) } ?? .null),
                ("pointer", pointer.map { .string($0) } ?? .null),
                ("severity", .string(severity)),
                ("kind", .string(kind)),
                ("message", .string(message)),
            ])
        )
    }
}

/// Input handling the commands share.
enum Input {
    /// How a path is named in messages: `<stdin>` for `-`.
    static func displayName(of path: String) -> String { path == "-" ? "<stdin>" : path }
}

/// `--jobs N`, the threads one document is read with, for every command that reads documents.
struct JobsOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How many threads read each document, this one included. Default: the cores available.",
            discussion: """
                The output is the same for any number; 1 reads on one thread. An import of one \
                document reads with one fewer than the cores by default: its database writer keeps one.
                """
        )
    )
    var jobs: Int?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    }

    /// The setting the coders take.
    var parallelism: Parallelism { jobs.map { .workers($0) } ?? .automatic }
}
