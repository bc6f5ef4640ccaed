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
}
