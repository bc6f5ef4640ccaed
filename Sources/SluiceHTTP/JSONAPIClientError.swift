public import Foundation
public import HTTPTypes
public import SluiceJSON
public import SluiceJSONAPI

/// Why a request through ``JSONAPIClient`` failed, with the request (credentials hidden), the
/// response's status and headers when one came, and the server's error objects.
///
/// ```swift
/// do {
///     _ = try await client.fetch(Article.self, id: "1")
/// } catch let error as JSONAPIClientError where error.status == 404 {
///     print("gone:", error.errors.first?.detail ?? "")
/// }
/// ```
///
/// Cancellation is not wrapped: a cancelled task sees `CancellationError`.
public struct JSONAPIClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    /// The category of a ``JSONAPIClientError``, in the pattern of `JSONError.Kind`: compare with
    /// `==`. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case status
            case unsupportedContentType
            case bodyTooLarge
            case missingDocument
            case invalidDocument
            case timedOut
            case transport
            case paginationCycle
            case invalidURL
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The server answered with a status outside 2xx. ``JSONAPIClientError/errors`` holds its
        /// error objects when the body was a JSON:API error document;
        /// ``JSONAPIClientError/body`` holds the start of any other body.
        public static let status = Kind(.status)
        /// A 2xx response whose body is not JSON (an HTML login page, say):
        /// ``JSONAPIClientError/contentType`` says what it was, ``JSONAPIClientError/body`` how it
        /// began.
        public static let unsupportedContentType = Kind(.unsupportedContentType)
        /// The body grew past ``JSONAPIClient/maximumBodyBytes`` (``JSONAPIClientError/limit``).
        public static let bodyTooLarge = Kind(.bodyTooLarge)
        /// A response that must hold a document had an empty body.
        public static let missingDocument = Kind(.missingDocument)
        /// The body is not a well-formed JSON:API document of the expected shape;
        /// ``JSONAPIClientError/underlying`` is the `JSONError` or `JSONAPIDecodingError` with its
        /// position and JSON Pointer.
        public static let invalidDocument = Kind(.invalidDocument)
        /// The server did not answer in time (connecting, the head, or a silence in the body).
        public static let timedOut = Kind(.timedOut)
        /// The request could not be sent or the connection failed (refused, reset, truncated
        /// body); ``JSONAPIClientError/underlying`` is the transport's error.
        public static let transport = Kind(.transport)
        /// Pagination led back to a page already read, which would never end.
        public static let paginationCycle = Kind(.paginationCycle)
        /// The route or link did not make a valid URL (or, for an update, the model wrote no id
        /// to route by; ``JSONAPIClientError/body`` says which).
        public static let invalidURL = Kind(.invalidURL)

        /// The kind's name, such as `status` or `bodyTooLarge`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var kind: Kind
    /// `METHOD URL` of the request, passwords and credential-like query values shown as `***`.
    public var request: String
    /// The response status, when a response head arrived.
    public var status: Int?
    /// The response header fields. The error's description never prints them: they may hold
    /// credentials (`Set-Cookie`).
    public var headers: HTTPFields
    /// The error objects of a JSON:API error document.
    public var errors: [ErrorObject]
    /// The top-level `meta` of a JSON:API error document.
    public var meta: JSONValue?
    /// The response's `Content-Type`.
    public var contentType: String?
    /// The first bytes (at most 2 KiB) of a body that was not a JSON:API document, as text.
    public var body: String?
    /// The error beneath: a `JSONError`, a `JSONAPIDecodingError`, or the transport's error.
    public var underlying: (any Error)?
    /// Bytes of the body read before the failure.
    public var bytesRead: Int
    /// The limit that was crossed, in bytes, for ``Kind-swift.struct/bodyTooLarge``.
    public var limit: Int?

    /// Creates an error.
    public init(
        kind: Kind,
        request: String,
        status: Int? = nil,
        headers: HTTPFields = HTTPFields(),
        errors: [ErrorObject] = [],
        meta: JSONValue? = nil,
        contentType: String? = nil,
        body: String? = nil,
        underlying: (any Error)? = nil,
        bytesRead: Int = 0,
        limit: Int? = nil
    ) {
        self.kind = kind
        self.request = request
        self.status = status
        self.headers = headers
        self.errors = errors
        self.meta = meta
        self.contentType = contentType
        self.body = body
        self.underlying = underlying
        self.bytesRead = bytesRead
        self.limit = limit
    }

    /// One or two sentences: the request, then what happened.
    public var description: String {
        var text = request + ": "
        switch kind {
        case .status:
            text += "the server answered \(status.map(String.init) ?? "?")"
            if let reason = status.flatMap(Self.reasonPhrase) { text += " \(reason)" }
            if !errors.isEmpty {
                text += " with " + (errors.count == 1 ? "1 error" : "\(errors.count) errors") + ": "
                text += errors.map(Self.describe).joined(separator: "; ")
            } else if let body, !body.isEmpty {
                text += " with a body that is not a JSON:API error document"
                if let contentType { text += " (\(contentType))" }
                text += ": \(Self.oneLine(body))"
            }
        case .unsupportedContentType:
            text += "expected a JSON:API document, but the body is \(contentType ?? "of no stated type")"
            if let body, !body.isEmpty { text += ": \(Self.oneLine(body))" }
        case .bodyTooLarge:
            text += "the body is larger than the limit of \(limit.map(String.init) ?? "?") bytes (maximumBodyBytes)"
        case .missingDocument:
            text +=
                "the server answered \(status.map(String.init) ?? "?") with an empty body where a document was expected"
        case .invalidDocument:
            text += "the body is not a valid JSON:API document"
            if let underlying { text += ": \(underlying)" }
        case .timedOut:
            text += "timed out"
            if bytesRead > 0 { text += " after \(bytesRead) bytes of the body" }
            if let underlying { text += " (\(underlying))" }
        case .transport:
            text += "the request failed"
            if bytesRead > 0 { text += " after \(bytesRead) bytes of the body" }
            if let underlying { text += ": \(underlying)" }
        case .paginationCycle:
            text += "the next link leads back to a page already read"
        case .invalidURL:
            text += body ?? "not a valid URL"
        default:
            text += "failed (\(kind))"
        }
        return text
    }

    private static func describe(_ error: ErrorObject) -> String {
        var parts: [String] = []
        if let status = error.status { parts.append(status) }
        if let code = error.code { parts.append("[\(code)]") }
        if let title = error.title { parts.append(title) }
        if let detail = error.detail, detail != error.title { parts.append(parts.isEmpty ? detail : "- \(detail)") }
        if let pointer = error.source?.pointer { parts.append("(at \(pointer))") }
        if let parameter = error.source?.parameter { parts.append("(parameter \(parameter))") }
        return parts.isEmpty ? "an error object with no details" : parts.joined(separator: " ")
    }

    private static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 200 ? String(flat.prefix(200)) + "..." : flat
    }

    static func reasonPhrase(_ status: Int) -> String? {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: nil
        }
    }
}

/// An error a transport reports in terms the client understands.
public struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
    /// Whether the failure was the server's silence.
    public var timedOut: Bool
    /// What happened, in the transport's words.
    public var message: String

    public init(timedOut: Bool, message: String) {
        self.timedOut = timedOut
        self.message = message
    }

    public var description: String { message }
}

/// `localizedDescription` gives the whole description (request, status, the server's errors),
/// not "The operation could not be completed".
extension JSONAPIClientError: LocalizedError {
    public var errorDescription: String? { description }
}

extension HTTPTransportError: LocalizedError {
    public var errorDescription: String? { description }
}
