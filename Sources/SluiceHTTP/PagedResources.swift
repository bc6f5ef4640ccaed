public import Foundation
import HTTPTypes
import SluiceJSON
public import SluiceJSONAPI

/// Every resource of every page of a collection, each delivered as soon as its object has
/// arrived; see ``JSONAPIClient/resources(at:maximumPages:options:)``.
///
/// One page is in flight at a time and the next is requested only when the last resource of the
/// current one has been taken, so a consumer that stops (or a cancelled task) stops the paging.
/// Memory holds the resource being decoded, not a page, whatever the collection's size.
public struct PagedResources: AsyncSequence {
    public typealias Element = StreamedResource

    let client: JSONAPIClient
    let start: URL
    let maximumPages: Int?
    let options: JSONAPIClient.RequestOptions

    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, next: start, maximumPages: maximumPages, options: options)
    }

    /// Reads page after page.
    public struct Iterator: AsyncIteratorProtocol {
        let client: JSONAPIClient
        let options: JSONAPIClient.RequestOptions
        private var nextURL: URL?
        /// The page being read: its response and the resources decoded from its body.
        private var page: Page?
        /// Page URLs read so far, to stop a server whose `next` leads back.
        private var visited = Set<String>()
        private var summary = PageSummary(parameters: [:], count: 0)

        /// Pages requested so far.
        public private(set) var pagesRead = 0
        /// Body bytes read so far, over every page.
        public private(set) var bytesRead = 0
        /// The URL of the page being read (or last read).
        public private(set) var pageURL: URL?
        /// The top-level `meta`, `links` and counts of the last page read to its end.
        public private(set) var lastPage: DocumentSummary?
        /// The HTTP status of the page being read (or last read).
        public private(set) var pageStatus: Int?
        /// Set when the pages ended at a page whose `last` link names another page but that has
        /// no `next` link: the pages between were not read (see
        /// ``JSONAPIClient/unreachedLastPage(of:links:)``).
        public private(set) var unreachedLastPage: URL?

        private let maximumPages: Int?

        init(client: JSONAPIClient, next: URL, maximumPages: Int?, options: JSONAPIClient.RequestOptions) {
            self.client = client
            self.nextURL = next
            self.maximumPages = maximumPages
            self.options = options
        }

        /// Where the next page is, once the current one is read to its end; `nil` after the last.
        public var nextPageURL: URL? { nextURL }

        public mutating func next() async throws -> StreamedResource? {
            while true {
                try Task.checkCancellation()
                if page == nil {
                    guard let url = nextURL else { return nil }
                    if let maximumPages, pagesRead >= maximumPages { return nil }
                    nextURL = nil
                    guard visited.insert(url.absoluteString).inserted else {
                        throw JSONAPIClientError(
                            kind: .paginationCycle,
                            request: HTTPTransportRequest.describe(.get, url)
                        )
                    }
                    try await open(url)
                    if page == nil { continue }
                }
                guard var current = page else { continue }
                let resource: StreamedResource?
                do {
                    resource = try await current.resources.next()
                } catch {
                    page = nil
                    throw current.exchange.wrapDecoding(error)
                }
                page = current
                if let resource {
                    note(resource)
                    return resource
                }
                try finishPage(current)
            }
        }

        /// Requests a page; an empty or 204 answer is a page with nothing in it.
        private mutating func open(_ url: URL) async throws {
            let exchange = try await client.send(.get, url, body: nil, options: options)
            pagesRead += 1
            pageURL = url
            pageStatus = exchange.response.head.status.code
            summary = PageSummary(parameters: JSONAPIClient.pageParameters(of: url), count: 0)
            guard try await exchange.hasDocument() else {
                lastPage = nil
                return
            }
            page = Page(
                exchange: exchange,
                resources: client.decoder.resources(from: exchange.body.chunks).makeAsyncIterator()
            )
        }

        /// Keeps what a pagination strategy needs to know of the page: its primary count and
        /// its first and last primary resources.
        private mutating func note(_ streamed: StreamedResource) {
            guard streamed.section == .primary else { return }
            let identity = streamed.resource.identity
            let meta = streamed.resource.raw?.meta
            if summary.count == 0 {
                summary.firstIdentity = identity
                summary.firstMeta = meta
            }
            summary.count += 1
            summary.lastIdentity = identity
            summary.lastMeta = meta
        }

        /// At the end of a page: where the next one is, from the links or the strategy.
        private mutating func finishPage(_ finished: Page) throws {
            bytesRead += finished.exchange.body.bytesRead
            page = nil
            let document = finished.resources.summary
            lastPage = document
            summary.meta = document?.meta
            guard let url = pageURL else { return }
            nextURL = try client.link(.next, from: url, links: document?.links, page: summary)
            if nextURL == nil { unreachedLastPage = JSONAPIClient.unreachedLastPage(of: url, links: document?.links) }
        }
    }

    /// A page being read.
    struct Page {
        let exchange: Exchange
        var resources: StreamedResources<BodyReader.Chunks>.Iterator
    }
}

/// The primary resources of every page of a collection, decoded to `T`; see
/// ``JSONAPIClient/all(_:query:options:)``.
public struct TypedPagedResources<T: Resource>: AsyncSequence {
    public typealias Element = T
    let base: PagedResources

    public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    /// Skips included resources and primary resources of other types.
    public struct Iterator: AsyncIteratorProtocol {
        var base: PagedResources.Iterator

        /// Pages requested so far.
        public var pagesRead: Int { base.pagesRead }

        public mutating func next() async throws -> T? {
            while let streamed = try await base.next() {
                if streamed.section == .primary, let model = streamed.resource.as(T.self) { return model }
            }
            return nil
        }
    }
}
