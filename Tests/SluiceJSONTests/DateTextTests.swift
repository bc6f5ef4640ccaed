import Foundation
import Testing

@testable import SluiceJSON

/// Dates read straight from UTF-8 bytes. Expected instants were computed independently (GNU `date -u` and
/// Foundation's `ISO8601DateFormatter` and `DateFormatter` with `en_US_POSIX`), never by the code under test.
@Suite("Date text")
struct DateTextTests {
    /// Hands the UTF-8 bytes of `text` to `read`, as the decoder hands over the bytes of a token.
    private static func read(_ text: String, _ read: (UnsafeRawBufferPointer) -> Date?) -> Date? {
        Array(text.utf8).withUnsafeBytes(read)
    }

    private static func iso8601(_ text: String, _ fraction: JSONDateText.FractionalSeconds = .optional) -> Date? {
        read(text) { JSONDateText.iso8601($0, fractionalSeconds: fraction) }
    }

    private static func epoch(_ text: String, scale: Double) -> Date? {
        read(text) { JSONDateText.epochNumber($0, scale: scale) }
    }

    // MARK: ISO 8601

    @Test(
        "ISO 8601 date-times read to the exact instant, in every zone spelling",
        arguments: [
            ("1970-01-01T00:00:00Z", 0),
            ("1994-11-06T08:49:37Z", 784_111_777),
            ("1994-11-06t08:49:37z", 784_111_777),
            ("1994-11-06 08:49:37Z", 784_111_777),
            ("1994-11-06T08:49:37+00:00", 784_111_777),
            ("1994-11-06T08:49:37-00:00", 784_111_777),
            ("1994-11-06T08:49:37-05:00", 784_129_777),
            ("1994-11-06T08:49:37-0500", 784_129_777),
            ("1994-11-06T08:49:37+05:30", 784_091_977),
            ("1994-11-06T08:49:37+0530", 784_091_977),
            ("1994-11-06T08:49:37-03", 784_122_577),
            ("1994-11-06T08:49:37+23:59", 784_025_437),
            ("1994-11-06T08:49:37-23:59", 784_198_117),
            ("2000-02-29T12:00:00+01:00", 951_822_000),
            ("1969-12-31T23:59:59Z", -1),
            ("1900-03-01T00:00:00Z", -2_203_891_200),
            ("0000-01-01T00:00:00Z", -62_167_219_200),
            ("9999-12-31T23:59:59Z", 253_402_300_799),
        ] as [(String, Double)]
    )
    func iso8601Valid(text: String, expected: Double) {
        #expect(Self.iso8601(text) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "ISO 8601 fractions of 1 to 9 digits and more keep full Double precision, not milliseconds",
        arguments: [
            ("1994-11-06T08:49:37.5Z", 784_111_777.5),
            ("2024-01-01T00:00:00.1Z", 1_704_067_200.1),
            ("2024-01-01T00:00:00.123Z", 1_704_067_200.123),
            ("2024-01-01T00:00:00.123456Z", 1_704_067_200.123456),
            ("2024-01-01T00:00:00.123456789Z", 1_704_067_200.123456789),
            ("2024-01-01T00:00:00.1234567890123456789012Z", 1_704_067_200.123456789),
            ("2024-01-01T01:00:00.000001+01:00", 1_704_067_200.000001),
            ("1969-12-31T23:59:59.25Z", -0.75),
            ("0000-01-01T00:00:00.5Z", -62_167_219_199.5),
        ] as [(String, Double)]
    )
    func iso8601Fractions(text: String, expected: Double) {
        #expect(Self.iso8601(text) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "a leap second is accepted only at 23:59 UTC and reads as the next minute's first second",
        arguments: [
            ("2016-12-31T23:59:60Z", 1_483_228_800),
            ("2016-12-31T15:59:60-08:00", 1_483_228_800),
            ("2017-01-01T05:29:60+05:30", 1_483_228_800),
            ("1990-12-31T23:59:60.5Z", 662_688_000.5),
        ] as [(String, Double)]
    )
    func iso8601LeapSecond(text: String, expected: Double) {
        #expect(Self.iso8601(text) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "leap years follow the Gregorian rule: every fourth year, except centuries not divisible by 400",
        arguments: [
            (2000, true), (2024, true), (1600, true), (0, true), (4, true),
            (1900, false), (2023, false), (2100, false), (1, false),
        ]
    )
    func leapYears(year: Int, isLeap: Bool) {
        #expect(JSONDateText.isLeapYear(year) == isLeap)
        let text = String(format: "%04d-02-29T00:00:00Z", year)
        #expect((Self.iso8601(text) != nil) == isLeap, "\(text)")
        #expect(Self.iso8601(String(format: "%04d-02-28T00:00:00Z", year)) != nil)
    }

    @Test(
        "an ISO 8601 text with a field out of range, an impossible date, a missing part or extra text is nil",
        arguments: [
            // Days that do not exist.
            "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
            "2024-01-32T00:00:00Z", "2024-01-00T00:00:00Z",
            // Each field out of range.
            "2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T12:60:00Z",
            "2024-01-01T12:00:61Z", "2024-01-01T12:00:99Z", "2024-01-01T12:00:00+24:00", "2024-01-01T12:00:00+05:60",
            // A leap second anywhere but 23:59 UTC.
            "2016-12-31T12:59:60Z", "2016-12-31T23:58:60Z", "2016-12-31T23:59:60+01:00",
            // Missing parts.
            "", "2024-01-01", "2024-01-01T12:00Z", "2024-01-01T12:00:00", "2024-01-01T12:00:00.Z",
            "2024-01-01T12:00:00+", "2024-01-01T12:00:00+05:", "2024-01-01T12:00:00+5", "2024-01-01T12:00:00+05:0",
            "2024-01-0112:00:00Z", "2024-01-01T12:00:0Z",
            // Other spellings that are not RFC 3339.
            "2024-1-01T12:00:00Z", "24-01-01T12:00:00Z", "20240101T120000Z", "12024-01-01T12:00:00Z",
            "2024-01-01T12:00:00,5Z", "2024-01-01_12:00:00Z", "2024/01/01T12:00:00Z", "2024-01-01T12:00:00 Z",
            "+2024-01-01T12:00:00Z",
            // Extra text.
            " 2024-01-01T12:00:00Z", "2024-01-01T12:00:00Z ", "2024-01-01T12:00:00Zx", "2024-01-01T12:00:00+01:00:00",
            "2024-01-01T12:00:00+0100x", "2024-01-01T12:00:00ZZ", "\"2024-01-01T12:00:00Z\"",
        ]
    )
    func iso8601Invalid(text: String) {
        #expect(Self.iso8601(text) == nil)
    }

    @Test("fractional seconds are forbidden, optional or required as asked")
    func fractionalSecondsOption() {
        let whole = "2024-01-01T00:00:00Z"
        let fractional = "2024-01-01T00:00:00.25Z"
        #expect(Self.iso8601(whole, .forbidden) == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(Self.iso8601(fractional, .forbidden) == nil)
        #expect(Self.iso8601(whole, .optional) == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(Self.iso8601(fractional, .optional) == Date(timeIntervalSince1970: 1_704_067_200.25))
        #expect(Self.iso8601(whole, .required) == nil)
        #expect(Self.iso8601(fractional, .required) == Date(timeIntervalSince1970: 1_704_067_200.25))
    }

    @Test("days from civil count every day without a gap, from 1599 to 2401, and agree at the ends of 0000-9999")
    func daysFromCivil() {
        var expected = JSONDateText.daysFromCivil(year: 1599, month: 1, day: 1)
        for year in 1599...2401 {
            for month in 1...12 {
                let length = [31, JSONDateText.isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
                for day in 1...length[month - 1] {
                    #expect(JSONDateText.daysFromCivil(year: year, month: month, day: day) == expected)
                    expected += 1
                }
            }
        }
        #expect(JSONDateText.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(JSONDateText.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
        #expect(JSONDateText.daysFromCivil(year: 0, month: 1, day: 1) == -719_528)
        #expect(JSONDateText.daysFromCivil(year: 9999, month: 12, day: 31) == 2_932_896)
        // 1970-01-01 was a Thursday, 2000-01-01 a Saturday, 0000-01-01 (proleptic) a Saturday.
        #expect(JSONDateText.weekday(daysSince1970: 0) == 4)
        #expect(JSONDateText.weekday(daysSince1970: -1) == 3)
        #expect(JSONDateText.weekday(daysSince1970: 10_957) == 6)
        #expect(JSONDateText.weekday(daysSince1970: -719_528) == 6)
    }

    // MARK: HTTP dates

    @Test(
        "RFC 1123 dates read in GMT, UT, UTC, Z and numeric zones, with a one- or two-digit day",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
            ("Sun, 6 Nov 1994 08:49:37 GMT", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 UT", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 UTC", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 Z", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 +0000", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 -0500", 784_129_777),
            ("Sun, 06 Nov 1994 14:19:37 +0530", 784_111_777),
            ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
            ("Sat, 31 Dec 2016 23:59:60 GMT", 1_483_228_800),
            ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ] as [(String, Double)]
    )
    func rfc1123Valid(text: String, expected: Double) {
        #expect(Self.read(text, JSONDateText.rfc1123) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "an RFC 1123 date with a wrong weekday, an impossible date or another spelling is nil",
        arguments: [
            // The weekday must be the date's: 6 November 1994 was a Sunday.
            "Mon, 06 Nov 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sunday, 06 Nov 1994 08:49:37 GMT",
            // Impossible dates and times; 1 March 1900 was a Thursday, so only the leap rule rejects this one.
            "Thu, 29 Feb 1900 00:00:00 GMT", "Thu, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49:60 GMT", "Sun, 06 Nov 1994 08:49:37 +2400", "Sun, 06 Nov 1994 08:49:37 +0060",
            // Other spellings.
            "sun, 06 nov 1994 08:49:37 gmt", "Sun, 06 Nov 94 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 November 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 EST", "Sun, 06 Nov 1994 08:49:37 +05",
            "Sun, 006 Nov 1994 08:49:37 GMT", "Sun,  6 Nov 1994 08:49:37 GMT",
            // Missing or extra text.
            "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ",
            "Sun, 06 Nov 1994 08:49:37 GMTx", "1994-11-06T08:49:37Z",
        ]
    )
    func rfc1123Invalid(text: String) {
        #expect(Self.read(text, JSONDateText.rfc1123) == nil)
    }

    @Test(
        "a two-digit year more than 50 years ahead of the current year is in the previous century (RFC 7231)",
        arguments: [
            (94, 2025, 1994), (75, 2025, 2075), (76, 2025, 1976), (25, 2025, 2025), (0, 2025, 2000),
            (99, 2025, 1999), (70, 2019, 1970), (69, 2019, 2069), (99, 2050, 2099), (1, 2099, 2001),
            (51, 2000, 1951), (50, 2000, 2050),
        ]
    )
    func twoDigitYears(twoDigits: Int, currentYear: Int, expected: Int) {
        #expect(JSONDateText.fullYear(twoDigits: twoDigits, currentYear: currentYear) == expected)
    }

    @Test(
        "RFC 850 dates resolve their two-digit year, then must fall on the weekday written",
        arguments: [
            ("Sunday, 06-Nov-94 08:49:37 GMT", 2025, 784_111_777),
            ("Sunday, 6-Nov-94 08:49:37 GMT", 2025, 784_111_777),
            ("Thursday, 01-Jan-70 00:00:00 GMT", 2019, 0),
            ("Tuesday, 29-Feb-00 12:00:00 GMT", 2025, 951_825_600),
            // "40" is 2040 from 2025, a Sunday, but 1940 from 1985, a Monday.
            ("Sunday, 01-Jan-40 00:00:00 GMT", 2025, 2_208_988_800),
            ("Monday, 01-Jan-40 00:00:00 GMT", 1985, -946_771_200),
        ] as [(String, Int, Double)]
    )
    func rfc850Valid(text: String, currentYear: Int, expected: Double) {
        let date = Self.read(text) { JSONDateText.rfc850($0, currentYear: currentYear) }
        #expect(date == Date(timeIntervalSince1970: expected))
    }

    @Test("RFC 850 reads the current year from the clock when none is given")
    func rfc850CurrentYear() {
        // 1994 is the answer from 1944 to 2143, whatever the clock says today.
        let date = Self.read("Sunday, 06-Nov-94 08:49:37 GMT") { JSONDateText.rfc850($0) }
        #expect(date == Date(timeIntervalSince1970: 784_111_777))
        #expect(JSONDateText.utcYear(of: Date(timeIntervalSince1970: 784_111_777)) == 1994)
        #expect(JSONDateText.utcYear(of: Date(timeIntervalSince1970: -1)) == 1969)
        #expect(JSONDateText.utcYear(of: Date(timeIntervalSince1970: 1_704_067_199)) == 2023)
        #expect(JSONDateText.utcYear(of: Date(timeIntervalSince1970: 1_704_067_200)) == 2024)
    }

    @Test(
        "an RFC 850 date with a wrong weekday, an impossible date or another spelling is nil",
        arguments: [
            "Monday, 01-Jan-40 00:00:00 GMT", "Sun, 06-Nov-94 08:49:37 GMT", "Sunday, 06 Nov 94 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 +0000",
            "Saturday, 31-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37", "Sunday, 06-Nov-94 08:49:37 GMT ",
            "sunday, 06-nov-94 08:49:37 GMT", "",
        ]
    )
    func rfc850Invalid(text: String) {
        #expect(Self.read(text) { JSONDateText.rfc850($0, currentYear: 2025) } == nil)
    }

    @Test(
        "asctime dates read with a space- or zero-padded day",
        arguments: [
            ("Sun Nov  6 08:49:37 1994", 784_111_777),
            ("Sun Nov 06 08:49:37 1994", 784_111_777),
            ("Tue Feb 29 12:00:00 2000", 951_825_600),
            ("Thu Jan  1 00:00:00 1970", 0),
        ] as [(String, Double)]
    )
    func asctimeValid(text: String, expected: Double) {
        #expect(Self.read(text, JSONDateText.asctime) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "an asctime date with a wrong weekday, an impossible date or another spelling is nil",
        arguments: [
            "Mon Nov  6 08:49:37 1994", "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37 94",
            "Sun Nov  6 08:49:37 1994 GMT", "Thu Feb 29 00:00:00 1900", "Sun, Nov  6 08:49:37 1994",
            "Sun Nov   6 08:49:37 1994", "Sun Nov  6 8:49:37 1994", "",
        ]
    )
    func asctimeInvalid(text: String) {
        #expect(Self.read(text, JSONDateText.asctime) == nil)
    }

    // MARK: Epoch numbers

    @Test(
        "numbers read as seconds or milliseconds since 1970",
        arguments: [
            ("1700000000", 1, 1_700_000_000),
            ("1700000000.5", 1, 1_700_000_000.5),
            ("-12", 1, -12),
            ("1.7e9", 1, 1_700_000_000),
            ("1.7E+9", 1, 1_700_000_000),
            ("17e-1", 1, 1.7),
            ("0", 1, 0),
            ("-0", 1, 0),
            ("0.25", 1, 0.25),
            ("999999999999999", 1, 999_999_999_999_999),
            ("12345678901234567890", 1, 1.234_567_890_123_456_7e19),
            ("1700000000123", 1000, 1_700_000_000.123),
            ("1700000000123.5", 1000, 1_700_000_000.1235),
            ("-1500", 1000, -1.5),
            ("1.5e3", 1000, 1.5),
        ] as [(String, Double, Double)]
    )
    func epochValid(text: String, scale: Double, expected: Double) {
        #expect(Self.epoch(text, scale: scale) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "text that is not a plain decimal number, or too large to be finite, is not a timestamp",
        arguments: [
            "", " 1", "1 ", "+1", "01", "-01", "1.", ".5", "-", "1e", "1e+", "1.e5", "--1", "1.5.5", "1,5", "1_000",
            "nan", "NaN", "inf", "-infinity", "0x10", "1e400", "\u{0661}", "1700000000Z",
        ]
    )
    func epochInvalid(text: String) {
        #expect(Self.epoch(text, scale: 1) == nil)
        #expect(Self.epoch(text, scale: 1000) == nil)
    }
}
