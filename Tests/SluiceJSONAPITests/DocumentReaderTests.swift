import Foundation
import SluiceJSON
import Testing

@testable import SluiceJSONAPI

/// The document reader alone, over hand-made tokens: no C parser involved.
@Suite("Document reader state machine")
struct DocumentReaderTests {
    /// Tokens described as (kind, member name for keys, end index for container starts).
    struct FakeTokens: DocumentTokens {
        var tokens: [(kind: JSONToken.Kind, name: String?, end: Int?)] = []
        var endIndex: Int { tokens.count }
        func kind(at index: Int) -> JSONToken.Kind { tokens[index].kind }
        func endOfValue(at index: Int) -> Int? {
            let token = tokens[index]
            switch token.kind {
            case .objectStart, .arrayStart: return token.end.flatMap { $0 < tokens.count ? $0 + 1 : nil }
            default: return index + 1
            }
        }
        func startOfContainer(endingAt index: Int) -> Int? {
            let kind = tokens[index].kind
            guard kind == .objectEnd || kind == .arrayEnd else { return nil }
            return tokens.indices.last { tokens[$0].end == index }
        }

        func member(namedBy index: Int) -> DocumentReader.Member {
            var name = tokens[index].name ?? ""
            return name.withUTF8 { DocumentReader.Member(name: UnsafeRawBufferPointer($0)) }
        }
    }

    /// `{"meta": 1, "data": [{}, {}], "included": [{}]}` as tokens; starts name their end's index.
    static let document: [(kind: JSONToken.Kind, name: String?, end: Int?)] = [
        (.objectStart, nil, 15),
        (.key, "meta", nil), (.number, nil, nil),
        (.key, "data", nil), (.arrayStart, nil, 9), (.objectStart, nil, 6), (.objectEnd, nil, nil),
        (.objectStart, nil, 8), (.objectEnd, nil, nil), (.arrayEnd, nil, nil),
        (.key, "included", nil), (.arrayStart, nil, 14), (.objectStart, nil, 13), (.objectEnd, nil, nil),
        (.arrayEnd, nil, nil), (.objectEnd, nil, nil),
    ]

    @Test("actions come in document order, each resource once it closes")
    func actionsInOrder() {
        var tokens = FakeTokens()
        tokens.tokens = Self.document
        var reader = DocumentReader()
        var actions: [DocumentReader.Action] = []
        while true {
            let action = reader.next(in: tokens)
            actions.append(action)
            if action == .finished || action == .needMoreInput { break }
        }
        #expect(
            actions == [
                .member(.meta, keyIndex: 1, valueIndex: 2),
                .primaryCollectionStarted(valueIndex: 4),
                .primaryElement(valueIndex: 5, position: 0),
                .primaryElement(valueIndex: 7, position: 1),
                .includedCollectionStarted(valueIndex: 11),
                .includedElement(valueIndex: 12, position: 0),
                .finished,
            ]
        )
    }

    @Test("an unfinished resource asks for more input and is reported once it closes")
    func partialInput() {
        var tokens = FakeTokens()
        tokens.tokens = [(.objectStart, nil, nil), (.key, "data", nil), (.objectStart, nil, nil), (.key, "type", nil)]
        var reader = DocumentReader()
        #expect(reader.next(in: tokens) == .needMoreInput)
        #expect(reader.releasableIndex == 2, "the open resource's tokens must stay")
        tokens.tokens[2].end = 5
        tokens.tokens += [(.string, nil, nil), (.objectEnd, nil, nil)]
        #expect(reader.next(in: tokens) == .primaryResource(valueIndex: 2))
        #expect(reader.releasableIndex == 6)
        #expect(reader.next(in: tokens) == .needMoreInput)
    }

    @Test("a root that is not an object is reported")
    func rootNotObject() {
        var tokens = FakeTokens()
        tokens.tokens = [(.arrayStart, nil, 1), (.arrayEnd, nil, nil)]
        var reader = DocumentReader()
        #expect(reader.next(in: tokens) == .rootNotObject(valueIndex: 0))
    }
}

@Suite("Member names")
struct MemberNameTests {
    @Test("the byte matchers know every member by the name the validator lists, and no other")
    func matchersAgreeWithNames() {
        for member in DocumentReader.Member.defined {
            let matched = Array(member.name.utf8).withUnsafeBytes { DocumentReader.Member(name: $0) }
            #expect(matched == member, "\(member.name)")
        }
        for member in ResourceMember.allCases where member != .other {
            let matched = Array(member.name.utf8).withUnsafeBytes { ResourceMember(name: $0) }
            #expect(matched == member, "\(member.name)")
        }
        for near in ["Data", "datum", "link", "metas", "", "attribute", "ids"] {
            #expect(Array(near.utf8).withUnsafeBytes { DocumentReader.Member(name: $0) } == .other, "\(near)")
            #expect(Array(near.utf8).withUnsafeBytes { ResourceMember(name: $0) } == .other, "\(near)")
        }
    }
}

@Suite("Skipped members")
struct SkippedMemberTests {
    @Test("an extension member of any size is skipped in bounded memory while streaming")
    func hugeExtensionMember() throws {
        var json = #"{"atomic:operations": ["#
        json += Array(repeating: #"{"op": "add", "ref": {"type": "x", "id": "1"}}"#, count: 50_000).joined(
            separator: ","
        )
        json += #"], "data": [{"type": "people", "id": "1", "attributes": {"firstName": "A", "lastName": "B"}}]}"#
        let bytes = Array(json.utf8)
        let engine = JSONAPIDecoder(registry: [Person.self]).makeEngine(primaryModels: [], holdsIdentifiers: false)
        var resources = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 4096, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { chunk in
                try engine.feed(chunk) { if case .primary = $0 { resources += 1 } }
            }
            offset = end
        }
        try engine.finish { if case .primary = $0 { resources += 1 } }
        #expect(resources == 1)
        #expect(engine.parser.tape.peakTokenCount < 2_000, "peak \(engine.parser.tape.peakTokenCount) tokens")
        // The validator skips it too, and still checks its name. Unannounced, the atomic
        // extension's member is one JSON:API does not define (a warning); announced, it is valid.
        #expect(try JSONAPIValidator().validate(Data(json.utf8)).map(\.severity) == [.warning])
        var announced = JSONAPIValidator()
        announced.appliedExtensions = ["https://jsonapi.org/ext/atomic"]
        #expect(try announced.validate(Data(json.utf8)).contains { $0.severity == .error })
        let badName = try JSONAPIValidator().validate(Data(#"{"meta": {}, "bad.name": [1, [2]]}"#.utf8))
        #expect(badName.map(\.pointer) == ["/bad.name"])
    }
}
