import Foundation
import SluiceJSONAPI
import SluiceTestServer
import Testing

@testable import SluiceHTTP

/// Requests sent again after failures that say "later", against a server on loopback.
@Suite("Retries")
struct RetryTests {
    static func client(_ server: JSONAPITestServer, _ policy: RetryPolicy = RetryPolicy()) -> JSONAPIClient {
        var client = JSONAPIClient(baseURL: server.baseURL)
        client.retryPolicy = policy
        return client
    }

    static func count(_ server: JSONAPITestServer, _ path: String) -> Int {
        server.log.requests.filter { $0.path == path }.count
    }

    @Test("a 503 with Retry-After: 0 is sent again and succeeds; with retries off it fails at once")
    func serviceUnavailable() async throws {
        try await JSONAPITestServer.with { server in
            let url = server.url("/flaky/articles")
            let body = try await Self.client(server).documentBody(at: url)
            #expect(body != nil)
            #expect(Self.count(server, "/flaky/articles") == 2)
            do {
                _ = try await Self.client(server, .none).documentBody(at: url)
                Issue.record("no error with retries off")
            } catch let error as JSONAPIClientError {
                #expect(error.kind == .status)
                #expect(error.status == 503)
            }
            #expect(Self.count(server, "/flaky/articles") == 3)
        }
    }

    @Test("a 429 whose Retry-After is an HTTP date waits until then")
    func throttled() async throws {
        try await JSONAPITestServer.with { server in
            let started = ContinuousClock.now
            let body = try await Self.client(server).documentBody(at: server.url("/throttled/articles"))
            #expect(body != nil)
            #expect(Self.count(server, "/throttled/articles") == 2)
            // The date is a second ahead, at whole-second precision: a wait of about that, well
            // under the policy's 30-second ceiling on one wait. (A loaded machine stretches it:
            // under a full parallel run it has taken over 5 s.)
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }

    @Test("retries stop after the policy's number, with the last answer's error")
    func givesUp() async throws {
        try await JSONAPITestServer.with { server in
            let policy = RetryPolicy(maximumRetries: 2, initialDelay: .milliseconds(10))
            await #expect(throws: JSONAPIClientError.self) {
                _ = try await Self.client(server, policy).documentBody(at: server.url("/unavailable/articles"))
            }
            #expect(Self.count(server, "/unavailable/articles") == 3)
        }
    }

    @Test("a POST is not sent twice unless the policy says so")
    func notIdempotent() async throws {
        try await JSONAPITestServer.with { server in
            var client = Self.client(server)
            client.retryPolicy.initialDelay = .milliseconds(10)
            let document = Data(#"{"data":{"type":"articles","attributes":{"title":"t"}}}"#.utf8)
            let url = server.url("/flaky/articles")
            await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.send(.post, url, body: document, options: JSONAPIClient.RequestOptions())
            }
            #expect(Self.count(server, "/flaky/articles") == 1)
            client.retryPolicy.retriesNonIdempotent = true
            client.retryPolicy.maximumRetries = 2
            await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.send(.post, url, body: document, options: JSONAPIClient.RequestOptions())
            }
            #expect(Self.count(server, "/flaky/articles") == 4)
        }
    }

    @Test("a refused connection is retried, then reported as a transport failure")
    func refused() async throws {
        var client = JSONAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!)
        client.retryPolicy = RetryPolicy(maximumRetries: 2, initialDelay: .milliseconds(10))
        // AsyncHTTPClient tries a refused connection again until the request's deadline.
        client.timeout = .seconds(1)
        let started = ContinuousClock.now
        do {
            _ = try await client.documentBody(at: URL(string: "http://127.0.0.1:9/articles")!)
            Issue.record("connected to port 9")
        } catch let error as JSONAPIClientError {
            #expect(error.kind == .transport)
        }
        #expect(ContinuousClock.now - started >= .milliseconds(10))
    }

    @Test("delays: exponential with jitter, capped, Retry-After in seconds or as a date, within the total")
    func delays() throws {
        let policy = RetryPolicy(
            maximumRetries: 4,
            initialDelay: .seconds(1),
            maximumDelay: .seconds(3),
            maximumTotalWait: .seconds(10)
        )
        for retry in 1...4 {
            let delay = try #require(policy.delay(beforeRetry: retry, retryAfter: nil, waited: .zero))
            let step = min(Double(1 << (retry - 1)), 3)
            let seconds = RetryPolicy.seconds(delay)
            #expect(seconds <= step && seconds >= min(Double(1 << (retry - 1)) / 2, 3), "retry \(retry): \(seconds)")
        }
        #expect(policy.delay(beforeRetry: 5, retryAfter: nil, waited: .zero) == nil)
        #expect(policy.delay(beforeRetry: 1, retryAfter: "2", waited: .zero) == .seconds(2))
        #expect(policy.delay(beforeRetry: 1, retryAfter: "120", waited: .zero) == .seconds(3))
        #expect(policy.delay(beforeRetry: 1, retryAfter: "Fri, 31 Dec 9999 23:59:59 GMT", waited: .zero) == .seconds(3))
        #expect(policy.delay(beforeRetry: 1, retryAfter: "2", waited: .seconds(9)) == nil)
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.seconds(retryAfter: "Sun, 06 Nov 1994 08:49:39 GMT", now: now) == 2)
        #expect(RetryPolicy.seconds(retryAfter: "Sun, 06 Nov 1994 08:49:30 GMT", now: now) == 0)
        #expect(RetryPolicy.seconds(retryAfter: "soon", now: now) == nil)
        #expect(!RetryPolicy().allows(.post) && !RetryPolicy().allows(.patch) && RetryPolicy().allows(.delete))
        #expect(!RetryPolicy.none.allows(.get))
    }
}
