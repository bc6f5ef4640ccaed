public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
import SluiceJSON
public import SluiceJSONAPI

/// A JSON:API client over a base URL: fetch, create, update and delete resources, read and change
/// relationships, and page through collections, each response body parsed while it arrives.
///
/// ```swift
/// var client = JSONAPIClient(baseURL: URL(string: "https://api.example.com/v1")!,
///                            registry: [Article.self, Person.self, Comment.self])
/// client.headers[.authorization] = "Bearer \(token)"
///
/// let page = try await client.fetchCollection(
///     Article.self, query: JSONAPIQuery().including("author").sorted(by: "-created"))
/// for article in page.document.data { print(article.title, article.author?.name ?? "") }
///
/// for try await article in try client.all(Article.self) { try await store.save(article) }
/// ```
///
/// Requests carry `Accept: application/vnd.api+json` and bodies `Content-Type:
/// application/vnd.api+json`, with the ``extensions`` and ``profiles`` as the only parameters,
/// as the specification requires. Failures are ``JSONAPIClientError``s; cancelling the calling
/// task cancels the request, mid-body included, and surfaces as `CancellationError`.
///
/// The client never logs. Its errors and ``HTTPTransportRequest``'s description hide credentials
/// (they print no header field, and no password or key and token query value of a URL).
public struct JSONAPIClient: Sendable {
    /// The URL paths are relative to (`https://api.example.com/v1`).
    public var baseURL: URL
    /// How requests are sent.
    public var transport: any HTTPTransport
    /// How routes become paths.
    public var router: any JSONAPIRouter = PathTemplateRouter()
    /// Decodes response bodies; its registry names the resource models. A class: copies of this
    /// client share it until one is given its own (`decoder.copy()`).
    public var decoder: JSONAPIDecoder
    /// Encodes request documents; shared by copies of this client, as ``decoder`` is.
    public var encoder = JSONAPIEncoder()
    /// Header fields sent with every request (authorization, a user agent). Per-request headers
    /// in ``RequestOptions`` replace fields of the same name.
    public var headers = HTTPFields()
    /// Extension URIs applied to request documents and asked of the server (`ext="..."`).
    public var extensions: [String] = []
    /// Profile URIs applied to request documents and asked of the server (`profile="..."`).
    public var profiles: [String] = []
    /// How long to wait for a response head; `nil` leaves it to the transport.
    public var timeout: Duration? = .seconds(30)
    /// How long a response body may take to arrive, from its head to its last byte; `nil` (the
    /// default) for no limit, since a large export may stream for hours. The transport's read
    /// timeout ends a body that falls silent; this ends one that never ends, such as a server
    /// sending a byte now and then. Set it for servers you do not trust. Bodies streamed through
    /// ``resources(at:maximumPages:options:)`` are timed per page.
    public var bodyTimeout: Duration?
    /// When a request is sent again after a failure to connect, a timeout before the response,
    /// or a status that asks for patience (429, 502, 503, 504, honouring `Retry-After`). Default:
    /// three retries, with exponential backoff and jitter, never for `POST` or `PATCH`; see
    /// ``RetryPolicy``.
    public var retryPolicy = RetryPolicy()
    /// The largest response body read, in bytes; `nil` for no limit. Bodies streamed through
    /// ``resources(at:maximumPages:options:)`` are limited per page.
    public var maximumBodyBytes: Int? = 256 * 1024 * 1024
    /// How collections are paged when ``fetchCollection(_:query:options:)`` is given no `page`
    /// parameters, and where pages lead when a server gives no pagination links.
    public var pagination: (any PaginationStrategy)?

    /// What one request may add: header fields, values for a custom transport, its own timeout.
    public struct RequestOptions: Sendable {
        public var headers: HTTPFields
        public var userInfo: [String: any Sendable]
        public var timeout: Duration?
        public init(
            headers: HTTPFields = HTTPFields(),
            userInfo: [String: any Sendable] = [:],
            timeout: Duration? = nil
        ) {
            self.headers = headers
            self.userInfo = userInfo
            self.timeout = timeout
        }
    }

    /// A client for the API at `baseURL`, decoding the models of `registry`, sending through
    /// `transport` (by default the process-wide AsyncHTTPClient transport).
    public init(
        baseURL: URL,
        registry: ResourceRegistry = [],
        transport: any HTTPTransport = AsyncHTTPClientTransport.shared
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.decoder = JSONAPIDecoder(registry: registry)
    }

    // MARK: Reading

    /// Fetches one resource (`GET /<type>/<id>`).
    public func fetch<T: Resource>(
        _ type: T.Type,
        id: String,
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<Linked<T>> {
        try await registering(T.self).fetch(
            Linked<T>.self,
            at: url(for: .resource(type: T.resourceType, id: id), query: query),
            options: options
        )
    }

    /// Fetches a page of a collection (`GET /<type>`). Without `page` parameters in `query`, the
    /// first page of ``pagination`` is asked for.
    public func fetchCollection<T: Resource>(
        _ type: T.Type,
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<[Linked<T>]> {
        try await registering(T.self).fetch(
            [Linked<T>].self,
            at: collectionURL(T.resourceType, query: query),
            options: options
        )
    }

    /// Fetches the related resources of a relationship (`GET /<type>/<id>/<relationship>`):
    /// `Linked<Person>?` for a to-one, `[Linked<Comment>]` for a to-many.
    public func fetchRelated<Primary: PrimaryData>(
        _ primary: Primary.Type,
        type: String,
        id: String,
        relationship: String,
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<Primary> {
        try await fetch(
            primary,
            at: url(for: .related(type: type, id: id, name: relationship), query: query),
            options: options
        )
    }

    /// Fetches a relationship's linkage (`GET /<type>/<id>/relationships/<relationship>`):
    /// `[ResourceIdentifier]` for a to-many, `ResourceIdentifier?` for a to-one.
    public func fetchRelationship<Primary: PrimaryData>(
        _ primary: Primary.Type,
        type: String,
        id: String,
        relationship: String,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<Primary> {
        try await fetch(primary, at: url(for: .relationship(type: type, id: id, name: relationship)), options: options)
    }

    /// Fetches the document at `url` (a link from another document, say) with primary data of
    /// the shape `primary`.
    public func fetch<Primary: PrimaryData>(
        _ primary: Primary.Type,
        at url: URL,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<Primary> {
        let exchange = try await send(.get, url, body: nil, options: options)
        guard let document = try await exchange.document(primary) else {
            throw exchange.failure(.missingDocument)
        }
        return JSONAPIResponse(
            document: document,
            status: exchange.response.head.status.code,
            headers: exchange.response.head.headerFields,
            url: url,
            bytesRead: exchange.body.bytesRead
        )
    }

    // MARK: Pages

    /// The page at `relation` to `response`: from its `links` when the document has pagination
    /// links, else from ``pagination``. `nil` when there is no such page (no `next` on the last).
    public func page<Element>(
        _ relation: PageRelation,
        of response: JSONAPIResponse<[Element]>,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<[Element]>? {
        guard
            let url = try link(
                relation,
                from: response.url,
                links: response.document.links,
                page: response.pageSummary
            )
        else { return nil }
        return try await fetch([Element].self, at: url, options: options)
    }

    /// The next page, or `nil` after the last.
    public func nextPage<Element>(
        of response: JSONAPIResponse<[Element]>,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<[Element]>? {
        try await page(.next, of: response, options: options)
    }

    /// The document fetched again: from its `self` link, else the URL it came from.
    public func reload<Primary>(
        _ response: JSONAPIResponse<Primary>,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIResponse<Primary> {
        let url =
            response.document.links?.selfLink?.href.flatMap { Self.resolve($0, against: response.url) } ?? response.url
        return try await fetch(Primary.self, at: url, options: options)
    }

    /// Fetches the next page and appends its data and included resources to `response`'s
    /// document (identity preserved: see `Document.appending(_:)`); its links become the new
    /// page's. Returns `false`, changing nothing, after the last page.
    @discardableResult
    public func appendNextPage<Element>(
        to response: inout JSONAPIResponse<[Element]>,
        options: RequestOptions = RequestOptions()
    ) async throws -> Bool {
        // The strategy looks at the last page alone (its count and cursor), not at the pages
        // appended so far.
        guard
            let url = try link(
                .next,
                from: response.url,
                links: response.document.links,
                page: response.pageSummary
            )
        else { return false }
        var visited = response.visitedPages
        guard visited.insert(url.absoluteString).inserted else {
            throw JSONAPIClientError(kind: .paginationCycle, request: HTTPTransportRequest.describe(.get, url))
        }
        let next = try await fetch([Element].self, at: url, options: options)
        let pages = response.pageCount + 1
        let bytes = response.bytesRead + next.bytesRead
        response = JSONAPIResponse(
            document: response.document.appending(next.document),
            status: next.status,
            headers: next.headers,
            url: next.url,
            bytesRead: bytes
        )
        response.pageCount = pages
        response.visitedPages = visited
        response.lastPage = next.pageSummary
        return true
    }

    /// Every resource of every page of the collection at `url`, primary data and included, each
    /// as soon as its object has arrived. Pages are fetched one at a time, only when the one
    /// before is used up, so memory holds one resource, not a page; the sequence ends after the
    /// last page and stops when the task is cancelled.
    ///
    /// - Parameters:
    ///   - url: The collection's first page.
    ///   - maximumPages: Stop after this many pages (`1` reads just the page at `url`).
    ///   - options: Headers, `userInfo` and a timeout for each page's request.
    public func resources(
        at url: URL,
        maximumPages: Int? = nil,
        options: RequestOptions = RequestOptions()
    ) -> PagedResources {
        PagedResources(client: self, start: url, maximumPages: maximumPages, options: options)
    }

    /// Every resource of every page of a type's collection; see ``resources(at:maximumPages:options:)``.
    public func resources(
        ofType type: String,
        query: JSONAPIQuery = JSONAPIQuery(),
        maximumPages: Int? = nil,
        options: RequestOptions = RequestOptions()
    ) throws -> PagedResources {
        resources(at: try collectionURL(type, query: query), maximumPages: maximumPages, options: options)
    }

    /// The body of the document at `url` for a consumer that parses it itself (an importer
    /// reading from a pipe): the status is checked (an error status throws with the server's
    /// error objects), a non-JSON body is refused, and the chunks count against
    /// ``maximumBodyBytes``. `nil` for 204 or an empty body.
    public func documentBody(at url: URL, options: RequestOptions = RequestOptions()) async throws -> DocumentBody? {
        let exchange = try await send(.get, url, body: nil, options: options)
        return try await exchange.hasDocument() ? DocumentBody(exchange: exchange) : nil
    }

    /// Every resource of a type's collection, across its pages, decoded to `T`: primary data only.
    public func all<T: Resource>(
        _ type: T.Type,
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) throws -> TypedPagedResources<T> {
        TypedPagedResources(
            base: try registering(T.self).resources(ofType: T.resourceType, query: query, options: options)
        )
    }

    // MARK: Writing

    /// Creates a resource (`POST /<type>`). Give it a `lid` and no `id` to let the server assign
    /// the id, or an `id` the client generated. The result holds the created resource when the
    /// server returns it (201, or 200 with a document), none for 202/204.
    public func create<R: Resource & Encodable>(
        _ resource: R,
        included: [any Resource & Encodable] = [],
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<Linked<R>> {
        let body = try encoder.encode(resource, included: included)
        let url = try url(for: .collection(type: R.resourceType), query: query)
        return try await registering(R.self).write(Linked<R>.self, .post, url, body: body, options: options)
    }

    /// Updates a resource (`PATCH /<type>/<id>`). Only the members the model writes are sent:
    /// `Field.absent` and `ToOne.unchanged` leave a member out (unchanged on the server), `.null`
    /// clears it.
    @discardableResult
    public func update<R: Resource & Encodable>(
        _ resource: R,
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<Linked<R>> {
        let (body, target) = try encoder.encodeIdentified(resource)
        guard let target, !target.isLocal else {
            throw JSONAPIClientError(
                kind: .invalidURL,
                request: "PATCH \(R.resourceType)",
                body: "an update needs the resource's id; the model wrote none"
            )
        }
        let url = try url(for: .resource(type: target.type, id: target.key), query: query)
        return try await registering(R.self).write(Linked<R>.self, .patch, url, body: body, options: options)
    }

    /// Deletes a resource (`DELETE /<type>/<id>`).
    @discardableResult
    public func delete(
        type: String,
        id: String,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<NoPrimaryData> {
        try await write(
            NoPrimaryData.self,
            .delete,
            url(for: .resource(type: type, id: id)),
            body: nil,
            options: options
        )
    }

    /// Deletes a resource of model type `T`.
    @discardableResult
    public func delete<T: Resource>(
        _ type: T.Type,
        id: String,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<NoPrimaryData> {
        try await delete(type: T.resourceType, id: id, options: options)
    }

    /// Replaces a to-one relationship (`PATCH .../relationships/<name>`); `nil` clears it.
    @discardableResult
    public func replaceRelationship(
        type: String,
        id: String,
        relationship: String,
        with target: ResourceIdentifier?,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.patch, type: type, id: id, relationship: relationship, .one(target), options: options)
    }

    /// Replaces every member of a to-many relationship (`PATCH`); an empty array clears it.
    @discardableResult
    public func replaceRelationship(
        type: String,
        id: String,
        relationship: String,
        with members: [ResourceIdentifier],
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.patch, type: type, id: id, relationship: relationship, .many(members), options: options)
    }

    /// Adds members to a to-many relationship (`POST`); members already there stay once.
    @discardableResult
    public func addToRelationship(
        type: String,
        id: String,
        relationship: String,
        _ members: [ResourceIdentifier],
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.post, type: type, id: id, relationship: relationship, .many(members), options: options)
    }

    /// Removes members from a to-many relationship (`DELETE` with the members in the body).
    @discardableResult
    public func removeFromRelationship(
        type: String,
        id: String,
        relationship: String,
        _ members: [ResourceIdentifier],
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.delete, type: type, id: id, relationship: relationship, .many(members), options: options)
    }

    private func linkage(
        _ method: HTTPRequest.Method,
        type: String,
        id: String,
        relationship: String,
        _ data: JSONAPIRequestDocument.Linkage,
        options: RequestOptions
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        let body = try StreamingJSONEncoder().encode(JSONAPIRequestDocument(data: data))
        let url = try url(for: .relationship(type: type, id: id, name: relationship))
        return try await write(RelationshipLinkage.self, method, url, body: body, options: options)
    }

    private func write<Primary: PrimaryData>(
        _ primary: Primary.Type,
        _ method: HTTPRequest.Method,
        _ url: URL,
        body: Data?,
        options: RequestOptions
    ) async throws -> JSONAPIWriteResult<Primary> {
        let exchange = try await send(method, url, body: body, options: options)
        let document: Document<Primary>?
        do {
            document = try await exchange.document(primary)
        } catch let error as JSONAPIClientError where error.kind == .invalidDocument && Self.lacksData(error) {
            // A write may be answered with only `meta` (the specification allows it for an
            // update): the change was applied, there is just no resource to return.
            document = nil
        }
        return JSONAPIWriteResult(
            document: document,
            status: exchange.response.head.status.code,
            headers: exchange.response.head.headerFields,
            url: url
        )
    }

    // MARK: Requests

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

/// A response body checked by the client, read chunk by chunk; see
/// ``JSONAPIClient/documentBody(at:options:)``. Failures while reading are ``JSONAPIClientError``s.
public struct DocumentBody: AsyncSequence {
    public typealias Element = [UInt8]
    let exchange: Exchange

    /// The status.
    public var status: Int { exchange.response.head.status.code }
    /// The response's header fields.
    public var headers: HTTPFields { exchange.response.head.headerFields }
    /// Bytes read so far.
    public var bytesRead: Int { exchange.body.bytesRead }

    public func makeAsyncIterator() -> Iterator { Iterator(reader: exchange.body) }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: BodyReader
        public mutating func next() async throws -> [UInt8]? { try await reader.next() }
    }
}

// A body is read once, by one task at a time (its iterator is the only reader), which is what
// handing it to another task needs: an import reads it on a task of its own.
extension DocumentBody: @unchecked Sendable {}

/// A read's outcome: the document, and the response it came in.
public struct JSONAPIResponse<Primary: PrimaryData> {
    /// The document.
    public var document: Document<Primary>
    /// The status (200, or 201 for a create).
    public var status: Int
    /// The response's header fields.
    public var headers: HTTPFields
    /// The URL the document was fetched from (the last page's, after appending pages).
    public var url: URL
    /// Body bytes read (summed over appended pages).
    public var bytesRead: Int
    /// Pages this response holds: 1, plus one per ``JSONAPIClient/appendNextPage(to:options:)``.
    public internal(set) var pageCount = 1
    /// After appending: what the last page alone held, for a pagination strategy.
    var lastPage: PageSummary?
    /// The URLs of the pages this response holds, to refuse a next link back to one of them.
    var visitedPages: Set<String>

    init(document: Document<Primary>, status: Int, headers: HTTPFields, url: URL, bytesRead: Int) {
        self.document = document
        self.status = status
        self.headers = headers
        self.url = url
        self.bytesRead = bytesRead
        visitedPages = [url.absoluteString]
    }

    /// The extensions the server applied (`ext` of its `Content-Type`).
    public var extensions: [String] { JSONAPIMediaType(parsing: headers[.contentType]).extensions }
    /// The profiles the server applied (`profile` of its `Content-Type`).
    public var profiles: [String] { JSONAPIMediaType(parsing: headers[.contentType]).profiles }

    /// What a pagination strategy knows of this page.
    var pageSummary: PageSummary {
        if let lastPage { return lastPage }
        let items = document.primaryItems
        func meta(_ item: PrimaryItem?) -> JSONValue? {
            if case .resource(let resource)? = item { return resource.raw?.meta }
            return nil
        }
        return PageSummary(
            parameters: JSONAPIClient.pageParameters(of: url),
            count: items.count,
            firstIdentity: items.first?.identity,
            lastIdentity: items.last?.identity,
            firstMeta: meta(items.first),
            lastMeta: meta(items.last),
            meta: document.meta
        )
    }
}

/// A response crosses tasks and actors whole when its primary data can.
extension JSONAPIResponse: Sendable where Primary: Sendable {}

/// A write's outcome: the document the server returned, if any (none for 202, 204, or a 200 that
/// holds only `meta`).
public struct JSONAPIWriteResult<Primary: PrimaryData> {
    /// The returned document: the resource as the server stored it, with its assigned id.
    public var document: Document<Primary>?
    /// The status: 200, 201, 202 or 204.
    public var status: Int
    /// The response's header fields (`Location` after a create).
    public var headers: HTTPFields
    /// The URL the request went to.
    public var url: URL
}

extension JSONAPIWriteResult: Sendable where Primary: Sendable {}

/// Primary data of any shape, or none: for responses whose `meta` is what matters (a delete
/// that returns meta, a relationship change).
public struct NoPrimaryData: PrimaryData, Sendable {
    public static var primaryModelTypes: [any Resource.Type] { [] }
    public static var holdsIdentifiers: Bool { false }
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        .success(NoPrimaryData())
    }
}

/// What a relationship change may answer with (200): the relationship's linkage as it now is,
/// read as identifiers whatever models are registered. Empty when the answer has no `data`.
public struct RelationshipLinkage: PrimaryData, Sendable {
    /// The identifiers: none for `null` or an empty to-many, one for a to-one.
    public var identifiers: [ResourceIdentifier]
    public static var primaryModelTypes: [any Resource.Type] { [] }
    public static var holdsIdentifiers: Bool { true }
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        let items: [PrimaryItem]
        switch content {
        case .absent, .null: items = []
        case .single(let item): items = [item]
        case .collection(let all): items = all
        }
        return .success(
            RelationshipLinkage(
                identifiers: items.compactMap { item in
                    switch ResourceIdentifier.make(item: item, store: store) {
                    case .success(let identifier): identifier
                    case .failure: nil
                    }
                }
            )
        )
    }
}

/// The JSON:API media type with its two permitted parameters.
struct JSONAPIMediaType {
    static let name = "application/vnd.api+json"
    var extensions: [String] = []
    var profiles: [String] = []
    /// Whether the parsed value named the JSON:API media type.
    var isJSONAPI = false
    /// The media type, lowercased, without parameters (`application/json`).
    var essence = ""

    init(extensions: [String], profiles: [String]) {
        self.extensions = extensions
        self.profiles = profiles
        isJSONAPI = true
        essence = Self.name
    }

    /// Reads a `Content-Type` value, keeping only `ext` and `profile`: clients must ignore the
    /// other parameters of the JSON:API media type in responses.
    init(parsing value: String?) {
        guard let value else { return }
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        essence = parts.first?.lowercased() ?? ""
        isJSONAPI = essence == Self.name
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            let list = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").map(
                String.init
            )
            switch pair[0].lowercased() {
            case "ext": extensions = list
            case "profile": profiles = list
            default: continue
            }
        }
    }

    /// `application/vnd.api+json; ext="..."; profile="..."`, values quoted as HTTP requires.
    var headerValue: String {
        var value = Self.name
        if !extensions.isEmpty { value += "; ext=\"\(extensions.joined(separator: " "))\"" }
        if !profiles.isEmpty { value += "; profile=\"\(profiles.joined(separator: " "))\"" }
        return value
    }

    /// Whether a body of this type can be a JSON document: the JSON:API media type, JSON, any
    /// `+json` type; a missing `Content-Type` is given the benefit of the doubt.
    var isJSON: Bool {
        essence.isEmpty || essence == "application/json" || essence.hasSuffix("+json") || essence == "text/json"
    }
}

/// The request documents the client writes itself: relationship linkage.
struct JSONAPIRequestDocument: Encodable {
    enum Linkage: Encodable {
        case one(ResourceIdentifier?)
        case many([ResourceIdentifier])
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let identifier?): try container.encode(identifier)
            case .one(nil): try container.encodeNil()
            case .many(let identifiers): try container.encode(identifiers)
            }
        }
    }
    var data: Linkage
}
