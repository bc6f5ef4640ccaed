internal import CSluiceTape
import Foundation

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Conversions from the exact text of a JSON number to Swift numbers, done only on demand.
///
/// The parser keeps every number as the text of the input, already checked against JSON's grammar
/// (`-? int frac? exp?`). Converting here, late, means a model that never reads a number pays
/// nothing for it, and a number too large for 64 bits stays available as text or `Decimal` instead
/// of being rounded or wrapped on the way in. Every conversion is exact or fails: integers never
/// wrap, never truncate a fraction, and never round to another integer.
///
/// The conversions of a tape token's text (`double(tokenText:)`, `integer(tokenText:as:)`) are
/// inlinable: the generated readers' plain reads convert every element of a nested array through
/// them, in line where the trailer says the work is done.
@usableFromInline
enum JSONNumberText {
    /// Why a number could not be converted; turned into a sentence by the caller, which knows the
    /// type asked for and where the number stands.
    @usableFromInline
    enum Failure: Error, Equatable {
        /// Outside the range of the requested type.
        case outOfRange
        /// Has a non-zero fraction, but an integer was asked for.
        case notAnInteger
        /// More significant digits than the requested type can hold exactly.
        case tooPrecise
    }

    /// The parts of a grammatical JSON number, found in one pass.
    struct Parts {
        var negative = false
        /// Digits before the point, without leading zeros.
        var integerDigits: Range<Int> = 0..<0
        /// Digits after the point.
        var fractionDigits: Range<Int> = 0..<0
        /// The exponent as written, saturated to ±2^50: far beyond any representable value and any
        /// digit count a token can have (tokens are at most 4 GiB), so scales stay exact.
        var exponent = 0

        /// How many digits the integer and fraction parts have together.
        var digitCount: Int { integerDigits.count + fractionDigits.count }

        /// The value of the `position`th digit of the integer digits followed by the fraction digits.
        func digit(_ position: Int, in text: UnsafeRawBufferPointer) -> UInt8 {
            let index =
                position < integerDigits.count
                ? integerDigits.lowerBound + position
                : fractionDigits.lowerBound + position - integerDigits.count
            return text[index] &- UInt8(ascii: "0")
        }
    }

    private static let zero = UInt8(ascii: "0")
    private static let nine = UInt8(ascii: "9")
    private static let minus = UInt8(ascii: "-")
    private static let plus = UInt8(ascii: "+")
    private static let point = UInt8(ascii: ".")

    /// The shortest text that reads back as the same finite value, as JSON number text: Swift's
    /// description (`0.1`, `1e-07`, `5e+20`) without a trailing `.0` (`1.0` is written `1`, as
    /// Foundation writes it).
    static func shortestText<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Whether `text` follows JSON's number grammar exactly: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
    /// ([eE] [+-]? [0-9]+)?`, nothing before or after. For numbers that arrive as strings.
    static func isNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = text.count
        func digits() -> Int {
            let start = index
            while index < count, text[index] >= zero, text[index] <= nine { index += 1 }
            return index - start
        }
        if index < count, text[index] == minus { index += 1 }
        guard index < count else { return false }
        if text[index] == zero {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < count, text[index] == point {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < count, text[index] == minus || text[index] == plus { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == count
    }

    /// Whether `text` is a number JSON5 writes without digits (`Infinity`, `NaN`, either with a
    /// sign): its token's trailer holds the value converted, which conversions to binary
    /// floating point read, and every other conversion refuses it.
    static func isSpecialValue(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first else { return false }
        let letter = (first == minus || first == plus) && text.count > 1 ? text[1] : first
        return letter == UInt8(ascii: "I") || letter == UInt8(ascii: "N")
    }

    static func split(_ text: UnsafeRawBufferPointer) -> Parts {
        var parts = Parts()
        var index = 0
        let count = text.count
        if index < count, text[index] == minus {
            parts.negative = true
            index += 1
        }
        while index < count, text[index] == zero { index += 1 }
        let integerStart = index
        while index < count, text[index] >= zero, text[index] <= nine { index += 1 }
        parts.integerDigits = integerStart..<index
        if index < count, text[index] == point {
            index += 1
            let fractionStart = index
            while index < count, text[index] >= zero, text[index] <= nine { index += 1 }
            parts.fractionDigits = fractionStart..<index
        }
        if index < count {  // 'e' or 'E'
            index += 1
            var exponentNegative = false
            if index < count, text[index] == minus || text[index] == plus {
                exponentNegative = text[index] == minus
                index += 1
            }
            var exponent = 0
            while index < count {
                exponent = min(exponent * 10 + Int(text[index] &- zero), 1 << 50)
                index += 1
            }
            parts.exponent = exponentNegative ? -exponent : exponent
        }
        return parts
    }

    /// The number as an integer of type `T`, exactly. `1e2` and `10.0` are integers; `1.5` is not.
    @usableFromInline
    static func integer<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as type: T.Type) throws(Failure) -> T {
        // The common case in one pass: a minus at most and up to 18 digits, nothing else (ids,
        // counts, timestamps). Below 10^18 no step can overflow an Int64, and the tape holds only
        // valid JSON numbers, so there is no leading zero to mind. Anything else takes `split`.
        if let plain = plainInteger(text) {
            guard let value = T(exactly: plain) else { throw .outOfRange }
            return value
        }
        if isSpecialValue(text) { throw .outOfRange }
        let parts = split(text)
        // Trailing zeros of the significant digits move into the scale, so `1500e-2` and `15.00`
        // both become 15 × 10^0 and only a true fraction is refused.
        var used = parts.digitCount
        var scale = parts.exponent - parts.fractionDigits.count
        while used > 0, parts.digit(used - 1, in: text) == 0 {
            used -= 1
            scale += 1
        }
        if used == 0 { return 0 }
        if scale < 0 { throw .notAnInteger }
        // 64-bit types accumulate in UInt64 (the common case, and the fast one); wider ones in
        // UInt128, so Int128.min and UInt128.max read exactly.
        if T.bitWidth <= 64 {
            return try signed(magnitude(parts, used: used, scale: scale, in: text, as: UInt64.self), parts.negative)
        }
        return try signed(magnitude(parts, used: used, scale: scale, in: text, as: UInt128.self), parts.negative)
    }

    /// The value of `text` when it is an optional minus and 1 to 18 digits; `nil` otherwise.
    @inline(__always)
    static func plainInteger(_ text: UnsafeRawBufferPointer) -> Int64? {
        guard let base = text.baseAddress, text.count > 0 else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let negative = bytes[0] == minus
        var index = negative ? 1 : 0
        guard text.count - index <= 18, index < text.count else { return nil }
        var magnitude: Int64 = 0
        while index < text.count {
            let digit = bytes[index] &- zero
            guard digit <= 9 else { return nil }
            magnitude = magnitude &* 10 &+ Int64(digit)
            index += 1
        }
        return negative ? 0 - magnitude : magnitude
    }

    /// The first `used` significant digits times 10^`scale`, or `outOfRange`.
    private static func magnitude<M: FixedWidthInteger & UnsignedInteger>(
        _ parts: Parts,
        used: Int,
        scale: Int,
        in text: UnsafeRawBufferPointer,
        as type: M.Type
    ) throws(Failure) -> M {
        var magnitude: M = 0
        for position in 0..<used {
            let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = shifted.addingReportingOverflow(M(parts.digit(position, in: text)))
            if overflow1 || overflow2 { throw .outOfRange }
            magnitude = added
        }
        // A scale past the type's digit count on a non-zero magnitude always overflows: refused
        // before looping (10^20 exceeds UInt64.max, 10^39 UInt128.max).
        if scale > (M.bitWidth == 64 ? 19 : 39) { throw .outOfRange }
        for _ in 0..<scale {
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { throw .outOfRange }
            magnitude = shifted
        }
        return magnitude
    }

    /// `magnitude` with its sign, as a `T`, or `outOfRange`.
    private static func signed<T: FixedWidthInteger, M: FixedWidthInteger & UnsignedInteger>(
        _ magnitude: M,
        _ negative: Bool
    ) throws(Failure) -> T {
        if negative {
            // magnitude is at least 1 here (its last digit is not zero). Going through
            // magnitude - 1 lets T.min, whose magnitude T.max cannot hold, convert too.
            guard T.isSigned, let belowMagnitude = T(exactly: magnitude - 1) else { throw .outOfRange }
            return 0 - belowMagnitude - 1
        }
        guard let value = T(exactly: magnitude) else { throw .outOfRange }
        return value
    }

    /// The number as the nearest `Double`. Fails when it is beyond `Double`'s range: too large (it
    /// would be infinite), or not zero but too small for the smallest subnormal (it would be
    /// zero), as Foundation's decoder refuses both rather than hand back another number.
    static func double(_ text: UnsafeRawBufferPointer) throws(Failure) -> Double {
        if isSpecialValue(text) { throw .outOfRange }
        // The common case in one pass: at most 19 digits, so the significand is an exact UInt64.
        // Any correctly rounded method gives the same double, so the paths below agree with it.
        if let (significand, scale, negative) = significandAndScale(text) {
            return try double(significand: significand, scale: scale, negative: negative)
        }
        // Longer numbers: `significandAndScale` counted leading zeros of the fraction as digits,
        // so a number such as 0.000…01234 may still have 19 significant digits or fewer.
        let parts = split(text)
        let scale = parts.exponent - parts.fractionDigits.count
        // Eisel-Lemire (`sluice_decimal_to_double`) once the significant digits are
        // counted without the leading zeros.
        if let value = eiselLemire(parts, in: text, scale: scale) {
            // Zero only from all-zero digits or from underflow, which the digits tell apart.
            guard value.isFinite, value != 0 || isZero(parts, in: text) else { throw .outOfRange }
            return parts.negative ? -value : value
        }
        // Past here the number has more than 19 significant digits, so it is not zero.
        // Slower path (more than 19 significant digits): C's correctly rounding strtod on a copy on the stack. Why not
        // `Double(String)`: most such numbers (17 significant digits, as serializers write doubles)
        // are longer than a small string, so each would allocate.
        if text.count < 128 {
            let converted = withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) {
                buffer -> Double? in
                // Safe because the buffer holds text.count + 1 bytes.
                let start = buffer.baseAddress!
                UnsafeMutableRawPointer(start).copyMemory(from: text.baseAddress!, byteCount: text.count)
                start[text.count] = 0
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(start, &end)
                // strtod follows the C locale's decimal point; under a locale whose point is not
                // "." it stops early, and the locale-independent conversion below takes over.
                return end == start + text.count ? value : nil
            }
            if let converted {
                guard converted.isFinite, converted != 0 else { throw .outOfRange }
                return converted
            }
        }
        // Slow path: the standard library's correctly rounded, locale-independent conversion.
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite, value != 0 else {
            throw .outOfRange
        }
        return value
    }

    /// `significand` × 10^`scale` with its sign, correctly rounded (`sluice_decimal_to_double`,
    /// the conversion the tape's writers use); `outOfRange` past `Double`'s range.
    @inline(__always)
    private static func double(significand: UInt64, scale: Int, negative: Bool) throws(Failure) -> Double {
        let value = sluice_decimal_to_double(significand, Int32(clamping: scale))
        guard value.isFinite, value != 0 || significand == 0 else { throw .outOfRange }
        return negative ? -value : value
    }

    /// Whether every digit of `parts` is zero.
    private static func isZero(_ parts: Parts, in text: UnsafeRawBufferPointer) -> Bool {
        !parts.integerDigits.contains { text[$0] != zero } && !parts.fractionDigits.contains { text[$0] != zero }
    }

    /// What a tape's writer read of a number token's digits: the trailer after its text in the
    /// arena (CSluiceTape's `sluice_number_digits`, see `TapeBuffer.appendNumber`).
    @usableFromInline
    struct Digits {
        /// The significant digits as an integer; meaningful only when `isExact`.
        @usableFromInline let significand: UInt64
        /// The power of ten that scales `significand`; meaningful only when `isExact`.
        @usableFromInline let scale: Int
        @usableFromInline let flags: UInt8

        // The trailer's flags: CSluiceTape's SLUICE_NUMBER_*, spelled here for inlinable code,
        // which cannot see that module (`ParserState.tokenLayoutMatches` checks them against it).
        @inlinable static var exactFlag: UInt8 { 1 }
        @inlinable static var negativeFlag: UInt8 { 2 }
        @inlinable static var integerFlag: UInt8 { 4 }
        @inlinable static var convertedFlag: UInt8 { 8 }
        @inlinable static var hexadecimalFlag: UInt8 { 16 }

        /// `significand` × 10^`scale` is the number's magnitude (it has at most 19 digits).
        @inlinable var isExact: Bool { flags & Self.exactFlag != 0 }
        @inlinable var isNegative: Bool { flags & Self.negativeFlag != 0 }
        /// No fraction and no exponent were written.
        @inlinable var isInteger: Bool { flags & Self.integerFlag != 0 }
        /// `significand` holds the bits of the magnitude as the nearest `Double`.
        @inlinable var isConverted: Bool { flags & Self.convertedFlag != 0 }
        /// Written in hexadecimal: floating point only exactly.
        @inlinable var isHexadecimal: Bool { flags & Self.hexadecimalFlag != 0 }

        /// The trailer of the number token whose text is `text`.
        ///
        /// - Precondition: `text` is a number token's text in a tape's arena.
        @inlinable @inline(__always)
        init(after text: UnsafeRawBufferPointer) {
            // Safe because every number token's text in a tape is followed by its trailer.
            let trailer = UnsafeRawPointer(text.baseAddress.unsafelyUnwrapped) + text.count
            significand = trailer.loadUnaligned(as: UInt64.self)
            scale = Int(trailer.loadUnaligned(fromByteOffset: 8, as: Int16.self))
            flags = trailer.load(fromByteOffset: 10, as: UInt8.self)
        }
    }

    /// `double(_:)` for the text of a tape's number token: from the digits its writer read, so
    /// the text is read again only for numbers of more than 19 digits.
    @inlinable @inline(__always)
    static func double(tokenText text: UnsafeRawBufferPointer) throws(Failure) -> Double {
        let digits = Digits(after: text)
        if digits.isConverted {
            let magnitude = Double(bitPattern: digits.significand)
            return digits.isNegative ? -magnitude : magnitude
        }
        return try unconvertedDouble(tokenText: text, digits)
    }

    /// `double(tokenText:)` for integers and numbers of more than 19 digits, out of line.
    @usableFromInline
    static func unconvertedDouble(
        tokenText text: UnsafeRawBufferPointer,
        _ digits: Digits
    ) throws(Failure) -> Double {
        if digits.isHexadecimal {
            guard let value = Double(exactly: try integer(text, as: Int128.self)) else { throw .outOfRange }
            return value
        }
        guard digits.isExact else { return try double(text) }
        return try double(significand: digits.significand, scale: digits.scale, negative: digits.isNegative)
    }

    /// `double(tokenText:)` as a `Float`, refused beyond `Float`'s range as beyond `Double`'s, and
    /// not rounded at all for a number written in hexadecimal.
    @usableFromInline
    static func float(tokenText text: UnsafeRawBufferPointer) throws(Failure) -> Float {
        let double = try double(tokenText: text)
        let float = Float(double)
        // A number that is not zero but rounds to zero does not fit either. Only JSON5's
        // Infinity and NaN are not finite as doubles, and they stay so.
        guard float.isFinite || !double.isFinite, float != 0 || double == 0 else { throw .outOfRange }
        if Digits(after: text).isHexadecimal, Double(float) != double { throw .outOfRange }
        return float
    }

    /// `integer(_:as:)` for the text of a tape's number token: an integer written without a
    /// fraction or exponent, in range, from the digits its writer read; anything else (and every
    /// failure, so that its reason is the same) from the text.
    @inlinable
    static func integer<T: FixedWidthInteger>(
        tokenText text: UnsafeRawBufferPointer,
        as type: T.Type
    ) throws(Failure) -> T {
        let digits = Digits(after: text)
        if digits.isExact, digits.isInteger {
            if !digits.isNegative {
                if let value = T(exactly: digits.significand) { return value }
            } else if digits.significand <= UInt64(Int64.max), let value = T(exactly: -Int64(digits.significand)) {
                return value
            }
        }
        return try integer(text, as: T.self)
    }

    /// The digits of a number of at most 19 digits (leading zeros of the integer part aside) as
    /// an integer, the power of ten that scales it, and its sign, read in one pass; `nil` for
    /// longer numbers, which `split` and the general conversions take. The text is a valid JSON
    /// number (the tape holds nothing else).
    ///
    /// Why: canada.json is 111 000 such numbers, and `split` followed by a second pass over the
    /// digits cost about 500 instructions each; eight digits at a time cost a few dozen.
    @inline(__always)
    static func significandAndScale(_ text: UnsafeRawBufferPointer) -> (UInt64, Int, Bool)? {
        guard let base = text.baseAddress else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let count = text.count
        var index = 0
        let negative = bytes[0] == minus
        if negative { index = 1 }
        while index < count, bytes[index] == zero { index += 1 }
        var significand: UInt64 = 0
        var digits = 0
        while index < count {
            let digit = bytes[index] &- zero
            guard digit <= 9 else { break }
            significand = significand &* 10 &+ UInt64(digit)
            digits += 1
            index += 1
        }
        var fractionDigits = 0
        if index < count, bytes[index] == point {
            index += 1
            let fractionStart = index
            while index + 8 <= count, let eight = eightDigits(at: bytes + index) {
                significand = significand &* 100_000_000 &+ eight
                digits += 8
                index += 8
                // Past 19 digits the product may have wrapped; the answer is thrown away below.
                if digits > 19 { return nil }
            }
            while index < count {
                let digit = bytes[index] &- zero
                guard digit <= 9 else { break }
                significand = significand &* 10 &+ UInt64(digit)
                digits += 1
                index += 1
            }
            fractionDigits = index - fractionStart
        }
        guard digits <= 19 else { return nil }
        var exponent = 0
        if index < count {  // 'e' or 'E'
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == minus || bytes[index] == plus {
                exponentNegative = bytes[index] == minus
                index += 1
            }
            while index < count {
                exponent = min(exponent * 10 + Int(bytes[index] &- zero), 1 << 50)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        return (significand, exponent - fractionDigits, negative)
    }

    /// The value of eight ASCII digits at `bytes` (the first the most significant), or `nil` when
    /// any of the eight is not a digit: the usual SWAR conversion, three multiplications.
    @inline(__always)
    private static func eightDigits(at bytes: UnsafePointer<UInt8>) -> UInt64? {
        let word = UInt64(littleEndian: UnsafeRawPointer(bytes).loadUnaligned(as: UInt64.self))
        // Each byte is 0x30...0x39 exactly when its high nibble is 3 and adding 6 keeps it so.
        let isDigits =
            ((word & 0xF0F0_F0F0_F0F0_F0F0) | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4))
            == 0x3333_3333_3333_3333
        guard isDigits else { return nil }
        var value = word &- 0x3030_3030_3030_3030
        value = (value &* 10) &+ (value >> 8)
        value =
            (((value & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32)))
                &+ (((value >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32)))) >> 32
        return value
    }

    /// The positive value of `parts` (digits times 10^`scale`) as the nearest double, by Daniel
    /// Lemire's and Michael Eisel's algorithm ("Number Parsing at a Gigabyte per Second", 2021;
    /// the product is always precise enough, Mushtak and Lemire 2023); `nil` when the significand
    /// has more than 19 digits. Infinity for values beyond `Double`'s range, zero below it.
    static func eiselLemire(_ parts: Parts, in text: UnsafeRawBufferPointer, scale: Int) -> Double? {
        var significand: UInt64 = 0
        var significant = 0
        // Two plain loops over the digit ranges: per-digit position arithmetic cost as much as
        // the conversion itself.
        @inline(__always) func accumulate(_ digits: Range<Int>) -> Bool {
            for index in digits {
                let digit = text[index] &- zero
                if significant == 0 && digit == 0 { continue }
                significant += 1
                if significant > 19 { return false }
                significand = significand &* 10 &+ UInt64(digit)
            }
            return true
        }
        guard accumulate(parts.integerDigits), accumulate(parts.fractionDigits) else { return nil }
        return sluice_decimal_to_double(significand, Int32(clamping: scale))
    }

    /// The number as a `Decimal`, exactly: fails when it has more significant digits than
    /// `Decimal` holds (38) or an exponent beyond its range, rather than rounding.
    static func decimal(_ text: UnsafeRawBufferPointer) throws(Failure) -> Decimal {
        if isSpecialValue(text) { throw .outOfRange }
        let parts = split(text)
        var first = 0
        var used = parts.digitCount
        while first < used, parts.digit(first, in: text) == 0 { first += 1 }
        while used > first, parts.digit(used - 1, in: text) == 0 { used -= 1 }
        if used - first > 38 { throw .tooPrecise }
        guard let value = Decimal(string: String(decoding: text, as: UTF8.self), locale: nil), !value.isNaN else {
            throw .outOfRange
        }
        // Decimal turns an exponent below its range into zero; a non-zero number must not.
        if used > first && value.isZero { throw .outOfRange }
        return value
    }
}

extension JSONNumberText {
    /// The number as the `Decimal` Foundation's parser makes of it, digits past its 38 dropped:
    /// for numbers `decimal(_:)` refuses as too precise.
    static func roundedDecimal(_ text: UnsafeRawBufferPointer) throws(Failure) -> Decimal {
        if isSpecialValue(text) { throw .outOfRange }
        guard let value = Decimal(string: String(decoding: text, as: UTF8.self), locale: nil), !value.isNaN,
            !value.isZero
        else { throw .outOfRange }
        return value
    }
}

/// A canonical decimal id (`0`, or 1 to 18 digits without a leading zero) as the number it
/// spells, or `nil` for any other id. Such ids are their own hash in a JSON:API resource store, and the SQLite
/// importer keeps them as INTEGER keys: exactly these round-trip through a number to the same text.
@inlinable
package func decimalIDValue(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
    let count = bytes.count
    guard count > 0, count <= 18, bytes[0] != UInt8(ascii: "0") || count == 1 else { return nil }
    var value: UInt64 = 0
    for byte in bytes {
        let digit = byte &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        value = value &* 10 &+ UInt64(digit)
    }
    return value
}
