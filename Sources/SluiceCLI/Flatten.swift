import ArgumentParser
import SluiceJSON
import SluiceJSONAPI
import SluiceTools

/// `sluice flatten`: a JSON:API document as NDJSON, one line per resource.
struct Flatten: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints every resource of a JSON:API document as one line of NDJSON.",
        discussion: """
            Primary data comes first, then included resources, each in document order. Each line is an \
            object with exactly type, id (or lid when the resource has no id), attributes as written \
            (numbers keep their digits; {} when absent) and relationships, each relationship that has \
            data reduced to its linkage: an identifier with type and id (or lid), an array of them, or \
            null. When relationships carry meta, a fifth member, relationshipMeta, holds each one's meta \
            by relationship name. The document is read as a stream, so memory stays constant whatever \
            its size. When the reader of the output goes away (sluice flatten big.json | head), the \
            command stops quietly with exit code 0.

            Faults are printed to standard error as FILE:LINE:COLUMN: [POINTER: ]message, in the words \
            sluice validate uses. The exit code is 0 on success, 1 when the input is invalid, 2 when it \
            cannot be read or the command is called wrongly, and 3 when the input is a JSON:API error \
            document: the server reported errors instead of data, and each error object is summed up \
            on standard error (status, title or code, detail and source, as far as it has them).

            Plain JSON is flattened into its records instead: with --at POINTER, each element of the \
            array there becomes a line; with --lines (or a file named .jsonl or .ndjson), each value \
            of a JSON Lines file is written again as one compact line, blank lines dropped. A bad line \
            stops at FILE:LINE:COLUMN.

            Examples:
              sluice flatten articles.json > articles.ndjson
              sluice generate --articles 1000 | sluice flatten - | wc -l
              sluice flatten --at /results export.json > export.ndjson
            """
    )

    @Argument(help: "The document to read. Give - (the default) to read standard input.")
    var file = "-"

    @Option(
        name: .customLong("at"),
        help: ArgumentHelp("Plain JSON: write each element of the array at this JSON Pointer.", valueName: "pointer")
    )
    var recordsAt: String?

    @Flag(help: "Plain JSON: read JSON Lines and write each value again as one compact line.")
    var lines = false

    @OptionGroup var jobs: JobsOption

    func validate() throws {
        if recordsAt != nil && lines { throw ValidationError("Give --at or --lines, not both.") }
    }

    func run() async throws {
        let name = Input.displayName(of: file)
        var report = FaultReport()
        var output = OutputBuffer(terminal: .standardOutput)
        let readsLines = lines || JSONSequenceFormat(fileName: file) == .lines
        do {
            let reader = try FileChunkReader(path: file)
            if let recordsAt {
                try Self.writeElements(of: reader, at: JSONPath(recordsAt)) { try output.write($0) }
            } else if readsLines {
                try Self.writeLines(of: reader) { try output.write($0) }
            } else {
                var flattener = JSONAPIFlattener()
                flattener.parallelism = jobs.parallelism
                try flattener.flatten(reader) { try output.write($0) }
            }
        } catch let failure as OutputFailure {
            throw failure
        } catch {
            // The lines written before a fault stay valid output: print them, then the fault.
            try output.flush()
            try report.add(error, in: name)
        }
        try output.flush()
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

extension Flatten {
    /// Writes `value` as one compact line through `write`, in `line`'s reused storage.
    private static func writeLine(
        _ value: JSONTape.Value,
        into line: inout [UInt8],
        _ write: ([UInt8]) throws -> Void
    )
        throws
    {
        line.removeAll(keepingCapacity: true)
        value.writeJSON(into: &line)
        line.append(0x0A)
        try write(line)
    }

    /// Writes each value of a JSON Lines input as one compact line.
    static func writeLines(of reader: FileChunkReader, _ write: ([UInt8]) throws -> Void) throws {
        let sequence = JSONSequenceReader(format: .lines, limits: .streaming)
        var line: [UInt8] = []
        func each(_ value: JSONTape.Value, _: JSONSequenceIndex) throws { try writeLine(value, into: &line, write) }
        try reader.forEachChunk { chunk in try sequence.feed(chunk, each) }
        try sequence.finish(each)
    }

    /// Writes each element of the array at `path` as one compact line, in one element's memory.
    static func writeElements(of reader: FileChunkReader, at path: JSONPath, _ write: ([UInt8]) throws -> Void) throws {
        let parser = JSONParser(limits: .streaming)
        var elements = JSONElementReader(path: path)
        var line: [UInt8] = []
        func each(_ value: JSONTape.Value, _: Int) throws { try writeLine(value, into: &line, write) }
        try reader.forEachChunk { chunk in
            try parser.parse(chunk)
            try elements.advance(over: parser.tape, each)
            parser.removeTokens(before: elements.firstNeededIndex(on: parser.tape))
        }
        try parser.finish()
        try elements.advance(over: parser.tape, each)
        guard elements.targetKind == .arrayStart else {
            let found = elements.targetKind.map { "found \($0.nounPhrase)" } ?? "found nothing"
            throw JSONError(
                kind: .typeMismatch,
                message: "Expected an array at \(path), but \(found).",
                position: elements.targetPosition ?? JSONPosition(byteOffset: 0, line: 1, column: 1)
            )
        }
    }
}

/// `sluice generate`: a deterministic JSON:API compound document of any size.
struct Generate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Writes a generated JSON:API compound document of articles, people and comments.",
        discussion: """
            The document holds the given number of articles in data, each with an author, two to four \
            comments and a polymorphic subject, and every person and comment in included. Values cover \
            escapes, non-ASCII text, integers, doubles, Booleans, nulls, dates, nested objects and \
            arrays. The same seed always gives the same bytes, and output is written as it is made, so \
            documents of many gigabytes take no memory to speak of. About 1.5 KB per article.

            Examples:
              sluice generate --articles 100000 -o articles.json
              sluice generate --articles 10 --included-first --seed 7
            """
    )

    @Option(help: "How many articles the document holds.")
    var articles: Int

    @Flag(help: "Put included before data.")
    var includedFirst = false

    @Option(help: "The seed of the generated values.")
    var seed: UInt64 = 1

    @Option(name: [.short, .customLong("output")], help: "The file to write. Default: standard output.")
    var output: String?

    func validate() throws {
        guard articles >= 0 else { throw ValidationError("--articles must not be negative.") }
    }

    func run() async throws {
        try Self.write(
            SampleDocumentGenerator(articles: articles, includedFirst: includedFirst, seed: seed),
            to: output
        )
    }

    /// Writes the generated document to the file at `path`, or to standard output when `nil`.
    /// The generator hands over 64 KiB chunks, so they go straight to the descriptor.
    static func write(_ generator: SampleDocumentGenerator, to path: String?) throws {
        guard let path else {
            try generator.write { try Terminal.standardOutput.write($0) }
            return
        }
        do {
            let file = try FileOutput(path: path)
            do {
                try generator.write { try file.terminal.write($0) }
            } catch {
                try? file.close()
                throw error
            }
            try file.close()
        } catch let failure as OutputFailure {
            throw OutputFailure(reason: "\(path): \(failure.reason)")
        }
    }
}
