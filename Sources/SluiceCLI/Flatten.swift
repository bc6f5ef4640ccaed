import ArgumentParser
import SluiceJSON
import SluiceJSONAPI

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

            Examples:
              sluice flatten articles.json > articles.ndjson
              sluice generate --articles 1000 | sluice flatten - | wc -l
            """
    )

    @Argument(help: "The document to read. Give - (the default) to read standard input.")
    var file = "-"

    @OptionGroup var jobs: JobsOption

    func run() async throws {
        let name = Input.displayName(of: file)
        var report = FaultReport()
        var output = OutputBuffer(terminal: .standardOutput)
        do {
            let reader = try FileChunkReader(path: file)
            var flattener = JSONAPIFlattener()
            flattener.parallelism = jobs.parallelism
            try flattener.flatten(reader) { try output.write($0) }
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
