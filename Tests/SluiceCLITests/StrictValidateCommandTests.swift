import Foundation
import Testing

/// `sluice validate`'s options for the exact rules, and the wording `flatten` shares with it.
@Suite("sluice validate, to the letter")
struct StrictValidateCommandTests {
    typealias Tool = ValidateCommandTests

    @Test("undefined members warn (exit 0) and fail with --strict-members (exit 1), naming member and object")
    func strictMembers() async throws {
        let file = try Tool.temporaryFile(#"{"data": {"type": "people", "id": "1", "name": "Dan"}}"#)
        let message =
            "\(file):1:48: /data/name: warning: A resource object may hold only type, id, lid, attributes, relationships, links and meta, not name.\n"
        var run = try await Tool.run(["validate", file])
        #expect(run.status == 0)
        #expect(run.standardError == message)
        run = try await Tool.run(["validate", "--strict-members", file])
        #expect(run.status == 1)
        #expect(run.standardError == message.replacingOccurrences(of: "warning: ", with: ""))
        run = try await Tool.run(["validate", "--strict-members", "--format", "json", file])
        let entries = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]]
        #expect(entries?.first?["severity"] as? String == "error")
        #expect(entries?.first?["pointer"] as? String == "/data/name")
    }

    @Test("--extension applies an extension the document does not announce")
    func extensions() async throws {
        let file = try Tool.temporaryFile(
            #"{"atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1"}}]}"#
        )
        var run = try await Tool.run(["validate", file])
        #expect(run.status == 1)
        #expect(
            run.standardError.hasSuffix(
                "\(file):1:1: : A document must contain at least one of data, errors, meta or a member of an applied extension.\n"
            )
        )
        run = try await Tool.run([
            "validate", "--strict-members", "--extension", "https://jsonapi.org/ext/atomic", file,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.isEmpty)
    }

    @Test("--request takes resource or relationship; alone it means resource")
    func requests() async throws {
        let linkage = try Tool.temporaryFile(#"{"data": [{"type": "tags", "id": "2"}]}"#)
        var run = try await Tool.run(["validate", "--request", "relationship", linkage])
        #expect(run.status == 0, "\(run.standardError)")
        run = try await Tool.run(["validate", "--request", linkage])
        #expect(run.status == 1)
        #expect(
            run.standardError
                == "\(linkage):1:10: /data: A request to a resource endpoint must hold a single resource object as primary data, but data is an array.\n"
        )
        run = try await Tool.run(["validate", "--request", "resource", linkage])
        #expect(run.status == 1)
        // The flag's old place before other options still works.
        let created = try Tool.temporaryFile(#"{"data": {"type": "articles", "lid": "a"}}"#)
        run = try await Tool.run(["validate", "--request", "--format", "json", created])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "[]\n")
        run = try await Tool.run(["validate", "--request", "sideways", created])
        #expect(run.status == 2)
    }

    @Test("the root is printed as the empty pointer, in text and in JSON")
    func rootPointer() async throws {
        let file = try Tool.temporaryFile("[]")
        var run = try await Tool.run(["validate", file])
        #expect(
            run.standardError == "\(file):1:1: : A JSON:API document must be an object, but this one is an array.\n"
        )
        run = try await Tool.run(["flatten", file])
        #expect(
            run.standardError == "\(file):1:1: : A JSON:API document must be an object, but this one is an array.\n"
        )
        run = try await Tool.run(["validate", "--format", "json", file])
        let entries = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]]
        #expect(entries?.first?["pointer"] as? String == "")
    }

    @Test(
        "flatten and validate word the same fault the same way",
        arguments: [
            #"{"errors": [{"status": 500}]}"#,
            #"{"data": [], "errors": [{"status": "500"}]}"#,
            #"{"data": {"type": "a", "id": "1", "links": {"self": {"href": 5}}}}"#,
            #"{"data": [{"id": "1"}]}"#,
        ]
    )
    func sameWording(json: String) async throws {
        let file = try Tool.temporaryFile(json)
        let validate = try await Tool.run(["validate", file])
        let flatten = try await Tool.run(["flatten", file])
        #expect(validate.status == 1)
        #expect(flatten.status == 1)
        let first = validate.standardError.split(separator: "\n").first.map(String.init)
        #expect(first != nil)
        #expect(flatten.standardError.split(separator: "\n").first.map(String.init) == first)
    }

    @Test("flatten exits 3 on an error document and sums up error objects that lack title, status or detail")
    func flattenErrorDocument() async throws {
        let file = try Tool.temporaryFile(
            #"{"errors": [{"id": "e1", "meta": {"trace": "x"}}, {"code": "E42", "source": {"parameter": "sort"}}]}"#
        )
        let run = try await Tool.run(["flatten", file])
        #expect(run.status == 3)
        #expect(
            run.standardError
                == "\(file): The document reports 2 errors: an error with no status, title, code or detail, id e1; code E42 in the query parameter sort\n"
        )
        #expect(run.standardOutput.isEmpty)
        let help = try await Tool.run(["flatten", "--help"])
        #expect(help.standardOutput.contains("3 when the input is a JSON:API error"))
    }

    @Test("--full-linkage and --request update turn what a server must not send into errors")
    func serverChecks() async throws {
        let unlinked = Data(#"{"data": {"type": "a", "id": "1"}, "included": [{"type": "b", "id": "2"}]}"#.utf8)
        #expect(try await Tool.run(["validate", "-"], standardInput: unlinked).status == 0)
        let strict = try await Tool.run(["validate", "--full-linkage", "-"], standardInput: unlinked)
        #expect(strict.status == 1)
        #expect(strict.standardError.hasPrefix("<stdin>:1:49: /included/0: The included resource b/2 is not reachable"))
        let patch = Data(#"{"data": {"type": "a", "lid": "x"}}"#.utf8)
        #expect(try await Tool.run(["validate", "--request", "-"], standardInput: patch).status == 0)
        let update = try await Tool.run(["validate", "--request", "update", "-"], standardInput: patch)
        #expect(update.status == 1)
        #expect(update.standardError.contains("/data: A resource object in an update request must have an id member"))
    }
}
