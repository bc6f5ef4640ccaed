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

    /// Query parameters whose values are credentials when a service takes them in the URL: the
    /// whole name, in any case and with or without `-`, `_` and `.`, is one of the names
    /// services give credentials (`api_key`, `access_token`, `X-Amz-Signature`). Not a word inside
    /// a name: `filter[author.name]`, `fields[authors]` and `keywords` are ordinary parameters,
    /// and hiding them hid the very filter a failed request was about.
    static func isSensitive(parameter name: String) -> Bool {
        let decoded = name.removingPercentEncoding ?? name
        let folded = String(decoded.lowercased().unicodeScalars.filter { !"-_.".unicodeScalars.contains($0) })
        return credentialParameters.contains(folded)
    }

    /// The credential parameter names `isSensitive(parameter:)` knows, folded.
    private static let credentialParameters: Set<String> = [
        "key", "apikey", "accesskey", "secretkey", "accesskeyid", "awsaccesskeyid", "privatekey", "token",
        "accesstoken", "authtoken", "refreshtoken", "idtoken", "apitoken", "privatetoken", "sessiontoken",
        "securitytoken", "bearer", "jwt", "auth", "authorization", "secret", "clientsecret", "apisecret",
        "password", "passwd", "pwd", "pass", "signature", "sig", "xamzsignature", "xamzcredential",
        "xamzsecuritytoken", "xgoogsignature", "xgoogcredential", "session", "sessionid", "sid", "credential",
        "credentials",
    ]

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
