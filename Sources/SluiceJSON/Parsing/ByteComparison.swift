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
    /// Why not `elementsEqual`: the generic sequence comparison steps an iterator per byte with
    /// bounds checks, and member lookups compare names for every property decoded. Why inlinable,
    /// with word loads for up to 16 bytes: most names are that short, and a call to `memcmp`
    /// through this function cost more than comparing them.
    @inlinable @inline(__always)
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let base = baseAddress, let otherBase = other.baseAddress else { return true }
        let count = self.count
        if count > 16 { return Self.longBytesEqual(base, otherBase, count) }
        // Two loads that overlap when the count is not a power of two cover every byte once or twice.
        if count >= 8 {
            return base.loadUnaligned(as: UInt64.self) == otherBase.loadUnaligned(as: UInt64.self)
                && base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == otherBase.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        if count >= 4 {
            return base.loadUnaligned(as: UInt32.self) == otherBase.loadUnaligned(as: UInt32.self)
                && base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == otherBase.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        if count >= 2 {
            return base.loadUnaligned(as: UInt16.self) == otherBase.loadUnaligned(as: UInt16.self)
                && base.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)
                    == otherBase.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)
        }
        return base.load(as: UInt8.self) == otherBase.load(as: UInt8.self)
    }

    @usableFromInline
    package static func longBytesEqual(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, _ count: Int) -> Bool {
        memcmp(first, second, count) == 0
    }
}
