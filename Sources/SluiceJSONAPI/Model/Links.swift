public import SluiceJSON

/// A link: a URI string, a link object, or `null`
/// ([Links](https://jsonapi.org/format/1.1/#document-links)).
public enum Link: Hashable, Sendable, Codable {
    /// A URI reference.
    case url(String)
    /// A link object with `href` and optional details.
    indirect case object(LinkObject)
    /// `null`: the link does not exist (for example, no next page).
    case null

    /// The target, whether given as a string or as a link object's `href`; `nil` for `null`.
    public var href: String? {
        switch self {
        case .url(let url): return url
        case .object(let object): return object.href
        case .null: return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let url = try? single.decode(String.self) {
            self = .url(url)
        } else {
            self = .object(try single.decode(LinkObject.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .url(let url): try single.encode(url)
        case .object(let object): try single.encode(object)
        case .null: try single.encodeNil()
        }
    }
}

/// A link object ([Link Objects](https://jsonapi.org/format/1.1/#document-links-link-object)).
public struct LinkObject: Hashable, Sendable, Codable {
    /// The link's URI.
    public var href: String
    /// The link's relation type.
    public var rel: String?
    /// A link to a description document, such as a schema, for the target.
    public var describedby: Link?
    /// A human-readable title.
    public var title: String?
    /// The media type of the target.
    public var type: String?
    /// The language or languages of the target.
    public var hreflang: JSONValue?
    /// Non-standard information about the link.
    public var meta: JSONValue?

    /// Creates a link object.
    public init(href: String, rel: String? = nil, title: String? = nil, type: String? = nil, meta: JSONValue? = nil) {
        self.href = href
        self.rel = rel
        self.title = title
        self.type = type
        self.meta = meta
    }

}

/// A links object: named links such as `self`, `related`, `first`, `next`.
public struct Links: Hashable, Sendable, Codable, JSONEncodingFixedKeys {
    /// The links by name, in input order.
    public private(set) var names: [String]
    private var values: [Link]

    /// Creates links from pairs.
    public init(_ links: [(String, Link)] = []) {
        self.init(names: links.map(\.0), values: links.map(\.1))
    }

    /// Creates links from names and links of the same count (what readers build as they go).
    init(names: [String], values: [Link]) {
        self.names = names
        self.values = values
    }

    /// The link named `name`.
    public subscript(name: String) -> Link? {
        names.firstIndex(of: name).map { values[$0] }
    }

    /// The `self` link (named `selfLink` because `self` is Swift's own word).
    public var selfLink: Link? { self["self"] }
    /// `related`.
    public var related: Link? { self["related"] }
    /// `first` page.
    public var first: Link? { self["first"] }
    /// `last` page.
    public var last: Link? { self["last"] }
    /// `prev` page.
    public var prev: Link? { self["prev"] }
    /// `next` page.
    public var next: Link? { self["next"] }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        var links: [(String, Link)] = []
        for key in container.allKeys { links.append((key.stringValue, try container.decode(Link.self, forKey: key))) }
        self.init(links)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        for (name, link) in zip(names, values) { try container.encode(link, forKey: AnyCodingKey(name)) }
    }
}

/// The top-level `jsonapi` object: the implementation's version, extensions and profiles
/// ([JSON:API Object](https://jsonapi.org/format/1.1/#document-jsonapi-object)).
public struct JSONAPIObject: Hashable, Sendable, Codable, JSONEncodingFixedKeys {
    /// The highest version of the specification the server supports, such as `"1.1"`.
    public var version: String?
    /// URIs of the extensions applied to the document.
    public var ext: [String]?
    /// URIs of the profiles applied to the document.
    public var profile: [String]?
    /// Non-standard information.
    public var meta: JSONValue?

    /// Creates a `jsonapi` object.
    public init(version: String? = nil, ext: [String]? = nil, profile: [String]? = nil, meta: JSONValue? = nil) {
        self.version = version
        self.ext = ext
        self.profile = profile
        self.meta = meta
    }
}
