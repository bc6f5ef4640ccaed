import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// What keeps validation bounded: the compact identity index (exact however ids look, across its
/// growth), linkage resolved at the end when included resources come before what links to them,
/// the cap on listed violations, and the limit on the value held whole.
@Suite("Validation bounds")
struct ValidationBoundsTests {
    static func resource(_ type: String, _ id: String, links: [(String, String)] = []) -> String {
        let linkage = links.enumerated().map { index, target in
            #""r\#(index)": {"data": {"type": "\#(target.0)", "id": "\#(target.1)"}}"#
        }
        let relationships = linkage.isEmpty ? "" : #", "relationships": {\#(linkage.joined(separator: ", "))}"#
        return #"{"type": "\#(type)", "id": "\#(id)"\#(relationships)}"#
    }

    static func document(data: [String], included: [String]) -> Data {
        Data(#"{"data": [\#(data.joined(separator: ","))], "included": [\#(included.joined(separator: ","))]}"#.utf8)
    }

    @Test("ids that differ only in spelling are different identities")
    func spellingsStayDistinct() throws {
        // Decimal ids are stored as numbers: "1" and "01", "1" and " 1", an 18-digit and a
        // 19-digit id, id and lid must not meet.
        let ids = ["1", "01", "001", " 1", "1.0", "", "0", "00", "999999999999999999", "9999999999999999999", "１"]
        let data = ids.map { Self.resource("things", $0) }
        let violations = try JSONAPIValidator().validate(Self.document(data: data, included: []))
        #expect(violations.isEmpty, "\(violations)")
        // An id does not answer a lid of the same spelling.
        let local =
            #"{"data": {"type": "things", "id": "1", "relationships": {"r": {"data": {"type": "things", "lid": "1"}}}}}"#
        #expect(
            try JSONAPIValidator(request: .resource).validate(Data(local.utf8)).map(\.message)
                == ["The lid 1 of type things names no resource object in this document."]
        )
    }

    @Test("a duplicate among fifty thousand resources is found once, with the first one's place")
    func duplicateAcrossGrowth() throws {
        var data = (0..<50_000).map { Self.resource($0 % 3 == 0 ? "people" : "articles", "\($0)") }
        data.append(Self.resource("articles", "31337"))
        data.append(Self.resource("people", "31337"))  // 31337 % 3 != 0: a person of this id is new
        let violations = try JSONAPIValidator().validate(Self.document(data: data, included: []))
        #expect(violations.map(\.pointer) == ["/data/50000"])
        #expect(
            violations.first?.message
                == "The resource articles with id 31337 appears twice, first at /data/31337; a document holds one resource object per type and id."
        )
    }

    @Test("included resources listed before what links to them are reached at the end")
    func linkageResolvedAtTheEnd() throws {
        // people/1 <- comments/2 <- comments/3 <- articles/1 (primary), each listed before the
        // resource that links to it; people/7 is linked only by a resource nothing reaches.
        let included = [
            Self.resource("people", "1"),
            Self.resource("comments", "2", links: [("people", "1")]),
            Self.resource("people", "7"),
            Self.resource("comments", "4", links: [("people", "7")]),
            Self.resource("comments", "3", links: [("comments", "2")]),
        ]
        let data = [Self.resource("articles", "1", links: [("comments", "3")])]
        let violations = try JSONAPIValidator().validate(Self.document(data: data, included: included))
        #expect(violations.map(\.pointer) == ["/included/2", "/included/3"])
        #expect(violations.allSatisfy { $0.severity == .warning })
        #expect(violations.first?.message.hasPrefix("The included resource people/7 is not reachable") == true)
        // The same with primary data last: everything is judged at the end.
        let last = Data(
            #"{"included": [\#(included.joined(separator: ","))], "data": [\#(data.joined(separator: ","))]}"#.utf8
        )
        #expect(try JSONAPIValidator().validate(last).map(\.pointer) == ["/included/2", "/included/3"])
    }

    @Test("past the most violations kept, the rest are counted in one last violation")
    func violationsAreCapped() throws {
        var validator = JSONAPIValidator()
        validator.maximumViolations = 3
        // Ten resources without an id (errors) and five unreachable included ones (warnings).
        let data = (0..<10).map { _ in #"{"type": "people"}"# }
        let included = (0..<5).map { Self.resource("tags", "\($0)") }
        let violations = try validator.validate(Self.document(data: data, included: included))
        #expect(violations.count == 4)
        #expect(
            violations.prefix(3).allSatisfy { $0.message == "A resource object in a response must have an id member." }
        )
        #expect(violations.last?.pointer == "")
        #expect(violations.last?.severity == .error)
        #expect(
            violations.last?.message
                == "A further 7 errors and 5 warnings were found and not listed: the report keeps the first 3 violations."
        )
        validator.maximumViolations = 2
        let unreachable = try validator.validate(Self.document(data: [], included: included))
        #expect(unreachable.map(\.pointer) == ["/included/0", "/included/1", ""])
        #expect(unreachable.last?.severity == .warning)
        #expect(
            unreachable.last?.message
                == "A further 3 warnings were found and not listed: the report keeps the first 2 violations."
        )
    }

    @Test("lids that name nothing are counted past the list too")
    func lidsPastTheCap() throws {
        var validator = JSONAPIValidator(request: .resource)
        validator.maximumViolations = 1
        let links = (0..<4).map { #""r\#($0)": {"data": {"type": "tags", "lid": "t\#($0)"}}"# }
        let json = #"{"data": {"type": "articles", "lid": "a", "relationships": {\#(links.joined(separator: ","))}}}"#
        let violations = try validator.validate(Data(json.utf8))
        #expect(
            violations.map(\.message) == [
                "The lid t0 of type tags names no resource object in this document.",
                "A further 3 errors were found and not listed: the report keeps the first 1 violations.",
            ]
        )
    }

    @Test("a value larger than the held limit is refused with the limit's message")
    func heldValueLimit() throws {
        let members = (0..<50_000).map { #""k\#($0)": \#($0)"# }.joined(separator: ",")
        let json = Data(#"{"meta": {\#(members)}, "data": null}"#.utf8)
        var validator = JSONAPIValidator()
        validator.limits.maxHeldBytes = 1 << 20
        let error = try #require(throws: JSONError.self) { try validator.validate(json) }
        #expect(error.kind == .heldBytesLimitExceeded)
        #expect(error.message.hasPrefix("The value being read is larger than the limit of 1048576 bytes"))
        // Placed where the held value starts (the top-level member `meta`, its name first), not
        // where a chunk ended.
        #expect(error.position.byteOffset == 1 && error.position.line == 1 && error.position.column == 2, "\(error)")
        // A resource too large among small ones: placed at its opening brace.
        let small = (0..<50).map { #"{"type": "t", "id": "\#($0)"}"# }
        let large =
            #"{"type": "t", "id": "big", "attributes": {"k": [\#((0..<100_000).map(String.init).joined(separator: ","))]}}"#
        let text = #"{"data": [\#((small + [large]).joined(separator: ",\n"))]}"#
        let fault = try #require(throws: JSONError.self) {
            var bounded = JSONAPIValidator()
            bounded.limits.maxHeldBytes = 100_000
            _ = try bounded.validate(Data(text.utf8))
        }
        #expect(fault.kind == .heldBytesLimitExceeded)
        #expect(fault.position.line == 51 && fault.position.column == 1, "\(fault)")
        // The same members spread over resources are released one by one and pass.
        let spread = (0..<20_000).map { #"{"type": "t", "id": "\#($0)", "attributes": {"k": \#($0)}}"# }
        #expect(try validator.validate(Self.document(data: spread, included: [])).isEmpty)
        // A whole-document parse keeps no such limit by default.
        #expect(JSONLimits.default.maxHeldBytes == .max)
        _ = try JSONParser.parse(json)
    }
}
