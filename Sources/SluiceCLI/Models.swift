import ArgumentParser
import Foundation
import SluiceHTTP
import SluiceJSON
import SluiceJSONAPI
import SluiceTools

/// `sluice models`: Swift models written from samples of an API's documents.
struct Models: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Writes Swift models for the JSON:API or JSON documents given as samples.",
        discussion: """
            For a JSON:API document: one @JSONModel Resource struct per resource type met in data or \
            included, with every attribute and relationship any resource of that type had. A \
            relationship becomes ToOne<Target> or ToMany<Target>, its target the type its linkage names, \
            or AnyResource when it names several; a type only linked to gets a struct with its id. For \
            plain JSON: a struct for the root object (or the root array's elements) and one per nested \
            object. Each property's type comes from every value seen, not the first: String, Int (Int64 \
            past 32 bits), Double when any value has a fraction, Bool, Date when every string is a date \
            in one format the decoder reads (ISO 8601, RFC 1123, RFC 850, asctime), URL when every \
            string is an absolute URL and --urls url is given (String by default: a URL costs a parse \
            per value), nested structs (one per structure, however many places it is met at), \
            arrays, SIMD2<Double> to SIMD4<Double> for arrays of two to four fractional numbers that \
            never vary in length (coordinates), [String: T] for objects keyed by data (numbers, \
            codes in capitals), and JSONValue for what has no single shape; optional where a value \
            is missing or null anywhere. Names are Swift's camel case; \
            the key strategy that maps the members to them (kebab-case or snake_case, whichever most \
            multi-word names use) is detected, and \
            CodingKeys are written only for names it would not map. A comment on each property says how \
            often it was present and null, and one at the top how to decode with the models: the \
            decoder, its registry and its strategies.

            Samples are read as streams, one resource at a time, keeping only counts per type and \
            member, so a sample of any size is read in little memory; a JSON:API document's resources \
            are decoded on --jobs threads, with the same models for any number. Several samples add up.

            Faults are printed as FILE:LINE:COLUMN: [POINTER: ]message, as sluice validate prints them; \
            the exit code is 0 on success, 1 when a sample is not JSON or passes a limit, and 2 when a \
            file cannot be read or written or the command is called wrongly.

            Examples:
              sluice models response.json > Models.swift
              sluice models --sample 1000 export.json page2.json --output Sources/API/Models
              sluice models "https://example.com/api/articles?include=author" > Models.swift
              curl -s https://example.com/api/articles | sluice models -
            """
    )

    @Argument(help: "The samples to read: files, http or https URLs of JSON:API documents, or - for standard input.")
    var files: [String]

    @Option(help: "Read at most this many resources per type (or elements of a root array) from each sample.")
    var sample: Int?

    @Option(help: "Write a file per type into this directory instead of one file on standard output.")
    var output: String?

    @Option(help: "The type name of a plain JSON root. Default: from the first sample's file name.")
    var name: String?

    @Option(
        help: "How strings that are absolute URLs in every sample are typed: string (the default) or url.",
        transform: Self.urlProperties
    )
    var urls: GeneratedModels.URLProperties = .string

    /// `--urls`, read by the library's own cases' names.
    static func urlProperties(_ text: String) throws -> GeneratedModels.URLProperties {
        guard let value = GeneratedModels.URLProperties(rawValue: text) else {
            throw ValidationError("--urls takes string or url, not '\(text)'.")
        }
        return value
    }

    @OptionGroup var jobs: JobsOption

    @OptionGroup var timeouts: HTTPTimeouts

    func validate() throws {
        if let sample, sample < 1 { throw ValidationError("--sample must be at least 1.") }
    }

    func run() async throws {
        let sampler = ModelSampler()
        sampler.maximumPerType = sample
        var report = FaultReport()
        for path in files {
            if HTTPSource.isURL(path) {
                try await read(url: path, into: sampler)
                continue
            }
            do {
                try sampler.read(fileAt: path, parallelism: jobs.parallelism)
            } catch {
                try report.add(error, in: Input.displayName(of: path))
            }
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
        let models = sampler.models(
            rootName: name ?? Self.rootName(of: files.first),
            urls: urls
        )
        guard let output else {
            try Terminal.standardOutput.write(models.source)
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for file in models.files {
                try file.contents.write(
                    toFile: (output as NSString).appendingPathComponent(file.name),
                    atomically: true,
                    encoding: .utf8
                )
            }
        } catch {
            Terminal.message("sluice: cannot write to \(output): \(error.localizedDescription)\n")
            throw ExitCode(2)
        }
        try Terminal.standardOutput.write(
            "Wrote \(models.files.count) files to \(output). Decode with:\n"
                + models.usage.map { "    " + $0 + "\n" }.joined()
        )
    }

    /// The resources of the JSON:API document at `url` (one page), as a sample.
    private func read(url: String, into sampler: ModelSampler) async throws {
        let source = try HTTPSource(url: url, include: nil, timeouts: timeouts)
        try await source.using { source in
            var resources = source.client.resources(at: source.start, maximumPages: 1).makeAsyncIterator()
            do {
                while let streamed = try await resources.next() {
                    if let raw = streamed.resource.raw { sampler.add(raw) }
                }
            } catch {
                throw ExitCode(source.report(error))
            }
        }
        sampler.finishSample()
    }

    /// A root type name from a sample's file name: `twitter.json` gives `Twitter`.
    static func rootName(of path: String?) -> String? {
        guard let path, path != "-" else { return nil }
        var base = (path as NSString).lastPathComponent
        for suffix in [".gz", ".json"] where base.hasSuffix(suffix) { base = String(base.dropLast(suffix.count)) }
        return base.isEmpty ? nil : base
    }
}
