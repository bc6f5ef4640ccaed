import SluiceJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unbuffered writes to standard output and standard error, and the formats the commands share.
struct Terminal {
    let descriptor: Int32

    static let standardOutput = Terminal(descriptor: STDOUT_FILENO)
    static let standardError = Terminal(descriptor: STDERR_FILENO)

    func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes every byte, retrying after interruptions and short writes.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// `FILE:LINE:COLUMN: message`, then the excerpt and a caret under the fault.
    static func describe(_ error: JSONError, in file: String) -> String {
        var text = "\(file):\(error.line):\(error.column): \(error.message)\n"
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
    static func formatted(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = String(scaled % Int(scale))
        guard decimals > 0 else { return String(whole) }
        return "\(whole).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
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

    mutating func write(_ chunk: some Sequence<UInt8>) {
        bytes.append(contentsOf: chunk)
        if bytes.count >= 64 * 1024 { flush() }
    }

    mutating func write(_ chunk: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: chunk)
        if bytes.count >= 64 * 1024 { flush() }
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        terminal.write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}

/// A file opened for writing, created or truncated.
struct FileOutput {
    let descriptor: Int32

    init?(path: String) {
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { return nil }
        descriptor = opened
    }

    func close() {
        _ = Glibc.close(descriptor)
    }

    /// The description of the last system error.
    static var lastError: String { String(cString: strerror(errno)) }
}
