import Foundation
import Testing

/// The documentation's examples are this app's code: every Swift block the README or a getting
/// started article marks with `<!-- compiled in Examples/FirstHour -->` must appear in the app's
/// sources, line for line (indentation aside), so the documents cannot drift from code that
/// compiles and passes.
@Suite("README examples")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The documents whose marked blocks are compiled here: the README, SluiceJSONAPI's getting
    /// started article and SluiceHTTP's articles.
    static func documents() throws -> [URL] {
        let articles = root.appendingPathComponent("../../Sources/SluiceHTTP/SluiceHTTP.docc")
        let names = try FileManager.default.contentsOfDirectory(atPath: articles.path).sorted()
        return [
            root.appendingPathComponent("../../README.md"),
            root.appendingPathComponent("../../Sources/SluiceJSONAPI/SluiceJSONAPI.docc/GettingStarted.md"),
        ] + names.filter { $0.hasSuffix(".md") }.map { articles.appendingPathComponent($0) }
    }

    /// The marked blocks of the documents, each as its lines without leading spaces.
    static func markedBlocks() throws -> [[String]] {
        var blocks: [[String]] = []
        for document in try documents() { blocks += try markedBlocks(in: document) }
        return blocks
    }

    static func markedBlocks(in document: URL) throws -> [[String]] {
        let readme = try String(contentsOf: document, encoding: .utf8)
        var blocks: [[String]] = []
        var lines = readme.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            guard line.contains("<!-- compiled in Examples/FirstHour -->") else { continue }
            guard lines.popFirst()?.hasPrefix("```swift") == true else { continue }
            var block: [String] = []
            while let code = lines.popFirst(), !code.hasPrefix("```") { block.append(Self.trimmed(code)) }
            blocks.append(block)
        }
        return blocks
    }

    static func trimmed(_ line: Substring) -> String { String(line.drop { $0 == " " }) }

    static func sourceLines() throws -> [String] {
        var lines: [String] = []
        for folder in ["Sources/FirstHour", "Tests/FirstHourTests"] {
            let directory = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                lines += text.split(separator: "\n", omittingEmptySubsequences: false).map(Self.trimmed)
            }
        }
        return lines
    }

    @Test("every marked block of the README and the articles is in the app's sources, verbatim")
    func blocksAreCompiled() throws {
        let blocks = try Self.markedBlocks()
        #expect(blocks.count >= 14, "the documents' marked blocks were not found")
        let source = try Self.sourceLines()
        for var block in blocks {
            // A block's imports head a file, not the code after them: they need only be there.
            while let first = block.first, first.hasPrefix("import ") || first.isEmpty {
                #expect(first.isEmpty || source.contains(first), "not imported in the app's sources: \(first)")
                block.removeFirst()
            }
            let found = source.indices.contains { start in
                start + block.count <= source.count && Array(source[start..<start + block.count]) == block
            }
            #expect(found, "documented block not in the app's sources:\n\(block.joined(separator: "\n"))")
        }
    }
}
