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

/// Credentials are hidden by the whole name of their parameter, not by a word inside a name.
@Suite("Redaction of query parameters")
struct ParameterRedactionTests {
    @Test(
        "credential parameters are hidden, in any case and spelling",
        arguments: [
            "api_key", "apiKey", "API-KEY", "key", "access_token", "token", "X-Amz-Signature", "client_secret",
            "password", "sig", "auth", "session_id",
        ]
    )
    func hidden(name: String) throws {
        #expect(HTTPRedaction.isSensitive(parameter: name))
        let url = try #require(URL(string: "https://api.example.com/a?\(name)=s3cret&page=2"))
        #expect(!HTTPRedaction.url(url).contains("s3cret"))
    }

    @Test(
        "ordinary parameters that contain such a word are shown as they are",
        arguments: [
            "filter[author.name]", "fields[authors]", "keywords", "monkey", "tokenizer", "sort", "authority",
            "filter%5Bauthor.name%5D", "page[key]",
        ]
    )
    func shown(name: String) throws {
        #expect(!HTTPRedaction.isSensitive(parameter: name))
        let query = name.contains("%") ? name : name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let url = try #require(URL(string: "https://api.example.com/a?\(query)=Author%200013"))
        #expect(HTTPRedaction.url(url).contains("Author%200013"))
    }
}
