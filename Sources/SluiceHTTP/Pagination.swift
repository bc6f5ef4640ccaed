public import SluiceJSON
public import SluiceJSONAPI

/// A page relative to another: where `next`, `prev`, `first` and `last` links lead.
public enum PageRelation: String, Sendable, Hashable, CaseIterable {
    case next
    case previous = "prev"
    case first, last
}

/// What a strategy knows of a page it has read.
public struct PageSummary: Sendable {
    /// The `page[...]` parameters of the request that got the page, by family member
    /// (`["number": "3", "size": "20"]`).
    public var parameters: [String: String]
    /// How many resources the page's primary data held.
    public var count: Int
    /// The first and last primary resources' identities, for cursors.
    public var firstIdentity: ResourceIdentity?
    public var lastIdentity: ResourceIdentity?
    /// The first and last primary resources' `meta` (a cursor profile puts `page.cursor` there).
    public var firstMeta: JSONValue?
    public var lastMeta: JSONValue?
    /// The document's top-level `meta` (totals, when the server gives them).
    public var meta: JSONValue?

    public init(
        parameters: [String: String],
        count: Int,
        firstIdentity: ResourceIdentity? = nil,
        lastIdentity: ResourceIdentity? = nil,
        firstMeta: JSONValue? = nil,
        lastMeta: JSONValue? = nil,
        meta: JSONValue? = nil
    ) {
        self.parameters = parameters
        self.count = count
        self.firstIdentity = firstIdentity
        self.lastIdentity = lastIdentity
        self.firstMeta = firstMeta
        self.lastMeta = lastMeta
        self.meta = meta
    }
}

/// How a collection is paged: the `page[...]` parameters of the first request and, for servers
/// that give no pagination links, of the pages around one already read.
///
/// Links always win: when a document's `links` has any of `first`, `last`, `prev` or `next`,
/// the client follows them, and a missing or `null` `next` means the last page, whatever the
/// strategy says. A strategy is asked only when there are no pagination links at all.
public protocol PaginationStrategy: Sendable {
    /// The `page[...]` members of the first request (`["size": "50"]`).
    var firstPage: [String: String] { get }
    /// The `page[...]` members of the page at `relation` to `page`, or `nil` when there is none
    /// (the last page has no `next`).
    func parameters(for relation: PageRelation, of page: PageSummary) -> [String: String]?
}

/// `page[number]` and `page[size]` (names configurable); numbers start at `firstNumber`. A page
/// shorter than the size is the last.
public struct PageNumberPagination: PaginationStrategy {
    public var size: Int
    public var firstNumber: Int
    public var numberName: String
    public var sizeName: String

    public init(size: Int, firstNumber: Int = 1, numberName: String = "number", sizeName: String = "size") {
        self.size = size
        self.firstNumber = firstNumber
        self.numberName = numberName
        self.sizeName = sizeName
    }

    public var firstPage: [String: String] { [numberName: String(firstNumber), sizeName: String(size)] }

    public func parameters(for relation: PageRelation, of page: PageSummary) -> [String: String]? {
        let number = page.parameters[numberName].flatMap(Int.init) ?? firstNumber
        switch relation {
        case .first: return firstPage
        case .next:
            guard page.count >= size, page.count > 0 else { return nil }
            return [numberName: String(number + 1), sizeName: String(size)]
        case .previous:
            guard number > firstNumber else { return nil }
            return [numberName: String(number - 1), sizeName: String(size)]
        case .last:
            // Only with a total in meta (`meta.total` or `meta.page.total`, resources counted).
            guard let total = PageSummary.total(in: page.meta), size > 0 else { return nil }
            let pages = max(1, (total + size - 1) / size)
            return [numberName: String(firstNumber + pages - 1), sizeName: String(size)]
        }
    }
}

/// `page[offset]` and `page[limit]` (names configurable). A page shorter than the limit is the last.
public struct OffsetPagination: PaginationStrategy {
    public var limit: Int
    public var offsetName: String
    public var limitName: String

    public init(limit: Int, offsetName: String = "offset", limitName: String = "limit") {
        self.limit = limit
        self.offsetName = offsetName
        self.limitName = limitName
    }

    public var firstPage: [String: String] { [offsetName: "0", limitName: String(limit)] }

    public func parameters(for relation: PageRelation, of page: PageSummary) -> [String: String]? {
        let offset = page.parameters[offsetName].flatMap(Int.init) ?? 0
        switch relation {
        case .first: return firstPage
        case .next:
            guard page.count >= limit, page.count > 0 else { return nil }
            return [offsetName: String(offset + page.count), limitName: String(limit)]
        case .previous:
            guard offset > 0 else { return nil }
            return [offsetName: String(max(0, offset - limit)), limitName: String(limit)]
        case .last:
            guard let total = PageSummary.total(in: page.meta), limit > 0 else { return nil }
            return [offsetName: String(max(0, (total - 1) / limit * limit)), limitName: String(limit)]
        }
    }
}

/// Cursor pagination (as in the JSON:API cursor pagination profile): `page[size]`, and
/// `page[after]` / `page[before]` set to a resource's cursor: its `meta.page.cursor` when it has
/// one, else its `id`. A page shorter than the size is the last.
public struct CursorPagination: PaginationStrategy {
    public var size: Int
    public var sizeName: String
    public var afterName: String
    public var beforeName: String

    public init(size: Int, sizeName: String = "size", afterName: String = "after", beforeName: String = "before") {
        self.size = size
        self.sizeName = sizeName
        self.afterName = afterName
        self.beforeName = beforeName
    }

    public var firstPage: [String: String] { [sizeName: String(size)] }

    public func parameters(for relation: PageRelation, of page: PageSummary) -> [String: String]? {
        switch relation {
        case .first: return firstPage
        case .last: return nil
        case .next:
            guard page.count >= size, page.count > 0,
                let cursor = Self.cursor(meta: page.lastMeta, identity: page.lastIdentity)
            else { return nil }
            return [sizeName: String(size), afterName: cursor]
        case .previous:
            guard page.parameters[afterName] != nil || page.parameters[beforeName] != nil,
                let cursor = Self.cursor(meta: page.firstMeta, identity: page.firstIdentity)
            else { return nil }
            return [sizeName: String(size), beforeName: cursor]
        }
    }

    static func cursor(meta: JSONValue?, identity: ResourceIdentity?) -> String? {
        if case .object(let object) = meta, case .object(let page)? = object["page"],
            case .string(let cursor)? = page["cursor"]
        {
            return cursor
        }
        return identity.flatMap { $0.isLocal ? nil : $0.key }
    }
}

/// A strategy given as closures, for servers with a scheme of their own.
///
/// ```swift
/// let since = CustomPagination(firstPage: ["since": "0"]) { relation, page in
///     guard relation == .next, let last = page.lastIdentity else { return nil }
///     return ["since": last.key]
/// }
/// ```
public struct CustomPagination: PaginationStrategy {
    public let firstPage: [String: String]
    private let relate: @Sendable (PageRelation, PageSummary) -> [String: String]?

    public init(
        firstPage: [String: String],
        parameters: @escaping @Sendable (PageRelation, PageSummary) -> [String: String]?
    ) {
        self.firstPage = firstPage
        self.relate = parameters
    }

    public func parameters(for relation: PageRelation, of page: PageSummary) -> [String: String]? {
        relate(relation, page)
    }
}

extension PageSummary {
    /// A resource total from `meta.total`, `meta.count` or `meta.page.total`, when the server gives one.
    static func total(in meta: JSONValue?) -> Int? {
        guard case .object(let object) = meta else { return nil }
        for key in ["total", "count", "totalCount", "total_count"] {
            if let value = object[key], let total = value.integer { return total }
        }
        if case .object(let page)? = object["page"], let total = page["total"]?.integer { return total }
        return nil
    }
}

extension JSONValue {
    /// The value as an `Int`, when it is an integral number.
    fileprivate var integer: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }
}
