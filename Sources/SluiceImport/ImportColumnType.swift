// One type inference for every destination: what kind of column a member's first value asks
// for, when a later value needs a wider one, and when it counts as a mismatch. SQLite declares
// the kinds it has no type for (numbers beyond a double, JSON) as TEXT; PostgreSQL has a type
// for each.

/// The kind of value a column holds, after the values an import has met in it.
public enum ImportColumnType: String, Sendable, CaseIterable {
    /// Strings (and, once a column has held two kinds that no number type joins, anything).
    case text = "TEXT"
    /// Integers that `Int64` holds, and Booleans as 0 and 1.
    case integer = "INTEGER"
    /// Numbers a double approximates.
    case real = "REAL"
    /// Numbers beyond a double's range, kept exactly.
    case numeric = "NUMERIC"
    /// Objects and arrays.
    case json = "JSONB"

    /// The kind a column is made with for its first value; `nil` for `null`, which makes no
    /// column (an absent column reads as NULL).
    public init?(for value: ImportRecord.Value) {
        switch value {
        case .null: return nil
        case .bool, .integer: self = .integer
        case .real: self = .real
        case .bigNumber: self = .numeric
        case .string: self = .text
        case .json: self = .json
        }
    }

    /// The kind the column must become to hold `value` as what it is, or `nil` when it holds it
    /// already: integers widen to reals and both to numeric; any other pair to text.
    public func widened(for value: ImportRecord.Value) -> ImportColumnType? {
        switch (self, value) {
        case (_, .null), (.text, _): return nil
        case (.integer, .bool), (.integer, .integer): return nil
        case (.integer, .real): return .real
        case (.integer, .bigNumber), (.real, .bigNumber): return .numeric
        case (.real, .bool), (.real, .integer), (.real, .real): return nil
        case (.numeric, .bool), (.numeric, .integer), (.numeric, .real), (.numeric, .bigNumber): return nil
        case (.json, .json): return nil
        default: return .text
        }
    }

    /// The narrowest kind that holds the values of both: what a column becomes when two imports
    /// made it differently.
    public func joined(with other: ImportColumnType) -> ImportColumnType {
        if self == other { return self }
        let numbers: [ImportColumnType] = [.integer, .real, .numeric]
        if let first = numbers.firstIndex(of: self), let second = numbers.firstIndex(of: other) {
            return numbers[max(first, second)]
        }
        return .text
    }

    /// Whether `value` in a column SQLite declares for this kind (TEXT for text, numeric and
    /// json) is a value of another kind: what every destination counts as a type mismatch, so
    /// that an import reports the same count whatever it writes into.
    public func countsMismatch(_ value: ImportRecord.Value) -> Bool {
        switch (self, value) {
        case (_, .null): return false
        case (.text, .bool), (.numeric, .bool), (.json, .bool): return true
        case (.text, .integer), (.text, .real), (.numeric, .integer), (.numeric, .real),
            (.json, .integer), (.json, .real):
            return true
        case (.integer, .bigNumber), (.real, .bigNumber): return true
        case (.integer, .string), (.integer, .json), (.real, .string), (.real, .json): return true
        default: return false
        }
    }
}
