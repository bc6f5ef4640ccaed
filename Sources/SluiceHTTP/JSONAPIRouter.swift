/// An endpoint of a JSON:API server, before it is a path.
public enum JSONAPIRoute: Sendable, Hashable {
    /// The collection of a type: `GET` to list, `POST` to create.
    case collection(type: String)
    /// One resource: `GET`, `PATCH`, `DELETE`.
    case resource(type: String, id: String)
    /// A relationship's linkage (`/articles/1/relationships/author`).
    case relationship(type: String, id: String, name: String)
    /// The related resources of a relationship (`/articles/1/author`).
    case related(type: String, id: String, name: String)
}

/// Turns routes into paths relative to the client's base URL. ``PathTemplateRouter`` covers
/// servers that follow the specification's recommended URL design; write a router for the rest:
///
/// ```swift
/// struct LegacyRouter: JSONAPIRouter {
///     func path(for route: JSONAPIRoute) -> String {
///         switch route {
///         case .collection(let type): "v2/\(type)/list"
///         case .resource(let type, let id): "v2/\(type)/show/\(id)"
///         case .relationship(let type, let id, let name): "v2/\(type)/\(id)/links/\(name)"
///         case .related(let type, let id, let name): "v2/\(type)/\(id)/\(name)"
///         }
///     }
/// }
/// ```
///
/// A path is appended to the base URL as written, so a router percent-encodes what it puts in it
/// (``PathTemplateRouter`` does).
public protocol JSONAPIRouter: Sendable {
    /// The path of `route`, relative to the base URL, without a leading slash.
    func path(for route: JSONAPIRoute) -> String
}

/// Paths from templates in which `<type>`, `<id>` and `<relationship>` stand for the route's
/// values, each percent-encoded as one path segment.
///
/// The defaults are the specification's recommendations: `<type>`, `<type>/<id>`,
/// `<type>/<id>/relationships/<relationship>` and `<type>/<id>/<relationship>`. Give templates
/// per type for servers that differ (`["people": PathTemplateRouter.Templates(collection: "users", ...)]`).
public struct PathTemplateRouter: JSONAPIRouter {
    /// The four templates.
    public struct Templates: Sendable, Hashable {
        public var collection: String
        public var resource: String
        public var relationship: String
        public var related: String

        public init(
            collection: String = "<type>",
            resource: String = "<type>/<id>",
            relationship: String = "<type>/<id>/relationships/<relationship>",
            related: String = "<type>/<id>/<relationship>"
        ) {
            self.collection = collection
            self.resource = resource
            self.relationship = relationship
            self.related = related
        }
    }

    /// The templates used for types without their own.
    public var templates: Templates
    /// Templates for particular types.
    public var templatesByType: [String: Templates]

    /// A router with `templates` for every type but those in `byType`.
    public init(_ templates: Templates = Templates(), byType: [String: Templates] = [:]) {
        self.templates = templates
        self.templatesByType = byType
    }

    public func path(for route: JSONAPIRoute) -> String {
        switch route {
        case .collection(let type):
            fill(templates(for: type).collection, type: type, id: nil, relationship: nil)
        case .resource(let type, let id):
            fill(templates(for: type).resource, type: type, id: id, relationship: nil)
        case .relationship(let type, let id, let name):
            fill(templates(for: type).relationship, type: type, id: id, relationship: name)
        case .related(let type, let id, let name):
            fill(templates(for: type).related, type: type, id: id, relationship: name)
        }
    }

    private func templates(for type: String) -> Templates { templatesByType[type] ?? templates }

    private func fill(_ template: String, type: String, id: String?, relationship: String?) -> String {
        var path = template.replacing("<type>", with: Self.segment(type))
        if let id { path = path.replacing("<id>", with: Self.segment(id)) }
        if let relationship { path = path.replacing("<relationship>", with: Self.segment(relationship)) }
        return path.hasPrefix("/") ? String(path.dropFirst()) : path
    }

    /// `text` encoded as one path segment: RFC 3986's unreserved characters and the sub-delimiters
    /// a segment may hold pass; `/`, `?`, `#`, `%` and the rest are encoded.
    static func segment(_ text: String) -> String {
        // "." and ".." would be read as "this" and "parent" directory and normalised away.
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.count) }
        return PercentEncoding.encode(text, keeping: PercentEncoding.isSegmentCharacter)
    }
}
