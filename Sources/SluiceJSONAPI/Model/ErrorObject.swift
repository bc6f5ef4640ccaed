public import Foundation
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

        /// Creates a source; an error's source names one of the three.
        public init(pointer: String? = nil, parameter: String? = nil, header: String? = nil) {
            self.pointer = pointer
            self.parameter = parameter
            self.header = header
        }
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

extension ErrorObject {
    /// The error in one line, from whatever members it has: `422 Invalid Attribute (title must be
    /// set) at /data/attributes/title`, `code E42 in the query parameter sort`; one with none of
    /// status, title, code and detail reads `an error with no status, title, code or detail`,
    /// followed by its id when it has one.
    public var summary: String {
        var words = [status, title].compactMap { $0 }
        if title == nil, let code { words.append("code \(code)") }
        var text = words.joined(separator: " ")
        if let detail { text = text.isEmpty ? detail : "\(text) (\(detail))" }
        if text.isEmpty { text = "an error with no status, title, code or detail" + (id.map { ", id \($0)" } ?? "") }
        if let pointer = source?.pointer {
            text += " at \(pointer.isEmpty ? "the document's root" : pointer)"
        } else if let parameter = source?.parameter {
            text += " in the query parameter \(parameter)"
        } else if let header = source?.header {
            text += " in the header \(header)"
        }
        return text
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

    /// Creates an error document, as a server would send it.
    public init(errors: [ErrorObject], meta: JSONValue? = nil, links: Links? = nil, jsonapi: JSONAPIObject? = nil) {
        self.errors = errors
        self.meta = meta
        self.links = links
        self.jsonapi = jsonapi
    }

    /// `The document reports 2 errors: 422 Invalid Attribute (title must be set) at
    /// /data/attributes/title; ...`: each error object's ``ErrorObject/summary``.
    public var description: String {
        guard !errors.isEmpty else { return "The document is an error document, but its errors array is empty." }
        let parts = errors.map(\.summary)
        return
            "The document reports \(errors.count) error\(errors.count == 1 ? "" : "s"): \(parts.joined(separator: "; "))"
    }
}

/// A document that Sluice could not turn into the models asked for: what went wrong, in one
/// sentence, with a JSON Pointer to the value, its position in the input, the model property it
/// was read for and an excerpt of the value.
///
/// ```text
/// line 1, column 62: /data/attributes/publishedAt (Post.publishedAt: Date): Expected a number, found a string.
///     "publishedAt": "2024-02-29T12:30:00Z"
///                    ^
/// ```
public struct JSONAPIDecodingError: Error, Sendable, CustomStringConvertible {
    /// A JSON Pointer to the offending value, such as `/data/3/attributes/title`.
    public var pointer: String
    /// Where the offending value starts in the input, when known.
    public var position: JSONPosition?
    /// One sentence naming the cause (the position is in ``position``, not repeated here).
    public var message: String
    /// The error that caused this one: a `JSONError`, or a `DecodingError` from a model.
    public var underlyingError: (any Error)?
    /// The model property the value was read for, as Swift names it, with the type it asked for
    /// when known: `Post.publishedAt: Date`, `Post.tags[2]: String`. `nil` for faults in the
    /// document's own structure.
    public var property: String?
    /// The offending value as it reads in the document (its member name first, when it has one),
    /// shortened to one line; empty when there is nothing to show.
    public var excerpt: String
    /// The column of ``excerpt`` (in characters) where the offending value starts: where the
    /// caret goes.
    public var excerptColumn: Int

    /// Creates an error.
    public init(
        pointer: String,
        position: JSONPosition?,
        message: String,
        underlyingError: (any Error)? = nil,
        property: String? = nil,
        excerpt: String = "",
        excerptColumn: Int = 0
    ) {
        self.pointer = pointer
        self.position = position
        self.message = message
        self.underlyingError = underlyingError
        self.property = property
        self.excerpt = excerpt
        self.excerptColumn = excerptColumn
    }

    /// `line 3, column 7: /data/0/attributes/title (Article.title: String): message`, then the
    /// excerpt with a caret under the value. The root is named by the empty pointer, as RFC 6901
    /// writes it, shown as `(root)`.
    public var description: String {
        let place = position.map { "line \($0.line), column \($0.column): " } ?? ""
        var text = "\(place)\(pointer.isEmpty ? "(root)" : pointer)\(property.map { " (\($0))" } ?? ""): \(message)"
        if !excerpt.isEmpty {
            text += "\n    \(excerpt)\n    \(String(repeating: " ", count: excerptColumn))^"
        }
        return text
    }
}

/// `localizedDescription` gives the whole description, not "The operation could not be completed".
extension JSONAPIDecodingError: LocalizedError {
    public var errorDescription: String? { description }
}

extension JSONAPIErrorDocument: LocalizedError {
    public var errorDescription: String? { description }
}
