/// Writes deterministic JSON:API compound documents of any size, for tests, benchmarks and
/// `sluice generate`.
///
/// A document holds `articles` articles in `data`, each with an author (`people`), two to four
/// `comments` and a polymorphic `subject` (a person or another article); `included` holds every
/// person and comment. Attribute values cover what real payloads carry: strings with escapes and
/// non-ASCII text, integers, doubles, Booleans, nulls, ISO 8601 dates, nested objects and arrays.
/// The same seed always gives the same bytes. Output is produced in chunks, so a document of
/// gigabytes is written in constant memory.
///
/// ```swift
/// var generator = SampleDocumentGenerator(articles: 100_000)
/// var bytes: [UInt8] = []
/// generator.write { bytes.append(contentsOf: $0) }
/// ```
public struct SampleDocumentGenerator: Sendable {
    /// How many articles `data` holds.
    public var articles: Int
    /// Whether `included` comes before `data`.
    public var includedFirst: Bool
    /// The seed of the pseudo-random values.
    public var seed: UInt64
    /// How many bytes to gather before handing a chunk to the sink.
    public var chunkSize = 64 * 1024

    /// Creates a generator.
    public init(articles: Int, includedFirst: Bool = false, seed: UInt64 = 1) {
        precondition(articles >= 0, "articles must not be negative")
        self.articles = articles
        self.includedFirst = includedFirst
        self.seed = seed
    }

    /// The number of people: one author for every ten articles, at least one.
    public var people: Int { max(1, articles / 10) }

    /// The number of comments the articles have in all.
    public var comments: Int {
        (0..<articles).reduce(0) { $0 + commentCount(ofArticle: $1) }
    }

    /// Writes the whole document, handing `sink` chunks of about ``chunkSize`` bytes.
    public func write(to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var output = ChunkedOutput(capacity: chunkSize)
        output.append("{\"jsonapi\":{\"version\":\"1.1\"},")
        if includedFirst {
            try writeIncluded(&output, sink)
            output.append(",")
            try writeData(&output, sink)
        } else {
            try writeData(&output, sink)
            output.append(",")
            try writeIncluded(&output, sink)
        }
        output.append(",\"meta\":{\"articles\":\(articles),\"people\":\(people),\"seed\":\(seed)},")
        output.append("\"links\":{\"self\":\"https://example.com/articles\",\"next\":null}}\n")
        try output.flush(sink)
    }

    // MARK: Content

    private func commentCount(ofArticle index: Int) -> Int { 2 + Int(mix(UInt64(index), 1) % 3) }

    /// Writes `data`; comments are numbered article by article, so each article's first comment
    /// id is the running total of the comments before it.
    private func writeData(_ output: inout ChunkedOutput, _ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        output.append("\"data\":[")
        var comment = 0
        for index in 0..<articles {
            if index > 0 { output.append(",") }
            writeArticle(index, firstComment: comment, into: &output)
            comment += commentCount(ofArticle: index)
            if output.isFull { try output.flush(sink) }
        }
        output.append("]")
    }

    private func writeIncluded(_ output: inout ChunkedOutput, _ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows
    {
        output.append("\"included\":[")
        for index in 0..<people {
            if index > 0 { output.append(",") }
            writePerson(index, into: &output)
            if output.isFull { try output.flush(sink) }
        }
        var comment = 0
        for article in 0..<articles {
            for _ in 0..<commentCount(ofArticle: article) {
                output.append(",")
                writeComment(comment, article: article, into: &output)
                comment += 1
            }
            if output.isFull { try output.flush(sink) }
        }
        output.append("]")
    }

    private static let words = [
        "stream", "bytes", "sluice", "gate", "river", "token", "tape", "yajl", "model", "link", "caf\u{e9}",
        "na\u{ef}ve", "\u{6f22}\u{5b57}", "\u{00fc}ber", "\u{1F30A}", "quote\\\"d", "tab\\tbed", "line\\nbreak",
    ]

    private func sentence(_ value: UInt64, words count: Int) -> String {
        var parts: [String] = []
        var state = value
        for _ in 0..<count {
            state = mix(state, 7)
            parts.append(Self.words[Int(state % UInt64(Self.words.count))])
        }
        return parts.joined(separator: " ")
    }

    private func writeArticle(_ index: Int, firstComment: Int, into output: inout ChunkedOutput) {
        let random = mix(UInt64(index), 2)
        let author = Int(random % UInt64(people))
        let views = Int(random % 1_000_000)
        let rating = Double(random % 5000) / 1000
        let day = 1 + Int(random % 28)
        let month = 1 + Int((random >> 8) % 12)
        output.append("{\"type\":\"articles\",\"id\":\"\(index)\",\"attributes\":{")
        output.append("\"title\":\"\(sentence(random, words: 4))\",")
        output.append("\"body\":\"\(sentence(random >> 3, words: 24))\",")
        output.append("\"published\":\(random & 1 == 0 ? "true" : "false"),")
        output.append("\"views\":\(views),\"rating\":\(rating),")
        output.append(
            "\"published-at\":\"2024-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)T12:34:56Z\","
        )
        output.append(
            "\"subtitle\":null,\"tags\":[\"\(sentence(random >> 5, words: 1))\",\"\(sentence(random >> 9, words: 1))\"],"
        )
        // Never -0.0e-3: Foundation's JSONDecoder (Swift 6.3 on Linux) rejects that valid number as
        // "not valid JSON", and the benchmarks compare against it.
        output.append(
            "\"metadata\":{\"word-count\":\(200 + views % 3000),\"flags\":[true,false,null],\"ratio\":-\(rating + 0.5)e-3}},"
        )
        output.append("\"relationships\":{\"author\":{\"data\":{\"type\":\"people\",\"id\":\"\(author)\"}},")
        output.append("\"comments\":{\"data\":[")
        for comment in 0..<commentCount(ofArticle: index) {
            if comment > 0 { output.append(",") }
            output.append("{\"type\":\"comments\",\"id\":\"\(firstComment + comment)\"}")
        }
        output.append("]},\"subject\":{\"data\":")
        if random & 2 == 0 {
            output.append("{\"type\":\"people\",\"id\":\"\(Int((random >> 4) % UInt64(people)))\"}")
        } else {
            output.append("{\"type\":\"articles\",\"id\":\"\(Int((random >> 4) % UInt64(max(articles, 1))))\"}")
        }
        output.append(",\"meta\":{\"relevance\":\(Double(random % 100) / 100)}}},")
        output.append("\"links\":{\"self\":\"https://example.com/articles/\(index)\"}}")
    }

    private func writePerson(_ index: Int, into output: inout ChunkedOutput) {
        let random = mix(UInt64(index), 3)
        output.append("{\"type\":\"people\",\"id\":\"\(index)\",\"attributes\":{")
        output.append("\"name\":\"\(sentence(random, words: 2))\",\"age\":\(18 + random % 70),")
        output.append("\"email\":null,\"verified\":\(random & 1 == 1 ? "true" : "false")}}")
    }

    private func writeComment(_ index: Int, article: Int, into output: inout ChunkedOutput) {
        let random = mix(UInt64(index), 4)
        output.append("{\"type\":\"comments\",\"id\":\"\(index)\",\"attributes\":{")
        output.append("\"body\":\"\(sentence(random, words: 8))\",\"likes\":\(random % 500)},")
        output.append(
            "\"relationships\":{\"author\":{\"data\":{\"type\":\"people\",\"id\":\"\(Int(random % UInt64(people)))\"}},"
        )
        output.append("\"article\":{\"data\":{\"type\":\"articles\",\"id\":\"\(article)\"}}}}")
    }

    /// SplitMix64 of `value` and the generator's seed, with a stream number so that different
    /// fields draw independent values.
    private func mix(_ value: UInt64, _ stream: UInt64) -> UInt64 {
        var z = value &+ seed &* 0x9E37_79B9_7F4A_7C15 &+ stream &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A byte buffer that is handed to a sink whenever it fills.
struct ChunkedOutput {
    private(set) var bytes: [UInt8]
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        bytes = []
        bytes.reserveCapacity(capacity + 4096)
    }

    var isFull: Bool { bytes.count >= capacity }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func flush(_ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { try sink($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}
