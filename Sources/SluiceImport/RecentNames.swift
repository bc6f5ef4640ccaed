// Finding a resource's attribute columns without a String per value.

import SluiceJSON

/// The names met at each position of a type's last resource, each with what it stands for (a
/// column): resources of a type mostly list the same attributes in the same order, so a name is
/// found by comparing its bytes with the one seen at its position. Only a miss makes a `String`
/// for the caller's dictionary.
package struct RecentNames<Value> {
    private var entries: [(name: [UInt8], value: Value)?] = []

    package init() {}

    /// What `name`, met at `position`, stood for there last time; `nil` when another name was there.
    package func value(named name: UnsafeRawBufferPointer, at position: Int) -> Value? {
        guard position < entries.count, let entry = entries[position],
            entry.name.withUnsafeBytes({ $0.hasSameBytes(as: name) })
        else { return nil }
        return entry.value
    }

    /// Remembers what `name` at `position` stands for (positions past 255 are not kept: a type
    /// with that many attributes is looked up by name).
    package mutating func remember(_ value: Value, named name: UnsafeRawBufferPointer, at position: Int) {
        guard position < 256 else { return }
        while entries.count <= position { entries.append(nil) }
        entries[position] = (Array(name), value)
    }
}
