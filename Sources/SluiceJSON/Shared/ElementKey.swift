// The coding key of an array element in the tape decoder's coding paths.

import Foundation

/// The coding key of an array element. Why not `AnyCodingKey(intValue:)`: that one holds a
/// `String` too, which makes it too big for an existential's inline buffer, so every element's
/// decoder would allocate a box for its key; this one is a single word.
///
/// Its name is `Index 0`, `Index 1`, as Foundation's coders name array elements in coding paths
/// (what code that prints or compares paths expects); its `intValue` is the index.
struct ElementKey: CodingKey {
    let index: Int

    init(_ index: Int) { self.index = index }
    init?(stringValue: String) {
        let digits = stringValue.hasPrefix("Index ") ? stringValue.dropFirst(6) : Substring(stringValue)
        guard let index = Int(digits) else { return nil }
        self.index = index
    }
    init?(intValue: Int) { index = intValue }

    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}
