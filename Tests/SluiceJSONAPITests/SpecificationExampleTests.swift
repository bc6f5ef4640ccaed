import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// Every complete document among the JSON examples of the JSON:API 1.1 specification
/// (`../shared/reference/jsonapi-1.1-spec.md`, copied into Resources/) validates strictly and decodes.
@Suite("Specification examples")
struct SpecificationExampleTests {
    /// The JSON code blocks of the specification that are whole documents (objects with data,
    /// errors or meta at the top level).
    static let examples: [(index: Int, json: String)] = {
        guard
            let text = try? String(
                contentsOf: Fixtures.resources.appendingPathComponent("jsonapi-1.1-spec.md"),
                encoding: .utf8
            )
        else {
            return []
        }
        var examples: [(Int, String)] = []
        var remaining = text[...]
        var index = 0
        while let fence = remaining.range(of: "```") {
            let afterFence = remaining[fence.upperBound...]
            guard let lineEnd = afterFence.firstIndex(of: "\n"),
                let end = afterFence[lineEnd...].range(of: "\n```")
            else { break }
            let language = afterFence[..<lineEnd]
            var block = String(afterFence[afterFence.index(after: lineEnd)..<end.lowerBound])
            remaining = afterFence[end.upperBound...]
            index += 1
            // HTTP examples: the body follows the headers and a blank line.
            if language == "http" {
                guard let blank = block.range(of: "\n\n") else { continue }
                block = String(block[blank.upperBound...])
            } else if language != "json" {
                continue
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any],
                object["data"] != nil || object["errors"] != nil || object["meta"] != nil
            else { continue }
            examples.append((index, block))
        }
        return examples
    }()

    @Test("the specification has many complete example documents")
    func found() {
        #expect(Self.examples.count >= 20, "found \(Self.examples.count)")
    }

    @Test("each example validates strictly, as a response or else as a request")
    func validates() throws {
        for (index, json) in Self.examples {
            let asResponse = try JSONAPIValidator().validate(Data(json.utf8)).filter { $0.severity == .error }
            if asResponse.isEmpty { continue }
            let asRequest = try JSONAPIValidator(isRequestDocument: true).validate(Data(json.utf8)).filter {
                $0.severity == .error
            }
            #expect(asRequest.isEmpty, "example \(index): \(asRequest)\n\(json)")
        }
    }

    @Test("each example decodes into raw resources, or throws its error document")
    func decodes() throws {
        for (index, json) in Self.examples {
            do {
                let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
                let isCollection = object?["data"] is [Any]
                if isCollection {
                    _ = try JSONAPIDecoder().decode([AnyResource].self, from: Data(json.utf8))
                } else if json.contains("\"data\"") {
                    _ = try JSONAPIDecoder().decode(AnyResource?.self, from: Data(json.utf8))
                } else {
                    _ = try? JSONAPIDecoder().decode(AnyResource?.self, from: Data(json.utf8))
                }
            } catch let error as JSONAPIErrorDocument {
                #expect(!error.errors.isEmpty, "example \(index)")
            } catch {
                Issue.record("example \(index) failed: \(error)\n\(json)")
            }
        }
    }
}
