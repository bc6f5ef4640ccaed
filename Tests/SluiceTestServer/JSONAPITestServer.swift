import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A JSON:API server on 127.0.0.1 (an ephemeral port) for tests of the client and the CLI: real
/// HTTP over loopback, bodies sent in small chunks with delays, every pagination style, error
/// documents, 204, stalled and truncated bodies. It records each request it receives.
///
/// The `articles` collection holds `total` articles (`id` 1...total), each with an `author`
/// (one of 7 people, included with the page). Collections are served under a prefix naming the
/// pagination style:
/// - `/page/articles?page[number]=N&page[size]=S` with `first`/`prev`/`next`/`last` links;
/// - `/offset/articles?page[offset]=O&page[limit]=L` with links;
/// - `/cursor/articles?page[size]=S&page[after]=ID` with a `next` link and `meta.page.cursor`;
/// - `/nolinks/articles?page[number]=N&page[size]=S` without any links (the client's strategy
///   must find the next page);
/// - `/stream/articles`: one page of `total` articles, never links;
/// - `/dropnext/articles`: as `/page/articles`, but page 2 has no `next` link while its `last`
///   names a later page (a server that stops early).
public final class JSONAPITestServer: Sendable {
    /// The server's root, `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// Every request received, in order.
    public let log: RequestLog
    private let task: Task<Void, any Error>

    /// What a test reads back of a request.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// The query as sent, still percent-encoded.
        public var rawQuery: String
        public var headers: [String: String]
        public var body: String
    }

    /// The requests received, and whether a streamed body was cut off by its client.
    public final class RequestLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [Request] = []
        private var abandoned = 0
        public var requests: [Request] { lock.withLock { entries } }
        /// Streamed bodies whose client went away before the end.
        public var abandonedBodies: Int { lock.withLock { abandoned } }
        func add(_ request: Request) { lock.withLock { entries.append(request) } }
        func noteAbandoned() { lock.withLock { abandoned += 1 } }
    }

    /// Starts a server with `total` articles, sending bodies in chunks of `chunkSize` bytes with
    /// `chunkDelay` between them.
    public static func start(
        total: Int = 25,
        chunkSize: Int = 512,
        chunkDelay: Duration = .zero
    ) async throws
        -> JSONAPITestServer
    {
        let log = RequestLog()
        let router = Router()
        let content = Content(total: total, chunkSize: chunkSize, chunkDelay: chunkDelay, log: log)
        content.install(on: router)
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "sluice-test"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: {
                var logger = Logger(label: "sluice-test-server")
                logger.logLevel = .critical
                return logger
            }()
        )
        let task = Task(executorPreference: ThreadExecutor.shared) { try await app.run() }
        var port = 0
        for await value in portStream { port = value }
        guard port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return JSONAPITestServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, log: log, task: task)
    }

    private init(baseURL: URL, log: RequestLog, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.log = log
        self.task = task
    }

    /// Runs `body` against a fresh server and stops the server afterwards, whatever happens.
    public static func with<T>(
        total: Int = 25,
        chunkSize: Int = 512,
        chunkDelay: Duration = .zero,
        _ body: (JSONAPITestServer) async throws -> T
    ) async throws -> T {
        let server = try await start(total: total, chunkSize: chunkSize, chunkDelay: chunkDelay)
        do {
            // The client side runs on the server's threads too: a client starved by tests that
            // block the cooperative pool stops reading, and its read timeout fires on a server
            // that was never slow.
            let result = try await withTaskExecutorPreference(ThreadExecutor.shared) { try await body(server) }
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }

    /// The URL of `path` (with its query, already encoded) on this server.
    public func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path)! }
}

/// The documents and behaviours behind the routes.
private struct Content: Sendable {
    let total: Int
    let chunkSize: Int
    let chunkDelay: Duration
    let log: JSONAPITestServer.RequestLog

    static let mediaType = "application/vnd.api+json"

    func install(on router: Router<BasicRequestContext>) {
        for style in ["page", "offset", "cursor", "nolinks", "stream", "dropnext"] {
            router.get("\(style)/articles") { request, _ in
                try await record(request)
                return page(style: style, request: request)
            }
        }
        router.get("articles") { request, _ in
            try await record(request)
            return page(style: "page", request: request)
        }
        router.get("articles/:id") { request, context in
            try await record(request)
            let id = context.parameters.get("id") ?? ""
            guard let number = Int(id), (1...total).contains(number) else {
                return whole(
                    .notFound,
                    #"{"errors":[{"status":"404","code":"not_found","title":"Not Found","detail":"No article has id \#(id).","source":{"parameter":"id"}}],"meta":{"request":"r-1"}}"#
                )
            }
            let body =
                #"{"data":\#(article(number)),"included":[\#(person(number % 7 + 1))],"links":{"self":"/articles/\#(number)"},"jsonapi":{"version":"1.1"}}"#
            return stream(body, status: .ok)
        }
        router.post("articles") { request, _ in
            let body = try await record(request)
            // Echo the resource with an assigned id; the lid, when sent, is kept for the client.
            var echoed = body
            if let range = echoed.range(of: #""type":"articles""#) {
                echoed.replaceSubrange(range, with: #""type":"articles","id":"101""#)
            }
            return stream(echoed, status: .created, extra: [.location: "/articles/101"])
        }
        router.patch("articles/:id") { request, context in
            let body = try await record(request)
            // The stored resource after the update: the article with the title sent, if any.
            let number = Int(context.parameters.get("id") ?? "") ?? 1
            var updated = article(number)
            let sent = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            let attributes = (sent?["data"] as? [String: Any])?["attributes"] as? [String: Any]
            if let title = attributes?["title"] as? String {
                updated = updated.replacingOccurrences(of: "\"Article \(number)\"", with: "\"\(title)\"")
            }
            return stream(#"{"data":\#(updated)}"#, status: .ok)
        }
        router.patch("meta-only/articles/:id") { request, _ in
            try await record(request)
            return stream(#"{"meta":{"updated":true}}"#, status: .ok)
        }
        router.delete("articles/:id") { request, _ in
            try await record(request)
            return Response(status: .noContent)
        }
        router.get("articles/:id/relationships/author") { request, context in
            try await record(request)
            let id = Int(context.parameters.get("id") ?? "") ?? 1
            return stream(
                #"{"data":{"type":"people","id":"\#(id % 7 + 1)"},"links":{"self":"/articles/\#(id)/relationships/author"}}"#,
                status: .ok
            )
        }
        router.get("articles/:id/relationships/comments") { request, _ in
            try await record(request)
            return stream(#"{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}]}"#, status: .ok)
        }
        for method in [HTTPRequest.Method.patch, .post, .delete] {
            for name in ["author", "comments"] {
                router.on("articles/:id/relationships/\(name)", method: method) { request, _ in
                    try await record(request)
                    return Response(status: .noContent)
                }
            }
        }
        router.get("articles/:id/author") { request, context in
            try await record(request)
            let id = Int(context.parameters.get("id") ?? "") ?? 1
            return stream(#"{"data":\#(person(id % 7 + 1))}"#, status: .ok)
        }
        // Servers that ask for patience: every odd request to `flaky` answers 503 with
        // `Retry-After: 0`, to `throttled` 429 with an HTTP date a second ahead; `unavailable`
        // always answers 503. The even requests get a page of one article.
        for (path, status) in [("flaky", HTTPResponse.Status.serviceUnavailable), ("throttled", .tooManyRequests)] {
            router.get("\(path)/articles") { request, _ in
                try await record(request)
                let count = log.requests.filter { $0.path == "/\(path)/articles" }.count
                guard count % 2 == 1 else { return stream(#"{"data":[\#(article(1))]}"#, status: .ok) }
                let after = path == "flaky" ? "0" : Self.httpDate(Date().addingTimeInterval(1))
                return Self.later(status, retryAfter: after)
            }
        }
        router.get("unavailable/articles") { request, _ in
            try await record(request)
            return Self.later(.serviceUnavailable, retryAfter: "0")
        }
        router.post("flaky/articles") { request, _ in
            try await record(request)
            return Self.later(.serviceUnavailable, retryAfter: "0")
        }
        router.get("errors/html") { request, _ in
            try await record(request)
            return whole(.badGateway, contentType: "text/html", "<html><body>Bad gateway</body></html>")
        }
        router.get("login") { request, _ in
            try await record(request)
            return whole(.ok, contentType: "text/html; charset=utf-8", "<html><body>Please sign in</body></html>")
        }
        router.get("plain-json/articles") { request, _ in
            try await record(request)
            return whole(.ok, contentType: "application/json; charset=utf-8", #"{"data":[\#(article(1))]}"#)
        }
        router.get("malformed/articles") { request, _ in
            try await record(request)
            return stream("{\"data\":[\(article(1)),\n{\"type\":\"articles\",\"id\":2}]}", status: .ok)
        }
        router.get("stall") { request, _ in
            try await record(request)
            // The head and a first chunk, then silence.
            return written(
                ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"data":["#))
                    try await Task.sleep(for: .seconds(8))
                    try await writer.finish(nil)
                }
            )
        }
        router.get("truncated") { request, _ in
            try await record(request)
            let text = #"{"data":[\#(article(1)),\#(article(2))"#
            // Promises more than it sends, then closes the connection.
            return written(
                ResponseBody(contentLength: text.utf8.count + 500) { writer in
                    try await writer.write(ByteBuffer(string: text))
                    throw CancellationError()
                }
            )
        }
        router.get("endless") { request, _ in
            try await record(request)
            // A collection that never ends, for cancellation: the log notes when the client leaves.
            let log = log
            return written(
                ResponseBody { writer in
                    do {
                        try await writer.write(ByteBuffer(string: #"{"data":["#))
                        var number = 1
                        while true {
                            try await writer.write(ByteBuffer(string: (number > 1 ? "," : "") + article(number)))
                            number += 1
                            try await Task.sleep(for: .milliseconds(2))
                        }
                    } catch {
                        log.noteAbandoned()
                        throw error
                    }
                }
            )
        }
        router.get("huge") { request, _ in
            try await record(request)
            let chunk = String(repeating: " ", count: 64 * 1024)
            return written(
                ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"data":[]"#))
                    for _ in 0..<64 { try await writer.write(ByteBuffer(string: chunk)) }
                    try await writer.write(ByteBuffer(string: "}"))
                    try await writer.finish(nil)
                }
            )
        }
        router.get("trickle") { request, _ in
            try await record(request)
            // A body that never ends and never falls silent: a space every 50 ms, for ever.
            return written(
                ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"data":["#))
                    while true {
                        try await Task.sleep(for: .milliseconds(50))
                        try await writer.write(ByteBuffer(string: " "))
                    }
                }
            )
        }
        router.get("slow/articles") { request, _ in
            try await record(request)
            // A first page served at once, whose next link leads to a page that trickles for ever.
            return stream(
                #"{"data":[\#(article(1)),\#(article(2))],"links":{"next":"/slow/forever"}}"#,
                status: .ok
            )
        }
        router.get("slow/forever") { request, _ in
            try await record(request)
            return written(
                ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"data":["#))
                    var number = 3
                    while true {
                        try await Task.sleep(for: .milliseconds(200))
                        // One byte of an article at a time: a page that is never done.
                        for byte in article(number).utf8 {
                            try await writer.write(ByteBuffer(bytes: [byte]))
                            try await Task.sleep(for: .milliseconds(20))
                        }
                        try await writer.write(ByteBuffer(string: ","))
                        number += 1
                    }
                }
            )
        }
        router.get("loop/articles") { request, _ in
            try await record(request)
            return stream(#"{"data":[\#(article(1))],"links":{"next":"/loop/articles"}}"#, status: .ok)
        }
    }

    @discardableResult
    private func record(_ request: Hummingbird.Request) async throws -> String {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        let body = String(buffer: buffer)
        var headers: [String: String] = [:]
        // Canonical names are lowercase.
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        log.add(
            JSONAPITestServer.Request(
                method: request.method.rawValue,
                path: request.uri.path,
                rawQuery: request.uri.query ?? "",
                headers: headers,
                body: body
            )
        )
        return body
    }

    /// A page of the collection in the given style.
    private func page(style: String, request: Hummingbird.Request) -> Response {
        let parameters = Self.pageParameters(request.uri.query ?? "")
        var first = 1
        var size = total
        var links: [(String, String?)] = []
        let base = "/\(style)/articles"
        switch style {
        case "page", "nolinks", "dropnext":
            size = Int(parameters["size"] ?? "") ?? 10
            let number = Int(parameters["number"] ?? "") ?? 1
            first = (number - 1) * size + 1
            let last = max(1, (total + size - 1) / size)
            if style != "nolinks" {
                func href(_ n: Int) -> String { "\(base)?page%5Bnumber%5D=\(n)&page%5Bsize%5D=\(size)" }
                // `dropnext` stops giving `next` after page 2, its `last` still naming the last.
                let hasNext = number < last && (style == "page" || number < 2)
                links = [
                    ("self", href(number)), ("first", href(1)), ("last", href(last)),
                    ("prev", number > 1 ? href(number - 1) : nil), ("next", hasNext ? href(number + 1) : nil),
                ]
            }
        case "offset":
            size = Int(parameters["limit"] ?? "") ?? 10
            let offset = Int(parameters["offset"] ?? "") ?? 0
            first = offset + 1
            func href(_ o: Int) -> String { "\(base)?page%5Boffset%5D=\(o)&page%5Blimit%5D=\(size)" }
            links = [
                ("first", href(0)), ("prev", offset > 0 ? href(max(0, offset - size)) : nil),
                ("next", offset + size < total ? href(offset + size) : nil),
            ]
        case "cursor":
            size = Int(parameters["size"] ?? "") ?? 10
            first = (Int(parameters["after"] ?? "") ?? 0) + 1
            let lastOnPage = min(total, first + size - 1)
            links = [
                ("next", lastOnPage < total ? "\(base)?page%5Bsize%5D=\(size)&page%5Bafter%5D=\(lastOnPage)" : nil)
            ]
        default:
            break
        }
        let numbers = first <= total ? Array(first...min(total, first + size - 1)) : []
        let data = numbers.map { article($0, cursor: style == "cursor") }.joined(separator: ",")
        let people = Set(numbers.map { $0 % 7 + 1 }).sorted().map(person).joined(separator: ",")
        var body = #"{"data":[\#(data)],"included":[\#(people)],"meta":{"total":\#(total)}"#
        if !links.isEmpty {
            let members = links.map { name, href in "\"\(name)\":" + (href.map { "\"\($0)\"" } ?? "null") }
            body += #","links":{\#(members.joined(separator: ","))}"#
        }
        body += "}"
        return stream(body, status: .ok)
    }

    /// A body sent in chunks of `chunkSize` bytes, `chunkDelay` apart, without a length (chunked).
    private func stream(_ text: String, status: HTTPResponse.Status, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: Self.mediaType]
        headers.append(contentsOf: extra)
        let bytes = Array(text.utf8)
        let size = chunkSize
        let delay = chunkDelay
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody { writer in
                var start = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + size)
                    try await writer.write(ByteBuffer(bytes: bytes[start..<end]))
                    start = end
                    if delay > .zero { try await Task.sleep(for: delay) }
                }
                try await writer.finish(nil)
            }
        )
    }

    /// A 200 JSON:API response whose body `body` writes as the route pleases: stalls, trickles,
    /// lies about its length, never ends.
    private func written(_ body: ResponseBody) -> Response {
        Response(status: .ok, headers: [.contentType: Self.mediaType], body: body)
    }

    /// A body sent in one piece, with its length.
    /// An answer asking the client to come back after `retryAfter`.
    private static func later(_ status: HTTPResponse.Status, retryAfter: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain", .retryAfter: retryAfter],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "come back later"))
        )
    }

    /// `date` as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private func whole(_ status: HTTPResponse.Status, contentType: String = mediaType, _ text: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    func article(_ number: Int) -> String { article(number, cursor: false) }

    func article(_ number: Int, cursor: Bool) -> String {
        let meta = cursor ? #","meta":{"page":{"cursor":"\#(number)"}}"# : ""
        return
            #"{"type":"articles","id":"\#(number)","attributes":{"title":"Article \#(number)","words":\#(number * 10)},"relationships":{"author":{"data":{"type":"people","id":"\#(number % 7 + 1)"}}}\#(meta)}"#
    }

    func person(_ number: Int) -> String {
        #"{"type":"people","id":"\#(number)","attributes":{"name":"Person \#(number)"}}"#
    }

    static func pageParameters(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for part in query.split(separator: "&") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            guard pair.count == 2, pair[0].hasPrefix("page["), pair[0].hasSuffix("]") else { continue }
            result[String(pair[0].dropFirst(5).dropLast())] = pair[1]
        }
        return result
    }
}
