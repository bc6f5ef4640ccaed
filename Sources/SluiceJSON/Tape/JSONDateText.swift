package import Foundation

/// Dates read straight from the UTF-8 text of a JSON string or number: the decoder's fast path.
///
/// `DateFormatter` and `ISO8601DateFormatter` need a `String`, go through ICU and allocate on every call, so
/// a decoder reading many timestamps spends most of its time inside them. The formats here are fixed enough
/// to read field by field without allocating, and the arithmetic is the proleptic Gregorian calendar in UTC
/// shifted by the written offset, which needs no time zone database.
///
/// Every function returns nil unless the whole text is one date in its format with every field in range, so
/// a caller can try formats in turn and a bad date is never rolled over into a neighbouring one (no
/// 30 February becoming 1 March).
package enum JSONDateText {
    /// Whether an ISO 8601 date-time may, or must, have a fraction of a second.
    package enum FractionalSeconds {
        case forbidden
        case optional
        case required
    }

    // MARK: - Formats

    /// Reads an RFC 3339 date-time, the internet profile of ISO 8601: `YYYY-MM-DDTHH:MM:SS[.fraction]zone`.
    ///
    /// RFC 3339 itself allows a lowercase `t` and `z` and a space instead of `T`; offsets may also be written
    /// `±HHMM` or `±HH` as ISO 8601 allows, and `-00:00` reads as UTC. A zone is required: a date-time without
    /// one names a different instant in every time zone. Dates alone, the basic format without separators,
    /// comma fractions and the hour 24 are not accepted: none of them belongs to the internet profile.
    ///
    /// The fraction may have any number of digits. It is read into a Double rather than cut to milliseconds,
    /// so `.123456` keeps its microseconds; digits after the 19th are checked but cannot change the result.
    /// A leap second (`:60`) is accepted only when the time is 23:59 in UTC, the only minute that can have
    /// one, and reads as the first second of the next minute, since a `Date` has no leap seconds.
    package static func iso8601(_ text: UnsafeRawBufferPointer, fractionalSeconds: FractionalSeconds) -> Date? {
        var cursor = Cursor(text: text)
        guard let year = cursor.digits(4), cursor.skip(ASCII.minus),
            let month = cursor.digits(2), cursor.skip(ASCII.minus),
            let day = cursor.digits(2)
        else { return nil }
        guard cursor.skip(ASCII.upperT) || cursor.skip(ASCII.lowerT) || cursor.skip(ASCII.space),
            let time = cursor.time()
        else { return nil }
        var fraction = 0.0
        if cursor.skip(ASCII.point) {
            guard fractionalSeconds != .forbidden, let value = cursor.fraction() else { return nil }
            fraction = value
        } else if fractionalSeconds == .required {
            return nil
        }
        guard let offset = cursor.iso8601Offset(), cursor.isAtEnd,
            let seconds = epochSeconds(year: year, month: month, day: day, time: time, offsetMinutes: offset)
        else { return nil }
        // Whole seconds are exact in a Double, so besides the fraction's own rounding the sum rounds only once;
        // for present-day dates and up to nine digits that gives the Double nearest to the written instant.
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Reads an HTTP IMF-fixdate, the RFC 1123 form of RFC 7231 §7.1.1.1: `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// Names are matched case-sensitively, as RFC 7231 specifies. Besides `GMT` the zone may be `UT`, `UTC`,
    /// `Z` or a numeric `±HHMM`, and the day may have one digit, as emails and older servers write them.
    /// The weekday must be the true weekday of the date: it is redundant, so a weekday that disagrees means
    /// the text was corrupted or built by hand, and guessing which field is wrong would hide that.
    package static func rfc1123(_ text: UnsafeRawBufferPointer) -> Date? {
        var cursor = Cursor(text: text)
        guard let weekday = cursor.name(in: Names.shortWeekdays), cursor.skip(ASCII.comma), cursor.skip(ASCII.space),
            let day = cursor.oneOrTwoDigits(), cursor.skip(ASCII.space),
            let month = cursor.name(in: Names.months), cursor.skip(ASCII.space),
            let year = cursor.digits(4), cursor.skip(ASCII.space),
            let time = cursor.time(), cursor.skip(ASCII.space),
            let offset = cursor.httpZone(), cursor.isAtEnd
        else { return nil }
        return httpDate(year: year, month: month + 1, day: day, time: time, offset: offset, weekday: weekday)
    }

    /// Reads the obsolete RFC 850 HTTP date: `Sunday, 06-Nov-94 08:49:37 GMT`.
    ///
    /// The year has two digits. RFC 7231 §7.1.1.1 says a year that appears more than 50 years in the future
    /// is the most recent past year with the same last two digits; "the future" is counted from
    /// `currentYear`, which is the current UTC year when nil (it is a parameter so tests can fix it).
    /// The zone is always `GMT` in this format. The weekday is checked against the date, as in `rfc1123`.
    package static func rfc850(_ text: UnsafeRawBufferPointer, currentYear: Int? = nil) -> Date? {
        var cursor = Cursor(text: text)
        guard let weekday = cursor.name(in: Names.longWeekdays), cursor.skip(ASCII.comma), cursor.skip(ASCII.space),
            let day = cursor.oneOrTwoDigits(), cursor.skip(ASCII.minus),
            let month = cursor.name(in: Names.months), cursor.skip(ASCII.minus),
            let shortYear = cursor.digits(2), cursor.skip(ASCII.space),
            let time = cursor.time(), cursor.skip(ASCII.space),
            cursor.skip(Names.gmt), cursor.isAtEnd
        else { return nil }
        // Only now that the text is known to be a date is the clock worth reading.
        let year = fullYear(twoDigits: shortYear, currentYear: currentYear ?? utcYear(of: Date()))
        return httpDate(year: year, month: month + 1, day: day, time: time, offset: 0, weekday: weekday)
    }

    /// Reads the C `asctime` form, the third HTTP date: `Sun Nov  6 08:49:37 1994`, always in UTC.
    ///
    /// The day is two characters wide, padded with a space or, as some writers do, a zero. The weekday is
    /// checked against the date, as in `rfc1123`.
    package static func asctime(_ text: UnsafeRawBufferPointer) -> Date? {
        var cursor = Cursor(text: text)
        guard let weekday = cursor.name(in: Names.shortWeekdays), cursor.skip(ASCII.space),
            let month = cursor.name(in: Names.months), cursor.skip(ASCII.space)
        else { return nil }
        let day = cursor.skip(ASCII.space) ? cursor.digits(1) : cursor.digits(2)
        guard let day, cursor.skip(ASCII.space),
            let time = cursor.time(), cursor.skip(ASCII.space),
            let year = cursor.digits(4), cursor.isAtEnd
        else { return nil }
        return httpDate(year: year, month: month + 1, day: day, time: time, offset: 0, weekday: weekday)
    }

    /// Reads a decimal number, the text of a JSON number or of a string holding one, as time since 1970 in
    /// units of `1 / scale` seconds: scale 1 for seconds, 1000 for milliseconds.
    ///
    /// The text must follow JSON's number grammar exactly (`-? int frac? exp?`): no sign `+`, no spaces, no
    /// `nan`, `inf` or hexadecimal. The number reader the decoder uses converts it (exactly for the usual
    /// timestamps, correctly rounded otherwise, without allocating). A result too large to be finite is nil.
    static func epochNumber(_ text: UnsafeRawBufferPointer, scale: Double) -> Date? {
        guard JSONNumberText.isNumber(text), let value = try? JSONNumberText.double(text) else { return nil }
        let seconds = value / scale
        guard seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    // MARK: - Calendar

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, negative before it. Valid for
    /// years from -399 on; the month and day must already be in range.
    ///
    /// The count runs in years that start on 1 March, so a leap day is always the last day of its counted
    /// year and the days before each month do not depend on leap years. The year is moved on by 400, one
    /// whole cycle of the leap rules (exactly 146 097 days, a whole number of weeks), so every division
    /// below works on positive numbers, where Swift's truncating division is also floor division.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let marchYear = (month <= 2 ? year - 1 : year) + 400
        let leapDays = marchYear / 4 - marchYear / 100 + marchYear / 400
        let monthIndex = (month + 9) % 12
        let dayOfMarchYear = daysBeforeMonthFromMarch[monthIndex] + day - 1
        return marchYear * 365 + leapDays + dayOfMarchYear - shiftedDaysTo1970
    }

    /// The Gregorian leap year rule: every fourth year, except centuries not divisible by 400.
    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The day of the week, Sunday being 0, of a day counted from 1970-01-01, which was a Thursday.
    static func weekday(daysSince1970 days: Int) -> Int {
        // `days % 7` is at least -6, so adding 4 (Thursday) and 7 keeps the dividend positive.
        (days % 7 + 11) % 7
    }

    /// The four-digit year of a two-digit one under RFC 7231's rule: in the current century, unless that is
    /// more than 50 years after `currentYear`, then in the century before.
    static func fullYear(twoDigits: Int, currentYear: Int) -> Int {
        let year = currentYear - currentYear % 100 + twoDigits
        return year > currentYear + 50 ? year - 100 : year
    }

    /// The UTC calendar year of an instant, clamped to 1...9999 so a clock far off cannot make trouble.
    static func utcYear(of date: Date) -> Int {
        let seconds = date.timeIntervalSince1970
        let firstDay = daysFromCivil(year: 1, month: 1, day: 1)
        let lastDay = daysFromCivil(year: 9999, month: 12, day: 31)
        // Comparing the Double before converting keeps a NaN or infinite clock from trapping in `Int(_:)`.
        guard seconds >= Double(firstDay) * 86_400 else { return 1 }
        guard seconds < Double(lastDay + 1) * 86_400 else { return 9999 }
        return civil(daysSince1970: Int((seconds / 86_400).rounded(.down))).year
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01: the inverse of
    /// ``daysFromCivil(year:month:day:)``.
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        // Counted in 400-year eras from 0000-03-01, so that leap days end each year.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `date` as ISO 8601 in UTC, `2024-02-29T12:00:00Z`, with `fractionalDigits` digits of
    /// fraction (0 or 3), truncated as Foundation's formatter does. Years 0001-9999 (the caller
    /// checks). Written into the string's own storage: no temporary strings.
    package static func iso8601String(_ date: Date, fractionalDigits: Int) -> String {
        // The fraction is rounded to the microsecond before milliseconds are cut: 0.001 s after a
        // whole second is stored just below it (doubles near 1.7e9 s are 0.2 µs apart), and
        // truncating that would write .000.
        let interval = date.timeIntervalSince1970
        var seconds = interval.rounded(.down)
        var milliseconds = Int(((interval - seconds) * 1_000_000).rounded()) / 1000
        if milliseconds >= 1000 {
            milliseconds -= 1000
            seconds += 1
        }
        let (days, secondOfDay) = dayAndSecond(ofWholeSeconds: Int(seconds))
        let (year, month, day) = civil(daysSince1970: days)
        let length = fractionalDigits > 0 ? 24 : 20
        return String(unsafeUninitializedCapacity: length) { buffer in
            var index = 0
            func put(_ value: Int, digits: Int) {
                var divisor = 1
                for _ in 1..<digits { divisor *= 10 }
                while divisor > 0 {
                    buffer[index] = ASCII.zero + UInt8(value / divisor % 10)
                    index += 1
                    divisor /= 10
                }
            }
            func put(_ byte: UInt8) {
                buffer[index] = byte
                index += 1
            }
            put(year, digits: 4)
            put(ASCII.minus)
            put(month, digits: 2)
            put(ASCII.minus)
            put(day, digits: 2)
            put(ASCII.upperT)
            put(secondOfDay / 3600, digits: 2)
            put(ASCII.colon)
            put(secondOfDay / 60 % 60, digits: 2)
            put(ASCII.colon)
            put(secondOfDay % 60, digits: 2)
            if fractionalDigits > 0 {
                put(ASCII.point)
                put(milliseconds, digits: 3)
            }
            put(ASCII.upperZ)
            return index
        }
    }

    /// Whole seconds since 1970 as a day since 1970 and a second of that day (0..<86 400),
    /// flooring for instants before 1970.
    static func dayAndSecond(ofWholeSeconds total: Int) -> (day: Int, second: Int) {
        let day = total / 86_400
        let second = total % 86_400
        return second < 0 ? (day - 1, second + 86_400) : (day, second)
    }

    /// The HTTP date formats the writer produces.
    package enum HTTPDateStyle {
        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        case rfc1123
        /// `Sunday, 06-Nov-94 08:49:37 GMT`
        case rfc850
        /// `Sun Nov  6 08:49:37 1994`
        case asctime
    }

    /// `date` in one of the HTTP date formats, in UTC, whole seconds (fractions dropped, as the
    /// formats have none). Years 0001-9999 (the caller checks); RFC 850 keeps two digits of the year.
    package static func httpDateString(_ date: Date, style: HTTPDateStyle) -> String {
        let (days, secondOfDay) = dayAndSecond(ofWholeSeconds: Int(date.timeIntervalSince1970.rounded(.down)))
        let (year, month, day) = civil(daysSince1970: days)
        let weekday = weekday(daysSince1970: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        func put(_ value: Int, digits: Int, pad: UInt8 = ASCII.zero) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var leading = true
            while divisor > 0 {
                let digit = value / divisor % 10
                leading = leading && digit == 0 && divisor > 1
                bytes.append(leading ? pad : ASCII.zero + UInt8(digit))
                divisor /= 10
            }
        }
        func put(_ text: [UInt8]) { bytes.append(contentsOf: text) }
        let time = {
            put(secondOfDay / 3600, digits: 2)
            bytes.append(ASCII.colon)
            put(secondOfDay / 60 % 60, digits: 2)
            bytes.append(ASCII.colon)
            put(secondOfDay % 60, digits: 2)
        }
        switch style {
        case .rfc1123:
            put(Names.shortWeekdays[weekday])
            put([ASCII.comma, ASCII.space])
            put(day, digits: 2)
            bytes.append(ASCII.space)
            put(Names.months[month - 1])
            bytes.append(ASCII.space)
            put(year, digits: 4)
            bytes.append(ASCII.space)
            time()
            put([ASCII.space] + Names.gmt)
        case .rfc850:
            put(Names.longWeekdays[weekday])
            put([ASCII.comma, ASCII.space])
            put(day, digits: 2)
            bytes.append(ASCII.minus)
            put(Names.months[month - 1])
            bytes.append(ASCII.minus)
            put(year % 100, digits: 2)
            bytes.append(ASCII.space)
            time()
            put([ASCII.space] + Names.gmt)
        case .asctime:
            put(Names.shortWeekdays[weekday])
            bytes.append(ASCII.space)
            put(Names.months[month - 1])
            bytes.append(ASCII.space)
            put(day, digits: 2, pad: ASCII.space)
            bytes.append(ASCII.space)
            time()
            bytes.append(ASCII.space)
            put(year, digits: 4)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Private

    private typealias Time = (hour: Int, minute: Int, second: Int)

    /// Days before each month in a year starting on 1 March: March, April, ..., January, February.
    private static let daysBeforeMonthFromMarch = [0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 306, 337]

    /// Days in each month of a common year, January first.
    private static let daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    /// `daysFromCivil`'s count, before subtracting this, for 1970-01-01.
    private static let shiftedDaysTo1970 = 865_565

    /// Exact powers of ten up to 10^19, the most fraction digits read (every one is exactly a Double).
    private static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    ]

    /// Seconds since 1970 of a civil date and time at an offset from UTC, or nil if any field is out of range.
    private static func epochSeconds(year: Int, month: Int, day: Int, time: Time, offsetMinutes: Int) -> Int? {
        guard (1...12).contains(month) else { return nil }
        let monthLength = month == 2 && isLeapYear(year) ? 29 : daysInMonth[month - 1]
        guard (1...monthLength).contains(day), time.hour <= 23, time.minute <= 59, time.second <= 60 else {
            return nil
        }
        let minuteOfDay = time.hour * 60 + time.minute
        if time.second == 60 {
            // Leap seconds are inserted at the end of a UTC day, so the minute in UTC must be 23:59.
            let utcMinuteOfDay = ((minuteOfDay - offsetMinutes) % 1440 + 1440) % 1440
            guard utcMinuteOfDay == 1439 else { return nil }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        // Second 60 simply counts on into the next minute.
        return days * 86_400 + (minuteOfDay - offsetMinutes) * 60 + time.second
    }

    /// An HTTP date's instant, nil unless the date is valid and falls on the weekday written.
    private static func httpDate(year: Int, month: Int, day: Int, time: Time, offset: Int, weekday: Int) -> Date? {
        guard let seconds = epochSeconds(year: year, month: month, day: day, time: time, offsetMinutes: offset)
        else { return nil }
        // epochSeconds has checked the date, so its days can be counted.
        let days = daysFromCivil(year: year, month: month, day: day)
        guard Self.weekday(daysSince1970: days) == weekday else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Byte values of the ASCII characters the formats use.
    private enum ASCII {
        static let zero = UInt8(ascii: "0")
        static let nine = UInt8(ascii: "9")
        static let minus = UInt8(ascii: "-")
        static let plus = UInt8(ascii: "+")
        static let point = UInt8(ascii: ".")
        static let colon = UInt8(ascii: ":")
        static let comma = UInt8(ascii: ",")
        static let space = UInt8(ascii: " ")
        static let upperT = UInt8(ascii: "T")
        static let lowerT = UInt8(ascii: "t")
        static let upperZ = UInt8(ascii: "Z")
        static let lowerZ = UInt8(ascii: "z")
    }

    /// The English names HTTP dates use, as bytes, in the order their index means (Sunday and January first).
    private enum Names {
        static let shortWeekdays = bytes(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"])
        static let longWeekdays = bytes(["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"])
        static let months = bytes(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])
        static let gmt = Array("GMT".utf8)
        static let utc = Array("UTC".utf8)
        static let ut = Array("UT".utf8)

        private static func bytes(_ names: [String]) -> [[UInt8]] {
            names.map { Array($0.utf8) }
        }
    }

    /// A read position in the text. Every read checks the bounds first, so a short text ends in nil rather
    /// than a trap, and a failed match leaves the position where it was.
    private struct Cursor {
        let text: UnsafeRawBufferPointer
        var index = 0

        init(text: UnsafeRawBufferPointer) {
            self.text = text
        }

        var isAtEnd: Bool { index >= text.count }

        /// The next byte, or nil at the end; the only place the text is read.
        func peek() -> UInt8? {
            guard index >= 0, index < text.count else { return nil }
            // Safe because 0 <= index < text.count was checked just above.
            return text[index]
        }

        /// Moves past `byte` if it comes next.
        mutating func skip(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        /// Moves past `word` if the text continues with exactly those bytes.
        mutating func skip(_ word: [UInt8]) -> Bool {
            let start = index
            for byte in word {
                guard skip(byte) else {
                    index = start
                    return false
                }
            }
            return true
        }

        /// Moves past one ASCII digit and returns its value, if a digit comes next.
        mutating func digit() -> Int? {
            guard let byte = peek(), byte >= ASCII.zero, byte <= ASCII.nine else { return nil }
            index += 1
            return Int(byte - ASCII.zero)
        }

        /// Reads exactly `count` digits as a decimal number.
        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        /// Reads a day of the month written with one or two digits.
        mutating func oneOrTwoDigits() -> Int? {
            guard let first = digit() else { return nil }
            guard let second = digit() else { return first }
            return first * 10 + second
        }

        /// Reads the index in `names` of the name that comes next.
        mutating func name(in names: [[UInt8]]) -> Int? {
            for position in names.indices {
                if skip(names[position]) { return position }
            }
            return nil
        }

        /// Reads `HH:MM:SS`; the ranges are checked later, with the rest of the date.
        mutating func time() -> Time? {
            guard let hour = digits(2), skip(ASCII.colon),
                let minute = digits(2), skip(ASCII.colon),
                let second = digits(2)
            else { return nil }
            return (hour, minute, second)
        }

        /// Reads the digits after a decimal point as a fraction of one.
        ///
        /// The first 19 digits fit a UInt64. With 15 digits or fewer (milli-, micro- and nanoseconds included)
        /// both the digits and the power of ten are exact Doubles, so the one division rounds correctly; longer
        /// fractions round twice, far below what a `Date` can hold. Later digits are worth less than 10^-19 s,
        /// so they only need to be digits.
        mutating func fraction() -> Double? {
            var value: UInt64 = 0
            var count = 0
            while let digit = digit() {
                if count < 19 { value = value * 10 + UInt64(digit) }
                count += 1
            }
            guard count > 0 else { return nil }
            return Double(value) / JSONDateText.powersOfTen[min(count, 19)]
        }

        /// Reads an ISO 8601 zone, `Z` or `±HH[[:]MM]`, as minutes east of UTC.
        mutating func iso8601Offset() -> Int? {
            if skip(ASCII.upperZ) || skip(ASCII.lowerZ) { return 0 }
            guard let sign = signedOne(), let hours = digits(2) else { return nil }
            var minutes = 0
            if skip(ASCII.colon) {
                guard let value = digits(2) else { return nil }
                minutes = value
            } else if peek() != nil {
                guard let value = digits(2) else { return nil }
                minutes = value
            }
            return offset(sign: sign, hours: hours, minutes: minutes)
        }

        /// Reads an HTTP or email zone, `GMT`, `UTC`, `UT`, `Z` or `±HHMM`, as minutes east of UTC.
        mutating func httpZone() -> Int? {
            if skip(Names.gmt) || skip(Names.utc) || skip(Names.ut) || skip(ASCII.upperZ) { return 0 }
            guard let sign = signedOne(), let hours = digits(2), let minutes = digits(2) else { return nil }
            return offset(sign: sign, hours: hours, minutes: minutes)
        }

        /// Reads `+` as 1 or `-` as -1.
        private mutating func signedOne() -> Int? {
            if skip(ASCII.plus) { return 1 }
            if skip(ASCII.minus) { return -1 }
            return nil
        }

        private func offset(sign: Int, hours: Int, minutes: Int) -> Int? {
            guard hours <= 23, minutes <= 59 else { return nil }
            return sign * (hours * 60 + minutes)
        }
    }
}
