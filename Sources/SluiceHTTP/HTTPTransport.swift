public import Foundation
// Re-exported: the client's header fields and a transport's heads are swift-http-types' own types.
@_exported public import HTTPTypes
import HTTPTypesFoundation

/// What the JSON:API client asks of the network: send one request, hand back the status, the
/// headers and the body as it arrives.
///
/// Sluice ships ``AsyncHTTPClientTransport`` (the default on Linux) and `URLSessionTransport` (in the
/// SluiceURLSession library, so that only programs that use it load FoundationNetworking).
/// Write your own to route requests through an existing stack, to sign them, or to record them:
///
/// ```swift
/// struct Signing: HTTPTransport {
///     let next: any HTTPTransport
///     func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
///         var request = request
///         request.head.headerFields[.authorization] = "Bearer \(try await tokens.current())"
///         return try await next.send(request)
///     }
/// }
/// ```
///
/// A transport returns as soon as the response head has arrived; the body streams through
/// ``HTTPTransportResponse/body`` as the client reads it, so a transport should not read ahead more than a
/// few chunks (that is what keeps a large response in bounded memory). Cancelling the calling task
/// cancels the request, during the head or the body.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
}

/// One request the client sends through an ``HTTPTransport``: its head in swift-http-types'
/// terms (method, URL, header fields), the body, and how long to wait.
public struct HTTPTransportRequest: Sendable, CustomStringConvertible {
    /// The method, the absolute URL (query included) and the header fields.
    public var head: HTTPRequest
    /// The body, if any.
    public var body: Data?
    /// How long the transport may wait for the response head (connecting included); `nil` leaves
    /// it to the transport.
    public var timeout: Duration?
    /// Values for a custom transport (a tenant, a trace id, a retry budget); Sluice's transports
    /// ignore them.
    public var userInfo: [String: any Sendable]

    /// Creates a request.
    public init(
        head: HTTPRequest,
        body: Data? = nil,
        timeout: Duration? = nil,
        userInfo: [String: any Sendable] = [:]
    ) {
        self.head = head
        self.body = body
        self.timeout = timeout
        self.userInfo = userInfo
    }

    /// The head's absolute URL.
    public var url: URL? { head.url }

    /// `METHOD URL`, with any password in the URL and credential-like query values replaced by
    /// `***`; safe to log.
    public var description: String { Self.describe(head.method, head.url) }

    static func describe(_ method: HTTPRequest.Method, _ url: URL?) -> String {
        "\(method.rawValue) \(url.map(HTTPRedaction.url) ?? "<url>")"
    }

    /// `url` as the client prints it: user name, password and key- or token-like query values
    /// shown as `***`.
    public static func redacted(_ url: URL) -> String { HTTPRedaction.url(url) }
}

/// The head of a response, in swift-http-types' terms, and its body, which arrives as the client
/// reads it.
public struct HTTPTransportResponse: Sendable {
    /// The status and the header fields.
    public var head: HTTPResponse
    /// The body, chunk by chunk.
    public var body: HTTPBody

    /// Creates a response.
    public init(head: HTTPResponse, body: HTTPBody) {
        self.head = head
        self.body = body
    }
}

/// A response body: an asynchronous sequence of byte chunks of any size, read once.
///
/// Made from any `AsyncSequence` of byte chunks (keeping its back-pressure: nothing is read ahead
/// of the consumer), or from bytes already in memory.
public struct HTTPBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let makeNext: @Sendable () -> (() async throws -> [UInt8]?)

    /// A body read from `chunks`, pulled only as the client asks for the next chunk.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == [UInt8] {
        makeNext = {
            // The iterator lives in this closure's box, so one body is read by one consumer at a
            // time, as an iterator must be.
            let box = IteratorBox(chunks.makeAsyncIterator())
            return { try await box.next() }
        }
    }

    /// A body of `bytes`, handed out in one chunk (none when empty).
    public init(bytes: [UInt8]) {
        self.init(InMemoryBody(bytes: bytes))
    }

    /// An empty body.
    public static var empty: HTTPBody { HTTPBody(bytes: []) }

    public func makeAsyncIterator() -> Iterator { Iterator(next: makeNext()) }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let next: () async throws -> [UInt8]?
        public mutating func next() async throws -> [UInt8]? { try await next() }
    }
}

/// Bytes already in memory, handed out as one chunk (none when empty).
struct InMemoryBody: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let bytes: [UInt8]

    func makeAsyncIterator() -> Iterator { Iterator(rest: bytes.isEmpty ? nil : bytes) }

    struct Iterator: AsyncIteratorProtocol {
        var rest: [UInt8]?
        mutating func next() async -> [UInt8]? {
            defer { rest = nil }
            return rest
        }
    }
}

/// Holds a non-Sendable iterator behind a reference so a `@Sendable` closure can drive it. Only one
/// task reads a body at a time (an `AsyncIteratorProtocol` rule), which is what makes the
/// unchecked conformance hold.
final class IteratorBox<Base: AsyncIteratorProtocol>: @unchecked Sendable where Base.Element == [UInt8] {
    private var base: Base
    init(_ base: Base) { self.base = base }
    func next() async throws -> [UInt8]? { try await base.next() }
}
