// Shared by the test targets that need PostgreSQL or a generated document.

import Foundation
import SluiceJSONAPI
import SluicePostgres
import SluiceTools

/// The PostgreSQL server `scripts/with-postgres.sh` starts for `make test` (a private cluster on
/// loopback), or the reason there is none.
public enum TestPostgres {
    public static let url = ProcessInfo.processInfo.environment["SLUICE_POSTGRES_URL"]
    public static let password = ProcessInfo.processInfo.environment["SLUICE_POSTGRES_PASSWORD"]
    public static var available: Bool { url != nil && password != nil }
    /// Why the tests that need the server are skipped, when it is not there.
    public static var skipReason: String {
        ProcessInfo.processInfo.environment["SLUICE_POSTGRES_SKIP_REASON"]
            ?? "no PostgreSQL server: run the tests through scripts/with-postgres.sh (make test does)"
    }

    /// The database a URL names.
    public static func name(of url: String) -> String {
        String(URLComponents(string: url)!.path.dropFirst())
    }

    /// A fresh database on the test server, and its URL with the password in it.
    public static func database() async throws -> String {
        let name = "sluice_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await PostgresImporter.connect(to: try PostgresTarget(url: url(database: "postgres")))
        _ = try await admin.rows("CREATE DATABASE \(name)")
        try await admin.close()
        return url(database: name)
    }

    /// The server's URL for `database`, the password in it.
    public static func url(database: String, withPassword: Bool = true) -> String {
        var components = URLComponents(string: url!)!
        if withPassword { components.password = password }
        components.path = "/\(database)"
        return components.string!
    }

    public static func query(_ url: String, _ sql: String) async throws -> [[String?]] {
        let importer = try await PostgresImporter.connect(to: try PostgresTarget(url: url))
        do {
            let rows = try await importer.rows(sql)
            try? await importer.close()
            return rows
        } catch {
            try? await importer.close()
            throw error
        }
    }
}

/// The generated JSON:API document of `articles` articles, every `id` prefixed with `idPrefix`
/// (so that documents of different prefixes hold different resources).
public func sampleDocument(articles: Int, seed: UInt64, idPrefix: String) -> [UInt8] {
    var bytes: [UInt8] = []
    SampleDocumentGenerator(articles: articles, seed: seed).write { bytes.append(contentsOf: $0) }
    let text = String(decoding: bytes, as: UTF8.self)
    return Array(text.replacingOccurrences(of: #""id":""#, with: #""id":"\#(idPrefix)"#).utf8)
}

/// Three imports of one article whose relationships change shape, for both targets: a to-one
/// with meta and a to-one (`author`, `editor`); then `author` with only links (no linkage, so its
/// columns stay); then `author` null and `editor` to-many (its columns cleared, a row instead).
public enum ToOneShapes {
    public static let documents = [
        #"""
        {"data":{"type":"articles","id":"1","relationships":{
          "author":{"data":{"type":"people","id":"9"},"meta":{"m":1}},
          "editor":{"data":{"type":"people","id":"3"}}}}}
        """#,
        #"""
        {"data":{"type":"articles","id":"1","relationships":{"author":{"links":{"related":"/a/1/author"}}}}}
        """#,
        #"""
        {"data":{"type":"articles","id":"1","relationships":{
          "author":{"data":null},"editor":{"data":[{"type":"people","id":"4"}]}}}}
        """#,
    ]

    /// What `question` answers after each document, in order.
    public static let question = """
        SELECT COALESCE(author_type, '-') || ' ' || COALESCE(author_id, '-') || ' '
            || COALESCE(author_meta ->> 'm', '-') || ' ' || COALESCE(editor_id, '-') || ' '
            || (SELECT COUNT(*) FROM relationships) FROM articles
        """
    public static let answers = ["people 9 1 3 0", "people 9 1 3 0", "- - - - 1"]
    /// The one relationship row at the end.
    public static let rowQuestion = "SELECT name || ' ' || position || ' ' || target_id FROM relationships"
    public static let row = "editor 0 4"
}
