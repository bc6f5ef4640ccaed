import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTestServer
import Testing

@testable import SluiceHTTP

@Suite struct PaginationTests {
    /// Every style reaches all 25 articles exactly once, in order, streamed across pages.
    @Test(arguments: [
        ("page", JSONAPIQuery().page(["number": "1", "size": "4"])),
        ("offset", JSONAPIQuery().page(["offset": "0", "limit": "4"])),
        ("cursor", JSONAPIQuery().page(["size": "4"])),
    ])
    func everyStyleStreamsEveryResourceOfEveryPage(style: String, query: JSONAPIQuery) async throws {
        try await withServer(chunkSize: 64, chunkDelay: .microseconds(200)) { server, client in
            var iterator = client.resources(at: server.url("/\(style)/articles?" + query.percentEncoded))
                .makeAsyncIterator()
            var articles: [String] = []
            var people = 0
            while let streamed = try await iterator.next() {
                if streamed.section == .primary {
                    articles.append(streamed.resource.identity?.key ?? "?")
                } else {
                    people += 1
                }
            }
            #expect(articles == (1...25).map(String.init))
            #expect(iterator.pagesRead == 7)
            #expect(people > 0)
            #expect(server.log.requests.count == 7)
        }
    }

    @Test func withoutLinksTheStrategyFindsTheNextPageAndStopsOnAShortOne() async throws {
        try await withServer { server, client in
            var client = client
            client.pagination = PageNumberPagination(size: 10)
            let url = try client.url(for: .collection(type: "articles")).absoluteString
                .replacingOccurrences(of: "/articles", with: "/nolinks/articles")
            let titles = try await client.all(Article.self).reduce(into: [String]()) { $0.append($1.title) }
            #expect(titles.count == 25)
            _ = url
            // By hand, over the no-links route: 3 pages (10, 10, 5), then nothing.
            var pages = 0
            var response: JSONAPIResponse<[Linked<Article>]>? = try await client.fetch(
                [Linked<Article>].self,
                at: server.url("/nolinks/articles?page%5Bnumber%5D=1&page%5Bsize%5D=10")
            )
            var ids: [String] = []
            while let current = response {
                pages += 1
                ids += current.document.data.compactMap(\.id)
                response = try await client.nextPage(of: current)
            }
            #expect(pages == 3)
            #expect(ids == (1...25).map(String.init))
            #expect(server.log.requests.last?.rawQuery == "page%5Bnumber%5D=3&page%5Bsize%5D=10")
        }
    }

    @Test func linksGiveNextPreviousFirstLastAndReload() async throws {
        try await withServer { server, client in
            let first = try await client.fetch(
                [Linked<Article>].self,
                at: server.url("/page/articles?page%5Bnumber%5D=1&page%5Bsize%5D=10")
            )
            #expect(try await client.page(.previous, of: first) == nil)
            let last = try #require(try await client.page(.last, of: first))
            #expect(last.document.data.compactMap(\.id) == (21...25).map(String.init))
            #expect(try await client.nextPage(of: last) == nil)
            let previous = try #require(try await client.page(.previous, of: last))
            #expect(previous.document.data.first?.id == "11")
            let again = try await client.reload(previous)
            #expect(again.document.data.first?.id == "11")
            let firstAgain = try #require(try await client.page(.first, of: last))
            #expect(firstAgain.document.data.first?.id == "1")
        }
    }

    @Test func appendingPagesMergesDataAndIncludedKeepingIdentity() async throws {
        try await withServer { server, client in
            var response = try await client.fetch(
                [Linked<Article>].self,
                at: server.url("/page/articles?page%5Bnumber%5D=1&page%5Bsize%5D=10")
            )
            #expect(response.document.included.count == 7)
            while try await client.appendNextPage(to: &response) {}
            #expect(response.pageCount == 3)
            #expect(response.document.data.compactMap(\.id) == (1...25).map(String.init))
            // The 7 people were included on every page; they are held once.
            #expect(response.document.included.count == 7)
            #expect(response.document.data[24].author?.name == "Person 5")
            #expect(response.document.links?.next?.href == nil)
            #expect(response.document.store.count == 32)
        }
    }

    @Test func appendingWithoutLinksAsksTheStrategyAboutTheLastPageAlone() async throws {
        try await withServer { server, client in
            var client = client
            client.pagination = PageNumberPagination(size: 10)
            var response = try await client.fetch(
                [Linked<Article>].self,
                at: server.url("/nolinks/articles?page%5Bnumber%5D=1&page%5Bsize%5D=10")
            )
            var appended = 0
            while try await client.appendNextPage(to: &response) {
                appended += 1
                try #require(appended < 10, "paging did not stop")
            }
            #expect(response.pageCount == 3)
            #expect(response.document.data.compactMap(\.id) == (1...25).map(String.init))
        }
    }

    @Test func aNextLinkBackToAReadPageIsACycleNotAnEndlessLoop() async throws {
        try await withServer { server, client in
            var count = 0
            let error = await #expect(throws: JSONAPIClientError.self) {
                for try await _ in client.resources(at: server.url("/loop/articles")) { count += 1 }
            }
            #expect(error?.kind == .paginationCycle)
            #expect(count == 1)
            var response = try await client.fetch([Linked<Article>].self, at: server.url("/loop/articles"))
            let appendError = await #expect(throws: JSONAPIClientError.self) {
                while try await client.appendNextPage(to: &response) {}
            }
            #expect(appendError?.kind == .paginationCycle)
        }
    }

    @Test func strategiesComputeRelatedPages() {
        let page = PageNumberPagination(size: 10)
        let summary = PageSummary(
            parameters: ["number": "2", "size": "10"],
            count: 10,
            meta: .object(JSONObject([("total", .number("25"))]))
        )
        #expect(page.parameters(for: .next, of: summary) == ["number": "3", "size": "10"])
        #expect(page.parameters(for: .previous, of: summary) == ["number": "1", "size": "10"])
        #expect(page.parameters(for: .last, of: summary) == ["number": "3", "size": "10"])
        let offset = OffsetPagination(limit: 10)
        let offsetSummary = PageSummary(
            parameters: ["offset": "10", "limit": "10"],
            count: 10,
            meta: .object(JSONObject([("total", .number("25"))]))
        )
        #expect(offset.parameters(for: .next, of: offsetSummary) == ["offset": "20", "limit": "10"])
        #expect(offset.parameters(for: .last, of: offsetSummary) == ["offset": "20", "limit": "10"])
        #expect(offset.parameters(for: .next, of: PageSummary(parameters: [:], count: 3)) == nil)
        let cursor = CursorPagination(size: 2)
        let cursorSummary = PageSummary(
            parameters: ["size": "2"],
            count: 2,
            lastIdentity: ResourceIdentity(type: "articles", id: "8"),
            lastMeta: .object(JSONObject([("page", .object(JSONObject([("cursor", .string("opaque-8"))])))]))
        )
        #expect(cursor.parameters(for: .next, of: cursorSummary) == ["size": "2", "after": "opaque-8"])
        let custom = CustomPagination(firstPage: ["since": "0"]) { relation, page in
            relation == .next ? page.lastIdentity.map { ["since": $0.key] } : nil
        }
        #expect(custom.parameters(for: .next, of: cursorSummary) == ["since": "8"])
        #expect(
            JSONAPIClient.replacingPage(
                of: URL(string: "http://h/a?include=x&page%5Bnumber%5D=2&page%5Bsize%5D=3")!,
                with: ["number": "3", "size": "3"]
            )?.absoluteString == "http://h/a?include=x&page%5Bnumber%5D=3&page%5Bsize%5D=3"
        )
    }
}
