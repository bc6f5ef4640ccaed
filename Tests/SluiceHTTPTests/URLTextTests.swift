import Foundation
import Testing

@testable import SluiceHTTP

/// URLs as people type them and servers send them: raw brackets and spaces encoded, what is
/// already percent-encoded kept as it is.
@Suite("URLs from text")
struct URLTextTests {
    @Test(
        "invalid characters are encoded once, escapes are kept",
        arguments: [
            (
                "http://host/articles?filter[author.name]=Author%200013&page[size]=100",
                "http://host/articles?filter%5Bauthor.name%5D=Author%200013&page%5Bsize%5D=100"
            ),
            ("http://host/a?x=%26&y=%C3%A9&z=é", "http://host/a?x=%26&y=%C3%A9&z=%C3%A9"),
            ("http://[::1]:8080/a?b[c]=d%20e", "http://[::1]:8080/a?b%5Bc%5D=d%20e"),
            ("http://host/a b?c=d e#frag#ment", "http://host/a%20b?c=d%20e#frag%23ment"),
            ("http://host/100%?rate=5%&ok=%2F", "http://host/100%25?rate=5%25&ok=%2F"),
            ("http://user:pa%20ss@host/p?q=1+2&r=a/b?c", "http://user:pa%20ss@host/p?q=1+2&r=a/b?c"),
            ("/relative?page[number]=2", "/relative?page%5Bnumber%5D=2"),
        ]
    )
    func encodedOnce(text: String, expected: String) throws {
        #expect(PercentEncoding.encodingInvalidCharacters(in: text) == expected)
        // Already valid: unchanged.
        #expect(PercentEncoding.encodingInvalidCharacters(in: expected) == expected)
        if text.hasPrefix("http") {
            #expect(URL(string: PercentEncoding.encodingInvalidCharacters(in: text))?.absoluteString == expected)
        }
    }

    @Test("a next link with raw brackets and escapes resolves without encoding its escapes again")
    func nextLinks() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/articles?page%5Bnumber%5D=1"))
        let next = JSONAPIClient.resolve("/v1/articles?filter[name]=A%20B&page[number]=2", against: base)
        #expect(next?.absoluteString == "https://api.example.com/v1/articles?filter%5Bname%5D=A%20B&page%5Bnumber%5D=2")
        #expect(JSONAPIClient.pageParameters(of: try #require(next)) == ["number": "2"])
    }
}
