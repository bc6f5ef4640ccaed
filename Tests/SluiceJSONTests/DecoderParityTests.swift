import Foundation
import SluiceJSON
import Testing

/// StreamingJSONDecoder against Foundation's JSONDecoder: the same values, and on bad input the
/// same kind of error with the same coding path.
@Suite("StreamingJSONDecoder: parity with JSONDecoder")
struct DecoderParityTests {
    struct Address: Codable, Equatable {
        var street: String
        var city: String
        var zip: String?
    }

    struct Person: Codable, Equatable {
        var name: String
        var age: Int
        var height: Double
        var active: Bool
        var nickname: String?
        var tags: [String]
        var scores: [Int?]
        var address: Address
        var previous: [Address]
        var ratings: [String: Double]
        var big: UInt64
        var small: Int8
        var precise: Decimal
        var homepage: URL?
        var avatar: Data?
    }

    static let person = #"""
        {"name": "Ada \u00e9\ud83d\ude00", "age": 36, "height": 1.65, "active": true, "nickname": null,
         "tags": ["math", "engines"], "scores": [1, null, 3],
         "address": {"street": "1 Analytical Way", "city": "London"},
         "previous": [{"street": "2 Difference St", "city": "Marylebone", "zip": "W1"}],
         "ratings": {"b": 2.5, "a": -1e-3}, "big": 18446744073709551615, "small": -128,
         "precise": 12345.678901234567890123, "homepage": "https://example.com/ada", "avatar": "AQID"}
        """#

    @Test("a model with every common property type decodes to what JSONDecoder gives")
    func sameValues() throws {
        let data = Data(Self.person.utf8)
        let expected = try JSONDecoder().decode(Person.self, from: data)
        let decoded = try StreamingJSONDecoder().decode(Person.self, from: data)
        #expect(decoded.name == expected.name)
        #expect(decoded.address == expected.address)
        #expect(decoded.ratings == expected.ratings)
        #expect(decoded.avatar == Data([1, 2, 3]))
        // Decimal: Sluice reads the digits exactly; Foundation may go through Double.
        #expect(decoded.precise == Decimal(string: "12345.678901234567890123"))
        var comparable = decoded
        comparable.precise = expected.precise
        #expect(comparable == expected)
    }

    @Test("top-level scalars, arrays and dictionaries decode as with JSONDecoder")
    func fragments() throws {
        let decoder = StreamingJSONDecoder()
        #expect(try decoder.decode(Int.self, from: Data("42".utf8)) == 42)
        #expect(try decoder.decode(String.self, from: Data(#""x""#.utf8)) == "x")
        #expect(try decoder.decode(Int?.self, from: Data("null".utf8)) == nil)
        #expect(try decoder.decode([[Int]].self, from: Data("[[1],[2,3],[]]".utf8)) == [[1], [2, 3], []])
        #expect(try decoder.decode([String: Int].self, from: Data(#"{"a":1,"b":2}"#.utf8)) == ["a": 1, "b": 2])
        #expect(try decoder.decode([Int].self, from: [UInt8]("[1, 2]".utf8)) == [1, 2])
    }

    /// The error kind and coding path, the parts of a DecodingError a caller switches on.
    static func shape(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "keyNotFound(\(key.stringValue)) at \(path(context))"
        case .valueNotFound(_, let context): return "valueNotFound at \(path(context))"
        case .typeMismatch(_, let context): return "typeMismatch at \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted at \(path(context))"
        @unknown default: return "unknown"
        }
    }

    static func failure<T: Decodable>(_ type: T.Type, _ json: String, with decode: (Data) throws -> T) -> String {
        do {
            _ = try decode(Data(json.utf8))
            return "no error"
        } catch {
            return shape(error)
        }
    }

    @Test(
        "bad input gives the error kind and coding path JSONDecoder gives",
        arguments: [
            #"{"street": "x"}"#,  // missing required key
            #"{"street": 1, "city": "y"}"#,  // wrong type
            #"{"street": null, "city": "y"}"#,  // null for a required value
            #"{"street": "x", "city": "y", "zip": 5}"#,  // wrong type for an optional
            #"{"street": "x", "city": "y""#,  // truncated
            #"[]"#,  // array for an object
        ]
    )
    func addressErrors(json: String) {
        let expected = Self.failure(Address.self, json) { try JSONDecoder().decode(Address.self, from: $0) }
        let actual = Self.failure(Address.self, json) { try StreamingJSONDecoder().decode(Address.self, from: $0) }
        #expect(actual == expected)
        #expect(expected != "no error")
    }

    struct Nested: Codable, Equatable {
        struct Inner: Codable, Equatable {
            var values: [Int8]
            var label: String?
        }
        var items: [Inner]
        var lookup: [String: Inner]?
    }

    @Test(
        "nested errors carry the same coding path, through arrays and dictionaries",
        arguments: [
            #"{"items": [{"values": [1, 2]}, {"label": "x"}]}"#,  // missing key in element 1
            #"{"items": [{"values": [1, "2"]}]}"#,  // string in an Int8 array
            #"{"items": [{"values": null}]}"#,  // null array
            #"{"items": [], "lookup": {"k": {"values": [true]}}}"#,  // inside a dictionary
            #"{"items": [{"values": [], "label": 7}]}"#,  // number for an optional string
        ]
    )
    func nestedErrors(json: String) {
        let expected = Self.failure(Nested.self, json) { try JSONDecoder().decode(Nested.self, from: $0) }
        let actual = Self.failure(Nested.self, json) { try StreamingJSONDecoder().decode(Nested.self, from: $0) }
        #expect(actual == expected)
        #expect(expected != "no error")
    }

    struct Optionals: Codable, Equatable {
        var flags: [Bool?]
        var counts: [Int?]?
        var names: [String?]?
        var ratios: [Double?]?
        var big: [Int64?]?
    }

    @Test(
        "arrays of optional scalars: the same values and errors as JSONDecoder",
        arguments: [
            #"{"flags": [true, null, false], "counts": [1, null], "names": [null, "a"], "ratios": [0.5, null], "big": [null, 9007199254740993]}"#,
            #"{"flags": []}"#,
            #"{"flags": [true, 1]}"#,  // a number among Booleans
            #"{"flags": null}"#,  // null for the required array
            #"{"flags": {}}"#,  // an object for the array
            #"{"flags": [], "counts": [1, "2"]}"#,
            #"{"flags": [], "names": [null, 3]}"#,
            #"{"flags": [], "ratios": [null, true]}"#,
            #"{"flags": [], "big": [[]]}"#,
        ]
    )
    func optionalScalarArrays(json: String) throws {
        let data = Data(json.utf8)
        let expected = Self.failure(Optionals.self, json) { try JSONDecoder().decode(Optionals.self, from: $0) }
        let actual = Self.failure(Optionals.self, json) { try StreamingJSONDecoder().decode(Optionals.self, from: $0) }
        #expect(actual == expected)
        if expected == "no error" {
            #expect(
                try StreamingJSONDecoder().decode(Optionals.self, from: data)
                    == JSONDecoder().decode(Optionals.self, from: data)
            )
        }
    }

    @Test(
        "where Foundation is vaguer or lenient, Sluice is precise and strict",
        arguments: [
            // Foundation reports overflow and fractions with an empty coding path.
            (#"{"items": [{"values": [1, 2]}, {"values": [1, 300]}]}"#, "dataCorrupted at items.1.values.1"),
            (#"{"items": [{"values": [1.5]}]}"#, "dataCorrupted at items.0.values.0"),
        ]
    )
    func preciser(json: String, expected: String) {
        #expect(
            Self.failure(Nested.self, json) { try StreamingJSONDecoder().decode(Nested.self, from: $0) } == expected
        )
    }

    @Test("invalid JSON is dataCorrupted with the parser's error, position included, underneath")
    func invalidJSON() throws {
        do {
            _ = try StreamingJSONDecoder().decode([Int].self, from: Data("[1, 2,,]".utf8))
            Issue.record("no error")
        } catch DecodingError.dataCorrupted(let context) {
            let underlying = try #require(context.underlyingError as? JSONError)
            #expect(underlying.position.column == 7)
            #expect(context.debugDescription.hasPrefix("The given data was not valid JSON at line"))
            #expect(context.debugDescription.contains("line 1, column 7"))
        }
    }

    struct Dated: Decodable {
        var id: Int
        var site: URL
        var tags: [String]
    }

    @Test(
        "a value the model refuses carries the fault as data: kind, message and position underneath",
        arguments: [
            (#"{"id": "7", "site": "https://a.example", "tags": []}"#, JSONError.Kind.typeMismatch, 8, "Expected"),
            (#"{"id": 7, "site": "", "tags": []}"#, .invalidValue, 19, "Invalid URL string \"\""),
            (#"{"id": 7, "tags": []}"#, .missingValue, 1, "No member \"site\" in the object"),
            (#"{"id": 7, "site": "https://a.example", "tags": [1]}"#, .typeMismatch, 49, "Expected a string"),
        ]
    )
    func faultsAsData(json: String, kind: JSONError.Kind, column: Int, message: String) throws {
        do {
            _ = try StreamingJSONDecoder().decode(Dated.self, from: Data(json.utf8))
            Issue.record("no error")
        } catch let error as DecodingError {
            let context: DecodingError.Context
            switch error {
            case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found),
                .dataCorrupted(let found):
                context = found
            @unknown default: throw error
            }
            let fault = try #require(context.underlyingError as? JSONError)
            #expect(fault.kind == kind)
            #expect(fault.position.line == 1 && fault.position.column == column)
            #expect(fault.message.hasPrefix(message))
            #expect(!fault.message.contains("line"))
            // The description is the same sentence with its place, worded from those fields.
            #expect(context.debugDescription.hasSuffix("at line 1, column \(column)"))
        }
    }

    @Test("integers never wrap or truncate: out of range is dataCorrupted naming the number")
    func overflow() throws {
        for (json, expectedShape) in [("[256]", "dataCorrupted at 0"), ("[-1]", "dataCorrupted at 0")] {
            #expect(
                Self.failure([UInt8].self, json) { try StreamingJSONDecoder().decode([UInt8].self, from: $0) }
                    == expectedShape
            )
        }
        do {
            _ = try StreamingJSONDecoder().decode(Int64.self, from: Data("9223372036854775808".utf8))
            Issue.record("no error")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("9223372036854775808 does not fit in Int64"))
        }
    }

    @Test("a message names the place in the input")
    func messagePosition() {
        do {
            _ = try StreamingJSONDecoder().decode(
                Address.self,
                from: Data("{\n  \"street\": 12,\n \"city\": \"x\"}".utf8)
            )
            Issue.record("no error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.debugDescription == "Expected a string, found a number at line 2, column 13")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("decoding from chunks that arrive asynchronously gives the same value")
    func asyncChunks() async throws {
        let bytes = Array(Self.person.utf8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 7) {
                continuation.yield(Array(bytes[start..<min(start + 7, bytes.count)]))
            }
            continuation.finish()
        }
        let decoded = try await StreamingJSONDecoder().decode(Person.self, from: chunks)
        #expect(decoded == (try StreamingJSONDecoder().decode(Person.self, from: bytes)))
    }

    @Test("a file decodes through the chunked reader; a missing file names itself")
    func file() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-person-\(UUID()).json")
        try Data(Self.person.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let decoded = try StreamingJSONDecoder().decode(Person.self, fromFileAt: url.path)
        #expect(decoded.name.hasPrefix("Ada"))
        #expect(throws: FileChunkReader.Failure.self) {
            try StreamingJSONDecoder().decode(Person.self, fromFileAt: url.path + ".missing")
        }
    }

    @Test("the chunked reader says whether it met the end of its input, not when its body stopped it")
    func readerEnd() throws {
        struct Stop: Error {}
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-end-\(UUID()).json")
        try Data(repeating: 0x20, count: 10_000).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let stopped = try FileChunkReader(path: url.path, chunkSize: 4096)
        #expect(throws: Stop.self) { try stopped.forEachChunk { _ in throw Stop() } }
        #expect(!stopped.reachedEnd)
        #expect(stopped.bytesRead == 4096)
        let whole = try FileChunkReader(path: url.path, chunkSize: 4096)
        try whole.forEachChunk { _ in #expect(!whole.reachedEnd) }
        #expect(whole.reachedEnd)
        #expect(whole.bytesRead == 10_000)
        let pulled = try FileChunkReader(path: url.path, chunkSize: 8192)
        #expect(try pulled.nextChunk()?.count == 8192)
        #expect(try pulled.nextChunk()?.count == 1808)
        #expect(!pulled.reachedEnd)
        #expect(try pulled.nextChunk() == nil)
        #expect(pulled.reachedEnd)
    }

    @Test("userInfo reaches the models")
    func userInfo() throws {
        struct Probe: Decodable {
            let seen: String?
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] as? String
            }
        }
        let decoder = StreamingJSONDecoder()
        decoder.userInfo = [CodingUserInfoKey(rawValue: "tenant")!: "acme"]
        #expect(try decoder.decode(Probe.self, from: Data("{}".utf8)).seen == "acme")
    }
}

/// Key strategies: Foundation's, and the loose and kebab ones from the seeds.
@Suite("StreamingJSONDecoder: key strategies")
struct KeyStrategyTests {
    struct Profile: Codable, Equatable {
        var firstName: String
        var lastLoginAt: Int?
    }

    @Test(
        "snake_case reads what Foundation reads, and the exact spelling",
        arguments: [
            #"{"first_name": "a", "last_login_at": 1}"#,
            #"{"FIRST_NAME": "a", "LAST_LOGIN_AT": 1}"#,
            #"{"_first_name_": "x", "first_name": "a", "last_login_at": 1}"#,
            #"{"firstName": "a", "lastLoginAt": 1}"#,
        ]
    )
    func snakeCase(json: String) throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let decoded = try decoder.decode(Profile.self, from: Data(json.utf8))
        #expect(decoded == Profile(firstName: "a", lastLoginAt: 1))
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        if json.contains("_") {
            #expect(try foundation.decode(Profile.self, from: Data(json.utf8)) == decoded)
        }
    }

    @Test("kebab-case reads first-name")
    func kebabCase() throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromKebabCase
        let decoded = try decoder.decode(Profile.self, from: Data(#"{"first-name": "a", "last-login-at": 2}"#.utf8))
        #expect(decoded == Profile(firstName: "a", lastLoginAt: 2))
    }

    @Test(
        "loose matching ignores case, _ and -",
        arguments: ["firstName", "FirstName", "first_name", "first-name", "FiRst_NAme", "FIRSTNAME", "first__name"]
    )
    func loose(member: String) throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .loose
        let decoded = try decoder.decode(Profile.self, from: Data(#"{"\#(member)": "a"}"#.utf8))
        #expect(decoded.firstName == "a")
    }

    @Test("loose matching lets the exact spelling win wherever it stands, in small and large objects")
    func looseExactWins() throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .loose
        let small = #"{"first_name": "loose", "firstName": "exact"}"#
        #expect(try decoder.decode(Profile.self, from: Data(small.utf8)).firstName == "exact")
        // Over 16 members the container indexes them; the same rule holds.
        let filler = (0..<20).map { #""m\#($0)": \#($0)"# }.joined(separator: ", ")
        let large = #"{"FIRST-NAME": "loose", \#(filler), "firstName": "exact", "LastLoginAt": 9}"#
        let decoded = try decoder.decode(Profile.self, from: Data(large.utf8))
        #expect(decoded == Profile(firstName: "exact", lastLoginAt: 9))
        let onlyLoose = #"{"FIRST-NAME": "loose", \#(filler)}"#
        #expect(try decoder.decode(Profile.self, from: Data(onlyLoose.utf8)).firstName == "loose")
    }

    @Test("loose matching does not accept other letters")
    func looseRejects() {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .loose
        #expect(throws: DecodingError.self) {
            try decoder.decode(Profile.self, from: Data(#"{"firstNames": "a"}"#.utf8))
        }
    }

    @Test("Foundation's custom strategy maps each member's path to a key")
    func foundationCustom() throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let name = path.last!.stringValue
            return AnyCodingKey(name.hasPrefix("x_") ? String(name.dropFirst(2)) : name)
        }
        let decoded = try decoder.decode(Profile.self, from: Data(#"{"x_firstName": "a", "x_lastLoginAt": 3}"#.utf8))
        #expect(decoded == Profile(firstName: "a", lastLoginAt: 3))
    }

    @Test("a member-name function maps keys to member names")
    func memberNameFunction() throws {
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .memberName { "ns:" + $0 }
        let decoded = try decoder.decode(Profile.self, from: Data(#"{"ns:firstName": "a"}"#.utf8))
        #expect(decoded.firstName == "a")
    }

    @Test("dictionary keys stay as written under every strategy, as in Foundation's JSONDecoder")
    func dictionaryKeys() throws {
        let json = Data(#"{"first_name": 1, "Other-Key": 2}"#.utf8)
        let decoder = StreamingJSONDecoder()
        decoder.keyDecodingStrategy = .loose
        #expect(try decoder.decode([String: Int].self, from: json) == ["first_name": 1, "Other-Key": 2])
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try foundation.decode([String: Int].self, from: json)
        let converted = try decoder.decode([String: Int].self, from: json)
        #expect(converted == expected, "\(converted) vs \(expected)")
    }
}
