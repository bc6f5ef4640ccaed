public import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SluiceJSON
public import SluiceJSONAPI

// Requests: URLs for routes and queries, sending with the client's headers and retries, and
// the URL arithmetic pagination needs.
extension JSONAPIClient {
    /// This client with `model` as the model of its type: a call that names a model (a patch
    /// model, say, beside the full one in the registry) gets that model back.
    func registering(_ model: any Resource.Type) -> JSONAPIClient {
        var client = self
        // The decoder is shared with this client: the one that knows `model` is a copy.
        client.decoder = decoder.copy()
        client.decoder.registry.register(model)
        return client
    }

    /// The URL of `route` under ``baseURL``, with `query`.
    public func url(for route: JSONAPIRoute, query: JSONAPIQuery = JSONAPIQuery()) throws -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var text = base + "/" + router.path(for: route)
        if !query.isEmpty { text += "?" + query.percentEncoded }
        guard let url = URL(string: text) else {
            throw JSONAPIClientError(kind: .invalidURL, request: "GET \(HTTPRedaction.text(text))")
        }
        return url
    }

    func collectionURL(_ type: String, query: JSONAPIQuery) throws -> URL {
        var query = query
        if query.page.isEmpty, let pagination { query.page = pagination.firstPage }
        return try url(for: .collection(type: type), query: query)
    }

    /// The `Accept` value: the JSON:API media type with the client's extensions and profiles,
    /// and, when there are any, also without them, so a server that supports none still answers.
    var acceptValue: String {
        let plain = JSONAPIMediaType.name
        let full = contentTypeValue
        return full == plain ? plain : "\(full), \(plain)"
    }

    /// The `Content-Type` of request documents.
    var contentTypeValue: String {
        JSONAPIMediaType(extensions: extensions, profiles: profiles).headerValue
    }

    /// Sends a request and checks the response head: a non-2xx status becomes an error holding
    /// the server's error objects.
    func send(_ method: HTTPRequest.Method, _ url: URL, body: Data?, options: RequestOptions) async throws -> Exchange {
        var fields = headers
        if !Self.sameOrigin(url, baseURL) {
            // A link may lead to another host: the client's credentials stay with its own API.
            fields = HTTPFields(fields.filter { !HTTPRedaction.isSensitive(header: $0.name.rawName) })
        }
        if let user = url.user(percentEncoded: false), fields[.authorization] == nil {
            // A request head holds no user information: credentials in the URL go as Basic.
            let pair = user + ":" + (url.password(percentEncoded: false) ?? "")
            fields[.authorization] = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        fields[.accept] = acceptValue
        if body != nil { fields[.contentType] = contentTypeValue }
        fields.replaceFields(from: options.headers)
        let request = HTTPTransportRequest(
            head: HTTPRequest(method: method, url: url, headerFields: fields),
            body: body,
            timeout: options.timeout ?? timeout,
            userInfo: options.userInfo
        )
        let retries = retryPolicy.allows(method) ? retryPolicy : .none
        var waited = Duration.zero
        var retry = 1
        while true {
            let response: HTTPTransportResponse
            do {
                try Task.checkCancellation()
                response = try await transport.send(request)
            } catch {
                let wrapped = Exchange.wrap(
                    error,
                    request: request.description,
                    status: nil,
                    headers: HTTPFields(),
                    bytesRead: 0
                )
                // A connection that failed, or a head that never came: worth another try.
                guard let failure = wrapped as? JSONAPIClientError,
                    failure.kind == .transport || failure.kind == .timedOut,
                    let delay = retries.delay(beforeRetry: retry, retryAfter: nil, waited: waited)
                else { throw wrapped }
                try await Task.sleep(for: delay)
                waited += delay
                retry += 1
                continue
            }
            let status = response.head.status.code
            if retries.statuses.contains(status),
                let delay = retries.delay(
                    beforeRetry: retry,
                    retryAfter: response.head.headerFields[.retryAfter],
                    waited: waited
                )
            {
                // The answer's body is dropped unread: the status says to ask again later.
                try await Task.sleep(for: delay)
                waited += delay
                retry += 1
                continue
            }
            let exchange = Exchange(client: self, request: request, response: response)
            try await exchange.checkStatus()
            return exchange
        }
    }

    /// Where `relation` leads from the page at `url` with `links`: the link when the document has
    /// pagination links (`nil` when that one is missing or `null`), else what ``pagination``
    /// computes from `page` (`nil` without a strategy).
    public func link(_ relation: PageRelation, from url: URL, links: Links?, page: PageSummary) throws -> URL? {
        if let links, PageRelation.allCases.contains(where: { links.names.contains($0.rawValue) }) {
            guard let href = links[relation.rawValue]?.href else { return nil }
            guard let target = Self.resolve(href, against: url) else {
                throw JSONAPIClientError(kind: .invalidURL, request: "GET \(HTTPRedaction.text(href))")
            }
            return target
        }
        guard let pagination, let parameters = pagination.parameters(for: relation, of: page) else { return nil }
        return Self.replacingPage(of: url, with: parameters)
    }

    /// The page a document's `last` link names, when the document has such a link but no `next`
    /// and is not that page itself: a server that stops giving `next` early would otherwise
    /// lose the pages between without a word. `nil` when nothing is amiss.
    public static func unreachedLastPage(of url: URL, links: Links?) -> URL? {
        guard let links, links["next"]?.href == nil, let href = links["last"]?.href,
            let last = resolve(href, against: url)
        else { return nil }
        return last.absoluteString == url.absoluteString ? nil : last
    }

    /// Whether a document failed only for having no `data` member (the one shape mismatch at the
    /// document's root).
    static func lacksData(_ error: JSONAPIClientError) -> Bool {
        guard let decoding = error.underlying as? JSONAPIDecodingError else { return false }
        return decoding.pointer.isEmpty && decoding.position == nil
    }

    /// Whether two URLs have the same scheme, host and port.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }

    /// A link resolved against the URL of the document it came from (links are usually absolute).
    static func resolve(_ href: String, against base: URL) -> URL? {
        // Servers write links with raw brackets (`?page[number]=2`); their escapes must stay.
        URL(string: PercentEncoding.encodingInvalidCharacters(in: href), relativeTo: base)?.absoluteURL
    }

    /// `url` with its `page[...]` parameters replaced by `page`.
    static func replacingPage(of url: URL, with page: [String: String]) -> URL? {
        let text = url.absoluteString
        let base = text.split(separator: "?", maxSplits: 1).first.map(String.init) ?? text
        var parts =
            pageParameters(of: url).isEmpty
            ? rawQuery(of: url)
            : rawQuery(of: url).filter { part in
                let name = part.split(separator: "=", maxSplits: 1).first.map(String.init) ?? part
                return !(name.removingPercentEncoding ?? name).hasPrefix("page[")
            }
        for name in page.keys.sorted() {
            parts.append(JSONAPIQuery.encode("page[\(name)]") + "=" + JSONAPIQuery.encode(page[name] ?? ""))
        }
        return URL(string: parts.isEmpty ? base : base + "?" + parts.joined(separator: "&"))
    }

    /// The `page[...]` members of `url`'s query, decoded (`["number": "2"]`).
    static func pageParameters(of url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for part in rawQuery(of: url) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            let name = pair[0].removingPercentEncoding ?? pair[0]
            guard name.hasPrefix("page["), name.hasSuffix("]") else { continue }
            let value =
                pair.count > 1
                ? (pair[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? pair[1]) : ""
            result[String(name.dropFirst(5).dropLast())] = value
        }
        return result
    }

    private static func rawQuery(of url: URL) -> [String] {
        guard let query = url.query(percentEncoded: true), !query.isEmpty else { return [] }
        return query.split(separator: "&").map(String.init)
    }
}
