import Foundation
import HTTPTypes
import SluiceJSON

/// When and how long ``JSONAPIClient`` waits before sending a request again: after a failure to
/// connect or a response head that did not come (a transport error or timeout before the
/// response), and after statuses that say "later" (429, 502, 503, 504).
///
/// Delays grow exponentially from ``initialDelay``, each chosen at random between half and the
/// whole of its step (so that many clients do not return at once), never past ``maximumDelay``;
/// a `Retry-After` header, in seconds or as an HTTP date, takes the place of the step. The
/// waits of one request add up to at most ``maximumTotalWait``: a server that asks for longer
/// gets the error at once. Requests that are not idempotent (`POST`, `PATCH`) are sent once
/// unless ``retriesNonIdempotent`` says otherwise: a second `POST` may create a second resource.
///
/// ```swift
/// client.retryPolicy = RetryPolicy(maximumRetries: 5, maximumTotalWait: .seconds(300))
/// client.retryPolicy = .none   // every failure at once
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Sends after the first, at most. Default: 3.
    public var maximumRetries: Int
    /// The first delay; each later step twice the one before, each delay at random between half
    /// and the whole of its step. Default: half a second.
    public var initialDelay: Duration
    /// The longest single delay, `Retry-After` included. Default: 30 seconds.
    public var maximumDelay: Duration
    /// The most time one request's retries may wait in all. Default: 2 minutes.
    public var maximumTotalWait: Duration
    /// The statuses that are retried. Default: 429, 502, 503 and 504.
    public var statuses: Set<Int>
    /// Whether `POST` and `PATCH` requests are retried too. Default: `false`.
    public var retriesNonIdempotent: Bool

    /// A policy; each argument defaults to the value its property documents.
    public init(
        maximumRetries: Int = 3,
        initialDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30),
        maximumTotalWait: Duration = .seconds(120),
        statuses: Set<Int> = [429, 502, 503, 504],
        retriesNonIdempotent: Bool = false
    ) {
        precondition(maximumRetries >= 0, "maximumRetries must not be negative")
        self.maximumRetries = maximumRetries
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumTotalWait = maximumTotalWait
        self.statuses = statuses
        self.retriesNonIdempotent = retriesNonIdempotent
    }

    /// No retries: every failure is reported at once.
    public static let none = RetryPolicy(maximumRetries: 0)

    /// Whether a request with `method` may be sent again.
    func allows(_ method: HTTPRequest.Method) -> Bool {
        maximumRetries > 0 && (retriesNonIdempotent || (method != .post && method != .patch))
    }

    /// How long to wait before retry number `retry` (1 for the first), given the server's
    /// `Retry-After` value if any; `nil` when the policy gives up (too many retries, or a wait
    /// past what is left of ``maximumTotalWait``).
    func delay(beforeRetry retry: Int, retryAfter: String?, waited: Duration, now: Date = Date()) -> Duration? {
        guard retry <= maximumRetries else { return nil }
        var delay: Duration
        if let retryAfter, let asked = Self.seconds(retryAfter: retryAfter, now: now) {
            // Clamped before converting: a date centuries ahead would overflow the milliseconds.
            delay = .milliseconds(Int64((min(asked, Self.seconds(maximumDelay)) * 1000).rounded(.up)))
        } else {
            let step = initialDelay * (1 << min(retry - 1, 30))
            // Full steps halved at random: between half and the whole step.
            let fraction = Double.random(in: 0.5...1)
            delay = .milliseconds(Int64((Self.seconds(step) * 1000 * fraction).rounded()))
        }
        delay = min(delay, maximumDelay)
        guard waited + delay <= maximumTotalWait else { return nil }
        return delay
    }

    /// A `Retry-After` value as seconds from `now`: a number of seconds, or an HTTP date.
    static func seconds(retryAfter text: String, now: Date) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return Double(seconds) }
        let date = Array(trimmed.utf8).withUnsafeBytes { JSONDateText.rfc1123($0) }
        guard let date else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
