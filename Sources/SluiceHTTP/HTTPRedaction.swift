import Foundation
import HTTPTypes

extension HTTPFields {
    /// Adds every field of `other`, replacing the fields of the same names: how a request's own
    /// header fields override the client's.
    mutating func replaceFields(from other: HTTPFields) {
        for name in Set(other.map(\.name)) { self[values: name] = [] }
        append(contentsOf: other)
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
