import ArgumentParser
import Foundation
import SluiceHTTP
import SluiceJSON
import SluiceJSONAPI
import SluiceTools

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `sluice fetch`: a JSON:API collection (or resource) from a server as NDJSON, page after page.
struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints the resources of a JSON:API document fetched over HTTP as NDJSON, following next links.",
        discussion: """
            Each resource becomes one line, as sluice flatten prints it (type, id or lid, attributes, \
            relationships reduced to their linkage), written as soon as its object has arrived: \
            primary data and included in the order the server sends them. With --all-pages the next \
            link of each page is followed until the last page; only one page is in flight and nothing \
            is kept, so memory stays flat whatever the collection's size.

            Requests ask for application/vnd.api+json. Error statuses print the server's error \
            objects (or the start of a body that is not a JSON:API document). Credentials given with \
            --header are never printed.

            The exit code is 0 on success, 1 when the server answers with something that is not a \
            valid JSON:API document (an HTML error page, a malformed body), 2 when it cannot be \
            reached, times out, or the command is called wrongly, and 3 when it answers with a \
            JSON:API error document.

            Examples:
              sluice fetch https://api.example.com/articles --include author,comments
              sluice fetch 'https://api.example.com/articles?page[size]=100' --all-pages > articles.ndjson
              sluice fetch https://api.example.com/me -H 'Authorization: Bearer $TOKEN'
            """
    )

    @Argument(help: "The URL of the document.")
    var url: String

    @Flag(help: "Follow next links to the last page.")
    var allPages = false

    @Option(help: "Stop after this many pages (with --all-pages).")
    var maxPages: Int?

    @Option(help: "Relationship paths to include, comma-separated (sets the include parameter).")
    var include: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header field, 'Name: value'; repeatable.")
    var headers: [String] = []

    @OptionGroup var timeouts: HTTPTimeouts

    @Option(help: "The largest body read, in bytes (per page).")
    var maxBodyBytes: Int = 256 * 1024 * 1024

    @Flag(help: "Print each page's request and status on standard error (credentials hidden).")
    var verbose = false

    func validate() throws {
        guard HTTPSource.isURL(url) else { throw ValidationError("The URL is not an http or https URL.") }
        try HTTPSource.checkHeaders(headers)
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1.") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive.") }
    }

    func run() async throws {
        let source = try HTTPSource(
            url: url,
            include: include,
            headers: headers,
            timeouts: timeouts,
            maxBodyBytes: maxBodyBytes
        )
        try await source.using { source in try await fetch(from: source) }
    }

    /// Whether `url` is a relationship endpoint (`.../relationships/NAME`), whose data are
    /// resource identifiers: linkage, not resources.
    static func isRelationshipEndpoint(_ url: URL?) -> Bool {
        guard let components = url?.pathComponents, components.count >= 2 else { return false }
        return components[components.count - 2] == "relationships"
    }

    private func fetch(from source: HTTPSource) async throws {
        var output = OutputBuffer(terminal: .standardOutput)
        var resources = source.client.resources(at: source.start, maximumPages: allPages ? maxPages : 1)
            .makeAsyncIterator()
        var line: [UInt8] = []
        var count = 0
        var page = 0
        do {
            while let streamed = try await resources.next() {
                if verbose, resources.pagesRead != page {
                    page = resources.pagesRead
                    let status = resources.pageStatus.map { ": \($0)" } ?? ""
                    Terminal.message("GET \(HTTPSource.redacted(resources.pageURL))\(status) (page \(page))\n")
                }
                guard let raw = streamed.resource.raw else { continue }
                line.removeAll(keepingCapacity: true)
                if Self.isRelationshipEndpoint(resources.pageURL) {
                    raw.writeIdentifier(into: &line)
                } else {
                    raw.writeFlattened(into: &line)
                }
                line.append(UInt8(ascii: "\n"))
                try output.write(line)
                count += 1
            }
            try output.flush()
            if let last = resources.unreachedLastPage {
                Terminal.message("sluice: " + HTTPSource.unreachedLastWarning(page: resources.pagesRead, last: last))
            }
            if verbose {
                var line = "\(count) resources from \(resources.pagesRead) page\(resources.pagesRead == 1 ? "" : "s"), "
                line += "\(Terminal.formatted(Double(resources.bytesRead) / 1_048_576, decimals: 1)) MB, "
                line += "peak memory \(Terminal.formatted(PeakMemory.megabytes, decimals: 1)) MB\n"
                Terminal.message(line)
            }
        } catch {
            // Lines written before a failure stay valid output.
            try output.flush()
            throw ExitCode(source.report(error))
        }
    }
}

/// What `fetch` and `import` share for a URL: the client made from the options, and how its
/// failures are reported.
struct HTTPSource {
    let client: JSONAPIClient
    let start: URL
    private let transport: AsyncHTTPClientTransport

    /// Refuses a header without a colon, naming it by its position only: its text may be a
    /// credential written wrongly.
    static func checkHeaders(_ headers: [String]) throws {
        for (index, header) in headers.enumerated() where !header.contains(":") {
            throw ValidationError("--header number \(index + 1) is not of the form 'Name: value'.")
        }
    }

    /// The warning for pages that ended before the `last` link's page (see
    /// `JSONAPIClient.unreachedLastPage(of:links:)`).
    static func unreachedLastWarning(page: Int, last: URL) -> String {
        "warning: page \(page) has no next link, but its last link names another page "
            + "(\(redacted(last))): the server may have stopped early, and resources after page \(page) "
            + "were not read\n"
    }

    static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    init(
        url text: String,
        include: String?,
        headers: [String] = [],
        timeouts: HTTPTimeouts,
        maxBodyBytes: Int? = nil
    ) throws {
        // As written on a command line: raw brackets and spaces are encoded, escapes kept.
        guard var components = URLComponents(string: PercentEncoding.encodingInvalidCharacters(in: text)),
            let base = components.url
        else {
            throw ValidationError("The URL is not valid.")
        }
        if let include {
            // Replaces any include already in the URL, keeping the rest of the query as written.
            var items = (components.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
            items.removeAll { $0.hasPrefix("include=") || $0 == "include" }
            items.append(
                JSONAPIQuery().including(include.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    .percentEncoded
            )
            components.percentEncodedQuery = items.joined(separator: "&")
        }
        guard let start = components.url else { throw ValidationError("The URL is not valid.") }
        transport = AsyncHTTPClientTransport(
            connectTimeout: .seconds(timeouts.timeout),
            readTimeout: .seconds(timeouts.readTimeout)
        )
        var client = JSONAPIClient(baseURL: base, transport: transport)
        client.timeout = .seconds(timeouts.timeout)
        client.retryPolicy.maximumRetries = timeouts.retries
        client.maximumBodyBytes = maxBodyBytes
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let fieldName = HTTPField.Name(name) else {
                throw ValidationError("--header \"\(name)\": not a valid header field name.")
            }
            let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            client.headers.append(HTTPField(name: fieldName, value: value))
        }
        self.client = client
        self.start = start
    }

    /// Runs `body`, then shuts the transport's connections down, whether `body` throws or not
    /// (AsyncHTTPClient requires its client to be shut down before it is released).
    func using<T>(_ body: (HTTPSource) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try? await transport.shutdown()
        return result
    }

    /// `url` with credentials hidden.
    static func redacted(_ url: URL?) -> String {
        url.map(HTTPTransportRequest.redacted) ?? "?"
    }

    /// Prints `error` on standard error and returns the exit code, by the rule every command
    /// follows (`FaultReport`): 3 for an answer that is a JSON:API error document (whatever its
    /// status), 1 for one that is not a valid document (an error page in HTML, a malformed body),
    /// 2 when the server could not be reached or timed out.
    func report(_ error: any Error) -> Int32 {
        guard let failure = error as? JSONAPIClientError else {
            Terminal.message("sluice: \(error)\n")
            return error is CancellationError ? 130 : 2
        }
        if failure.kind == .invalidDocument, let underlying = failure.underlying {
            var report = FaultReport()
            let name = String(failure.request.drop { $0 != " " }.dropFirst())
            if (try? report.add(underlying, in: name)) != nil { return report.exitCode }
        }
        Terminal.message("sluice: \(failure)\n")
        switch failure.kind {
        case .timedOut, .transport, .invalidURL: return 2
        case .status where !failure.errors.isEmpty: return FaultReport.errorDocumentExitCode
        default: return 1
        }
    }
}

/// The process's peak resident memory, as the kernel counts it.
enum PeakMemory {
    /// `VmHWM` of /proc/self/status, which starts afresh with each program; `getrusage`'s
    /// `ru_maxrss` is kept across `execve`, so a child of a large process would report its
    /// parent's peak. Falls back to `ru_maxrss` where there is no /proc.
    static var megabytes: Double {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        {
            return kilobytes / 1024
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

/// How long a command that reads a URL waits: `--timeout` and `--read-timeout`, the same for
/// `fetch`, `import` and `models`. Only parsed from the command line: an instance made in code
/// would hold option definitions, not values.
struct HTTPTimeouts: ParsableArguments {
    @Option(help: "Seconds to wait for an HTTP connection and response head.")
    var timeout: Double = 30

    @Option(help: "Seconds of silence in an HTTP body after which it fails.")
    var readTimeout: Double = 60

    @Option(
        help: """
            Times a request is sent again after a failed connection, a timeout before the response, \
            or 429, 502, 503 or 504 (waiting as Retry-After asks, else backing off exponentially; \
            two minutes of waiting at most).
            """
    )
    var retries: Int = 3

    func validate() throws {
        guard timeout > 0, readTimeout > 0 else { throw ValidationError("Timeouts must be positive.") }
        guard retries >= 0 else { throw ValidationError("--retries must not be negative.") }
    }
}
