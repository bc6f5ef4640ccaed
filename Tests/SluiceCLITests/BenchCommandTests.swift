import Foundation
import Testing

/// `sluice bench`, run as a user would: the comparison's shape and checks, never its speed.
@Suite("sluice bench")
struct BenchCommandTests {
    typealias Tool = ValidateCommandTests

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a user's file: both contenders agree and --format json gives every figure")
    func userFile() async throws {
        let file = try Tool.temporaryFile(JSONAPICommandTests.document)
        let run = try await Tool.run(["bench", file, "--runs", "2", "--format", "json"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try Self.object(run.standardOutput)
        #expect(report["input"] as? String == file)
        #expect(report["resources"] as? Int == 3)
        #expect(report["runs"] as? Int == 2)
        #expect(report["bytes"] as? Int == JSONAPICommandTests.document.utf8.count)
        for contender in ["sluice", "foundation"] {
            let entry = try #require(report[contender] as? [String: Any], "\(contender) missing")
            #expect((entry["seconds"] as? Double ?? 0) > 0)
            #expect((entry["megabytesPerSecond"] as? Double ?? 0) > 0)
            #expect((entry["peakMemoryBytes"] as? Int ?? 0) > 1_000_000)
            #expect(entry["cpuSeconds"] is Double)
        }
        #expect((report["speedup"] as? Double ?? 0) > 0)
        #expect((report["memoryRatio"] as? Double ?? 0) > 0)
    }

    @Test("the default input is a generated document, reported as a table")
    func generatedTable() async throws {
        let run = try await Tool.run(["bench", "--articles", "40", "--runs", "1", "--jobs", "2"])
        #expect(run.status == 0, "\(run.standardError)")
        // As many resources as flatten finds in the same generated document.
        let generated = try await Tool.run(["generate", "--articles", "40"])
        let file = try Tool.temporaryFile(generated.standardOutput)
        let lines = try await Tool.run(["flatten", file]).standardOutput.split(separator: "\n").count
        #expect(run.standardOutput.hasPrefix("Input: generated document of 40 articles, "))
        #expect(run.standardOutput.contains(" \(lines) resources. Medians of 1 run.\n"))
        // With two threads, Sluice runs on one as well, for the speed-up in the same run.
        #expect(run.standardOutput.contains("\nSluice streaming, 1 thread "))
        #expect(run.standardOutput.contains("\nSluice streaming, 2 threads "))
        #expect(run.standardOutput.contains("\n2 threads read it "))
        #expect(run.standardOutput.contains("\nFoundation JSONSerialization + mapping "))
        #expect(run.standardOutput.contains("x its peak memory.\n"))
        #expect(run.standardError.contains("Generating a document of 40 articles"))
        // The temporary document is removed afterwards.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("sluice-bench-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("invalid input exits 1 with its position; a missing file or bad option exits 2")
    func faults() async throws {
        let bad = try Tool.temporaryFile("{\"data\": [\n  {\"type\": \"people\", \"id\": 1}\n]}")
        var run = try await Tool.run(["bench", bad, "--runs", "1"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("\(bad):2:28: /data/0/id: id must be a string, but it is a number."))
        let broken = try Tool.temporaryFile("{\"data\": [}")
        run = try await Tool.run(["bench", broken, "--runs", "1"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("\(broken):1:11: "))
        run = try await Tool.run(["bench", "/nonexistent/export.json"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("/nonexistent/export.json: cannot read"))
        run = try await Tool.run(["bench", "--runs", "0"])
        #expect(run.status == 2)
    }
}
