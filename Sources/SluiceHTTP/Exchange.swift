import Foundation
import HTTPTypes
import SluiceJSON
import SluiceJSONAPI

/// One request and its response, while the body is being read: checks the status and the
/// content type, enforces the body limit, and turns every failure into a ``JSONAPIClientError``
/// that names the request.
final class Exchange {
    let client: JSONAPIClient
    let request: HTTPTransportRequest
    let response: HTTPTransportResponse
    let body: BodyReader

    init(client: JSONAPIClient, request: HTTPTransportRequest, response: HTTPTransportResponse) {
        self.client = client
        self.request = request
        self.response = response
        body = BodyReader(
            response.body,
            limit: client.maximumBodyBytes,
            deadline: client.bodyTimeout.map { ContinuousClock.now + $0 },
            request: request.description,
            status: response.head.status.code,
            headers: response.head.headerFields
        )
    }

    var contentType: JSONAPIMediaType { JSONAPIMediaType(parsing: response.head.headerFields[.contentType]) }

    func failure(
        _ kind: JSONAPIClientError.Kind,
        underlying: (any Error)? = nil,
        body text: String? = nil,
        limit: Int? = nil
    )
        -> JSONAPIClientError
    {
        JSONAPIClientError(
            kind: kind,
            request: request.description,
            status: response.head.status.code,
            headers: response.head.headerFields,
            contentType: response.head.headerFields[.contentType],
            body: text,
            underlying: underlying,
            bytesRead: body.bytesRead,
            limit: limit
        )
    }

    /// Throws for a status outside 2xx, with the server's error objects when the body is a
    /// JSON:API error document, else the start of the body.
    func checkStatus() async throws {
        guard !(200..<300).contains(response.head.status.code) else { return }
        // An error body is read whole but bounded (1 MiB holds any sensible error document); a
        // body that fails to arrive still leaves the status to report.
        var bytes: [UInt8] = []
        do {
            bytes = try await body.collect(upTo: min(client.maximumBodyBytes ?? .max, 1 << 20))
        } catch is CancellationError {
            throw CancellationError()
        } catch {}
        var error = failure(.status)
        if !bytes.isEmpty, contentType.isJSON {
            do {
                _ = try client.decoder.decode(NoPrimaryData.self, from: bytes)
            } catch let document as JSONAPIErrorDocument {
                error.errors = document.errors
                error.meta = document.meta
            } catch {}
        }
        if error.errors.isEmpty && !bytes.isEmpty { error.body = Self.excerpt(bytes) }
        throw error
    }

    /// Whether a successful response holds a document to parse: not for 204 or an empty body
    /// (the caller decides whether that is an error). A body declared over the limit, or one that
    /// is not JSON (an HTML login page), fails here, before it is parsed.
    func hasDocument() async throws -> Bool {
        if response.head.status.code == 204 { return false }
        try checkDeclaredLength()
        guard try await body.peek() != nil else { return false }
        guard contentType.isJSON else {
            let bytes = (try? await body.collect(upTo: 2048)) ?? []
            throw failure(.unsupportedContentType, body: Self.excerpt(bytes))
        }
        return true
    }

    /// The response's document, parsed as its body arrives; `nil` when there is none (see
    /// ``hasDocument()``).
    func document<Primary: PrimaryData>(_ primary: Primary.Type) async throws -> Document<Primary>? {
        guard try await hasDocument() else { return nil }
        do {
            return try await client.decoder.decode(primary, from: body.chunks)
        } catch {
            throw wrapDecoding(error)
        }
    }

    /// A decoding failure as the client reports it: an error document in a 2xx response is still
    /// the server's errors; a malformed body is `invalidDocument` with its position.
    func wrapDecoding(_ error: any Error) -> any Error {
        switch error {
        case is JSONAPIClientError, is CancellationError: return error
        case let document as JSONAPIErrorDocument:
            var failure = failure(.status)
            failure.errors = document.errors
            failure.meta = document.meta
            return failure
        default: return failure(.invalidDocument, underlying: error)
        }
    }

    /// A `Content-Length` over the limit fails before a byte is read.
    private func checkDeclaredLength() throws {
        if let limit = client.maximumBodyBytes,
            let length = response.head.headerFields[.contentLength].flatMap(Int.init), length > limit
        {
            throw failure(.bodyTooLarge, limit: limit)
        }
    }

    /// The start of a body as text, for error messages.
    static func excerpt(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(2048), as: UTF8.self)
    }

    /// A transport's error as the client reports it.
    static func wrap(
        _ error: any Error,
        request: String,
        status: Int?,
        headers: HTTPFields,
        bytesRead: Int
    ) -> any Error {
        switch error {
        case is CancellationError, is JSONAPIClientError: return error
        case let transport as HTTPTransportError:
            return JSONAPIClientError(
                kind: transport.timedOut ? .timedOut : .transport,
                request: request,
                status: status,
                headers: headers,
                underlying: transport,
                bytesRead: bytesRead
            )
        default:
            if Task.isCancelled { return CancellationError() }
            return JSONAPIClientError(
                kind: .transport,
                request: request,
                status: status,
                headers: headers,
                underlying: error,
                bytesRead: bytesRead
            )
        }
    }
}

/// Reads a response body for the client: counts bytes against the limit, can look at the first
/// chunk without taking it, and reports failures as ``JSONAPIClientError``s.
final class BodyReader {
    private var iterator: HTTPBody.Iterator
    private var peeked: [UInt8]?
    private let limit: Int?
    /// When the whole body must be in (``JSONAPIClient/bodyTimeout``): the read timeout bounds a
    /// silence, but a server that trickles a byte now and then never falls silent.
    private let deadline: ContinuousClock.Instant?
    private let request: String
    private let status: Int
    private let headers: HTTPFields
    private(set) var bytesRead = 0

    init(
        _ body: HTTPBody,
        limit: Int?,
        deadline: ContinuousClock.Instant? = nil,
        request: String,
        status: Int,
        headers: HTTPFields
    ) {
        iterator = body.makeAsyncIterator()
        self.limit = limit
        self.deadline = deadline
        self.request = request
        self.status = status
        self.headers = headers
    }

    /// The next non-empty chunk, or `nil` at the end.
    func next() async throws -> [UInt8]? {
        if let chunk = peeked {
            peeked = nil
            return chunk
        }
        while true {
            try Task.checkCancellation()
            let chunk: [UInt8]?
            do {
                chunk = try await iterator.next()
            } catch {
                throw Exchange.wrap(error, request: request, status: status, headers: headers, bytesRead: bytesRead)
            }
            guard let chunk else { return nil }
            if let deadline, ContinuousClock.now > deadline {
                throw failure(
                    .timedOut,
                    HTTPTransportError(
                        timedOut: true,
                        message: "the body was still arriving when the body timeout ran out"
                    )
                )
            }
            if chunk.isEmpty { continue }
            bytesRead += chunk.count
            if let limit, bytesRead > limit { throw failure(.bodyTooLarge, limit: limit) }
            return chunk
        }
    }

    /// The error that ends reading this body, with what was read of it.
    private func failure(
        _ kind: JSONAPIClientError.Kind,
        _ underlying: (any Error)? = nil,
        limit: Int? = nil
    ) -> JSONAPIClientError {
        JSONAPIClientError(
            kind: kind,
            request: request,
            status: status,
            headers: headers,
            underlying: underlying,
            bytesRead: bytesRead,
            limit: limit
        )
    }

    /// The first chunk not yet taken, left in place.
    func peek() async throws -> [UInt8]? {
        if peeked == nil { peeked = try await next() }
        return peeked
    }

    /// Up to `count` bytes of what is left.
    func collect(upTo count: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count, let chunk = try await next() {
            bytes += chunk.prefix(count - bytes.count)
        }
        return bytes
    }

    /// The rest of the body as a sequence for the decoder.
    var chunks: Chunks { Chunks(reader: self) }

    /// The chunks of a body, for the decoder.
    struct Chunks: AsyncSequence {
        typealias Element = [UInt8]
        let reader: BodyReader
        func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }
        struct Iterator: AsyncIteratorProtocol {
            let reader: BodyReader
            mutating func next() async throws -> [UInt8]? { try await reader.next() }
        }
    }
}
