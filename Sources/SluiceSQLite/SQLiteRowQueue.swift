// Rows that wait to be written several to a statement. SQLite's work per statement (starting the
// program, halting and resetting it) costs as much as a small row's own insert, so the import's
// writer queues rows and runs one INSERT of many rows for them.

import GRDB
import GRDBSQLite

/// Rows of one INSERT (one table, one set of columns) waiting to go in together.
struct RowQueue {
    /// The columns the rows set, by ordinal (a type table's; empty for `relationships`).
    private(set) var columns: [Int] = []
    /// The rows' values, one row after another; texts point into the writer's `TextArena`.
    private(set) var values: [BoundValue] = []
    private(set) var valuesPerRow = 1
    /// Rows per statement: enough to make the statement's own cost small beside the rows', and
    /// within SQLite's limit on parameters for a row of `valuesPerRow`.
    private(set) var rowsPerStatement = 1

    var rows: Int { values.count / valuesPerRow }
    var isEmpty: Bool { values.isEmpty }
    /// Whether the rows fill a statement.
    var isFull: Bool { rows >= rowsPerStatement }

    /// Makes the (empty) queue one for rows of `valuesPerRow` values that set `columns`, under
    /// SQLite's `parameterLimit`.
    mutating func start(columns: [Int], valuesPerRow: Int, parameterLimit: Int32) {
        self.columns = columns
        self.valuesPerRow = max(1, valuesPerRow)
        rowsPerStatement = max(1, min(32, Int(parameterLimit) / self.valuesPerRow))
    }

    /// Appends a row, its texts copied into `arena` (which must have room for them).
    mutating func append(_ row: some Collection<BoundValue>, keepingTextsIn arena: TextArena) {
        for value in row { values.append(arena.keep(value)) }
    }

    mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
    }

    /// The values of row `index`.
    func row(_ index: Int) -> ArraySlice<BoundValue> {
        values[(index * valuesPerRow)..<((index + 1) * valuesPerRow)]
    }

    /// The values of the rows in `range`.
    func rows(_ range: Range<Int>) -> ArraySlice<BoundValue> {
        values[(range.lowerBound * valuesPerRow)..<(range.upperBound * valuesPerRow)]
    }
}

/// Copies of the texts of queued rows. A queued row outlives the import record its texts were
/// read from, so they are copied here and bound from here; the buffer does not move while any
/// row is queued (the writer writes them all before it reuses or grows it).
final class TextArena {
    // Used by the writer's thread alone, for every text queued: no run-time exclusivity checks.
    @exclusivity(unchecked) private var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var used = 0

    init(capacity: Int = 1 << 20) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 1)
    }

    deinit { base.deallocate() }

    func fits(_ bytes: Int) -> Bool { capacity - used >= bytes }

    /// Empties the arena, at least `minimumCapacity` bytes large. Only when no row is queued.
    func reset(minimumCapacity: Int = 0) {
        used = 0
        guard minimumCapacity > capacity else { return }
        base.deallocate()
        capacity = max(minimumCapacity, capacity * 2)
        base = .allocate(byteCount: capacity, alignment: 1)
    }

    /// `value`, its text (if any) copied into the arena, which must have room for it.
    func keep(_ value: BoundValue) -> BoundValue {
        guard case .text(let text) = value, text.count > 0, let source = text.baseAddress else { return value }
        let target = base + used
        target.copyMemory(from: source, byteCount: text.count)
        used += text.count
        return .text(UnsafeRawBufferPointer(start: target, count: text.count))
    }

    /// The bytes of the texts among `values`.
    static func textBytes(_ values: some Collection<BoundValue>) -> Int {
        var total = 0
        for value in values {
            if case .text(let text) = value { total += text.count }
        }
        return total
    }
}
