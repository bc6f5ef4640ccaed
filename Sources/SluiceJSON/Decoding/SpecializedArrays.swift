// How the readers that know their element type (the generated readers, the plain-value reads)
// build an array whose length the tape records: one place for the two costs it weighs.

/// An array of `count` elements, `element(index)` for each index in order; `nil` as soon as
/// `element` gives `nil` (the caller then reads the array another way).
///
/// For callers specialized for `E`, which every caller is. Why not always
/// `Array(unsafeUninitializedCapacity:initializingWith:)`: its standard library entry is never
/// specialized and looks the array storage's type up in the runtime's caches, some 400
/// instructions an array, more than reading a short array's elements; `reserveCapacity` and
/// `append` compile with the storage type known. A long array is still filled in place, where
/// that lookup costs less than an `append`'s checks on every element, and an empty one reserves
/// nothing (reserving no capacity still makes a new empty buffer, some 70 instructions:
/// citm_catalog.json has 8 685 empty arrays).
@inlinable @inline(__always)
func specializedArray<E>(count: Int, _ element: (_ index: Int) throws -> E?) rethrows -> [E]? {
    if count == 0 { return [] }
    if count < 32 {
        var elements: [E] = []
        elements.reserveCapacity(count)
        for index in 0..<count {
            guard let next = try element(index) else { return nil }
            elements.append(next)
        }
        return elements
    }
    var complete = true
    let elements = try [E](unsafeUninitializedCapacity: count) { buffer, initialized in
        while initialized < count {
            guard let next = try element(initialized) else {
                complete = false
                return
            }
            // Safe because initialized < count, the capacity asked for.
            (buffer.baseAddress.unsafelyUnwrapped + initialized).initialize(to: next)
            initialized += 1
        }
    }
    return complete ? elements : nil
}
