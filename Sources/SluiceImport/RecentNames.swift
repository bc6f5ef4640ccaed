// Finding a resource's attribute columns without a String per value.

import SluiceJSON

/// The names met at each position of a type's last resource, each with the number it stands for
/// (a column's ordinal, say): resources of a type mostly list the same attributes in the same
/// order, so a name is found by comparing its bytes with the one seen at its position. Only a
/// miss makes a `String` for the caller's dictionary. (Not generic: across modules an unspecialized
/// generic made each lookup instantiate its entry's metadata at run time.)
package struct RecentNames {
    private var names: [[UInt8]] = []
    private var values: [Int] = []

    package init() {}

    /// What `name`, met at `position`, stood for there last time; `nil` when another name was there.
    package func value(named name: UnsafeRawBufferPointer, at position: Int) -> Int? {
        guard position < names.count, values[position] >= 0,
            names[position].withUnsafeBytes({ $0.hasSameBytes(as: name) })
        else { return nil }
        return values[position]
    }

    /// Remembers what `name` at `position` stands for (positions past 255 are not kept: a type
    /// with that many attributes is looked up by name).
    package mutating func remember(_ value: Int, named name: UnsafeRawBufferPointer, at position: Int) {
        guard position < 256, value >= 0 else { return }
        while names.count <= position {
            names.append([])
            values.append(-1)
        }
        // In place: a record whose members shift remembers at every miss, and a new array each
        // time was an allocation per miss.
        names[position].removeAll(keepingCapacity: true)
        names[position].append(contentsOf: name)
        values[position] = value
    }
}
