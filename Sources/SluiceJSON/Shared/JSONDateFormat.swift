// The date formats both coders know: the decoders read them, the encoder writes them.

/// A date format that Sluice reads without a `DateFormatter`, except ``pattern(_:)``.
public enum JSONDateFormat: Sendable, Hashable {
    /// `2024-02-29T12:30:00Z`, `2024-02-29T12:30:00.125+01:00`: ISO 8601's internet profile
    /// (RFC 3339), fractional seconds optional; `t`, `z` and a space for `T` accepted.
    case iso8601
    /// As ``iso8601`` with fractional seconds required.
    case iso8601WithFractionalSeconds
    /// RFC 1123 (HTTP dates): `Sun, 06 Nov 1994 08:49:37 GMT`.
    case rfc1123
    /// RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`.
    case rfc850
    /// C's `asctime`: `Sun Nov  6 08:49:37 1994`, in UTC.
    case asctime
    /// Seconds since 1970, as a number or a string holding one.
    case secondsSince1970
    /// Milliseconds since 1970, as a number or a string holding one.
    case millisecondsSince1970
    /// A `DateFormatter` pattern such as `yyyy-MM-dd`, read in `en_US_POSIX` and UTC. One
    /// formatter per pattern is made per decode and reused.
    case pattern(String)
}
