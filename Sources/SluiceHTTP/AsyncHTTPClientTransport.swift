public import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The default transport on Linux: AsyncHTTPClient (SwiftNIO), HTTP/1.1 and HTTP/2, TLS, a
/// connection pool, and back-pressure all the way down: the next body chunk is read from the
/// socket only once the client has parsed the last one.
///
/// ``shared`` needs no life-cycle. A transport made with a configuration owns its `HTTPClient`
/// and must be shut down (``shutdown()``) before it is released; one made from an existing client
/// leaves that client to its owner.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// A process-wide transport: connections time out after 10 s, and a body that sends nothing
    /// for 60 s fails.
    public static let shared = AsyncHTTPClientTransport(
        client: HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.configuration(connect: .seconds(10), read: .seconds(60))
        ),
        owned: false
    )

    private let client: HTTPClient
    private let owned: Bool

    /// A transport on `client`, which its owner shuts down.
    public init(client: HTTPClient) {
        self.init(client: client, owned: false)
    }

    /// A transport with its own client: `connect` bounds making a connection, `read` the silence
    /// between two parts of a response (a stalled body fails after it). Call ``shutdown()`` when done.
    public init(connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(60)) {
        self.init(
            client: HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: Self.configuration(connect: connectTimeout, read: readTimeout)
            ),
            owned: true
        )
    }

    private init(client: HTTPClient, owned: Bool) {
        self.client = client
        self.owned = owned
    }

    /// Shuts down the client this transport made; does nothing for ``shared`` or a client given.
    public func shutdown() async throws {
        if owned { try await client.shutdown() }
    }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        guard let url = request.url else {
            throw HTTPTransportError(timedOut: false, message: "the request has no absolute URL")
        }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.head.method.rawValue)
        for field in request.head.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        // The deadline covers the head; a body's silences are bounded by the read timeout.
        let timeout = request.timeout.map(Self.timeAmount) ?? .hours(24)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: timeout)
        } catch {
            throw Self.translate(error)
        }
        var fields = HTTPFields()
        for field in response.headers {
            // A name HTTP does not allow cannot be asked for by name; it is left out.
            if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
        }
        return HTTPTransportResponse(
            head: HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: fields),
            body: HTTPBody(Chunks(base: response.body))
        )
    }

    /// AsyncHTTPClient's body, chunk by chunk as byte arrays, its errors translated.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        let base: HTTPClientResponse.Body
        func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }
        struct Iterator: AsyncIteratorProtocol {
            var base: HTTPClientResponse.Body.AsyncIterator
            mutating func next() async throws -> [UInt8]? {
                do {
                    return try await base.next().map { Array($0.readableBytesView) }
                } catch {
                    throw AsyncHTTPClientTransport.translate(error)
                }
            }
        }
    }

    /// AsyncHTTPClient's errors in the terms the client reports: timeouts as timeouts, a
    /// cancelled request as `CancellationError`, the rest with AsyncHTTPClient's words.
    static func translate(_ error: any Error) -> any Error {
        if let failure = error as? IOError {
            // NIO words a refused connection "connection reset (error set): Connection refused)
            // (errno: 111)"; the system's own words, and the number, say it plainly.
            let code = failure.errnoCode
            let refused = code == ECONNREFUSED ? "could not connect: " : ""
            return HTTPTransportError(
                timedOut: false,
                message: "\(refused)\(String(cString: strerror(code))) (errno \(code))"
            )
        }
        guard let error = error as? HTTPClientError else { return error }
        switch error {
        case .cancelled: return CancellationError()
        case .deadlineExceeded:
            return HTTPTransportError(timedOut: true, message: "no response head within the request's timeout")
        case .readTimeout:
            return HTTPTransportError(
                timedOut: true,
                message: "the server sent nothing for longer than the read timeout"
            )
        case .connectTimeout:
            return HTTPTransportError(timedOut: true, message: "could not connect within the connect timeout")
        case .remoteConnectionClosed:
            return HTTPTransportError(
                timedOut: false,
                message: "the server closed the connection before the response was complete"
            )
        default:
            return HTTPTransportError(timedOut: false, message: "\(error)")
        }
    }

    private static func configuration(connect: Duration, read: Duration) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: timeAmount(connect), read: timeAmount(read))
        // Redirects are followed (as browsers and URLSession do), at most 5, never in a cycle.
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        return configuration
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
