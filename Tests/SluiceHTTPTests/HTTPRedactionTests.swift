import Foundation
import Testing

@testable import SluiceHTTP

@Suite struct HTTPRedactionTests {
    @Test func aRequestsFieldsReplaceTheClientsOfTheSameName() throws {
        var fields: HTTPFields = [.accept: "text/plain", .cacheControl: "no-cache"]
        fields.append(HTTPField(name: .accept, value: "text/html"))
        var own = HTTPFields()
        own[.accept] = "application/vnd.api+json"
        fields.replaceFields(from: own)
        #expect(fields[values: .accept] == ["application/vnd.api+json"])
        #expect(fields[.cacheControl] == "no-cache")
        #expect(fields.count == 2)
    }

    @Test func credentialsAreKnownByNameAndNeverPrintedInURLs() throws {
        for name in ["Authorization", "Cookie", "Set-Cookie", "X-API-Key", "X-Auth-Token"] {
            #expect(HTTPRedaction.isSensitive(header: name), "\(name)")
        }
        #expect(!HTTPRedaction.isSensitive(header: "Accept"))
        let fields: HTTPFields = [.authorization: "Bearer s3cret", .accept: "*/*"]
        let url = try #require(URL(string: "https://user:pa55@api.example.com/articles?api_key=zzz&page%5Bsize%5D=2"))
        let redacted = HTTPTransportRequest.redacted(url)
        #expect(redacted == "https://***:***@api.example.com/articles?api_key=***&page%5Bsize%5D=2")
        // A request's head has no user information (the client sends it as Authorization).
        let request = HTTPTransportRequest(head: HTTPRequest(method: .get, url: url, headerFields: fields))
        #expect(request.description == "GET https://api.example.com/articles?api_key=***&page%5Bsize%5D=2")
    }
}
