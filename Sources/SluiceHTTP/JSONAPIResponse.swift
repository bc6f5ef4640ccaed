public import Foundation
public import HTTPTypes
import SluiceJSON
public import SluiceJSONAPI

// The primary data of the client's write results, defined with the other models in SluiceJSONAPI:
// re-exported, so that code importing only SluiceHTTP can name them as it names the results.
@_exported public import struct SluiceJSONAPI.NoPrimaryData
@_exported public import struct SluiceJSONAPI.RelationshipLinkage

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
