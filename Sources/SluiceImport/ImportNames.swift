// How resource types and attribute names become table and column names, the same in every
// target, so that one query reads an SQLite import and a PostgreSQL one alike.

import Foundation
import SluiceJSON

/// How types and attribute names become table and column names.
///
/// A type's table is named as the type, and an attribute's column as the attribute, unless the
/// database cannot tell the name from one already taken: SQLite compares names without regard to
/// ASCII case, so of `Name` and `name` the one seen second gets `name_2` (or `Name_2`), in
/// PostgreSQL too, so both targets get the same names. The import's own tables (`documents`,
/// `relationships`, names starting `sluice_`, `sqlite_` or `pg_`) and the key column (`id`) are
/// never given to a type or attribute: such a type's table is `TYPE_resources`, such an
/// attribute's column `ATTRIBUTE_attribute`. PostgreSQL keeps 63 bytes of a name: a longer one is
/// cut there (on a character boundary) before it is made unique. `sluice_tables` and
/// `sluice_columns` record every choice, so a later import (and a query) finds the same names.
package enum ImportNames {
    /// The table name for resource type `type`, not in `taken` (lowercased names).
    package static func table(for type: String, avoiding taken: Set<String>) -> String {
        unique(isReservedTable(type) ? "\(type)_resources" : type, avoiding: taken)
    }

    /// The column name for `attribute`, not in `taken` (lowercased names). For a to-one
    /// relationship column's key (``toOneKey(_:_:)``), the relationship's name and the part:
    /// `author_type`, `author_id`, `author_meta`.
    package static func column(for attribute: String, avoiding taken: Set<String>) -> String {
        if let (relationship, part) = toOnePart(ofKey: attribute) {
            return unique("\(relationship)_\(part.rawValue)", avoiding: taken)
        }
        return unique(attribute.lowercased() == "id" ? "\(attribute)_attribute" : attribute, avoiding: taken)
    }

    /// What a to-one relationship's columns hold: the related resource's `type`, its `id` (its
    /// `lid` when it has no `id`), and the relationship's `meta` as JSON.
    package enum ToOnePart: String, CaseIterable, Sendable {
        case type, id, meta

        /// The member the column holds, below the relationship object.
        var member: String { self == .meta ? "meta" : "data/\(rawValue)" }
    }

    /// The key `sluice_columns` records a to-one relationship's column under, where an attribute's
    /// column is recorded under the attribute's name: the JSON Pointer of the member the column
    /// holds within the resource object (`/relationships/author/data/id`). No attribute's name
    /// is such a key, since member names cannot contain `/`.
    package static func toOneKey(_ relationship: String, _ part: ToOnePart) -> String {
        "/relationships/\(jsonPointerEscaped(relationship))/\(part.member)"
    }

    /// The relationship and part a `sluice_columns` key names, when it is a to-one column's key.
    package static func toOnePart(ofKey key: String) -> (relationship: String, part: ToOnePart)? {
        let prefix = "/relationships/"
        guard key.hasPrefix(prefix) else { return nil }
        let rest = key.dropFirst(prefix.count)
        for part in ToOnePart.allCases where rest.hasSuffix("/" + part.member) {
            let escaped = rest.dropLast(part.member.count + 1)
            guard !escaped.contains("/") else { return nil }
            return (jsonPointerUnescaped(escaped), part)
        }
        return nil
    }

    /// The name of the index on a to-one relationship's id column, for joins from the related
    /// resource back (who links to it): `TABLE_COLUMN_index`, cut to ``maximumBytes``.
    package static func index(table: String, column: String) -> String {
        prefix(of: "\(table)_\(column)_index", bytes: maximumBytes)
    }

    /// Table names no resource type gets.
    private static func isReservedTable(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "documents" || lower == "relationships" || lower == "faults" || lower.hasPrefix("sluice_")
            || lower.hasPrefix("sqlite_") || lower.hasPrefix("pg_")
    }

    /// The longest name PostgreSQL keeps, in bytes.
    package static let maximumBytes = 63

    /// A name not in `taken` (lowercased names), from `wanted`, at most ``maximumBytes`` long.
    package static func unique(_ wanted: String, avoiding taken: Set<String>) -> String {
        let base = prefix(of: wanted, bytes: maximumBytes)
        guard taken.contains(base.lowercased()) else { return base }
        var suffix = 2
        while true {
            let tail = "_\(suffix)"
            let candidate = prefix(of: wanted, bytes: maximumBytes - tail.utf8.count) + tail
            if !taken.contains(candidate.lowercased()) { return candidate }
            suffix += 1
        }
    }

    /// The longest prefix of `name` of at most `bytes` UTF-8 bytes that ends on a character.
    private static func prefix(of name: String, bytes: Int) -> String {
        guard name.utf8.count > bytes else { return name }
        var result = ""
        var used = 0
        for character in name {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// `name` quoted as an SQL identifier.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Texts the `documents` rows hold.
package enum ImportText {
    /// `value` as compact JSON text.
    package static func json(_ value: some Encodable) throws -> String {
        let encoder = StreamingJSONEncoder()
        // `/` as it is, as every other JSON column holds it: the encoder's default (Foundation's)
        // writes `http:\/\/`, which a query's LIKE 'http://%' does not find.
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Now, as ISO 8601 with milliseconds.
    package static func timestamp() -> String {
        JSONDateText.iso8601String(Date(), fractionalDigits: 3)
    }
}
