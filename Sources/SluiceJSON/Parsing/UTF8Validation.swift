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
    @usableFromInline
    static func string(ofChecked bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return unsafe String(
                copying: UTF8Span(unchecked: bytes.assumingMemoryBound(to: UInt8.self).span, isKnownASCII: isASCII)
            )
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
