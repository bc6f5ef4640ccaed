// Why this exists: documents repeat many of their longer strings (a user's profile URLs in each
// of their posts, a post's text in its reposts, a venue's name in every event held there). Every
// `String` past 15 bytes is a heap allocation, a copy and, later, a free: some 500 instructions
// once thousands are alive at once and the allocator's caches run dry, a tenth of a typed decode
// of twitter.json. Handing out the `String` made for the same bytes a moment ago shares its
// storage for the price of a retain. Strings are values, so the sharing is invisible but for
// the memory it saves.

import Foundation

/// The longer strings a decode made last, found again by a hash of their bytes: one table per
/// decode (in `DecodeState`), of ``slotCount`` strings of at most ``longestBytes`` bytes, so
/// what it keeps alive is bounded (128 KiB). Made at the first string it is asked for, so that a
/// decode without one pays nothing. A document whose strings do not repeat turns it off after
/// ``trialLookups`` strings, so that it costs such a document next to nothing.
struct RepeatedStrings: ~Copyable {
    /// How many strings the table holds; a new string takes its hash's slot.
    static let slotCount = 512
    /// Shorter strings are small strings, kept inline in the `String` itself: nothing to share.
    static let shortestBytes = 16
    /// Longer strings are made afresh: they repeat seldom, and hashing them costs more.
    static let longestBytes = 256
    /// How many strings decide whether the table stays on, and the share of them found again
    /// that keeps it on (one in ``trialHitShare``).
    static let trialLookups = 512
    static let trialHitShare = 16

    private struct Entry {
        var hash: UInt64
        var string: String?
    }

    private var entries: UnsafeMutablePointer<Entry>?
    private var lookups = 0
    private var hits = 0
    private var isOn = true

    init() {}

    deinit {
        if let entries { Self.release(entries) }
    }

    /// The string of `bytes`, which are valid UTF-8 (ASCII when `isASCII`): for
    /// ``shortestBytes`` to ``longestBytes`` bytes, one made before for the same bytes, or a new
    /// one, kept for next time. Inline, so that a decode whose table is off pays a test, not a
    /// call.
    @inline(__always)
    mutating func string(ofChecked bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        guard isOn, bytes.count >= Self.shortestBytes, bytes.count <= Self.longestBytes else {
            return UTF8Validation.string(ofChecked: bytes, isASCII: isASCII)
        }
        return lookUp(bytes, isASCII: isASCII)
    }

    /// `string(ofChecked:isASCII:)` past its inline tests: the trial, and the table's lookup.
    @inline(never)
    private mutating func lookUp(_ bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        lookups &+= 1
        if lookups == Self.trialLookups, hits < Self.trialLookups / Self.trialHitShare {
            // Not a document that repeats itself: stop hashing, and let go of the table.
            isOn = false
            if let entries { Self.release(entries) }
            entries = nil
            return UTF8Validation.string(ofChecked: bytes, isASCII: isASCII)
        }
        let table = entries ?? makeTable()
        let hash = Self.hash(bytes)
        // The top bits: the multiplications leave the low ones weakest.
        let entry = table + (Int(truncatingIfNeeded: hash >> 55) & (Self.slotCount - 1))
        if entry.pointee.hash == hash, let kept = entry.pointee.string, Self.has(kept, bytes) {
            hits &+= 1
            return kept
        }
        let made = UTF8Validation.string(ofChecked: bytes, isASCII: isASCII)
        entry.pointee = Entry(hash: hash, string: made)
        return made
    }

    private mutating func makeTable() -> UnsafeMutablePointer<Entry> {
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: Self.slotCount)
        table.initialize(repeating: Entry(hash: 0, string: nil), count: Self.slotCount)
        entries = table
        return table
    }

    private static func release(_ table: UnsafeMutablePointer<Entry>) {
        table.deinitialize(count: slotCount)
        table.deallocate()
    }

    /// Whether `string` is made of exactly `bytes`.
    @inline(__always)
    private static func has(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let same = string.utf8.withContiguousStorageIfAvailable { stored in
            stored.count == bytes.count && memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }
        return same ?? false
    }

    /// A 64-bit fingerprint of at least eight bytes (``shortestBytes`` is more): their count and
    /// three words, the first, the middle and the last (overlapping for short strings).
    ///
    /// Why not every byte: a hash that folds in every word is a chain of dependent
    /// multiplications, some 30 cycles for the average string of twitter.json (58 bytes), a
    /// twentieth of its typed decode. Three independent products cost a few cycles whatever the
    /// length. Strings that agree on all three words but differ elsewhere share a fingerprint;
    /// the byte comparison a hit makes tells them apart, and the newer takes the slot: a miss,
    /// never a wrong string.
    @inline(__always)
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        let first = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let middle = bytes.loadUnaligned(fromByteOffset: (count - 8) / 2, as: UInt64.self)
        let last = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        let tail = (last ^ UInt64(truncatingIfNeeded: count)) &* 0xC4CE_B9FE_1A85_EC53
        let hash = (first &* 0x9E37_79B9_7F4A_7C15) ^ (middle &* 0xFF51_AFD7_ED55_8CCD) ^ tail
        return hash ^ (hash >> 29)
    }
}
