import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTestServer
import Testing

@testable import SluiceHTTP

/// Servers that never finish: each ends in a clear error, in bounded time and memory.
@Suite struct HostileServerTests {
    @Test func aBodyThatNeverEndsStopsAtTheBodyTimeout() async throws {
        try await withServer { server, client in
            var client = client
            client.bodyTimeout = .seconds(2)
            let started = ContinuousClock.now
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch([Linked<Article>].self, at: server.url("/trickle"))
            }
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timedOut)
            #expect(
                (error?.underlying as? HTTPTransportError)?.message
                    == "the body was still arriving when the body timeout ran out"
            )
            // A space every 50 ms: about 40 bytes in 2 s, never the whole of memory.
            #expect((error?.bytesRead ?? .max) < 4096)
            // The read timeout (30 s by default) never fires on a trickle; the body timeout did (the
            // message says so). The bound only catches a hang: it counts from before the request, and
            // under the whole suite's parallel load the request has taken 21 s in all.
            #expect(elapsed < .seconds(60), "took \(elapsed)")
        }
    }

    @Test func aNextLinkToAServerThatAnswersSlowlyForeverEndsAfterTheFirstPage() async throws {
        try await withServer { server, client in
            var client = client
            client.bodyTimeout = .seconds(2)
            let started = ContinuousClock.now
            var identities: [String] = []
            let error = await #expect(throws: JSONAPIClientError.self) {
                for try await streamed in client.resources(at: server.url("/slow/articles")) {
                    identities.append(streamed.resource.id ?? "-")
                }
            }
            let elapsed = ContinuousClock.now - started
            // The first page's resources arrive; the second page never completes, one resource at most.
            #expect(Array(identities.prefix(2)) == ["1", "2"])
            #expect(identities.count <= 3)
            #expect(error?.kind == .timedOut)
            #expect(error?.request.hasSuffix("/slow/forever") == true, "\(error?.request ?? "")")
            #expect(elapsed < .seconds(60), "took \(elapsed)")
        }
    }
}
