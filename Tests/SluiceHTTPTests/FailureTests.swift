import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTestServer
import SluiceURLSession
import Testing

@testable import SluiceHTTP

@Suite struct FailureTests {
    @Test func anErrorDocumentBecomesATypedErrorWithItsObjects() async throws {
        try await withServer { _, client in
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch(Article.self, id: "999")
            }
            #expect(error?.kind == .status)
            #expect(error?.status == 404)
            #expect(error?.errors.first?.code == "not_found")
            #expect(error?.errors.first?.source?.parameter == "id")
            #expect(error?.meta?["request"] == .string("r-1"))
            #expect(error?.headers[.contentType] == "application/vnd.api+json")
            #expect(
                error?.description.hasSuffix(
                    "/articles/999: the server answered 404 Not Found with 1 error: 404 [not_found] Not Found - No article has id 999. (parameter id)"
                ) == true
            )
        }
    }

    @Test func nonJSONAPIBodiesAreReportedWithTheirStart() async throws {
        try await withServer { server, client in
            let gateway = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch(NoPrimaryData.self, at: server.url("/errors/html"))
            }
            #expect(gateway?.kind == .status)
            #expect(gateway?.status == 502)
            #expect(gateway?.body == "<html><body>Bad gateway</body></html>")
            let login = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch([Linked<Article>].self, at: server.url("/login"))
            }
            #expect(login?.kind == .unsupportedContentType)
            #expect(login?.description.contains("text/html; charset=utf-8: <html><body>Please sign in") == true)
            // Plain application/json is read: many servers send it.
            let plain = try await client.fetch([Linked<Article>].self, at: server.url("/plain-json/articles"))
            #expect(plain.document.data.count == 1)
        }
    }

    @Test func aMalformedBodyNamesItsPositionAndPointer() async throws {
        try await withServer(chunkSize: 5) { server, client in
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch([Linked<Article>].self, at: server.url("/malformed/articles"))
            }
            #expect(error?.kind == .invalidDocument)
            let underlying = try #require(error?.underlying as? JSONAPIDecodingError)
            #expect(underlying.pointer == "/data/1/id")
            #expect(underlying.position?.line == 2)
        }
    }

    @Test func noContentMeansNoDocument() async throws {
        try await withServer { _, client in
            let result = try await client.delete(type: "articles", id: "1")
            #expect(result.status == 204)
            #expect(result.document == nil)
        }
    }

    @Test func aStalledBodyTimesOutWithTheBytesRead() async throws {
        let transport = AsyncHTTPClientTransport(readTimeout: .seconds(2))
        do {
            try await withServer { server, client in
                var client = client
                client.transport = transport
                let error = await #expect(throws: JSONAPIClientError.self) {
                    _ = try await client.fetch([Linked<Article>].self, at: server.url("/stall"))
                }
                // The stall lasts 8 s and then ends the body, which would be an invalid document:
                // a timeout is the read timeout (2 s) at work, after the first 9 bytes.
                #expect(error?.kind == .timedOut)
                #expect(error?.bytesRead == 9)

            }
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    @Test func aTruncatedBodyIsATransportFailureNotAShortDocument() async throws {
        try await withServer { server, client in
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch([Linked<Article>].self, at: server.url("/truncated"))
            }
            #expect(error?.kind == .transport)
            #expect(error?.bytesRead ?? 0 > 0)
        }
    }

    @Test func theBodyLimitStopsReading() async throws {
        try await withServer { server, client in
            var client = client
            client.maximumBodyBytes = 1 << 20
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch([Linked<Article>].self, at: server.url("/huge"))
            }
            #expect(error?.kind == .bodyTooLarge)
            #expect(error?.limit == 1 << 20)
            #expect((error?.bytesRead ?? 0) <= (1 << 20) + 64 * 1024)
        }
    }

    @Test func cancellingMidStreamStopsTheRequest() async throws {
        try await withServer { server, client in
            let task = Task {
                var count = 0
                for try await _ in client.resources(at: server.url("/endless")) {
                    count += 1
                    if count == 50 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return count
            }
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            // The server sees its client leave.
            let deadline = ContinuousClock.now + .seconds(10)
            while server.log.abandonedBodies == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(server.log.abandonedBodies == 1)
        }
    }

    @Test func contentNegotiationCarriesOnlyExtAndProfile() async throws {
        try await withServer { server, client in
            var client = client
            client.extensions = ["https://jsonapi.org/ext/atomic"]
            client.profiles = ["https://example.com/profiles/timestamps"]
            client.headers[.authorization] = "Bearer s3cret"
            _ = try await client.create(Article(id: nil, lid: "x", title: "T", words: nil, author: .null))
            let request = try #require(server.log.requests.last)
            let full =
                #"application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"; profile="https://example.com/profiles/timestamps""#
            #expect(request.headers["content-type"] == full)
            #expect(request.headers["accept"] == full + ", application/vnd.api+json")
            #expect(request.headers["authorization"] == "Bearer s3cret")
            let media = JSONAPIMediaType(parsing: #"application/vnd.api+json; charset=utf-8; ext="a b""#)
            #expect(media.isJSONAPI && media.extensions == ["a", "b"] && media.profiles.isEmpty)
        }
    }

    @Test func credentialsInTheURLGoAsBasicAuthorization() async throws {
        try await withServer { server, client in
            var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
            components.user = "reader"
            components.password = "pa55"
            var client = client
            client.baseURL = try #require(components.url)
            _ = try await client.fetch(Article.self, id: "2")
            let request = try #require(server.log.requests.last)
            #expect(request.headers["authorization"] == "Basic " + Data("reader:pa55".utf8).base64EncodedString())
        }
    }

    @Test func theURLSessionTransportStreamsTheSameDocuments() async throws {
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        try await withServer(chunkSize: 16, chunkDelay: .microseconds(100)) { server, client in
            var client = client
            client.transport = transport
            let one = try await client.fetch(Article.self, id: "2")
            #expect(one.document.data.author?.name == "Person 3")
            var count = 0
            for try await streamed in client.resources(at: server.url("/page/articles?page%5Bsize%5D=10"))
            where streamed.section == .primary {
                count += 1
            }
            #expect(count == 25)
            let error = await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.fetch(Article.self, id: "999")
            }
            #expect(error?.errors.first?.code == "not_found")
        }
    }
}
