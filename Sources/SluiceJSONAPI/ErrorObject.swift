import Foundation
public import SluiceJSON

/// An error object from a JSON:API error document
/// ([Error Objects](https://jsonapi.org/format/1.1/#error-objects)).
public struct ErrorObject: Hashable, Sendable, Codable, JSONEncodingFixedKeys {
    /// Where in the request the error came from.
    public struct Source: Hashable, Sendable, Codable {
        /// A JSON Pointer to the value in the request document that caused the error.
        public var pointer: String?
        /// The query parameter that caused the error.
        public var parameter: String?
        /// The request header that caused the error.
        public var header: String?
    }

    /// A unique identifier for this occurrence of the problem.
    public var id: String?
    /// `about` and `type` links.
    public var links: Links?
    /// The HTTP status code, as a string.
    public var status: String?
    /// An application-specific error code.
    public var code: String?
    /// A short summary of the problem.
    public var title: String?
    /// An explanation of this occurrence of the problem.
    public var detail: String?
    /// What in the request caused the error.
    public var source: Source?
    /// Non-standard information.
    public var meta: JSONValue?

    /// Creates an error object.
    public init(
        id: String? = nil,
        status: String? = nil,
        code: String? = nil,
        title: String? = nil,
        detail: String? = nil,
        source: Source? = nil,
        meta: JSONValue? = nil
    ) {
        self.id = id
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.source = source
        self.meta = meta
    }
}

/// A JSON:API error document, thrown by the decoder when a document has `errors` instead of `data`.
///
/// ```swift
/// do { ... } catch let error as JSONAPIErrorDocument {
///     for object in error.errors { print(object.status ?? "", object.detail ?? "") }
/// }
/// ```
public struct JSONAPIErrorDocument: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every error object, in order.
    public var errors: [ErrorObject]
    /// The document's top-level `meta`.
    public var meta: JSONValue?
    /// The document's top-level `links`.
    public var links: Links?
    /// The document's `jsonapi` object.
    public var jsonapi: JSONAPIObject?

    /// `The document reports 2 errors: 422 Invalid Attribute (title must be set); ...`.
    public var description: String {
        let parts = errors.map { error in
            [error.status, error.title ?? error.code, error.detail.map { "(\($0))" }].compactMap { $0 }.joined(
                separator: " "
            )
        }
        return
            "The document reports \(errors.count) error\(errors.count == 1 ? "" : "s"): \(parts.joined(separator: "; "))"
    }
}

/// A document that Sluice could not turn into the models asked for: what went wrong, in one
/// sentence, with a JSON Pointer to the value and its position in the input.
public struct JSONAPIDecodingError: Error, Sendable, CustomStringConvertible {
    /// A JSON Pointer to the offending value, such as `/data/3/attributes/title`.
    public var pointer: String
    /// Where the offending value starts in the input, when known.
    public var position: JSONPosition?
    /// One sentence naming the cause.
    public var message: String
    /// The error that caused this one: a `JSONError`, or a `DecodingError` from a model.
    public var underlyingError: (any Error)?

    /// Creates an error.
    public init(pointer: String, position: JSONPosition?, message: String, underlyingError: (any Error)? = nil) {
        self.pointer = pointer
        self.position = position
        self.message = message
        self.underlyingError = underlyingError
    }

    /// `line 3, column 7: /data/0/attributes/title: message`.
    public var description: String {
        let place = position.map { "line \($0.line), column \($0.column): " } ?? ""
        return "\(place)\(pointer.isEmpty ? "/" : pointer): \(message)"
    }
}

/// A member name as one reference token of a JSON Pointer (RFC 6901): `~` as `~0`, `/` as `~1`.
/// Names without either, nearly all of them, are returned as they are.
func jsonPointerEscaped(_ token: String) -> String {
    guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
    return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
}
