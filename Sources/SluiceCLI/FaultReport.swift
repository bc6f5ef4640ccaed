import SluiceJSON
import SluiceJSONAPI

/// Collects the faults of every input and prints them in the chosen format, and decides the exit
/// code: the same for every command.
struct FaultReport {
    enum Format {
        /// `FILE:LINE:COLUMN: [POINTER: ]message` on standard error, as each fault is found.
        case text
        /// One JSON array on standard output at the end.
        case json
    }

    let format: Format
    private(set) var exitCode: Int32 = 0
    private var invalidFiles: Set<String> = []
    private var entries: [JSONValue] = []

    init(format: Format = .text) {
        self.format = format
    }

    func isValid(_ file: String) -> Bool { !invalidFiles.contains(file) }

    mutating func add(_ error: JSONError, in file: String) {
        fail(file, code: 1)
        switch format {
        case .text: Terminal.standardError.write(Terminal.describe(error, in: file))
        case .json:
            entries.append(
                entry(
                    file: file,
                    position: error.position,
                    pointer: nil,
                    severity: "error",
                    kind: "syntax",
                    message: error.message
                )
            )
        }
    }

    mutating func add(_ violation: JSONAPIViolation, in file: String) {
        if violation.severity == .error { fail(file, code: 1) }
        switch format {
        case .text:
            let severity = violation.severity == .warning ? "warning: " : ""
            let pointer = violation.pointer.isEmpty ? "/" : violation.pointer
            Terminal.standardError.write(
                "\(file):\(violation.position.line):\(violation.position.column): \(pointer): \(severity)\(violation.message)\n"
            )
        case .json:
            entries.append(
                entry(
                    file: file,
                    position: violation.position,
                    pointer: violation.pointer,
                    severity: violation.severity.rawValue,
                    kind: "jsonapi",
                    message: violation.message
                )
            )
        }
    }

    mutating func add(_ error: JSONAPIDecodingError, in file: String) {
        fail(file, code: 1)
        switch format {
        case .text:
            let place = error.position.map { "\($0.line):\($0.column): " } ?? ""
            Terminal.standardError.write(
                "\(file):\(place)\(error.pointer.isEmpty ? "/" : error.pointer): \(error.message)\n"
            )
        case .json:
            entries.append(
                entry(
                    file: file,
                    position: error.position ?? JSONPosition(byteOffset: 0, line: 1, column: 1),
                    pointer: error.pointer,
                    severity: "error",
                    kind: "jsonapi",
                    message: error.message
                )
            )
        }
    }

    mutating func addUnreadable(_ error: FileChunkReader.Failure, in file: String) {
        fail(file, code: 2)
        Terminal.standardError.write("\(file): cannot read: \(error.reason)\n")
    }

    mutating func finish() {
        guard format == .json else { return }
        Terminal.standardOutput.write(JSONValue.array(entries).jsonText + "\n")
    }

    private mutating func fail(_ file: String, code: Int32) {
        invalidFiles.insert(file)
        exitCode = max(exitCode, code)
    }

    private func entry(
        file: String,
        position: JSONPosition,
        pointer: String?,
        severity: String,
        kind: String,
        message: String
    ) -> JSONValue {
        .object(
            JSONObject([
                ("file", .string(file)),
                ("line", .number(String(position.line))),
                ("column", .number(String(position.column))),
                ("byteOffset", .number(String(position.byteOffset))),
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
