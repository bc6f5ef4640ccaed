import Foundation
import Testing

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

    static func run(_ arguments: [String], standardInput: Data? = nil) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        if let standardInput { input.fileHandleForWriting.write(standardInput) }
        try input.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self)
        )
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
    func valid() throws {
        let first = try Self.temporaryFile(#"{"a": [1, 2, 3]}"#)
        let second = try Self.temporaryFile("[\"caf\u{e9}\"]\n")
        var run = try Self.run(["validate", "--syntax", first, second])
        #expect(run.status == 0)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.isEmpty)
        run = try Self.run(["validate", "--syntax", "--stats", first])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("\(first): valid, 16 bytes in "))
    }

    @Test("an invalid file exits 1 with FILE:LINE:COLUMN: message on standard error")
    func invalid() throws {
        let good = try Self.temporaryFile("[]")
        let bad = try Self.temporaryFile("{\n  \"a\": [1, 2,]\n}")
        let run = try Self.run(["validate", "--syntax", good, bad])
        #expect(run.status == 1)
        let lines = run.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "\(bad):2:14: Unexpected ']' where a value was expected.")
        #expect(lines.dropFirst().first == "      \"a\": [1, 2,]")
        #expect(lines.dropFirst(2).first == "                 ^")
    }

    @Test("standard input is read when the file is -")
    func standardInput() throws {
        var run = try Self.run(["validate", "--syntax", "-"], standardInput: Data("[1, 2".utf8))
        #expect(run.status == 1)
        #expect(
            run.standardError.hasPrefix("<stdin>:1:6: The input ended inside an array that opened at line 1, column 1.")
        )
        run = try Self.run(["validate", "--syntax", "-"], standardInput: Data(#"{"ok": true}"#.utf8))
        #expect(run.status == 0)
    }

    @Test("usage errors and unreadable files exit 2")
    func usage() throws {
        var run = try Self.run(["validate", "--syntax"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("Missing expected argument '<files> ...'"))
        run = try Self.run(["validate", "--no-such-flag", "x.json"])
        #expect(run.status == 2)
        run = try Self.run(["validate", "--syntax", "/nonexistent/file.json"])
        #expect(run.status == 2)
        #expect(run.standardError == "/nonexistent/file.json: cannot read: No such file or directory\n")
    }

    @Test("limits are configurable from the command line")
    func limits() throws {
        let file = try Self.temporaryFile("[[[[1]]]]")
        let run = try Self.run(["validate", "--syntax", "--max-depth", "3", file])
        #expect(run.status == 1)
        #expect(
            run.standardError.hasPrefix(
                "\(file):1:4: Arrays and objects are nested more than 3 levels deep, the limit."
            )
        )
    }

    @Test("help reads as full sentences with an example")
    func help() throws {
        let run = try Self.run(["validate", "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("Checks that files are valid JSON:API documents"))
        #expect(run.standardOutput.contains("sluice validate response.json"))
    }
}
