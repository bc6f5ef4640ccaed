import SluiceMacrosExpansion
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import SluiceJSON
@testable import SluiceMacros

/// What `@JSONModel` writes for each shape of model, and what it refuses, with the message a user
/// sees.
@Suite("@JSONModel expansion")
struct MacroExpansionTests {
    static let macros: [String: MacroSpec] = ["JSONModel": MacroSpec(type: JSONModelMacro.self)]

    /// swift-syntax's expansion check, its failures recorded as this test's issues.
    static func expect(
        _ source: String,
        expands expanded: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source,
            expandedSource: expanded,
            macroSpecs: macros,
            indentationWidth: .spaces(4),
            failureHandler: { failure in
                Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
            }
        )
    }

    @Test(
        "a struct: a table of member names and one read per decoded property, in declaration order, as the memberwise initializer's arguments"
    )
    func structure() {
        Self.expect(
            """
            @JSONModel
            public struct Status: Codable {
                public var id: Int
                public var text: String?
                let kind = "status"
                var count: Int { 1 }
                static var shared = 0
            }
            """,
            expands: """
                public struct Status: Codable {
                    public var id: Int
                    public var text: String?
                    let kind = "status"
                    var count: Int { 1 }
                    static var shared = 0
                }

                extension Status: SluiceJSON.JSONModelDecodable {
                    public static let jsonModelMembers = SluiceJSON.JSONModelMembers(["id", "text"])

                    public static func readJSONModel(_ jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws -> Self {
                        let model = try Self(
                            id: jsonModelReader.decode(at: 0),
                            text: jsonModelReader.decodeIfPresent(at: 1)
                        )
                        jsonModelReader.finish()
                        return model
                    }

                    public init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {
                        self = try Self.readJSONModel(jsonModelReader)
                    }
                }

                extension Status: SluiceJSON.JSONModelEncodable {
                    public static let jsonModelKeys = SluiceJSON.JSONModelKeys(names: ["id", "text", "kind"], escaped: [["id", "text", "kind"], ["id", "text", "kind"], ["id", "text", "kind"]], sorted: [[0, 2, 1], [0, 2, 1], [0, 2, 1]], values: [\\Status.id, \\Status.text, \\Status.kind])

                    public func writeJSONModelField(_ field: Int, to writer: SluiceJSON.JSONModelWriter) throws {
                        switch field {
                        case 0:
                            try writer.write(self.id, field: 0)
                        case 1:
                            try writer.writeIfPresent(self.text, field: 1)
                        case 2:
                            try writer.write(self.kind, field: 2)
                        default:
                            break
                        }
                    }
                }
                """
        )
    }

    @Test("a final class with CodingKeys: members by raw value, the initializer in the class")
    func finalClass() {
        Self.expect(
            """
            @JSONModel
            final class User: Codable {
                let screenName: String
                var followers: Int?
                var local = 0
                enum CodingKeys: String, CodingKey {
                    case screenName = "screen_name"
                    case followers
                }
            }
            """,
            expands: """
                final class User: Codable {
                    let screenName: String
                    var followers: Int?
                    var local = 0
                    enum CodingKeys: String, CodingKey {
                        case screenName = "screen_name"
                        case followers
                    }

                    init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {
                        (self.screenName, self.followers) = (
                            try jsonModelReader.decode(at: 0),
                            try jsonModelReader.decodeIfPresent(at: 1)
                        )
                        jsonModelReader.finish(self)
                    }
                }

                extension User: SluiceJSON.JSONModelDecodable {
                    static let jsonModelMembers = SluiceJSON.JSONModelMembers(["screen_name", "followers"])
                }

                extension User: SluiceJSON.JSONModelEncodable {
                    static let jsonModelKeys = SluiceJSON.JSONModelKeys(names: ["screen_name", "followers"], escaped: [["screen_name", "followers"], ["screen_name", "followers"], ["screen_name", "followers"]], sorted: [[1, 0], [1, 0], [1, 0]], values: [\\User.screenName, \\User.followers])

                    func writeJSONModelField(_ field: Int, to writer: SluiceJSON.JSONModelWriter) throws {
                        switch field {
                        case 0:
                            try writer.write(self.screenName, field: 0)
                        case 1:
                            try writer.writeIfPresent(self.followers, field: 1)
                        default:
                            break
                        }
                    }
                }
                """
        )
    }

    @Test("the writer's names: escaped as JSON per key strategy and sorted per strategy at expansion time")
    func writerNames() {
        Self.expect(
            """
            @JSONModel
            struct Link: Encodable, Decodable {
                var userID: Int
                var quoted: String
                var zeta: Bool
                enum CodingKeys: String, CodingKey {
                    case zeta
                    case userID
                    case quoted = "a\\"b\\\\c"
                }
            }
            """,
            expands: """
                struct Link: Encodable, Decodable {
                    var userID: Int
                    var quoted: String
                    var zeta: Bool
                    enum CodingKeys: String, CodingKey {
                        case zeta
                        case userID
                        case quoted = "a\\"b\\\\c"
                    }
                }

                extension Link: SluiceJSON.JSONModelDecodable {
                    static let jsonModelMembers = SluiceJSON.JSONModelMembers(["userID", "a\\"b\\\\c", "zeta"])

                    static func readJSONModel(_ jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws -> Self {
                        let model = try Self(
                            userID: jsonModelReader.decode(at: 0),
                            quoted: jsonModelReader.decode(at: 1),
                            zeta: jsonModelReader.decode(at: 2)
                        )
                        jsonModelReader.finish()
                        return model
                    }

                    init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {
                        self = try Self.readJSONModel(jsonModelReader)
                    }
                }

                extension Link: SluiceJSON.JSONModelEncodable {
                    static let jsonModelKeys = SluiceJSON.JSONModelKeys(names: ["zeta", "userID", "a\\"b\\\\c"], escaped: [["zeta", "userID", "a\\\\\\"b\\\\\\\\c"], ["zeta", "user_id", "a\\\\\\"b\\\\\\\\c"], ["zeta", "user-id", "a\\\\\\"b\\\\\\\\c"]], sorted: [[2, 1, 0], [2, 1, 0], [2, 1, 0]], values: [\\Link.zeta, \\Link.userID, \\Link.quoted])

                    func writeJSONModelField(_ field: Int, to writer: SluiceJSON.JSONModelWriter) throws {
                        switch field {
                        case 0:
                            try writer.write(self.zeta, field: 0)
                        case 1:
                            try writer.write(self.userID, field: 1)
                        case 2:
                            try writer.write(self.quoted, field: 2)
                        default:
                            break
                        }
                    }
                }
                """
        )
    }

    @Test("no writer for a model that is only Decodable or writes itself")
    func noWriter() {
        for source in [
            "@JSONModel\nstruct Page: Decodable {\n    var size: Int\n}",
            "@JSONModel\nstruct Page: Codable {\n    var size: Int\n    func encode(to encoder: any Encoder) throws {}\n}",
        ] {
            let expanded = Self.expansionText(source)
            #expect(expanded.contains("JSONModelDecodable"))
            #expect(!expanded.contains("JSONModelEncodable"))
        }
    }

    @Test(
        "a struct whose memberwise initializer cannot take the decoded properties alone assigns them",
        arguments: [
            // Its own initializer (the memberwise one is not made).
            "struct S: Decodable {\n    var x: Int\n    init(x: Int) { self.x = x }\n}",
            // A private property (the memberwise initializer is private too).
            "struct S: Decodable {\n    private var x: Int\n}",
            // An attribute, as a property wrapper is.
            "struct S: Decodable {\n    @Wrapped var x: Int\n}",
            // A lazy property.
            "struct S: Decodable {\n    var x: Int\n    lazy var y = 1\n}",
            // A property CodingKeys leaves out, without a default value.
            "struct S: Decodable {\n    var x: Int\n    var y: Int?\n    enum CodingKeys: String, CodingKey { case x }\n}",
            // An observed property.
            "struct S: Decodable {\n    var x: Int { didSet {} }\n}",
        ]
    )
    func assignsProperties(source: String) {
        let expanded = Self.expansionText("@JSONModel\n" + source)
        #expect(!expanded.contains("readJSONModel"), "\(expanded)")
        #expect(expanded.contains("self.x = try jsonModelReader.decode(at: 0)"), "\(expanded)")
        // A struct is no parent: it ends its object without handing itself over.
        #expect(expanded.contains("jsonModelReader.finish()\n"), "\(expanded)")
    }

    @Test("a property CodingKeys leaves out, with a default value, is left to the memberwise initializer")
    func defaultedProperty() {
        let expanded = Self.expansionText(
            "@JSONModel\nstruct S: Decodable {\n    var x: Int\n    var y = 2\n    enum CodingKeys: String, CodingKey { case x }\n}"
        )
        #expect(
            expanded.contains("let model = try Self(\n            x: jsonModelReader.decode(at: 0)\n        )"),
            "\(expanded)"
        )
    }

    @Test("a generic struct gets a computed table (generic types have no stored statics)")
    func generic() {
        Self.expect(
            """
            @JSONModel
            struct Page<Item: Decodable>: Decodable {
                var items: [Item]
            }
            """,
            expands: """
                struct Page<Item: Decodable>: Decodable {
                    var items: [Item]
                }

                extension Page: SluiceJSON.JSONModelDecodable {
                    static var jsonModelMembers: SluiceJSON.JSONModelMembers {
                        SluiceJSON.JSONModelMembers.shared(by: Self.self, names: ["items"])
                    }

                    static func readJSONModel(_ jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws -> Self {
                        let model = try Self(
                            items: jsonModelReader.decode(at: 0)
                        )
                        jsonModelReader.finish()
                        return model
                    }

                    init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {
                        self = try Self.readJSONModel(jsonModelReader)
                    }
                }
                """
        )
    }

    @Test(
        "models the macro cannot serve are refused with what to change",
        arguments: [
            (
                "@JSONModel\nclass A: Codable { var x: Int }",
                "@JSONModel needs a final class: a subclass would inherit a reader that knows only this class's properties. Mark 'A' final."
            ),
            (
                "@JSONModel\nenum E: Codable { case a }",
                "@JSONModel applies to a struct or a final class."
            ),
            (
                "@JSONModel\nstruct S: Decodable { var x: Int\n init(from decoder: any Decoder) throws { x = 1 } }",
                "This type decodes itself with its own init(from:), which the generated reader would bypass; remove @JSONModel, or the custom init(from:)."
            ),
            (
                "@JSONModel\nstruct S: Decodable { var x: Int\n enum CodingKeys: JSONKeyPathCodingKey { case x } }",
                "@JSONModel reads CodingKeys with String raw values ('enum CodingKeys: String, CodingKey'); key path keys and other kinds need the general path, so remove @JSONModel."
            ),
        ]
    )
    func refusals(source: String, message: String) {
        let expanded = expansionDiagnostics(source)
        #expect(expanded == [message])
    }

    /// The messages of the diagnostics `@JSONModel` reports for `source`, a declaration carrying
    /// the attribute: both roles expanded, as the compiler does.
    /// The expanded source of `source`, as text.
    static func expansionText(_ source: String) -> String {
        let file = Parser.parse(source: source)
        guard let declaration = file.statements.first?.item.as(StructDeclSyntax.self),
            let attribute = declaration.attributes.first?.as(AttributeSyntax.self)
        else { return "" }
        let extensions = try? JSONModelMacro.expansion(
            of: attribute,
            attachedTo: declaration,
            providingExtensionsOf: IdentifierTypeSyntax(name: declaration.name),
            conformingTo: [],
            in: BasicMacroExpansionContext()
        )
        return (extensions ?? []).map(\.description).joined(separator: "\n")
    }

    func expansionDiagnostics(_ source: String) -> [String] {
        let file = Parser.parse(source: source)
        guard let item = file.statements.first?.item, let declaration = item.asProtocol((any DeclGroupSyntax).self),
            let attribute = declaration.attributes.first?.as(AttributeSyntax.self)
        else {
            Issue.record("no declaration with an attribute in \(source)")
            return []
        }
        let name =
            declaration.as(StructDeclSyntax.self)?.name ?? declaration.as(ClassDeclSyntax.self)?.name
            ?? declaration.as(EnumDeclSyntax.self)?.name ?? .identifier("T")
        let context = BasicMacroExpansionContext()
        _ = try? JSONModelMacro.expansion(
            of: attribute,
            providingMembersOf: declaration,
            conformingTo: [],
            in: context
        )
        _ = try? JSONModelMacro.expansion(
            of: attribute,
            attachedTo: declaration,
            providingExtensionsOf: IdentifierTypeSyntax(name: name),
            conformingTo: [],
            in: context
        )
        return context.diagnostics.map(\.message)
    }

    @Test("a reader hands an object with a repeated member, or options that need it, to the general path")
    func generalPathWhenNeeded() throws {
        let members = JSONModelMembers(["id", "name"])
        /// What a reader of `json` says; the reader lives inside the tape's and the context's
        /// lifetimes, as it must (it holds neither).
        struct Answer { var needsGeneralPath: Bool }
        func reader(_ json: String, _ options: TapeDecodingOptions = TapeDecodingOptions()) throws -> Answer {
            let tape = try JSONParser.parse(Array(json.utf8))
            let context = TapeDecodingContext(options: options)
            return try withExtendedLifetime((tape, context)) {
                let reader = try JSONModelReader(
                    try tape.value(at: tape.startIndex),
                    context: context,
                    members: members
                )
                return Answer(needsGeneralPath: reader.needsGeneralPath)
            }
        }
        #expect(try !reader(#"{"id": 1, "name": "a", "other": {"id": 2}}"#).needsGeneralPath)
        #expect(try reader(#"{"id": 1, "name": "a", "id": 2}"#).needsGeneralPath)
        var snake = TapeDecodingOptions()
        snake.keyStrategy = .convertFromSnakeCase
        #expect(try !reader(#"{"id": 1}"#, snake).needsGeneralPath)
        var custom = TapeDecodingOptions()
        custom.keyStrategy = .memberName { $0.uppercased() }
        #expect(try reader(#"{"id": 1}"#, custom).needsGeneralPath)
        var ignoring = TapeDecodingOptions()
        ignoring.ignoredKeys = ["x"]
        #expect(try reader(#"{"id": 1}"#, ignoring).needsGeneralPath)
        var dates = TapeDecodingOptions()
        dates.dateStrategy = .iso8601
        #expect(try !reader(#"{"id": 1}"#, dates).needsGeneralPath)
    }

    @Test("the member table finds names by length and bytes, and nothing else")
    func memberTable() {
        let members = JSONModelMembers(["id", "idStr", "text", "", "télé"])
        func index(_ name: String) -> Int { Array(name.utf8).withUnsafeBytes { members.index(of: $0) } }
        #expect(index("id") == 0)
        #expect(index("idStr") == 1)
        #expect(index("text") == 2)
        #expect(index("") == 3)
        #expect(index("télé") == 4)
        #expect(index("ix") == -1)
        #expect(index("texts") == -1)
        #expect(index("a very long name indeed") == -1)
    }

    @Test("a guessed property answers only for its own name, whatever the name's length")
    func guessedMembers() {
        // Names that share a length (and, in the word comparisons of 8 to 32 bytes, a first or a
        // last word, or the first or last sixteen bytes) with another: a wrong guess must fall
        // through to the table.
        let names = [
            "id", "abcdefgh", "abcdefgx", "xbcdefgh", "created_at_0001", "created_at_0002",
            "updated_at_0001", "profile_link_color", "profile_text_color", "", "télé",
            "in_reply_to_status_id_str", "in_reply_to_status_id_stx", "xn_reply_to_status_id_str",
            "in_reply_to_statxs_id_str", "abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz01234x",
        ]
        let members = JSONModelMembers(names)
        let others = [
            "abcdefg", "abcdefghi", "created_at_0003", "zz", "profile_link_colour", "in_reply_to_status_id_s",
        ]
        for name in names + others {
            let expected = Array(name.utf8).withUnsafeBytes { members.index(of: $0) }
            for guess in 0...names.count {
                let found = Array(name.utf8).withUnsafeBytes {
                    members.index(of: $0, mode: .exact, guess: guess, guesses: members.guesses(under: .exact))
                }
                #expect(found == expected, "\(name) guessing \(guess)")
            }
        }
    }

    @Test("the member table holds the spellings of snake_case, kebab-case and loose keys")
    func strategyTables() {
        let members = JSONModelMembers(["firstName", "myURLValue", "id", "user2fa"])
        func index(_ name: String, _ mode: GeneratedKeyMode) -> Int {
            Array(name.utf8).withUnsafeBytes { members.index(of: $0, mode: mode) }
        }
        #expect(index("firstName", .snake) == 0)
        #expect(index("first_name", .snake) == 0)
        #expect(index("FIRST_NAME", .snake) == 0)
        #expect(index("first-name", .snake) == -1)
        #expect(index("first-name", .kebab) == 0)
        #expect(index("my_url_value", .snake) == 1)
        #expect(index("my-url-value", .kebab) == 1)
        #expect(index("user2fa", .snake) == 3)
        #expect(index("First_Name", .loose) == 0)
        #expect(index("MY-URL-value", .loose) == 1)
        #expect(index("first_name", .exact) == -1)
        // Two properties that one spelling stands for: the general path decides.
        let clashing = JSONModelMembers(["firstName", "first_name"])
        #expect(Array("first_name".utf8).withUnsafeBytes { clashing.index(of: $0, mode: .snake) } == -2)
        #expect(Array("firstName".utf8).withUnsafeBytes { clashing.index(of: $0, mode: .exact) } == 0)
        // A name whose camel-case conversion is one property and whose spelling is another.
        let converted = JSONModelMembers(["a_b", "aB"])
        #expect(Array("a_b".utf8).withUnsafeBytes { converted.index(of: $0, mode: .snake) } == -2)
    }

    @Test("the tables agree with the key strategies' matchers on every name tried")
    func tablesAgreeWithMatchers() {
        let keys = ["firstName", "myURLValue", "id", "user2fa", "URL", "a", "aB", "ÉtéTime", "x_y", "HTTPServer2Go"]
        let alphabet: [UInt8] = Array("aAbBfFiInNuU2_-éT".utf8)
        var names: [[UInt8]] = keys.map { Array($0.utf8) }
        for key in keys {
            for strategy in [JSONKeyStrategy.convertFromSnakeCase, .convertFromKebabCase] {
                names.append(Array(strategy.memberName(forProperty: key).utf8))
            }
            names.append(Array(key.uppercased().utf8))
            names.append(JSONKeyStrategy.separatedSpelling(of: Array(key.utf8), separator: UInt8(ascii: "_")))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            names.append((0..<Int.random(in: 0...7, using: &generator)).map { _ in alphabet.randomElement()! })
        }
        let modes: [(GeneratedKeyMode, JSONKeyStrategy)] = [
            (.exact, .useDefaultKeys), (.snake, .convertFromSnakeCase), (.kebab, .convertFromKebabCase),
            (.loose, .loose),
        ]
        for key in keys {
            let members = JSONModelMembers([key])
            for (mode, strategy) in modes {
                for name in names {
                    let found = name.withUnsafeBytes { members.index(of: $0, mode: mode) } == 0
                    #expect(
                        found == strategy.matches(name, key: key),
                        "\(String(decoding: name, as: UTF8.self)) for \(key) under \(mode)"
                    )
                }
            }
        }
    }
}
