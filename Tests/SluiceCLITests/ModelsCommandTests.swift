import Foundation
import SluiceTestServer
import Testing

/// `sluice models` from the command line: standard output, a file per type, standard input, and
/// the faults of a bad sample.
@Suite("sluice models")
struct ModelsCommandTests {
    static let document = #"""
        {"data": [{"type": "articles", "id": "1", "attributes": {"title": "A", "published-at": "2024-02-29T12:30:00Z"},
          "relationships": {"author": {"data": {"type": "people", "id": "9"}}}}],
         "included": [{"type": "people", "id": "9", "attributes": {"first-name": "Ada"}}]}
        """#

    @Test("one file on standard output, from a file or standard input, with how to decode")
    func standardOutput() async throws {
        let run = try await ValidateCommandTests.run(["models", "-"], standardInput: Data(Self.document.utf8))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("struct Article: Resource, Codable {"))
        #expect(run.standardOutput.contains("    var author: ToOne<Person>"))
        #expect(run.standardOutput.contains("    var publishedAt: Date"))
        #expect(
            run.standardOutput.contains("//     let decoder = JSONAPIDecoder(registry: [Article.self, Person.self])")
        )
        #expect(run.standardOutput.contains("//     decoder.keyDecodingStrategy = .convertFromKebabCase"))
        #expect(run.standardOutput.contains("//     decoder.dateDecodingStrategy = .iso8601"))
    }

    @Test("--output writes a file per type and prints how to decode")
    func outputDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-models-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = directory.appendingPathExtension("json")
        try Data(Self.document.utf8).write(to: sample)
        defer { try? FileManager.default.removeItem(at: sample) }
        let run = try await ValidateCommandTests.run(["models", sample.path, "--output", directory.path])
        #expect(run.status == 0, "\(run.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == ["Article.swift", "Person.swift"])
        let person = try String(contentsOf: directory.appendingPathComponent("Person.swift"), encoding: .utf8)
        #expect(person.hasPrefix("import Foundation\nimport SluiceJSONAPI\nimport SluiceMacros\n\n@JSONModel\n"))
        #expect(person.contains("    var firstName: String"))
        #expect(run.standardOutput.contains("Wrote 2 files to \(directory.path). Decode with:"))
    }

    @Test("a URL: the resources of its first page, over real HTTP on loopback")
    func url() async throws {
        try await JSONAPITestServer.with(chunkSize: 97) { server in
            let url = server.url("/page/articles?page%5Bsize%5D=10&include=author").absoluteString
            let run = try await ValidateCommandTests.run(["models", url])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("from 1 sample: 2 resource types"))
            #expect(run.standardOutput.contains("struct Article: Resource, Codable {"))
            #expect(run.standardOutput.contains("    var author: ToOne<Person>"))
            #expect(run.standardOutput.contains("    var words: Int"))
            #expect(server.log.requests.count == 1)
        }
    }

    @Test(
        "a bad sample: the fault as sluice validate words it, and exit code 1",
        arguments: [
            #"{"data": [{"type": "a",}]}"#, #"{"data": [{"type": "a", "id": "1"}], "meta": {"x": tru}}"#,
            #"[{"a": 1}, {"a": 2]"#, #"{"data": [{"type": "a""#,
        ]
    )
    func badSample(json: String) async throws {
        let run = try await ValidateCommandTests.run(["models", "-"], standardInput: Data(json.utf8))
        let validate = try await ValidateCommandTests.run(
            ["validate", "--syntax", "-"],
            standardInput: Data(json.utf8)
        )
        #expect(run.status == 1)
        #expect(validate.status == 1)
        #expect(run.standardError.hasPrefix("<stdin>:1:"), "\(run.standardError)")
        // The same position and sentence (validate --syntax names no pointer).
        let message = { (text: String) in text.split(separator: "\n").first.map { $0.split(separator: ": ").last ?? "" }
        }
        #expect(message(run.standardError) == message(validate.standardError))
        #expect(run.standardOutput.isEmpty)
    }
}
