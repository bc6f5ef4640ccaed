import ArgumentParser
import SluiceJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Output that could not be written (a full disk, a closed file): the command stops with exit 2
/// rather than report success over truncated output. A closed pipe is the exception (see
/// ``isClosedPipe``).
struct OutputFailure: Error {
    let reason: String
    /// Whether the reader of a pipe went away (`EPIPE`), as `head` does once it has its lines:
    /// the command then stops quietly with exit 0, which is what a pipeline's user expects.
    var isClosedPipe = false

    /// The failure the last system call reported.
    static var last: OutputFailure {
        OutputFailure(reason: String(cString: strerror(errno)), isClosedPipe: errno == EPIPE)
    }
}

/// How a command prints its results: lines for people, or JSON for scripts.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Unbuffered writes to standard output and standard error, and the formats the commands share.
struct Terminal {
    let descriptor: Int32

    static let standardOutput = Terminal(descriptor: STDOUT_FILENO)

    /// Whether this is a terminal (a person reading), not a pipe or a file (a script).
    var isTerminal: Bool { isatty(descriptor) == 1 }
    static let standardError = Terminal(descriptor: STDERR_FILENO)

    /// Writes a message to standard error. A failure there has nowhere to be reported, so it is
    /// ignored; results go through the throwing `write`s.
    static func message(_ text: String) {
        try? standardError.write(text)
    }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in try write(UnsafeRawBufferPointer(bytes)) }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in try write(buffer) }
    }

    /// Writes every byte, retrying after interruptions and short writes.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputFailure.last
            }
            offset += written
        }
    }

    /// `FILE:LINE:COLUMN: [POINTER: ]message`, then the excerpt and a caret under the fault. The
    /// pointer is there when a JSON:API reader knew where in the document the fault came up
    /// (the empty pointer for the top level, as RFC 6901 writes it and as for JSON:API faults).
    static func describe(_ error: JSONError, in file: String) -> String {
        let pointer = error.pointer.map { $0 + ": " } ?? ""
        var text = "\(file):\(error.line):\(error.column): \(pointer)\(error.message)\n"
        if !error.excerpt.isEmpty {
            text += "    \(error.excerpt)\n    \(String(repeating: " ", count: error.excerptColumn))^\n"
        }
        return text
    }

    static func formatted(milliseconds: Double) -> String {
        formatted(milliseconds, decimals: milliseconds < 10 ? 2 : 1) + " ms"
    }

    static func formatted(throughputOf bytes: Int, seconds: Double) -> String {
        guard seconds > 0 else { return "- MB/s" }
        return formatted(Double(bytes) / seconds / 1_000_000, decimals: 1) + " MB/s"
    }

    /// A fixed-point rendering without Foundation's locale-dependent formatters.
    /// Negative values keep their sign (`-0.3`), and round to zero without one.
    static func formatted(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        // The digits of the magnitude, the sign put back after: `%` of a negative number is
        // negative, and its minus sign would count as a digit.
        let scaled = Int((abs(value) * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = String(scaled % Int(scale))
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(whole) }
        return "\(sign)\(whole).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Gathers output into 64 KiB blocks before writing, so that many small lines cost few system calls.
struct OutputBuffer {
    let terminal: Terminal
    private var bytes: [UInt8] = []

    init(terminal: Terminal) {
        self.terminal = terminal
        bytes.reserveCapacity(64 * 1024)
    }

    mutating func write(_ chunk: some Sequence<UInt8>) throws {
        bytes.append(contentsOf: chunk)
        if bytes.count >= 64 * 1024 { try flush() }
    }

    mutating func flush() throws {
        guard !bytes.isEmpty else { return }
        defer { bytes.removeAll(keepingCapacity: true) }
        try terminal.write(bytes)
    }
}

/// A file opened for writing, created or truncated.
struct FileOutput {
    let terminal: Terminal

    init(path: String) throws {
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw OutputFailure.last }
        terminal = Terminal(descriptor: opened)
    }

    /// Closes the file; a failure here can mean data that never reached the disk.
    func close() throws {
        guard systemClose(terminal.descriptor) == 0 else { throw OutputFailure.last }
    }
}

// The C functions under names of their own: inside `Terminal` and `FileOutput`, `write` and
// `close` would name the methods.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
