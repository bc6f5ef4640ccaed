import Foundation
import Testing

/// Output the commands cannot write, and the JSON report's contract, run as a user would.
@Suite("sluice output and reports")
struct OutputCommandTests {
    typealias Tool = ValidateCommandTests

    @Test("output that cannot be written exits 2 with the reason, never 0 over a truncated file")
    func unwritableOutput() async throws {
        var run = try await Tool.run(["generate", "--articles", "5", "-o", "/nonexistent/dir/out.json"])
        #expect(run.status == 2)
        #expect(run.standardError == "sluice: cannot write: /nonexistent/dir/out.json: No such file or directory\n")
        // /dev/full accepts the open and refuses every write.
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        run = try await Tool.run(["generate", "--articles", "50", "-o", "/dev/full"])
        #expect(run.status == 2)
        #expect(run.standardError == "sluice: cannot write: /dev/full: No space left on device\n")
    }

    @Test("validate --format json prints one JSON array on standard output, unreadable files and stats included")
    func jsonReport() async throws {
        let good = try Tool.temporaryFile(#"{"data": null}"#)
        let run = try await Tool.run(["validate", "--format", "json", "--stats", good, "/nonexistent/file.json"])
        #expect(run.status == 2)
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]]
        )
        #expect(entries.count == 1)
        #expect(entries.first?["file"] as? String == "/nonexistent/file.json")
        #expect(entries.first?["kind"] as? String == "unreadable")
        #expect(entries.first?["line"] is NSNull)
        #expect(entries.first?["message"] as? String == "cannot read: No such file or directory")
        // The statistics go to standard error, so standard output stays one JSON array.
        #expect(run.standardError.hasPrefix("\(good): valid, 14 bytes in "))
    }

    @Test("an error document is reported with its file by flatten and bench, exit 3")
    func errorDocument() async throws {
        let file = try Tool.temporaryFile(#"{"errors": [{"status": "404", "title": "Not found"}]}"#)
        var run = try await Tool.run(["flatten", file])
        #expect(run.status == 3)
        #expect(run.standardError == "\(file): The document reports 1 error: 404 Not found\n")
        run = try await Tool.run(["bench", file, "--runs", "1"])
        #expect(run.status == 3)
        #expect(run.standardError.contains("\(file): "))
        #expect(run.standardError.contains("Not found"))
        #expect(!run.standardError.contains("Error:"))
    }

    @Test("bench refuses standard input, which it would have to read once per run")
    func benchStandardInput() async throws {
        let run = try await Tool.run(["bench", "-"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("give a file, not standard input"))
    }
}
