public import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SluiceJSON
public import SluiceJSONAPI

// Pages: following a response's pagination links, or the client's strategy, page by page or
// resource by resource across a whole collection.
extension JSONAPIClient {
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
}
