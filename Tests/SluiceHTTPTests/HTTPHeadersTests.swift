import Foundation
import Testing

@testable import SluiceHTTP

@Suite struct HTTPHeadersTests {
    @Test func namesCompareWithoutCaseAndSettingReplacesEveryField() {
        var headers: HTTPHeaders = ["Accept": "text/plain", "X-Trace": "1"]
        headers.add(name: "accept", value: "text/html")
        #expect(headers["ACCEPT"] == "text/plain")
        #expect(headers.values(for: "Accept") == ["text/plain", "text/html"])
        headers["Accept"] = "application/vnd.api+json"
        #expect(headers.values(for: "accept") == ["application/vnd.api+json"])
        headers["x-trace"] = nil
        #expect(headers["X-Trace"] == nil)
        #expect(headers.fields.count == 1)
    }

    @Test func credentialsNeverAppearInDescriptions() throws {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer s3cret", "Cookie": "session=abc", "X-API-Key": "k3y", "Accept": "*/*",
        ]
        #expect(!headers.description.contains("s3cret"))
        #expect(!headers.description.contains("abc"))
        #expect(!headers.description.contains("k3y"))
        #expect(headers.description.contains("Accept: */*"))
        let url = try #require(URL(string: "https://user:pa55@api.example.com/articles?api_key=zzz&page%5Bsize%5D=2"))
        let request = HTTPRequest(method: .get, url: url, headers: headers)
        #expect(request.description == "GET https://***:***@api.example.com/articles?api_key=***&page%5Bsize%5D=2")
    }
}
