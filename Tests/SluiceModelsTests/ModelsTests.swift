import Foundation
import SluiceJSON
import Testing

@testable import SluiceJSONAPI
@testable import SluiceTools

/// The models `sluice models` writes: the files in Generated/ are its output for the samples
/// (checked here byte for byte), compiled with `@JSONModel` in this target, and they decode the
/// samples they came from.
@Suite("Models written from samples")
struct ModelsTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let blog = here.appendingPathComponent("Fixtures/blog.json").path
    static let corpora =
        ProcessInfo.processInfo.environment["SLUICE_CORPORA"]
        ?? here.appendingPathComponent("../../../shared/corpora").standardized.path

    static func written(from path: String, rootName: String?) throws -> GeneratedModels {
        let sampler = ModelSampler()
        try sampler.read(try FileChunkReader(path: path))
        return sampler.models(rootName: rootName)
    }

    @Test(
        "the checked-in models are what the generator writes for their samples",
        arguments: [
            ("blog", "BlogModels.swift"), ("twitter", "TwitterModels.swift"),
            ("citm_catalog", "CitmCatalogModels.swift"), ("canada", "CanadaModels.swift"),
        ]
    )
    func checkedInAsWritten(sample: String, file: String) throws {
        let path = sample == "blog" ? Self.blog : "\(Self.corpora)/\(sample).json"
        let written = try Self.written(from: path, rootName: sample)
        let checkedIn = try String(contentsOf: Self.here.appendingPathComponent("Generated/\(file)"), encoding: .utf8)
        #expect(written.source == checkedIn)
    }

    @Test("a JSON:API sample: kebab keys, two date formats, keywords, nested objects, polymorphic and optional links")
    func jsonAPISampleDecodes() throws {
        let models = try Self.written(from: Self.blog, rootName: nil)
        guard case .convertFromKebabCase = models.keyStrategy else {
            Issue.record("the kebab-case keys were not detected")
            return
        }
        #expect(
            models.usage == [
                "let decoder = JSONAPIDecoder(registry: [BlogPost.self, Author.self, Tag.self])",
                "decoder.keyDecodingStrategy = .convertFromKebabCase",
                "decoder.dateDecodingStrategy = .anyOf([.iso8601, .rfc1123])",
                "let document = try decoder.decode([Linked<BlogPost>].self, from: data)",
            ]
        )
        #expect(
            models.files.map(\.name) == [
                "BlogPost.swift", "Author.swift", "Tag.swift", "Stats.swift", "FirstShare.swift",
            ]
        )

        // As the usage says.
        let decoder = JSONAPIDecoder(registry: [BlogPost.self, Author.self, Tag.self])
        decoder.keyDecodingStrategy = .convertFromKebabCase
        decoder.dateDecodingStrategy = .anyOf([.iso8601, .rfc1123])
        let document = try decoder.decode(
            [Linked<BlogPost>].self,
            from: try Data(contentsOf: URL(fileURLWithPath: Self.blog))
        )
        let posts = document.data.map(\.model)
        #expect(posts.map { $0.id } == ["1", "2"])
        #expect(posts.map { $0.`default` } == [true, false])
        #expect(posts.map { $0.`class` } == ["news", "tech"])
        #expect(posts.map { $0._2faEnabled } == [false, true])
        #expect(posts.map { $0.bigNumber } == [5_000_000_000, 1])
        #expect(posts.map { $0.rating } == [4, 4.5])
        #expect(document.data[0].author?.name == "Ada")
        #expect(posts[0].publishedAt == Date(timeIntervalSince1970: 1_709_209_800))
        #expect(posts[0].canonicalUrl == "https://example.com/posts/1")
        #expect(posts[0].stats.firstShare?.network == "mastodon")
        #expect(posts[1].stats.firstShare == nil)
        #expect(posts[0].extra == JSONValue.string("x"))
        #expect(posts[1].extra == JSONValue.number("3"))
        #expect(posts.map { $0.author.identifier?.id } == ["9", "10"])
        #expect(posts.map { $0.subject.identifier?.type } == ["authors", "blog-posts"])
        #expect(posts[0].topics.identifiers.map { $0.id } == ["t1", "t2"])
        #expect(posts[1].editor == nil)
        let authors = document.included.compactMap { $0.as(Author.self) }
        #expect(authors.map { $0.name } == ["Ada", "Grace"])
        #expect(authors.map { $0.bio } == [nil, "Admiral"])
        #expect(authors[0].joined == Date(timeIntervalSince1970: 784_111_777))

        // Every attribute the flattened document holds reads the same through the models.
        var lines: [JSONObject] = []
        try JSONAPIFlattener().flatten(try FileChunkReader(path: Self.blog)) { line in
            let tape = try JSONParser.parse(line)
            if case .object(let object) = try tape.value(at: tape.startIndex).jsonValue() { lines.append(object) }
        }
        #expect(lines.count == 4)
        for (post, line) in zip(posts, lines) {
            guard case .object(let attributes)? = line["attributes"] else {
                Issue.record("no attributes in \(line)")
                continue
            }
            #expect(attributes["title"] == JSONValue.string(post.title))
            #expect(attributes["view-count"] == JSONValue.number(String(post.viewCount)))
            #expect(attributes["labels"] == JSONValue.array(post.labels.map { JSONValue.string($0) }))
        }
    }

    @Test("models written for the corpora decode them")
    func corporaDecode() throws {
        let twitter = try Data(contentsOf: URL(fileURLWithPath: "\(Self.corpora)/twitter.json"))
        let snake = StreamingJSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let timeline = try snake.decode(Twitter.self, from: twitter)
        #expect(timeline.statuses.count == 100)
        #expect(timeline.statuses.allSatisfy { !$0.idStr.isEmpty })
        #expect(timeline.statuses[0].user.profileImageUrl.hasPrefix("http://"))
        // One `Url` type at every place an entities' URL is met, one `Size` for all four sizes.
        let urls =
            timeline.statuses.flatMap { $0.entities.urls }
            + timeline.statuses.flatMap { $0.user.entities.description.urls }
        #expect(urls.allSatisfy { $0.expandedUrl.hasPrefix("http") })
        let sizes = timeline.statuses.compactMap { $0.entities.media?.first?.sizes }
        #expect(sizes.allSatisfy { [$0.medium, $0.small, $0.thumb, $0.large].allSatisfy { $0.w > 0 } })

        let citm = try StreamingJSONDecoder().decode(
            CitmCatalog.self,
            from: try Data(contentsOf: URL(fileURLWithPath: "\(Self.corpora)/citm_catalog.json"))
        )
        #expect(citm.events.count == 184)
        #expect(citm.performances.count == 243)
        #expect(citm.topicSubTopics.values.allSatisfy { !$0.isEmpty })

        let canada = try StreamingJSONDecoder().decode(
            Canada.self,
            from: try Data(contentsOf: URL(fileURLWithPath: "\(Self.corpora)/canada.json"))
        )
        #expect(canada.features.count == 1)
        #expect(canada.features[0].geometry.coordinates.count == 480)
        // Points are SIMD2<Double>, which Foundation reads from the same two-number arrays.
        let foundation = try JSONDecoder().decode(
            Canada.self,
            from: try Data(contentsOf: URL(fileURLWithPath: "\(Self.corpora)/canada.json"))
        )
        #expect(foundation.features[0].geometry.coordinates == canada.features[0].geometry.coordinates)
        #expect(canada.features[0].geometry.coordinates[0][0].x < -50)
    }

    @Test("one type per structure, however many places it is met at; a copy that holds itself stays apart")
    func sharedShapes() throws {
        let models = try Self.written(from: "\(Self.corpora)/twitter.json", rootName: "twitter")
        let structs = models.source.split(separator: "\n").filter { $0.hasPrefix("struct ") }.map {
            String($0.dropFirst(7).prefix { $0 != ":" })
        }
        #expect(structs.filter { $0.hasPrefix("Url") } == ["Url"])
        #expect(structs.filter { $0.hasPrefix("User") } == ["User", "UserMention"])
        #expect(structs.contains("Size") && !structs.contains("Medium") && !structs.contains("Thumb"))
        // A retweet's status is a status without a retweet of its own: a struct cannot hold a
        // copy of itself, so it keeps its own type, made of the shared ones.
        #expect(structs.contains("RetweetedStatus"))
        #expect(models.source.contains("    var user: User\n"))
        #expect(!models.source.contains("User2"))
    }

    @Test("the key strategy is the one most multi-word names use; keys of maps do not vote")
    func keyStrategyVote() throws {
        let citm = try Self.written(from: "\(Self.corpora)/citm_catalog.json", rootName: "citm_catalog")
        #expect(citm.usage.allSatisfy { !$0.contains("keyDecodingStrategy") })
        #expect(!citm.source.contains("keyDecodingStrategy"))
        let twitter = try Self.written(from: "\(Self.corpora)/twitter.json", rootName: "twitter")
        #expect(twitter.usage.contains("decoder.keyDecodingStrategy = .convertFromSnakeCase"))
        let mixed = try models(
            of: #"{"first_name": "a", "last_name": "b", "zipCode": "c", "e_mail": "d", "_id": 1, "Name-Code": 2}"#
        )
        #expect(mixed.usage.contains("decoder.keyDecodingStrategy = .convertFromSnakeCase"))
        #expect(mixed.source.contains("    var zipCode: String"))
    }

    @Test("objects keyed by data are maps, even with one entry; a key in capitals is data too")
    func dataKeys() throws {
        let models = try models(
            of: #"{"names": {"337100890": "Abonné"}, "venues": {"PLEYEL_PLEYEL": "Salle Pleyel"}, "#
                + #""codes": {"EUR": 1.5, "USD": 1}, "point": {"x": 1, "y": 2}, "ID": {"ID": 3}}"#
        )
        #expect(models.source.contains("    var names: [String: String]"))
        #expect(models.source.contains("    var venues: [String: String]"))
        #expect(models.source.contains("    var codes: [String: Double]"))
        #expect(models.source.contains("    var point: Point"))
    }

    @Test("arrays of two to four fractional numbers of one length are SIMD vectors; others stay arrays")
    func fixedSizeVectors() throws {
        let models = try models(
            of: #"{"path": [[1.5, 2], [3, 4.25]], "box": [0.5, 1.5, 2.5, 3.5], "indices": [1, 2], "#
                + #""ragged": [[1.5, 2], [3.5]], "long": [1.5, 2.5, 3.5, 4.5, 5.5]}"#
        )
        #expect(models.source.contains("    var path: [SIMD2<Double>]"))
        #expect(models.source.contains("    var box: SIMD4<Double>"))
        #expect(models.source.contains("    var indices: [Int]"))
        #expect(models.source.contains("    var ragged: [[Double]]"))
        #expect(models.source.contains("    var long: [Double]"))
    }

    @Test("absolute URLs are String unless URL is asked for")
    func urlProperties() throws {
        let sampler = ModelSampler()
        try sampler.read(json: #"{"home": "https://example.com/a", "name": "x"}"#)
        #expect(sampler.models(rootName: "site").source.contains("    var home: String"))
        #expect(sampler.models(rootName: "site", urls: .url).source.contains("    var home: URL"))
    }

    /// The models written for one plain JSON document.
    func models(of json: String) throws -> GeneratedModels {
        let sampler = ModelSampler()
        try sampler.read(json: json)
        return sampler.models(rootName: "sample")
    }

    @Test("on several threads, the same models as on one", arguments: [false, true])
    func parallel(includedFirst: Bool) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-\(UUID()).json").path
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: 3_000, includedFirst: includedFirst, seed: 3).write {
            bytes.append(contentsOf: $0)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sources: [String] = []
        for threads in [1, 2, 3] {
            let sampler = ModelSampler()
            try sampler.read(fileAt: path, parallelism: .workers(threads))
            sources.append(sampler.models().source)
        }
        #expect(sources[0].contains("3 resource types"))
        #expect(sources[1] == sources[0])
        #expect(sources[2] == sources[0])
        // And on one thread through the stream reader, which plain JSON takes.
        let streamed = ModelSampler()
        try streamed.read(try FileChunkReader(path: path))
        #expect(streamed.models().source == sources[0])
    }

    @Test("--sample: at most so many resources per type are counted, the rest still read")
    func sampleLimit() throws {
        let sampler = ModelSampler()
        sampler.maximumPerType = 1
        try sampler.read(try FileChunkReader(path: Self.blog))
        let source = sampler.models().source
        #expect(source.contains("2 resource types, 2 resources read"))
        #expect(source.contains("    /// Present in 1 of 1.\n    var title: String"))
        // One post had no editor: with only the first read, the relationship is always there.
        #expect(source.contains("    var editor: ToOne<AnyResource>?"))
        #expect(source.contains("    var bio: String?") == false)
    }

    @Test("plain JSON: a root array's elements, numeric keys as maps, mixed values as JSONValue")
    func plainJSON() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plain-\(UUID()).json").path
        let json =
            #"[{"id": 1, "scores": {"2023": 4, "2024": 5}, "tag": "a", "seen": "2024-01-01T00:00:00Z"},"#
            + #" {"id": 2, "scores": {}, "tag": 7, "seen": "2024-01-02T00:00:00Z", "note": null}]"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let models = try Self.written(from: path, rootName: "visits")
        #expect(models.usage.last == "let value = try decoder.decode([Visit].self, from: data)")
        #expect(models.source.contains("struct Visit: Codable {"))
        #expect(models.source.contains("    var scores: [String: Int]"))
        #expect(models.source.contains("    var tag: JSONValue"))
        #expect(models.source.contains("    var seen: Date"))
        #expect(
            models.source.contains(
                "    /// Present in 1 of 2, always null: its type is unknown.\n    var note: JSONValue?"
            )
        )
    }

    @Test("names: words in camel case, singular types, keywords escaped, others made identifiers")
    func names() {
        #expect(SwiftModelWriter.typeName("blog-posts", singular: true) == "BlogPost")
        #expect(SwiftModelWriter.typeName("people", singular: true) == "Person")
        #expect(SwiftModelWriter.typeName("categories", singular: true) == "Category")
        #expect(SwiftModelWriter.typeName("statuses", singular: true) == "Status")
        #expect(SwiftModelWriter.typeName("2fa-codes", singular: true) == "T2faCode")
    }

    @Test("a sample that is not JSON is refused with its position")
    func badSample() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-sample-\(UUID()).json").path
        try Data(#"{"data": [{"type": "a", "id": "1",}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: JSONError.self) { try ModelSampler().read(try FileChunkReader(path: path)) }
        #expect(error.position.column == 35)
        #expect(error.message.contains("Trailing comma"))
    }
}

/// A sample held in memory, read in one chunk.
private final class TextSource: ChunkSource {
    let bytes: [UInt8]
    private(set) var bytesRead = 0
    var size: Int? { bytes.count }

    init(_ text: String) { bytes = Array(text.utf8) }

    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try bytes.withUnsafeBytes { try body($0) }
        bytesRead = bytes.count
    }
}

extension ModelSampler {
    fileprivate func read(json: String) throws { try read(TextSource(json)) }
}
