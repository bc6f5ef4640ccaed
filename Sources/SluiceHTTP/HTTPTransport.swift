public import Foundation

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
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         var request = request
///         request.headers["Authorization"] = "Bearer \(try await tokens.current())"
///         return try await next.send(request)
///     }
/// }
/// ```
///
/// A transport returns as soon as the response head has arrived; the body streams through
/// ``HTTPResponse/body`` as the client reads it, so a transport should not read ahead more than a
/// few chunks (that is what keeps a large response in bounded memory). Cancelling the calling task
/// cancels the request, during the head or the body.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// An HTTP method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let head = HTTPMethod(rawValue: "HEAD")

    public var description: String { rawValue }
}

/// One request the client sends through an ``HTTPTransport``.
public struct HTTPRequest: Sendable, CustomStringConvertible {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields.
    public var headers: HTTPHeaders
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
        method: HTTPMethod,
        url: URL,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data? = nil,
        timeout: Duration? = nil,
        userInfo: [String: any Sendable] = [:]
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.userInfo = userInfo
    }

    /// `METHOD URL`, with any password in the URL replaced by `***`; safe to log.
    public var description: String { "\(method) \(Self.redacted(url))" }

    /// `url` as the client prints it: user name, password and key- or token-like query values
    /// shown as `***`.
    public static func redacted(_ url: URL) -> String { HTTPRedaction.url(url) }
}

/// The head of a response and its body, which arrives as the client reads it.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, chunk by chunk.
    public var body: HTTPBody

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders, body: HTTPBody) {
        self.status = status
        self.headers = headers
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
