import Foundation
import SluiceMacros
import Testing

/// The generated readers against the general path (the same types, read through their Codable
/// conformance): the same values for every corpus, cut into chunks of every size, and the same
/// errors, coding paths and messages for inputs broken in every way a reader can meet.
@Suite("@JSONModel: the generated path against the general path")
struct DifferentialTests {
    static let corpora = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpora").standardizedFileURL

    static func corpus(_ name: String) throws -> Data {
        try Data(contentsOf: corpora.appendingPathComponent(name))
    }

    static func decoder(generated: Bool) -> StreamingJSONDecoder {
        let decoder = StreamingJSONDecoder()
        decoder.usesGeneratedReaders = generated
        return decoder
    }

    /// What a decode gave: the value, or the error reduced to what a user sees of it.
    enum Outcome<T: Equatable>: Equatable, CustomStringConvertible {
        case value(T)
        case failure(String)

        var description: String {
            switch self {
            case .value: "a value"
            case .failure(let text): text
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(type(of: error)): \(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "typeMismatch(\(type)) \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "valueNotFound(\(type)) \(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "keyNotFound(\(key.stringValue)) \(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "dataCorrupted \(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    static func outcome<T: Decodable & Equatable>(_ type: T.Type, _ data: Data, generated: Bool) -> Outcome<T> {
        do {
            return .value(try decoder(generated: generated).decode(type, from: data))
        } catch {
            return .failure(describe(error))
        }
    }

    static func expectSame<T: Decodable & Equatable>(
        _ type: T.Type,
        _ data: Data,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let general = outcome(type, data, generated: false)
        let generated = outcome(type, data, generated: true)
        #expect(generated == general, sourceLocation: sourceLocation)
    }

    @Test("the three corpora decode to equal values on both paths, and equal Foundation's")
    func corpora() throws {
        let twitter = try Self.corpus("twitter.json")
        let citm = try Self.corpus("citm_catalog.json")
        let canada = try Self.corpus("canada.json")
        let generatedTwitter = try Self.decoder(generated: true).decode(Twitter.self, from: twitter)
        #expect(generatedTwitter == (try Self.decoder(generated: false).decode(Twitter.self, from: twitter)))
        #expect(generatedTwitter == (try JSONDecoder().decode(Twitter.self, from: twitter)))
        #expect(generatedTwitter.statuses.count == 100)
        let generatedCitm = try Self.decoder(generated: true).decode(CitmCatalog.self, from: citm)
        #expect(generatedCitm == (try JSONDecoder().decode(CitmCatalog.self, from: citm)))
        let generatedCanada = try Self.decoder(generated: true).decode(Canada.self, from: canada)
        #expect(generatedCanada == (try JSONDecoder().decode(Canada.self, from: canada)))
    }

    struct Chunks: AsyncSequence {
        typealias Element = [UInt8]
        let bytes: [UInt8]
        let size: Int
        struct AsyncIterator: AsyncIteratorProtocol {
            let bytes: [UInt8]
            let size: Int
            var offset = 0
            mutating func next() async -> [UInt8]? {
                guard offset < bytes.count else { return nil }
                let end = Swift.min(offset + size, bytes.count)
                defer { offset = end }
                return Array(bytes[offset..<end])
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes, size: size) }
    }

    @Test("cut into chunks of any size, the generated path reads what it reads whole", arguments: [1, 7, 64, 4096])
    func chunked(size: Int) async throws {
        let bytes = Array(try Self.corpus("twitter.json"))
        let whole = try Self.decoder(generated: true).decode(Twitter.self, from: bytes)
        let chunked = try await Self.decoder(generated: true).decode(
            Twitter.self,
            from: Chunks(bytes: bytes, size: size)
        )
        #expect(chunked == whole)
        var count = 0
        for try await status in Self.decoder(generated: true).elements(
            of: Twitter.Status.self,
            at: "statuses",
            from: Chunks(bytes: bytes, size: size)
        ) {
            #expect(status == whole.statuses[count])
            count += 1
        }
        #expect(count == 100)
    }

    @JSONModel
    struct Small: Codable, Equatable {
        var id: Int
        var name: String
        var score: Double?
        var tags: [String]
        var nested: Inner?
        var created: Date?
        var parts: [Inner]?
        var scores: [Double]?
        var flags: [Bool]?
        var maybe: [Int?]?
        var stamp: Int64?
        var serial: UInt64?

        @JSONModel
        struct Inner: Codable, Equatable {
            var flag: Bool
            var count: UInt8
        }
    }

    static let broken: [String] = [
        #"{"id": 1, "name": "a", "tags": []}"#,
        #"{"id": 1, "name": "a", "tags": [], "fixed": 3, "extra": {"x": [1, 2]}}"#,
        #"{"name": "a", "tags": []}"#,
        #"{"id": "1", "name": "a", "tags": []}"#,
        #"{"id": 1.5, "name": "a", "tags": []}"#,
        #"{"id": 1e3, "name": "a", "tags": []}"#,
        #"{"id": 99999999999999999999, "name": "a", "tags": []}"#,
        #"{"id": null, "name": "a", "tags": []}"#,
        #"{"id": 1, "name": null, "tags": []}"#,
        #"{"id": 1, "name": "a", "tags": [1]}"#,
        #"{"id": 1, "name": "a", "tags": ["x", null]}"#,
        #"{"id": 1, "name": "a", "tags": {}}"#,
        #"{"id": 1, "name": "a", "tags": [], "score": "high"}"#,
        #"{"id": 1, "name": "a", "tags": [], "score": null}"#,
        #"{"id": 1, "name": "a", "tags": [], "nested": {"flag": true}}"#,
        #"{"id": 1, "name": "a", "tags": [], "nested": {"flag": 1, "count": 1}}"#,
        #"{"id": 1, "name": "a", "tags": [], "nested": {"flag": true, "count": 300}}"#,
        #"{"id": 1, "name": "a", "tags": [], "nested": []}"#,
        #"{"id": 1, "name": "a", "tags": [], "created": "yesterday"}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": [{"flag": true, "count": 1}, {"flag": false, "count": 2}]}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": [{"flag": true, "count": 1}, {"flag": false}]}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": [{"flag": true, "count": 1}, null]}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": [{"flag": true, "count": -1}]}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": [[]]}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": {"flag": true, "count": 1}}"#,
        #"{"id": 1, "name": "a", "tags": [], "parts": null, "scores": null, "flags": null}"#,
        #"{"id": 1, "name": "a", "tags": [], "scores": [1, 2.5, -3e2]}"#,
        #"{"id": 1, "name": "a", "tags": [], "scores": [1, "2"]}"#,
        #"{"id": 1, "name": "a", "tags": [], "scores": 1}"#,
        #"{"id": 1, "name": "a", "tags": [], "flags": [true, null]}"#,
        #"{"id": 1, "name": "a", "tags": [], "flags": [true, false]}"#,
        #"{"id": 1, "name": "a", "tags": [], "maybe": [1, null, 3]}"#,
        #"{"id": 1, "name": "a", "tags": [], "maybe": [1, "2"]}"#,
        #"{"id": 1, "name": "a", "tags": [], "maybe": [1.5]}"#,
        #"{"id": 1, "name": "a", "tags": [], "maybe": {}}"#,
        #"{"id": 1, "name": "a", "tags": [], "maybe": [[1], null]}"#,
        #"{"id": 1, "name": "a", "tags": [], "maybe": [null, null]}"#,
        #"{"id": 1, "name": "a", "tags": ["x", ["y"]]}"#,
        #"{"id": 1, "name": "a", "tags": [], "stamp": -9223372036854775808, "serial": 18446744073709551615}"#,
        #"{"id": 1, "name": "a", "tags": [], "stamp": 9223372036854775808}"#,
        #"{"id": 1, "name": "a", "tags": [], "stamp": 2.5}"#,
        #"{"id": 1, "name": "a", "tags": [], "stamp": 1e3}"#,
        #"{"id": 1, "name": "a", "tags": [], "stamp": "7"}"#,
        #"{"id": 1, "name": "a", "tags": [], "stamp": null, "serial": null}"#,
        #"{"id": 1, "name": "a", "tags": [], "serial": -1}"#,
        #"{"id": 1, "name": "a", "tags": [], "serial": 18446744073709551616}"#,
        #"{"id": 1, "name": "a", "tags": [], "serial": true}"#,
        #"{"id": 1, "name": "a", "tags": [], "scores": [1e400]}"#,
        #"{"id": 1, "name": "a", "tags": [], "flags": [true, {}]}"#,
        #"{"id": 1, "id": 2, "name": "a", "tags": []}"#,
        #"{"name": "a", "id": "x", "tags": [], "id": 2}"#,
        #"{"tags": [], "name": "b", "id": 3, "name": 4}"#,
        #"[1, 2]"#,
        #""text""#,
        #"null"#,
    ]

    @Test("broken inputs give the same error on both paths", arguments: broken)
    func sameErrors(json: String) {
        Self.expectSame(Small.self, Data(json.utf8))
        Self.expectSame([Small].self, Data("[\(json), \(json)]".utf8))
        Self.expectSame([String: Small].self, Data(#"{"k": \#(json)}"#.utf8))
    }

    @Test(
        "members in the properties' order, reversed, interleaved with unknown ones or repeated: the same on both paths"
    )
    func memberOrders() {
        // The generated reader tries the property after the last member's first; members in any
        // other order, unknown members between them and a repeat of the guessed one must all
        // read as the general path reads them.
        let members = [
            #""id": 7"#, #""name": "n""#, #""score": 1.5"#, #""tags": ["a"]"#, #""nested": {"count": 2, "flag": true}"#,
            #""parts": [{"flag": false, "count": 3}]"#, #""scores": [1]"#, #""flags": [true]"#, #""maybe": [null, 4]"#,
        ]
        let orders: [[String]] = [
            members,
            members.reversed(),
            members.flatMap { [$0, #""unknown": [1, {"id": 2}]"#] },
            Array(members[1...]) + [members[0]],
            members + [#""name": "again""#],
            [members[0], members[0]] + Array(members[1...]),
        ]
        for order in orders {
            let data = Data("{\(order.joined(separator: ", "))}".utf8)
            Self.expectSame(Small.self, data)
            // Every order reads a value (the repeats keep one copy, as the general path does).
            guard case .value(let small) = Self.outcome(Small.self, data, generated: true) else {
                Issue.record("no value for \(order)")
                continue
            }
            #expect(small.id == 7 && small.parts?.first?.count == 3 && small.maybe == [nil, 4])
        }
    }

    @Test("every member of a twitter status removed or retyped in turn gives the same outcome on both paths")
    func mutatedStatuses() throws {
        let twitter = try Self.corpus("twitter.json")
        let object = try #require(try JSONSerialization.jsonObject(with: twitter) as? [String: Any])
        let statuses = try #require(object["statuses"] as? [[String: Any]])
        var checked = 0
        for status in statuses.prefix(5) {
            for key in status.keys.sorted() {
                var removed = status
                removed[key] = nil
                var retyped = status
                retyped[key] = status[key] is String ? 17 : "text"
                var nulled = status
                nulled[key] = NSNull()
                for variant in [removed, retyped, nulled] {
                    let data = try JSONSerialization.data(withJSONObject: variant)
                    Self.expectSame(Twitter.Status.self, data)
                    checked += 1
                }
            }
        }
        #expect(checked > 300)
    }

    @Test("options that need the general path are honoured: key strategies, member checks, ignored keys, updates")
    func optionsTakeTheGeneralPath() throws {
        let snake = Data(#"{"id": 1, "name": "a", "tags": [], "score": 2}"#.utf8)
        let decoder = StreamingJSONDecoder()
        decoder.ignoredKeys = ["score"]
        #expect(try decoder.decode(Small.self, from: snake).score == nil)
        decoder.ignoredKeys = []
        decoder.keyDecodingStrategy = .memberName { $0.uppercased() }
        #expect(throws: DecodingError.self) { try decoder.decode(Small.self, from: snake) }
        #expect(
            try decoder.decode(Small.self, from: Data(#"{"ID": 1, "NAME": "a", "TAGS": []}"#.utf8)).name == "a"
        )
        var small = try StreamingJSONDecoder().decode(Small.self, from: snake)
        try StreamingJSONDecoder().update(&small, from: Data(#"{"name": "b"}"#.utf8))
        #expect(small.name == "b")
        #expect(small.id == 1)
    }

    /// Where a string's bytes are kept: the same address for two strings that share storage.
    static func storage(of string: String) -> UnsafeRawPointer? {
        string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test("a longer string met again shares the first one's storage; other strings stay themselves")
    func repeatedStringsShareStorage() throws {
        // Forty names met again and again, and one of a kind every seventh object: many share a
        // slot of the table with another, and none may come back as the other.
        let names = (0..<2_000).map { index in
            index % 7 == 0 ? "a name met once, number \(index)" : "a name met again and again, number \(index % 40)"
        }
        let objects = names.enumerated().map { ["id": $0.offset, "name": $0.element, "tags": []] as [String: Any] }
        let decoded = try StreamingJSONDecoder().decode(
            [Small].self,
            from: JSONSerialization.data(withJSONObject: objects)
        )
        #expect(decoded.map(\.name) == names)
        #expect(Self.storage(of: decoded[1].name) == Self.storage(of: decoded[41].name))
        #expect(Self.storage(of: decoded[1].name) != Self.storage(of: decoded[2].name))
    }

    @Test("a document whose strings do not repeat stops looking for repeats, and reads the same")
    func unrepeatedStringsStopTheTable() throws {
        // A thousand names of their own, then the first one again: by then the table is off.
        let names = (0..<1_000).map { "a name of its own, number \($0)" } + ["a name of its own, number 0"]
        let objects = names.enumerated().map { ["id": $0.offset, "name": $0.element, "tags": []] as [String: Any] }
        let decoded = try StreamingJSONDecoder().decode(
            [Small].self,
            from: JSONSerialization.data(withJSONObject: objects)
        )
        #expect(decoded.map(\.name) == names)
        #expect(Self.storage(of: decoded[0].name) != Self.storage(of: decoded[1_000].name))
    }

    @Test("dates, data and conversions apply to generated readers as to the general path")
    func valueOptions() throws {
        let decoder = StreamingJSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.conversions = [.numberFromString]
        let json = Data(#"{"id": "42", "name": "a", "tags": [], "created": "2024-02-29T12:30:00Z"}"#.utf8)
        let small = try decoder.decode(Small.self, from: json)
        #expect(small.id == 42)
        #expect(small.created == Date(timeIntervalSince1970: 1_709_209_800))
        decoder.usesGeneratedReaders = false
        #expect(try decoder.decode(Small.self, from: json) == small)
    }

    @JSONModel
    final class Node: Codable {
        let name: String
        let children: [Node]?
        var weight: Double = 1

        init(name: String, children: [Node]?) {
            self.name = name
            self.children = children
        }
    }

    final class Board: Decodable {
        let column: Column
        let shelf: Shelf
        enum CodingKeys: CodingKey { case column, shelf }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            column = try container.decode(Column.self, forKey: .column)
            shelf = try container.decode(Shelf.self, forKey: .shelf)
        }
    }

    /// A struct between a child and its parent: its generated reader ends its object without the
    /// model (a struct is no parent), and the child must still reach the class above it.
    @JSONModel
    struct Column: Codable {
        let title: String
        let cards: [Card]
    }

    /// The same, for a struct whose generated initializer assigns its properties (it has an
    /// initializer of its own, so no memberwise one).
    @JSONModel
    struct Shelf: Codable {
        var cards: [Card]
        init(cards: [Card]) { self.cards = cards }
    }

    final class Card: Codable {
        let text: String
        weak var board: Board?
        enum CodingKeys: CodingKey { case text }
        init(from decoder: any Decoder) throws {
            text = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .text)
            decoder.linkToParent(Board.self) { [weak self] board in self?.board = board }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
        }
    }

    @Test("a child inside a generated struct links to the class that holds the struct")
    func parentAcrossStruct() throws {
        let json = Data(
            #"{"column": {"title": "to do", "cards": [{"text": "a"}, {"text": "b"}]}, "shelf": {"cards": [{"text": "c"}]}}"#
                .utf8
        )
        for generated in [true, false] {
            let board = try Self.decoder(generated: generated).decode(Board.self, from: json)
            #expect(board.column.cards.map(\.text) == ["a", "b"])
            #expect(board.column.cards.allSatisfy { $0.board === board }, "generated readers: \(generated)")
            #expect(board.shelf.cards.map(\.text) == ["c"])
            #expect(board.shelf.cards.allSatisfy { $0.board === board }, "generated readers: \(generated)")
        }
    }

    @Test("a final class reads the same way, nested in itself")
    func finalClass() throws {
        let json = Data(#"{"name": "root", "weight": 2, "children": [{"name": "leaf", "weight": 3}]}"#.utf8)
        let node = try StreamingJSONDecoder().decode(Node.self, from: json)
        #expect(node.name == "root")
        #expect(node.weight == 2)
        #expect(node.children?.first?.name == "leaf")
        #expect(node.children?.first?.children == nil)
        let broken = Data(#"{"name": "root", "children": [{"weight": 3}]}"#.utf8)
        #expect(
            Self.describe(
                try #require(throws: DecodingError.self) {
                    try Self.decoder(generated: true).decode(Node.self, from: broken)
                }
            )
                == Self.describe(
                    try #require(throws: DecodingError.self) {
                        try Self.decoder(generated: false).decode(Node.self, from: broken)
                    }
                )
        )
    }
}

/// Nested arrays, vectors and maps of scalars (`TapePlainValue`) and maps of models, which the
/// generated readers read straight from the tape: the same values as the general path, and
/// wherever the plain read gives up, the general path's own error and coding path.
@JSONModel
struct PlainContainers: Codable, Equatable {
    var rings: [[SIMD2<Double>]]
    var box: SIMD4<Double>?
    var grid: [[Int]]
    var names: [String: String]
    var scores: [String: [Int?]]
    var tags: [String]?
    var extra: [JSONValue]
    var people: [String: PlainPerson]
    var small: [Float]
    var big: [Int64]
}

@JSONModel
struct PlainPerson: Codable, Equatable {
    var name: String
    var age: Int
}

@Suite("@JSONModel: plain containers against the general path")
struct PlainContainerDifferentialTests {
    static let valid = #"""
        {"rings": [[[1.5, -2.25], [3e2, 4]], []], "box": [0, 1.5, 2, 3.25], "grid": [[1, 2], [], [3]],
         "names": {"7": "seven", "a\u00e9": "accent"}, "scores": {"x": [1, null, 3], "y": []},
         "tags": null, "extra": [1, "two", {"three": [3]}, null], "people": {"1": {"name": "Ada", "age": 36}},
         "small": [0.5, 1e-3], "big": [9007199254740993, -1]}
        """#

    /// `valid` with `replacement` put where `original` stands.
    static func broken(_ original: String, _ replacement: String) -> String {
        precondition(valid.contains(original), original)
        return valid.replacingOccurrences(of: original, with: replacement)
    }

    /// Twenty elements, 3 to 22, each written by `element`.
    static func longList(_ element: (Int) -> String) -> String {
        (3...22).map(element).joined(separator: ", ")
    }

    /// Forty elements, 3 to 42, each written by `element`.
    static func longerList(_ element: (Int) -> String) -> String {
        (3...42).map(element).joined(separator: ", ")
    }

    static let cases: [String] = [
        valid,
        broken("[3e2, 4]", "[3e2, 4, 5]"),  // a vector too long
        broken("[3e2, 4]", "[3e2]"),  // too short
        broken("[3e2, 4]", #"[3e2, "4"]"#),  // a string in a vector
        broken("[3e2, 4]", "[3e2, null]"),
        broken("[3e2, 4]", "[1e400, 4]"),  // out of Double's range
        broken("[[1, 2], [], [3]]", "[[1, 2.5], [], [3]]"),  // a fraction for an Int
        broken("[[1, 2], [], [3]]", "[[1, 2], {}, [3]]"),
        broken("[[1, 2], [], [3]]", "[[1, 2], [], [1e2]]"),  // an integer written with an exponent
        broken(#""7": "seven""#, #""7": 7"#),
        broken(#""7": "seven""#, #""7": "seven", "7": "again""#),  // a repeated map key
        broken(#"[1, null, 3]"#, #"[1, null, 3.5]"#),
        broken(#""tags": null"#, #""tags": ["a", 1]"#),
        broken(#""age": 36"#, #""age": "36""#),  // a model in a map that fails
        broken(#""age": 36"#, #""years": 36"#),
        broken(#""people": {"1""#, #""people": {"1": null, "2""#),
        broken("[0.5, 1e-3]", "[0.5, 1e300]"),  // beyond Float's range
        broken("[9007199254740993, -1]", "[9223372036854775808]"),  // beyond Int64
        broken(#""box": [0, 1.5, 2, 3.25]"#, #""box": null"#),
        broken(#""names": {"7": "seven", "a\u00e9": "accent"}"#, #""names": []"#),
        // Arrays are appended to while short and filled in place when long (from 16 elements in
        // plain containers, from 32 in a property's array): both, whole and given up part way.
        broken("[[1, 2], [], [3]]", "[[1, 2], [], [\(longList { "\($0)" })]]"),
        broken("[[1, 2], [], [3]]", "[[1, 2], [], [\(longList { $0 == 12 ? #""12""# : "\($0)" })]]"),
        broken("[[1, 2], [], [3]]", "[[1, 2], [], [\(longerList { "\($0)" })]]"),
        broken("[[1, 2], [], [3]]", "[[1, 2], [], [\(longerList { $0 == 35 ? #""35""# : "\($0)" })]]"),
        broken(#""tags": null"#, #""tags": ["# + longList { #""t\#($0)""# } + "]"),
        broken(#""tags": null"#, #""tags": ["# + longList { $0 == 17 ? "17" : #""t\#($0)""# } + "]"),
        broken(#""tags": null"#, #""tags": []"#),  // empty: no buffer made
        // The same for a property's array of scalars.
        broken(#""tags": null"#, #""tags": ["# + longerList { #""t\#($0)""# } + "]"),
        broken(#""tags": null"#, #""tags": ["# + longerList { $0 == 37 ? "37" : #""t\#($0)""# } + "]"),
    ]

    @Test("the same value or the same error on both paths", arguments: cases.indices)
    func samePlainOutcome(index: Int) {
        DifferentialTests.expectSame(PlainContainers.self, Data(Self.cases[index].utf8))
    }

    @Test("the valid case decodes to what Foundation reads")
    func matchesFoundation() throws {
        let data = Data(Self.valid.utf8)
        let sluice = try StreamingJSONDecoder().decode(PlainContainers.self, from: data)
        #expect(sluice == (try JSONDecoder().decode(PlainContainers.self, from: data)))
        #expect(sluice.rings[0][1] == SIMD2(300, 4))
        #expect(sluice.big[0] == 9_007_199_254_740_993)
        #expect(sluice.people["1"]?.name == "Ada")
    }
}
