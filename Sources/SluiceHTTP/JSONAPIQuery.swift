/// The query of a JSON:API request: `include`, sparse fieldsets, `filter`, `sort`, pagination and
/// any other parameters, rendered with the bracketed family names percent-encoded
/// (`fields%5Barticles%5D=title,body`).
///
/// ```swift
/// let query = JSONAPIQuery()
///     .including("author", "comments.author")
///     .fields("articles", ["title", "body", "author"])
///     .filter("tag", "swift")
///     .sorted(by: "-created", "title")
///     .page(["size": "50"])
/// ```
///
/// List values (`include`, `fields`, `sort`, list filters) are joined with literal commas, the
/// separator the specification gives them, after each element is encoded, so a comma inside an
/// element stays part of it (`%2C`). Parameters render in this order: include, fields (by type
/// name), filter, sort, page, then the others, each group in the order given.
public struct JSONAPIQuery: Sendable, Hashable {
    /// One query parameter, unencoded: `name` is the whole name (`page[size]`).
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A sort field; `-title` (or `descending: true`) sorts from the largest down.
    public struct SortField: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var field: String
        public var descending: Bool
        public init(_ field: String, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
        /// `"-created"` is `created` descending; `"title"` is `title` ascending.
        public init(stringLiteral value: String) {
            if value.hasPrefix("-") {
                self.init(String(value.dropFirst()), descending: true)
            } else {
                self.init(value)
            }
        }
        public var description: String { descending ? "-\(field)" : field }
    }

    /// Relationship paths to include (`include=author,comments.author`).
    public var include: [String] = []
    /// Sparse fieldsets: for each type, the fields to return (`fields[articles]=title,body`).
    public var fields: [String: [String]] = [:]
    /// Filters, each with its path of bracketed names (`["author", "name"]` is
    /// `filter[author][name]`) and its value, already joined when it is a list.
    public var filters: [(path: [String], value: [String])] = []
    /// Sort fields, in priority order.
    public var sort: [SortField] = []
    /// Pagination parameters by family member (`["number": "2", "size": "20"]` renders
    /// `page[number]=2&page[size]=20`, sorted by name).
    public var page: [String: String] = [:]
    /// Any other parameters, rendered as given after the rest.
    public var other: [Parameter] = []

    /// An empty query.
    public init() {}

    /// Adds relationship paths to `include`.
    public func including(_ paths: String...) -> JSONAPIQuery { including(paths) }
    /// Adds relationship paths to `include`.
    public func including(_ paths: [String]) -> JSONAPIQuery {
        var query = self
        for path in paths where !query.include.contains(path) { query.include.append(path) }
        return query
    }

    /// Restricts the fields returned for resources of `type`.
    public func fields(_ type: String, _ names: [String]) -> JSONAPIQuery {
        var query = self
        query.fields[type] = names
        return query
    }

    /// Adds `filter[name]=value`.
    public func filter(_ name: String, _ value: String) -> JSONAPIQuery { filter([name], [value]) }

    /// Adds a filter with a bracketed path (`filter[author][name]`) and a list value joined with
    /// commas.
    public func filter(_ path: [String], _ values: [String]) -> JSONAPIQuery {
        var query = self
        query.filters.append((path: path, value: values))
        return query
    }

    /// Sets the sort fields.
    public func sorted(by fields: SortField...) -> JSONAPIQuery {
        var query = self
        query.sort = fields
        return query
    }

    /// Sets pagination parameters (merged into any already set).
    public func page(_ parameters: [String: String]) -> JSONAPIQuery {
        var query = self
        query.page.merge(parameters) { $1 }
        return query
    }

    /// Adds a parameter of another family, rendered as given.
    public func parameter(_ name: String, _ value: String) -> JSONAPIQuery {
        var query = self
        query.other.append(Parameter(name: name, value: value))
        return query
    }

    /// Whether nothing is set.
    public var isEmpty: Bool {
        include.isEmpty && fields.isEmpty && filters.isEmpty && sort.isEmpty && page.isEmpty && other.isEmpty
    }

    /// The parameters, unencoded, in rendering order, list values joined with commas.
    public var parameters: [Parameter] {
        rendered.map { Parameter(name: $0.name, value: $0.values.joined(separator: ",")) }
    }

    /// The query string, percent-encoded, without the leading `?`.
    public var percentEncoded: String {
        rendered.map { parameter in
            Self.encode(parameter.name) + "="
                + parameter.values.map(Self.encode).joined(separator: ",")
        }
        .joined(separator: "&")
    }

    /// Each parameter with its list of values (one value for scalars).
    private var rendered: [(name: String, values: [String])] {
        var result: [(name: String, values: [String])] = []
        if !include.isEmpty { result.append(("include", include)) }
        for type in fields.keys.sorted() { result.append(("fields[\(type)]", fields[type] ?? [])) }
        for filter in filters {
            result.append(("filter" + filter.path.map { "[\($0)]" }.joined(), filter.value))
        }
        if !sort.isEmpty { result.append(("sort", sort.map(\.description))) }
        for name in page.keys.sorted() { result.append(("page[\(name)]", [page[name] ?? ""])) }
        for parameter in other { result.append((parameter.name, [parameter.value])) }
        return result
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, so brackets, commas,
    /// `&`, `=`, `+` and spaces inside a name or value can never be read as structure.
    static func encode(_ text: String) -> String {
        PercentEncoding.encode(text, keeping: PercentEncoding.isUnreserved)
    }

    public static func == (lhs: JSONAPIQuery, rhs: JSONAPIQuery) -> Bool { lhs.percentEncoded == rhs.percentEncoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(percentEncoded) }
}
