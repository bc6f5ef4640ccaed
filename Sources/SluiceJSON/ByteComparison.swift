// Byte-for-byte comparison of names and keys, the innermost step of every member lookup.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension UnsafeRawBufferPointer {
    /// Whether both buffers hold the same bytes.
    ///
    /// Why `memcmp` rather than `elementsEqual`: the generic sequence comparison steps an iterator
    /// per byte with bounds checks, and member lookups compare names for every property decoded.
    @inline(__always)
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let base = baseAddress, let otherBase = other.baseAddress else { return true }
        return memcmp(base, otherBase, count) == 0
    }
}
