internal import CSluiceTape

/// Strict checks of a string's bytes as written in the input, run after yajl has accepted them.
///
/// yajl's own UTF-8 check looks only at the shape of each sequence: it lets overlong forms
/// (`C0 AF`), encoded surrogates (`ED A0 80`) and code points above U+10FFFF through, and it turns an
/// unpaired `\uD800` escape into `?` without a word. Passing those on would either corrupt data
/// silently or let Swift's `String` repair it silently, so Sluice checks the raw bytes again here,
/// to the letter of Unicode's table of well-formed UTF-8 (Unicode 15, table 3-7).
@usableFromInline
enum UTF8Validation {
    /// The index of the first byte of the first ill-formed UTF-8 sequence in `bytes`, or `nil`
    /// when every byte belongs to a well-formed sequence.
    ///
    /// The check is written once, in C (`sluice_first_invalid_utf8`), because the tape's C fast
    /// path runs it on every string it builds; the Swift callbacks and the writer call the same
    /// function, so the two paths cannot disagree on what is well formed.
    static func firstInvalidSequence(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let index = sluice_first_invalid_utf8(base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return index < 0 ? nil : index
    }

    /// The index of the backslash of the first `\u` escape in `content` (a string's bytes between
    /// its quotes, escapes already checked by yajl) that names one half of a surrogate pair without
    /// the other, or `nil` when there is none.
    static func firstUnpairedSurrogate(in content: UnsafeRawBufferPointer) -> Int? {
        guard let base = content.baseAddress else { return nil }
        let index = sluice_first_unpaired_surrogate(base.assumingMemoryBound(to: UInt8.self), content.count)
        return index < 0 ? nil : index
    }

    /// Whether every byte of `bytes` is ASCII.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        return sluice_is_ascii(base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// A `String` of bytes the parser has checked (every key and string on a tape): made without
    /// the check and repair that `String(decoding:as:)` runs, which would be a second pass over
    /// bytes already known to be well formed.
    ///
    /// Inlined, a short string made in place once the layout is known to match: most strings
    /// are short, and the call cost some forty instructions on a string that is two loads.
    @usableFromInline @inline(__always)
    static func string(ofChecked bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        string(ofChecked: bytes, isASCII: isASCII, layoutMatches: sluice_small_string_layout_known() > 0)
    }

    /// `string(ofChecked:isASCII:)` for inlined code in other modules, which cannot read the
    /// layout's answer kept in C: the caller passes it (`TapeTokens` carries it from its tape).
    /// `layoutMatches` false sends a short string out of line, which asks the answer itself.
    @inlinable @inline(__always)
    static func string(ofChecked bytes: UnsafeRawBufferPointer, isASCII: Bool, layoutMatches: Bool) -> String {
        if bytes.count <= 15, layoutMatches, let base = bytes.baseAddress {
            return smallString(base, count: bytes.count, isASCII: isASCII)
        }
        return madeString(ofChecked: bytes, isASCII: isASCII)
    }

    /// `string(ofChecked:isASCII:)` out of line: every longer string, and the short ones until
    /// the layout has been checked (which the first one does).
    @usableFromInline @inline(never)
    static func madeString(ofChecked bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        if bytes.count <= 15, smallStringsMatch, let base = bytes.baseAddress {
            return smallString(base, count: bytes.count, isASCII: isASCII)
        }
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return unsafe String(
                copying: UTF8Span(unchecked: bytes.assumingMemoryBound(to: UInt8.self).span, isKnownASCII: isASCII)
            )
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string of at most 15 checked bytes, made as the two words the standard library keeps
    /// such a string in (the bytes in order, then the count and whether they are ASCII in the
    /// last byte; unused bytes zero).
    ///
    /// Why: `String(copying:)` builds a small string a byte at a time, some 150 instructions for
    /// one that is two loads here, and the short strings of a document (ids, names, codes) are
    /// most of its strings. The layout is the standard library's own, not public API, so
    /// ``smallStringsMatch`` checks it against strings the library makes before this is used.
    @inlinable @inline(__always)
    static func smallString(_ base: UnsafeRawPointer, count: Int, isASCII: Bool) -> String {
        var leading: UInt64 = 0
        var trailing: UInt64 = 0
        // Loads that stay within the `count` bytes: two overlapping words for 9 to 15, two
        // overlapping halves for 4 to 7, bytes for 1 to 3.
        if count >= 8 {
            leading = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            if count > 8 {
                let last = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
                trailing = last >> UInt64(truncatingIfNeeded: (16 - count) &* 8)
            }
        } else if count >= 4 {
            let low = UInt64(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            leading = low | high << UInt64(truncatingIfNeeded: (count - 4) &* 8)
        } else if count > 0 {
            leading = UInt64(base.load(as: UInt8.self))
            if count > 1 { leading |= UInt64(base.load(fromByteOffset: 1, as: UInt8.self)) << 8 }
            if count > 2 { leading |= UInt64(base.load(fromByteOffset: 2, as: UInt8.self)) << 16 }
        }
        // The top byte: immortal, small, and ASCII when it is (0xE0 or 0xA0), then the count.
        let discriminator = UInt64(truncatingIfNeeded: (isASCII ? 0xE0 : 0xA0) | count) << 56
        // Written over an empty string the function owns: a bit cast would be a borrowed value,
        // and owning it would cost a call to retain it (which does nothing for a small string).
        var string = ""
        withUnsafeMutableBytes(of: &string) { words in
            words.storeBytes(of: leading, as: UInt64.self)
            words.storeBytes(of: trailing | discriminator, toByteOffset: 8, as: UInt64.self)
        }
        return string
    }

    /// Whether ``smallString(_:count:isASCII:)`` makes the strings the standard library makes:
    /// checked once, on strings of every small length, ASCII and not, by equality, hash, UTF-8
    /// view and character count. False on a platform with another layout (big-endian or 32-bit
    /// ones, or a future library), where every string takes `String(copying:)`.
    ///
    /// The answer is kept in C (`sluice_small_string_layout`), where reading it is one load.
    @inline(__always)
    static var smallStringsMatch: Bool {
        let known = sluice_small_string_layout_known()
        if known != 0 { return known > 0 }
        return checkSmallStrings()
    }

    /// Checks the layout and records the answer (see ``smallStringsMatch``). Out of line: asked
    /// once per process, by the first short string.
    @inline(never)
    private static func checkSmallStrings() -> Bool {
        let matches = smallStringsMatchLayout()
        sluice_record_small_string_layout(matches ? 1 : -1)
        return matches
    }

    /// The check itself: each sample made by ``smallString(_:count:isASCII:)`` against the
    /// library's own.
    private static func smallStringsMatchLayout() -> Bool {
        #if _endian(little) && _pointerBitWidth(_64)
        guard MemoryLayout<String>.size == 16 else { return false }
        let samples = [
            "", "a", "ab", "abc", "abcd", "ab\u{e9}", "0123456", "01234567", "012345678",
            "0123456789abcde", "\u{1F600}", "\u{65E5}\u{672C}\u{8A9E}", "caf\u{e9}-ol\u{e9}", "e\u{301}",
        ]
        for sample in samples {
            let bytes = Array(sample.utf8)
            let made = bytes.withUnsafeBytes { buffer in
                smallString(
                    buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                    count: buffer.count,
                    isASCII: bytes.allSatisfy { $0 < 0x80 }
                )
            }
            guard made == sample, made.hashValue == sample.hashValue, Array(made.utf8) == bytes,
                made.count == sample.count, made + "x" == sample + "x"
            else { return false }
        }
        return true
        #else
        return false
        #endif
    }
}

/// Narrows the vectors the tokenizer's UTF-8 check of long strings may use (2: AVX2 where the
/// processor has it, 1: sixteen-byte SSSE3, 0: none), so that tests can hold each width to the
/// same answers: a processor runs only its widest.
package func limitUTF8CheckVectors(to level: Int) { sluice_limit_utf8_vectors(Int32(level)) }
