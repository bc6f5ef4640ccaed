import Foundation
import SluiceJSONAPI
import SluiceMacros
import SluiceTools
import Testing

/// `@JSONModel` on JSON:API resource models: the JSON:API decoder files each resource object's
/// members under the model's properties and calls the generated reader. These tests hold it to
/// the general path (the same models read through their Codable conformance by
/// `ResourceDecoder`): the same models, links and errors, whole and streamed, under each key
/// strategy the generated readers have tables for.
@Suite("@JSONModel resources: the generated path against the general path")
struct ResourceDifferentialTests {
    @JSONModel
    struct Metadata: Codable, Equatable {
        var wordCount: Int
        var flags: [Bool?]
        var ratio: Double
    }

    @JSONModel
    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var body: String
        var published: Bool
        var views: Int
        var rating: Double
        var publishedAt: String
        var subtitle: String?
        var tags: [String]
        var metadata: Metadata
        var author: ToOne<Person>
        var comments: ToMany<Comment>
        var subject: ToOne<AnyResource>
        var meta: JSONValue?
    }

    @JSONModel
    struct Person: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
        var age: Int
        var email: String?
        var verified: Bool
        var links: Links?
    }

    @JSONModel
    struct Comment: Resource, Equatable {
        static let resourceType = "comments"
        var id: String
        var body: String
        var likes: Int
        var author: ToOne<Person>
        var article: ToOne<Article>
    }

    /// A model whose properties the document's fields and the resource's own members both name.
    @JSONModel
    struct Note: Resource, Equatable {
        static let resourceType = "notes"
        var id: String?
        var lid: String?
        var type: String
        var text: String
        var meta: JSONValue?
        var links: Links?
    }

    static func decoder(generated: Bool, strategy: JSONKeyStrategy = .convertFromKebabCase) -> JSONAPIDecoder {
        let decoder = JSONAPIDecoder(registry: [Article.self, Person.self, Comment.self, Note.self])
        decoder.keyDecodingStrategy = strategy
        decoder.options.usesGeneratedReaders = generated
        return decoder
    }

    /// What a decode gave, reduced to what a user sees: the models, what their relationships
    /// resolve to, or the error's every part.
    struct Outcome: Equatable {
        var articles: [Article] = []
        var people: [Person] = []
        var comments: [Comment] = []
        var notes: [Note] = []
        var resolved: [String] = []
        var failure: String?
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? JSONAPIDecodingError else { return "\(type(of: error)): \(error)" }
        var text = "\(error.pointer) \(error.position.map { "\($0.line):\($0.column)" } ?? "-") \(error.message)"
        text += " [\(error.property ?? "-")] \(error.excerpt) ^\(error.excerptColumn)"
        if let underlying = error.underlyingError as? DecodingError {
            text += " | " + DifferentialTests.describe(underlying)
        }
        return text
    }

    static func collect(_ resource: AnyResource, into outcome: inout Outcome) {
        if let article = resource.as(Article.self) { outcome.articles.append(article) }
        if let person = resource.as(Person.self) { outcome.people.append(person) }
        if let comment = resource.as(Comment.self) { outcome.comments.append(comment) }
        if let note = resource.as(Note.self) { outcome.notes.append(note) }
    }

    static func whole(
        _ bytes: [UInt8],
        generated: Bool,
        strategy: JSONKeyStrategy = .convertFromKebabCase
    )
        -> Outcome
    {
        var outcome = Outcome()
        do {
            let document = try decoder(generated: generated, strategy: strategy)
                .decode([AnyResource].self, from: bytes)
            for resource in document.data + document.included { collect(resource, into: &outcome) }
            let linked = try decoder(generated: generated, strategy: strategy)
                .decode([Linked<AnyResource>].self, from: bytes)
            for item in linked.data {
                guard let article = item.as(Article.self) else { continue }
                outcome.resolved.append(article.author?.name ?? "-")
                outcome.resolved.append(article.comments.map { "\($0.likes)" }.joined(separator: ","))
            }
        } catch {
            outcome = Outcome(failure: describe(error))
        }
        return outcome
    }

    static func streamed(_ bytes: [UInt8], size: Int, generated: Bool) async -> Outcome {
        var outcome = Outcome()
        do {
            for try await streamed in decoder(generated: generated).resources(
                from: DifferentialTests.Chunks(bytes: bytes, size: size)
            ) {
                collect(streamed.resource, into: &outcome)
            }
        } catch {
            outcome = Outcome(failure: describe(error))
        }
        return outcome
    }

    static func sample(articles: Int, includedFirst: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles, includedFirst: includedFirst).write { bytes.append(contentsOf: $0) }
        return bytes
    }

    @Test("a generated compound document: the same models and links on both paths")
    func generatedDocument() throws {
        for includedFirst in [false, true] {
            let bytes = Self.sample(articles: 60, includedFirst: includedFirst)
            let generated = Self.whole(bytes, generated: true)
            #expect(generated.failure == nil)
            #expect(generated.articles.count == 60)
            #expect(!generated.people.isEmpty && !generated.comments.isEmpty)
            #expect(generated == Self.whole(bytes, generated: false))
        }
    }

    @Test(
        "streamed in chunks of any size, the generated path delivers what the general path does",
        arguments: [1, 7, 4096]
    )
    func streaming(size: Int) async throws {
        let bytes = Self.sample(articles: 12)
        let generated = await Self.streamed(bytes, size: size, generated: true)
        #expect(generated.failure == nil)
        #expect(generated.articles.count == 12)
        #expect(generated == (await Self.streamed(bytes, size: size, generated: false)))
        #expect(generated == (await Self.streamed(bytes, size: bytes.count, generated: true)))
    }

    /// One article, people and comment resource, written so that each test below can change one
    /// thing.
    static func document(
        article: String = "",
        person: String = "",
        note: String = #""attributes": {"text": "n"}"#
    )
        -> [UInt8]
    {
        let base = """
            {"data": [{"type": "articles", "id": "1", "attributes": {"title": "T", "body": "B", "published": true,
              "views": 3, "rating": 4.5, "published-at": "2024", "tags": ["a"],
              "metadata": {"word-count": 10, "flags": [true, null], "ratio": 0.5}},
              "relationships": {"author": {"data": {"type": "people", "id": "9"}},
                "comments": {"data": [{"type": "comments", "id": "5"}]},
                "subject": {"data": {"type": "people", "id": "9"}}}\(article)}],
             "included": [
              {"type": "people", "id": "9", "attributes": {"name": "Dan", "age": 40, "verified": false}\(person)},
              {"type": "comments", "id": "5", "attributes": {"body": "c", "likes": 2},
               "relationships": {"author": {"data": {"type": "people", "id": "9"}},
                 "article": {"data": {"type": "articles", "id": "1"}}}},
              {"type": "notes", "id": "n1", \(note)}]}
            """
        return Array(base.utf8)
    }

    static let variants: [(article: String, person: String, note: String)] = [
        ("", "", #""attributes": {"text": "n"}"#),
        (#", "meta": {"rank": 1}"#, #", "links": {"self": "/people/9"}"#, #""attributes": {"text": "n"}"#),
        // The resource's own meta and links, and fields of those names, which win.
        ("", "", #""attributes": {"text": "n", "meta": 5}, "meta": {"own": true}, "links": {"self": "/n"}"#),
        ("", "", #""attributes": {"text": "n"}, "relationships": {"links": {"data": null}}, "links": {"self": "/n"}"#),
        // A local identifier, a type read as a property.
        ("", "", #""lid": "local", "attributes": {"text": "n"}"#),
        // Fields named like the resource's own identity are not read as it.
        ("", "", #""attributes": {"text": "n", "type": "other", "id": "x"}"#),
        // Broken in every way a resource can be.
        ("", "", #""attributes": {}"#),
        ("", "", #""attributes": {"text": 5}"#),
        ("", "", #""attributes": {"text": null}"#),
        ("", "", #""attributes": {"text": "a"}, "relationships": {"text": {"data": null}}"#),
        ("", "", #""attributes": {"text": "a", "text": "b"}"#),
        ("", "", #""attributes": 7"#),
        ("", "", #""attributes": {"text": "n", "meta": "m"}, "links": 5"#),
        ("", #", "attributes": {"name": "Dan", "age": "forty", "verified": false}"#, ""),
        ("", #", "attributes": {"name": "Dan", "age": 40}"#, ""),
        (#", "relationships": {"author": {"data": {"id": "9"}}}"#, "", ""),
        (#", "relationships": {"author": {"data": 5}}"#, "", ""),
        // Relationships in other shapes than the usual: meta, links, lid, null, no data, repeats.
        (
            #", "relationships": {"author": {"data": {"type": "people", "id": "9", "meta": {"a": 1}}, "meta": {"b": 2}}}"#,
            "", ""
        ),
        (#", "relationships": {"author": {"links": {"related": "/a"}}, "comments": {"data": null}}"#, "", ""),
        (
            #", "relationships": {"author": {"data": null}, "comments": {"data": [{"type": "comments", "lid": "l"}]}}"#,
            "", ""
        ),
        (#", "relationships": {"author": {"data": {"type": "people", "id": null, "lid": "p"}, "data": null}}"#, "", ""),
        (#", "relationships": {"author": {"data": {"type": 7, "id": "9"}}}"#, "", ""),
        // Two-member identifiers and one-member relationship objects that are not the usual shape.
        (#", "relationships": {"author": {"data": {"id": "9", "type": "people"}}}"#, "", ""),
        (#", "relationships": {"author": {"data": {"type": "people", "lid": "9"}}}"#, "", ""),
        (#", "relationships": {"author": {"data": {"type": "people", "id": 9}}}"#, "", ""),
        (#", "relationships": {"author": {"data": {"type": "people", "ID": "9"}}}"#, "", ""),
        (#", "relationships": {"author": {"data": {"type": "people", "id": "9", "lid": "x"}}}"#, "", ""),
        (#", "relationships": {"author": {"dato": {"type": "people", "id": "9"}}}"#, "", ""),
        (#", "relationships": {"comments": {"data": {"type": "comments", "id": "5"}}}"#, "", ""),
        (#", "relationships": {"comments": {"data": [5]}}"#, "", ""),
        (#", "relationships": {"comments": {"data": []}}"#, "", ""),
        (#", "relationships": {"author": []}"#, "", ""),
        (#", "relationships": {"author": {"data": 5, "data": null}}"#, "", ""),
        (#", "relationships": {"author": {"meta": 5, "meta": {"x": [1, "a", null]}, "links": null}}"#, "", ""),
        (
            #", "relationships": {"author": {"data": null, "meta": {"s": "q\"b\\\n\u00e9", "o": {"e": {}, "a": [[], [true, -1.5e-3]]}}}, "comments": {"data": [], "meta": [{}]}}"#,
            "", ""
        ),
        (#", "relationships": {"author": {"data": null, "links": {"self": 5}}}"#, "", ""),
        (#", "relationships": {"comments": {"data": [{"type": "comments", "id": 5}]}}"#, "", ""),
        (#", "attributes": {"metadata": {"word-count": 1, "flags": [], "ratio": "x"}}"#, "", ""),
        (#", "attributes": {"metadata": {"wordCount": 1, "word-count": 2, "flags": [], "ratio": 1}}"#, "", ""),
    ]

    @Test("good and broken resources give the same models or the same error on both paths", arguments: variants.indices)
    func variant(index: Int) {
        let variant = Self.variants[index]
        let bytes = Self.document(article: variant.article, person: variant.person, note: variant.note)
        for strategy in [JSONKeyStrategy.convertFromKebabCase, .loose] {
            let generated = Self.whole(bytes, generated: true, strategy: strategy)
            let general = Self.whole(bytes, generated: false, strategy: strategy)
            #expect(generated == general, "\(generated.failure ?? "models") vs \(general.failure ?? "models")")
        }
    }

    @Test(
        "the JSON:API fixtures read the same on both paths",
        arguments: ["compound.json", "compound-included-first.json"]
    )
    func fixtures(name: String) throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SluiceJSONAPITests/Resources/\(name)")
        let bytes = Array(try Data(contentsOf: fixture))
        for strategy in [JSONKeyStrategy.useDefaultKeys, .convertFromSnakeCase, .loose] {
            let generated = Self.whole(bytes, generated: true, strategy: strategy)
            #expect(generated == Self.whole(bytes, generated: false, strategy: strategy))
        }
    }
}

/// Plain models under the key strategies the generated readers have tables for.
@Suite("@JSONModel under key strategies: the generated path against the general path")
struct KeyStrategyDifferentialTests {
    @JSONModel
    struct Profile: Codable, Equatable {
        var firstName: String
        var myURLValue: String?
        var user2fa: Int?
        var id: Int
        var nested: [Profile]?
    }

    static let inputs: [String] = [
        #"{"firstName": "a", "myURLValue": "u", "user2fa": 1, "id": 1}"#,
        #"{"first_name": "a", "my_url_value": "u", "user2fa": 1, "id": 1}"#,
        #"{"first-name": "a", "my-url-value": "u", "id": 1, "nested": [{"first-name": "b", "id": 2}]}"#,
        #"{"FIRST_NAME": "a", "MY_URL_VALUE": "u", "ID": 1}"#,
        #"{"First-Name": "a", "id": 1, "_first_name_": "b"}"#,
        #"{"first_name": "a", "firstName": "b", "id": 1}"#,
        #"{"firstName": "b", "first_name": "a", "id": 1}"#,
        #"{"first_name": "a", "id": "1"}"#,
        #"{"id": 1}"#,
        #"{"first__name": "a", "id": 1, "nested": [{"id": 2}]}"#,
        #"{"FirstName": "a", "Id": 1}"#,
    ]

    @Test("each input under each strategy gives the same value or error on both paths", arguments: inputs)
    func strategies(json: String) {
        let strategies: [JSONKeyStrategy] = [.useDefaultKeys, .convertFromSnakeCase, .convertFromKebabCase, .loose]
        for strategy in strategies {
            func outcome(generated: Bool) -> DifferentialTests.Outcome<Profile> {
                let decoder = DifferentialTests.decoder(generated: generated)
                decoder.keyDecodingStrategy = strategy
                do {
                    return .value(try decoder.decode(Profile.self, from: Data(json.utf8)))
                } catch {
                    return .failure(DifferentialTests.describe(error))
                }
            }
            #expect(outcome(generated: true) == outcome(generated: false), "\(strategy)")
        }
    }

    @JSONModel
    struct Page<Item: Codable & Equatable>: Codable, Equatable {
        var items: [Item]
        var next: String?
    }

    @Test("a generic model's table is made once per specialization, and reads like the general path")
    func genericModel() throws {
        #expect(Page<Int>.jsonModelMembers === Page<Int>.jsonModelMembers)
        #expect(Page<Int>.jsonModelMembers !== Page<String>.jsonModelMembers)
        let json = Data(#"{"items": [1, 2], "next_page": "x", "next": "y"}"#.utf8)
        for strategy in [JSONKeyStrategy.useDefaultKeys, .convertFromSnakeCase] {
            let generated = DifferentialTests.decoder(generated: true)
            generated.keyDecodingStrategy = strategy
            let general = DifferentialTests.decoder(generated: false)
            general.keyDecodingStrategy = strategy
            #expect(try generated.decode(Page<Int>.self, from: json) == general.decode(Page<Int>.self, from: json))
        }
        #expect(throws: DecodingError.self) { try StreamingJSONDecoder().decode(Page<String>.self, from: json) }
    }
}
