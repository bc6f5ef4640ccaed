import Foundation

/// Header fields in the order given; names compare without regard to case (RFC 9110).
///
/// Its description hides the values of fields that carry credentials (`Authorization`, cookies,
/// API keys, tokens), so headers can be printed and logged safely.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields, in order.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from `fields`, in order.
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`; setting replaces every field of that name (setting `nil` removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            if let index = fields.firstIndex(where: { Self.same($0.name, name) }), let newValue {
                fields[index].value = newValue
                var seen = false
                fields.removeAll { field in
                    guard Self.same(field.name, name) else { return false }
                    defer { seen = true }
                    return seen
                }
            } else {
                fields.removeAll { Self.same($0.name, name) }
                if let newValue { fields.append((name: name, value: newValue)) }
            }
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Adds a field, keeping any of the same name.
    public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Adds every field of `other`, replacing fields of the same names.
    public mutating func merge(_ other: HTTPHeaders) {
        for name in Set(other.fields.map { $0.name.lowercased() }) { self[name] = nil }
        fields += other.fields
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { Self.same($0.name, $1.name) && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }

    /// `Name: value` lines, credentials shown as `***`.
    public var description: String {
        fields.map { "\($0.name): \(HTTPRedaction.isSensitive(header: $0.name) ? "***" : $0.value)" }
            .joined(separator: "\n")
    }

    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.caseInsensitiveCompare(b) == .orderedSame
    }
}

/// What is never printed: credentials in headers and URLs.
enum HTTPRedaction {
    /// Whether a header's value is a credential: authorization, cookies, and any field whose name
    /// says key, token, secret or password (`X-API-Key`, `X-Auth-Token`).
    static func isSensitive(header name: String) -> Bool {
        let lower = name.lowercased()
        if ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(lower) { return true }
        return ["key", "token", "secret", "password", "session"].contains { lower.contains($0) }
    }

    /// Query parameters whose values are credentials when a service takes them in the URL.
    static func isSensitive(parameter name: String) -> Bool {
        let lower = name.lowercased()
        return ["key", "token", "secret", "password", "signature", "auth"].contains { lower.contains($0) }
    }

    /// Text that did not parse as a URL: only what comes before any `@` or `?` is shown.
    static func text(_ text: String) -> String {
        if let url = URL(string: text) { return self.url(url) }
        let cut = text.firstIndex { $0 == "@" || $0 == "?" } ?? text.endIndex
        return cut == text.endIndex ? text : String(text[..<cut]) + "***"
    }

    /// `url` with any user name and password, and credential-like query values, replaced by `***`.
    static func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        if components.user != nil { components.user = "***" }
        if components.password != nil { components.password = "***" }
        if let items = components.percentEncodedQueryItems,
            items.contains(where: { isSensitive(parameter: $0.name) })
        {
            components.percentEncodedQueryItems = items.map {
                isSensitive(parameter: $0.name) ? URLQueryItem(name: $0.name, value: "***") : $0
            }
        }
        return components.string ?? "<url>"
    }
}
