import Foundation
import Testing

/// Whether the tests run under a sanitizer (`make sanitize SANITIZE_ALL=1` says so): memory
/// figures then measure the sanitizer's quarantine, not Sluice.
let sanitized = ProcessInfo.processInfo.environment["SLUICE_SANITIZER"] != nil

/// Runs the built `sluice` binary and checks its output and exit codes.
@Suite("sluice validate")
struct ValidateCommandTests {
    struct Run {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The `sluice` binary SwiftPM built next to this test bundle.
    static let executable: URL = {
        let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            buildDirectory.appendingPathComponent("sluice"),
            buildDirectory.deletingLastPathComponent().appendingPathComponent("sluice"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/sluice"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Runs the binary with `arguments`, `standardInput`, and `environment` added to this process's,
    /// waiting for it on a thread of its own: a wait on the cooperative pool (2 threads on a 2-core
    /// machine) would stall every other test's tasks, the loopback servers' handlers among them.
    static func run(
        _ arguments: [String],
        standardInput: Data? = nil,
        environment: [String: String] = [:]
    ) async throws -> Run {
        try await offPool { try runBlocking(arguments, standardInput: standardInput, environment: environment) }
    }

    /// Runs `body`, which blocks, on a thread of its own and waits for it without holding a
    /// thread of the cooperative pool.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Waits for `process` to end without holding a thread of the cooperative pool.
    static func waitForExit(of process: Process) async {
        _ = try? await offPool { process.waitUntilExit() }
    }

    /// ``run(_:standardInput:environment:)`` on the calling thread, which it blocks.
    private static func runBlocking(
        _ arguments: [String],
        standardInput: Data?,
        environment: [String: String]
    ) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let error = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        // Input is written and both outputs are drained at once, by system calls that retry on
        // EINTR: a command that prints while it reads would otherwise block on a full pipe, and
        // Foundation's FileHandle traps when a signal (another test's child ending) interrupts it.
        let group = DispatchGroup()
        let writer = input.fileHandleForWriting.fileDescriptor
        group.enter()
        DispatchQueue.global().async {
            if let standardInput { Self.writeAll(standardInput, to: writer) }
            try? input.fileHandleForWriting.close()
            group.leave()
        }
        let errorData = LockedData()
        group.enter()
        DispatchQueue.global().async {
            errorData.set(Self.readAll(error.fileHandleForReading.fileDescriptor))
            group.leave()
        }
        let outputData = Self.readAll(output.fileHandleForReading.fileDescriptor)
        group.wait()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.get(), as: UTF8.self)
        )
    }

    /// Bytes handed from a reading thread to the test's.
    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func set(_ value: Data) { lock.withLock { data = value } }
        func get() -> Data { lock.withLock { data } }
    }

    static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    static func writeAll(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Writes `contents` to a fresh temporary file and returns its path.
    static func temporaryFile(_ contents: String, name: String = "input.json") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-tests-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: file)
        return file.path
    }

    @Test("valid files exit 0 and print nothing; --stats prints sizes")
    func valid() async throws {
        let first = try Self.temporaryFile(#"{"a": [1, 2, 3]}"#)
        let second = try Self.temporaryFile("[\"caf\u{e9}\"]\n")
        var run = try await Self.run(["validate", "--syntax", first, second])
        #expect(run.status == 0)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.isEmpty)
        run = try await Self.run(["validate", "--syntax", "--stats", first])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("\(first): valid, 16 bytes in "))
    }

    @Test("an invalid file exits 1 with FILE:LINE:COLUMN: message on standard error")
    func invalid() async throws {
        let good = try Self.temporaryFile("[]")
        let bad = try Self.temporaryFile("{\n  \"a\": [1, 2,]\n}")
        let run = try await Self.run(["validate", "--syntax", good, bad])
        #expect(run.status == 1)
        let lines = run.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines.first
                == "\(bad):2:14: Trailing comma: ',' before ']' ends the array; JSON allows no comma after its last element."
        )
        #expect(lines.dropFirst().first == "      \"a\": [1, 2,]")
        #expect(lines.dropFirst(2).first == "                 ^")
    }

    @Test("standard input is read when the file is -")
    func standardInput() async throws {
        var run = try await Self.run(["validate", "--syntax", "-"], standardInput: Data("[1, 2".utf8))
        #expect(run.status == 1)
        #expect(
            run.standardError.hasPrefix("<stdin>:1:6: The input ended inside an array that opened at line 1, column 1.")
        )
        run = try await Self.run(["validate", "--syntax", "-"], standardInput: Data(#"{"ok": true}"#.utf8))
        #expect(run.status == 0)
    }

    @Test("usage errors and unreadable files exit 2")
    func usage() async throws {
        var run = try await Self.run(["validate", "--syntax"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("Missing expected argument '<files> ...'"))
        run = try await Self.run(["validate", "--no-such-flag", "x.json"])
        #expect(run.status == 2)
        run = try await Self.run(["validate", "--syntax", "/nonexistent/file.json"])
        #expect(run.status == 2)
        #expect(run.standardError == "/nonexistent/file.json: cannot read: No such file or directory\n")
    }

    @Test("limits are configurable from the command line")
    func limits() async throws {
        let file = try Self.temporaryFile("[[[[1]]]]")
        let run = try await Self.run(["validate", "--syntax", "--max-depth", "3", file])
        #expect(run.status == 1)
        #expect(
            run.standardError.hasPrefix(
                "\(file):1:4: Arrays and objects are nested more than 3 levels deep, the limit."
            )
        )
    }

    @Test("help reads as full sentences with an example")
    func help() async throws {
        let run = try await Self.run(["validate", "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("Checks that files are valid JSON:API documents"))
        #expect(run.standardOutput.contains("sluice validate response.json"))
    }
}
