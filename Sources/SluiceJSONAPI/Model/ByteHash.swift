// The hash of the open-addressing tables that key resources by their ids' UTF-8 bytes: the
// resource store's, and the validator's identity index.

/// A hash of bytes, eight at a time.
///
/// Not Swift's `Hasher`: that is seeded per process (fine) but runs SipHash over a normalized form
/// of a `String`, several times the cost for the short ids documents are made of. Collisions cost
/// a comparison, not correctness: every table that uses it compares keys exactly.
enum ByteHash {
    /// The hash of `bytes`, starting from `seed`.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed
        var offset = 0
        let count = bytes.count
        while offset + 8 <= count {
            hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < count {
                tail |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = mix(hash ^ tail)
        }
        return mix(hash ^ UInt64(count))
    }

    /// A 64-bit finalizer (SplitMix64's): every input bit moves about half the output bits.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var value = value &* 0xBF58_476D_1CE4_E5B9
        value ^= value >> 31
        value = value &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 29)
    }
}
