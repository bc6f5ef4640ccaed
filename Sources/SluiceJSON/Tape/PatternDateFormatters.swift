// The `DateFormatter`s of `.pattern` dates, which the decoder and the encoder share.

import Foundation

/// The formatters of one decode's or encode's `JSONDateFormat.pattern` dates, one per pattern,
/// each in `en_US_POSIX` and UTC. Why kept: making a `DateFormatter` costs far more than
/// formatting or reading one date with it.
struct PatternDateFormatters {
    private var formatters: [String: DateFormatter] = [:]

    /// The formatter for `pattern`, made on its first use.
    mutating func formatter(for pattern: String) -> DateFormatter {
        if let formatter = formatters[pattern] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = pattern
        formatters[pattern] = formatter
        return formatter
    }
}
