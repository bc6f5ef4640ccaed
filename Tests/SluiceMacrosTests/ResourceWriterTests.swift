import Foundation
import SluiceJSONAPI
import SluiceMacros
import Testing

/// `JSONAPIEncoder` with generated writers against its general path: the same bytes for every
/// layout and key strategy, documents the validator accepts, and models that decode back.
@Suite("@JSONModel resources: the generated JSON:API writer against the general path")
struct ResourceWriterTests {
    static let people = [
        WrittenPerson(id: "9", name: "Ada", email: "ada@example.com"),
        WrittenPerson(id: "10", name: "Grace \"Amazing\"", email: nil),
    ]

    static func subtitle(_ index: Int) -> Field<String> {
        switch index % 3 {
        case 0: return .absent
        case 1: return .null
        default: return .value("sub \(index)")
        }
    }

    static func articles(_ count: Int) -> [WrittenArticle] {
        (0..<count).map { index in
            WrittenArticle(
                id: "\(index + 1)",
                title: "Title \(index) / \\ \u{1}",
                subtitle: subtitle(index),
                publishedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
                wordCount: index * 100,
                tags: index % 2 == 0 ? [] : ["swift", "json"],
                metadata: Leaf(name: "m\(index)", weight: index % 2 == 0 ? nil : 0.5),
                author: ToOne(identifier: ResourceIdentifier(type: "people", id: index % 2 == 0 ? "9" : "10")),
                comments: index % 4 == 0
                    ? .unchanged
                    : ToMany(identifiers: [
                        ResourceIdentifier(
                            type: "comments",
                            id: "c\(index)",
                            meta: .object(JSONObject([("n", .number("1"))]))
                        )
                    ]),
                editor: index % 5 == 0 ? .null : .unchanged,
                reviewer: index % 3 == 0 ? ToOne(lid: "temp-\(index)") : nil,
                links: index % 2 == 0 ? Links([("self", .url("/articles/\(index + 1)"))]) : nil,
                meta: index % 3 == 2 ? .object(JSONObject([("rank", .number("\(index)"))])) : nil
            )
        }
    }

    static let comments = [
        WrittenComment(
            id: "c1",
            lid: nil,
            body: "First",
            author: ToOne(identifier: ResourceIdentifier(type: "people", id: "9"))
        ),
        WrittenComment(id: nil, lid: "new-1", body: "Draft", author: .unchanged),
    ]

    static func encoder(generated: Bool, _ configure: (JSONAPIEncoder) -> Void) -> JSONAPIEncoder {
        let encoder = JSONAPIEncoder()
        encoder.valueEncoder.usesGeneratedWriters = generated
        configure(encoder)
        return encoder
    }

    static func settings() -> [(String, (JSONAPIEncoder) -> Void)] {
        var all: [(String, (JSONAPIEncoder) -> Void)] = []
        for (keyName, key) in [
            ("default", StreamingJSONEncoder.KeyEncodingStrategy.useDefaultKeys), ("kebab", .convertToKebabCase),
            ("snake", .convertToSnakeCase),
        ] {
            for (layoutName, layout) in [
                ("compact", StreamingJSONEncoder.OutputFormatting()), ("sorted", .sortedKeys),
                ("unescaped", .withoutEscapingSlashes),
            ] {
                for (fieldsName, fields) in [
                    ("all", [String: Set<String>]()),
                    ("sparse", ["articles": ["title", "author", "subtitle"], "people": ["name"]]),
                ] {
                    all.append(
                        (
                            "\(keyName) \(layoutName) \(fieldsName)",
                            { encoder in
                                encoder.keyEncodingStrategy = key
                                encoder.outputFormatting = layout
                                encoder.fields = fields
                                encoder.dateEncodingStrategy = .iso8601
                                encoder.jsonapi = JSONAPIObject(version: "1.1")
                            }
                        )
                    )
                }
            }
        }
        return all
    }

    @Test("Documents, single and collection, with included resources: the general path's bytes")
    func sameBytes() throws {
        let articles = Self.articles(12)
        // Included: people twice (deduplicated), comments, a resource without a generated writer,
        // and an article primary data already holds (left out of included).
        let included: [any Resource & Encodable] =
            Self.people + Self.people + Self.comments
            + [PlainTag(id: "t1", label: "swift"), articles[3]]
        let meta: JSONValue = .object(JSONObject([("total", .number("12"))]))
        let links = Links([("next", .url("/articles?page=2"))])
        for (name, configure) in Self.settings() {
            let generated = Self.encoder(generated: true, configure)
            let general = Self.encoder(generated: false, configure)
            let collection = try generated.encode(articles, included: included, meta: meta, links: links)
            #expect(
                String(decoding: collection, as: UTF8.self)
                    == String(
                        decoding: try general.encode(articles, included: included, meta: meta, links: links),
                        as: UTF8.self
                    ),
                "\(name)"
            )
            let single = try generated.encode(articles[1], included: Self.people)
            #expect(single == (try general.encode(articles[1], included: Self.people)), "\(name)")
            var streamed = Data()
            try generated.encodeCollection(articles.lazy.map { $0 }, included: included, meta: meta, chunkSize: 100) {
                streamed.append(contentsOf: $0)
            }
            #expect(streamed == (try general.encode(articles, included: included, meta: meta)), "\(name)")
            #expect(try generated.encode(Self.comments) == general.encode(Self.comments), "\(name)")
        }
    }

    @Test("Generated documents pass the validator and decode back to the same models")
    func validAndRoundTrip() throws {
        let articles = Self.articles(30).map { article -> WrittenArticle in
            var article = article
            article.reviewer = nil
            // A non-optional Field must be in the document to decode; absent is tested above.
            if case .absent = article.subtitle { article.subtitle = .null }
            // Likewise relationships: a decoder needs them in the document.
            if !article.comments.hasLinkage { article.comments = ToMany(identifiers: []) }
            if !article.editor.hasLinkage { article.editor = .null }
            return article
        }
        for key in [StreamingJSONEncoder.KeyEncodingStrategy.useDefaultKeys, .convertToKebabCase] {
            let encoder = Self.encoder(generated: true) {
                $0.keyEncodingStrategy = key
                $0.dateEncodingStrategy = .iso8601
            }
            let data = try encoder.encode(articles, included: Self.people)
            #expect(try JSONAPIValidator().validate(data).isEmpty)
            let decoder = JSONAPIDecoder(registry: [WrittenPerson.self, WrittenComment.self])
            decoder.dateDecodingStrategy = .iso8601
            if case .convertToKebabCase = key { decoder.keyDecodingStrategy = .convertFromKebabCase }
            let decoded = try decoder.decode([Linked<WrittenArticle>].self, from: data).data.map(\.model)
            for (back, original) in zip(decoded, articles) {
                // What a document can say: unchanged relationships and absent fields come back
                // as such, the rest equal.
                #expect(back.id == original.id)
                #expect(back.title == original.title)
                #expect(back.subtitle == original.subtitle)
                #expect(back.publishedAt == original.publishedAt)
                #expect(back.tags == original.tags)
                #expect(back.metadata == original.metadata)
                #expect(back.author.identifier == original.author.identifier)
                #expect(back.comments.identifiers == original.comments.identifiers)
                #expect(back.meta == original.meta)
                #expect(back.links == original.links)
            }
            #expect(decoded.count == articles.count)
        }
        let requests = try Self.encoder(generated: true) { _ in }.encode(Self.comments[1])
        #expect(try JSONAPIValidator(isRequestDocument: true).validate(requests).isEmpty)
    }

    @Test("A resource the general path refuses is refused with the general path's error")
    func refusals() throws {
        func outcome(_ generated: Bool, _ value: NumberID) -> String {
            do {
                return String(decoding: try Self.encoder(generated: generated) { _ in }.encode([value]), as: UTF8.self)
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome(true, NumberID(id: 1, value: 1)) == outcome(false, NumberID(id: 1, value: 1)))
        #expect(outcome(true, NumberID(id: 1, value: .nan)) == outcome(false, NumberID(id: 1, value: .nan)))
    }
}
