import Foundation
import Testing

/// `sluice validate` (JSON:API), `sluice flatten` and `sluice generate`, run as a user would.
@Suite("sluice JSON:API commands")
struct JSONAPICommandTests {
    typealias Tool = ValidateCommandTests

    static let document = #"""
        {"data": [{"type": "articles", "id": "1", "attributes": {"title": "Hi", "score": 1.50, "tags": ["a"]},
                   "relationships": {"author": {"data": {"type": "people", "id": "9"}},
                                     "comments": {"data": [{"type": "comments", "id": "5"}]},
                                     "editor": {"data": null}, "related": {"links": {"related": "http://x"}}}}],
         "included": [{"type": "people", "id": "9", "attributes": {"name": "Dan"}},
                      {"type": "comments", "lid": "c5", "id": "5"}]}
        """#

    @Test("validate checks JSON:API by default and reports FILE:LINE:COLUMN: POINTER: message")
    func validateJSONAPI() async throws {
        let valid = try Tool.temporaryFile(Self.document)
        var run = try await Tool.run(["validate", valid])
        #expect(run.status == 0, "\(run.standardError)")
        let invalid = try Tool.temporaryFile("{\"data\": [\n  {\"type\": \"people\", \"id\": 1}\n]}")
        run = try await Tool.run(["validate", invalid])
        #expect(run.status == 1)
        #expect(run.standardError == "\(invalid):2:28: /data/0/id: id must be a string, but it is a number.\n")
        run = try await Tool.run(["validate", "--format", "json", invalid])
        #expect(run.status == 1)
        let entries = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]]
        #expect(entries?.count == 1)
        #expect(entries?.first?["pointer"] as? String == "/data/0/id")
        #expect(entries?.first?["line"] as? Int == 2)
        #expect(entries?.first?["column"] as? Int == 28)
        // --syntax keeps the syntax-only check: the same file is well-formed JSON.
        run = try await Tool.run(["validate", "--syntax", invalid])
        #expect(run.status == 0)
    }

    @Test("validate reports unreachable included resources as warnings without failing")
    func warnings() async throws {
        let file = try Tool.temporaryFile(#"{"data": [], "included": [{"type": "people", "id": "9"}]}"#)
        let run = try await Tool.run(["validate", file])
        #expect(run.status == 0)
        #expect(run.standardError.hasPrefix("\(file):1:27: /included/0: warning: The included resource people/9"))
    }

    @Test("flatten prints one line per resource, primary first, linkage reduced, digits kept")
    func flatten() async throws {
        let file = try Tool.temporaryFile(Self.document)
        let run = try await Tool.run(["flatten", file])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput == """
                {"type":"articles","id":"1","attributes":{"title":"Hi","score":1.50,"tags":["a"]},"relationships":{"author":{"type":"people","id":"9"},"comments":[{"type":"comments","id":"5"}],"editor":null}}
                {"type":"people","id":"9","attributes":{"name":"Dan"},"relationships":{}}
                {"type":"comments","id":"5","attributes":{},"relationships":{}}

                """
        )
    }

    @Test("flatten puts primary data first even when included comes first, and reads stdin")
    func flattenIncludedFirst() async throws {
        let generated = try await Tool.run(["generate", "--articles", "20", "--included-first", "--seed", "3"])
        #expect(generated.status == 0)
        let run = try await Tool.run(["flatten", "-"], standardInput: Data(generated.standardOutput.utf8))
        #expect(run.status == 0, "\(run.standardError)")
        let types = run.standardOutput.split(separator: "\n").map { line -> String in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["type"] as? String ?? "?"
        }
        #expect(types.prefix(20).allSatisfy { $0 == "articles" })
        #expect(types.dropFirst(20).allSatisfy { $0 != "articles" })
        #expect(types.count == 20 + 2 + (types.count - 22))
    }

    @Test("flatten reports invalid input with its position and exits 1")
    func flattenInvalid() async throws {
        var run = try await Tool.run(["flatten", "-"], standardInput: Data("{\"data\": [1,]}".utf8))
        #expect(run.status == 1)
        // Faults come in document order: the number where a resource belongs, before the comma.
        #expect(run.standardError.hasPrefix("<stdin>:1:11: /data/0: Expected a resource object, found a number."))
        // A syntax fault names the resource it interrupted; a comma after the last, the array.
        run = try await Tool.run(["flatten", "-"], standardInput: Data(#"{"data": [{"type":"a","id":"1"},]}"#.utf8))
        #expect(run.status == 1)
        #expect(run.standardError.hasPrefix("<stdin>:1:33: /data: Trailing comma: ',' before ']' ends the array"))
        #expect(run.standardOutput == #"{"type":"a","id":"1","attributes":{},"relationships":{}}"# + "\n")
        run = try await Tool.run(["flatten", "-"], standardInput: Data(#"{"data": [{"id": "1"}]}"#.utf8))
        #expect(run.status == 1)
        #expect(run.standardError == "<stdin>:1:11: /data/0: A resource object must have a type member.\n")
    }

    @Test("generate is deterministic per seed and writes files")
    func generate() async throws {
        let first = try await Tool.run(["generate", "--articles", "50", "--seed", "9"])
        let second = try await Tool.run(["generate", "--articles", "50", "--seed", "9"])
        let other = try await Tool.run(["generate", "--articles", "50", "--seed", "10"])
        #expect(first.status == 0)
        #expect(first.standardOutput == second.standardOutput)
        #expect(first.standardOutput != other.standardOutput)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-generate-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let written = try await Tool.run(["generate", "--articles", "50", "--seed", "9", "-o", path])
        #expect(written.status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first.standardOutput)
        let validated = try await Tool.run(["validate", path])
        #expect(validated.status == 0, "\(validated.standardError)")
    }
}
