// One table catalog for every destination: what an import knows of a table while it writes
// (its name, its columns with the member or link part each holds and the kind of values it
// takes, the names taken) and the lookups a writer makes for every record. The destinations keep
// only how they write (SQLite its queued rows and prepared upserts, PostgreSQL its COPY groups);
// they once kept near-copies of all of this.

import SluiceJSON

/// A table as an import's writer knows it (see the file's comment).
///
/// Used by one writer at a time, one call at a time: the properties read for every value skip the
/// run-time exclusivity check (`@exclusivity(unchecked)`), which costs a call and a thread-local
/// lookup per access.
package final class ImportTable {
    /// The records' table as the input names it (a resource's type, a plain record's table).
    package let type: String
    package let typeBytes: [UInt8]
    /// The table's name in the database: chosen when the type is first met, and settled against
    /// the database's catalog (where another import may have made the table first).
    package private(set) var name: String
    package private(set) var quotedName: String

    /// A column: the member (or to-one link part, see ``ImportNames/toOneKey(_:_:)``) it holds,
    /// its name as is and quoted, the kind of values it takes now, and the kind it was made with
    /// (what mismatches are counted against).
    package struct Column: Sendable {
        package let attribute: String
        package var name: String
        package var quoted: String
        package var type: ImportColumnType
        package var declared: ImportColumnType
    }

    /// Columns by ordinal (rows name their columns by it), and ordinals by member.
    @exclusivity(unchecked) package private(set) var columns: [Column] = []
    @exclusivity(unchecked) package private(set) var ordinals: [String: Int] = [:]
    /// Each column's member name as UTF-8, by ordinal: what a name missing from ``recent`` is
    /// compared with before a `String` is made to look it up.
    @exclusivity(unchecked) private var attributeBytes: [[UInt8]] = []
    /// Column names in use, lowercased (SQL names ignore ASCII case); `id` always.
    package private(set) var takenColumns: Set<String> = ["id"]
    /// Records written into the table by this import.
    @exclusivity(unchecked) package var rowsWritten = 0
    /// The ordinals of the member names at each position of the last record.
    @exclusivity(unchecked) private var recent = RecentNames()
    /// The columns of to-one links by link name, and those of the names at each position of the
    /// last record's links.
    @exclusivity(unchecked) private var toOne: [String: ToOneOrdinals] = [:]
    @exclusivity(unchecked) private var toOneList: [ToOneOrdinals] = []
    @exclusivity(unchecked) private var recentToOne = RecentNames()

    package init(type: String, name: String) {
        self.type = type
        typeBytes = Array(type.utf8)
        self.name = name
        quotedName = ImportNames.quoted(name)
    }

    /// Gives the table the name the database settled on.
    package func rename(_ name: String) {
        self.name = name
        quotedName = ImportNames.quoted(name)
    }

    /// The ordinal of the column of member `name`, the member at `position` of its record;
    /// `nil` when the table has none yet. Records of one table mostly name the same members in
    /// the same order, so a name is first compared with the last record's at its position.
    package func ordinal(named name: UnsafeRawBufferPointer, at position: Int) -> Int? {
        if let known = recent.value(named: name, at: position) { return known }
        // Records whose optional members come and go (an event's payload) miss `recent` often: a
        // table of a few dozen columns is searched by bytes, with no `String` made and hashed.
        var found: Int?
        if attributeBytes.count <= Self.searchedColumns {
            for ordinal in attributeBytes.indices
            where attributeBytes[ordinal].withUnsafeBytes({ $0.hasSameBytes(as: name) }) {
                found = ordinal
                break
            }
        } else {
            found = ordinals[String(decoding: name, as: UTF8.self)]
        }
        guard let ordinal = found else { return nil }
        recent.remember(ordinal, named: name, at: position)
        return ordinal
    }

    /// The most columns a table searches by bytes (see ``ordinal(named:at:)``).
    private static let searchedColumns = 64

    /// Notes that the member at `position` of the record just read, `name`, has the column at
    /// `ordinal` (one the writer added for it).
    package func remember(_ ordinal: Int, named name: UnsafeRawBufferPointer, at position: Int) {
        recent.remember(ordinal, named: name, at: position)
    }

    /// Adds the column `name` for `attribute` (a member's name, or a to-one link part's key),
    /// taking values of `type`; returns its ordinal.
    package func addColumn(_ attribute: String, name: String, type: ImportColumnType) -> Int {
        let ordinal = columns.count
        columns.append(
            Column(attribute: attribute, name: name, quoted: ImportNames.quoted(name), type: type, declared: type)
        )
        ordinals[attribute] = ordinal
        attributeBytes.append(Array(attribute.utf8))
        takenColumns.insert(name.lowercased())
        if let (link, part) = ImportNames.toOnePart(ofKey: attribute) {
            toOneOrdinals(named: link)[part] = ordinal
        }
        return ordinal
    }

    /// Renames the column at `ordinal` (the database had the name taken).
    package func renameColumn(_ ordinal: Int, to name: String) {
        columns[ordinal].name = name
        columns[ordinal].quoted = ImportNames.quoted(name)
        takenColumns.insert(name.lowercased())
    }

    /// Records that the column at `ordinal` now takes values of `type`.
    package func retype(_ ordinal: Int, to type: ImportColumnType) {
        columns[ordinal].type = type
    }

    /// The ordinals of a to-one link's columns so far: its type and key columns come with its
    /// first target, its meta column with its first `meta`.
    package final class ToOneOrdinals {
        /// Its place in its table's list.
        package let index: Int
        package var type: Int?
        package var id: Int?
        package var meta: Int?

        init(index: Int) { self.index = index }

        package subscript(part: ImportNames.ToOnePart) -> Int? {
            get {
                switch part {
                case .type: type
                case .id: id
                case .meta: meta
                }
            }
            set {
                switch part {
                case .type: type = newValue
                case .id: id = newValue
                case .meta: meta = newValue
                }
            }
        }
    }

    /// The columns of the to-one link `name`, the link at `position` of its record (none yet
    /// when it has had no target).
    package func toOneOrdinals(named name: UnsafeRawBufferPointer, at position: Int) -> ToOneOrdinals {
        if let known = recentToOne.value(named: name, at: position) { return toOneList[known] }
        let ordinals = toOneOrdinals(named: String(decoding: name, as: UTF8.self))
        recentToOne.remember(ordinals.index, named: name, at: position)
        return ordinals
    }

    /// The columns of the to-one link `name`.
    package func toOneOrdinals(named name: String) -> ToOneOrdinals {
        if let known = toOne[name] { return known }
        let ordinals = ToOneOrdinals(index: toOneList.count)
        toOne[name] = ordinals
        toOneList.append(ordinals)
        return ordinals
    }

    /// The ordinals of the table's to-one key columns: what their indexes are on.
    package var toOneIDOrdinals: [Int] { toOneList.compactMap(\.id) }
}
