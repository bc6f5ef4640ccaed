import SluiceImport

/// PostgreSQL's type for each kind of column (SluiceImport's inference decides the kind).
extension ImportColumnType {
    var sql: String {
        switch self {
        case .text: "text"
        case .integer: "bigint"
        case .real: "double precision"
        case .numeric: "numeric"
        case .json: "jsonb"
        }
    }
}

/// A table as this import writes it: the catalog every destination shares (`ImportTable`), and
/// this batch's COPY rows.
///
/// Only its session's task touches it, one call at a time, so the properties staging reads and
/// writes for every resource skip the run-time exclusivity check (`@exclusivity(unchecked)`),
/// which otherwise costs a call and a thread-local lookup per access.
final class PostgresTable {
    /// Its name, columns and lookups.
    let catalog: ImportTable
    var type: String { catalog.type }
    var name: String { catalog.name }
    var quotedName: String { catalog.quotedName }
    /// The keys staged in this batch: a key met twice makes the batch go in first.
    @exclusivity(unchecked) var batchKeys: Set<String> = []
    /// This batch's rows, grouped by the ordinals of the columns they set, in the order the
    /// groups were first met; and each group's place by its ordinals.
    @exclusivity(unchecked) private(set) var groups: [StageGroup] = []
    @exclusivity(unchecked) private var groupIndex: [[Int]: Int] = [:]
    /// The group the last row went to: a type's resources mostly set the same columns, so a row's
    /// ordinals are compared with that group's before any array is made or hashed.
    @exclusivity(unchecked) private var lastGroup = -1

    init(type: String, name: String) {
        catalog = ImportTable(type: type, name: name)
    }

    /// Stages a row that sets `row`'s columns, keyed `key`: the key, then each value in the
    /// text its column's type takes.
    func stageRow(key: UnsafeRawBufferPointer, _ row: [(ordinal: Int, value: ImportRecord.Value)]) {
        if lastGroup < 0 || !groups[lastGroup].ordinals.elementsEqual(row.lazy.map(\.ordinal)) {
            let ordinals = row.map(\.ordinal)
            if let known = groupIndex[ordinals] {
                lastGroup = known
            } else {
                groups.append(StageGroup(ordinals: ordinals))
                lastGroup = groups.count - 1
                groupIndex[ordinals] = lastGroup
            }
        }
        groups[lastGroup].rows.text(key)
        for (ordinal, value) in row { groups[lastGroup].rows.value(value, for: catalog.columns[ordinal].type) }
        groups[lastGroup].rows.endRow()
    }

    /// Forgets the batch's rows, once they are handed over.
    func removeGroups() {
        groups.removeAll(keepingCapacity: true)
        groupIndex.removeAll(keepingCapacity: true)
        lastGroup = -1
    }
}

/// The COPY rows of one table's resources that set the same columns.
struct StageGroup {
    var ordinals: [Int]
    var rows = CopyText()
}
