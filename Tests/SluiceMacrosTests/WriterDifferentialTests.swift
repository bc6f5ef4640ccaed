import Foundation
import SluiceMacros
import Testing

/// The generated writers against the general path and Foundation's `JSONEncoder`: the same bytes
/// for the corpora's models and for models built to cover every kind of member, under every key,
/// date and data strategy, compact and with `.sortedKeys`.
@Suite("@JSONModel: the generated writers against the general path and JSONEncoder")
struct WriterDifferentialTests {
    static func encoder(generated: Bool, _ configure: (StreamingJSONEncoder) -> Void = { _ in }) -> StreamingJSONEncoder
    {
        let encoder = StreamingJSONEncoder()
        encoder.usesGeneratedWriters = generated
        configure(encoder)
        return encoder
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Encodes `value` both ways (and chunked through a sink both ways) and checks the bytes agree.
    @discardableResult
    static func same<T: Encodable>(
        _ value: T,
        _ configure: @escaping (StreamingJSONEncoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Data {
        let generated = try encoder(generated: true, configure).encode(value)
        let general = try encoder(generated: false, configure).encode(value)
        #expect(text(generated) == text(general), sourceLocation: sourceLocation)
        for chunkSize in [1, 7, 4096] {
            var chunks: [Int] = []
            var streamed = Data()
            try encoder(generated: true, configure).encode(value, chunkSize: chunkSize) { chunk in
                chunks.append(chunk.count)
                streamed.append(contentsOf: chunk)
            }
            #expect(streamed == general, "chunk size \(chunkSize)", sourceLocation: sourceLocation)
            #expect(chunks.dropLast().allSatisfy { $0 == chunkSize }, sourceLocation: sourceLocation)
        }
        return generated
    }

    static func corpus(_ name: String) throws -> Data { try DifferentialTests.corpus(name) }

    @Test("The corpora's models: same bytes as the general path and JSONEncoder (.sortedKeys), and round trips")
    func corpora() throws {
        let twitter = try StreamingJSONDecoder().decode(Twitter.self, from: try Self.corpus("twitter.json"))
        let citm = try StreamingJSONDecoder().decode(CitmCatalog.self, from: try Self.corpus("citm_catalog.json"))
        let canada = try StreamingJSONDecoder().decode(Canada.self, from: try Self.corpus("canada.json"))
        func check<T: Codable & Equatable>(_ value: T) throws {
            let compact = try Self.same(value)
            let sorted = try Self.same(value) { $0.outputFormatting = [.sortedKeys] }
            let foundation = JSONEncoder()
            foundation.outputFormatting = [.sortedKeys]
            #expect(Self.text(sorted) == Self.text(try foundation.encode(value)))
            #expect(try StreamingJSONDecoder().decode(T.self, from: compact) == value)
            #expect(try JSONDecoder().decode(T.self, from: compact) == value)
            for strategy in [StreamingJSONEncoder.KeyEncodingStrategy.convertToSnakeCase, .convertToKebabCase] {
                try Self.same(value) { $0.keyEncodingStrategy = strategy }
                try Self.same(value) {
                    $0.keyEncodingStrategy = strategy
                    $0.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                }
            }
        }
        try check(twitter)
        try check(citm)
        try check(canada)
        try check(twitter.statuses)
    }
}

extension WriterDifferentialTests {
    static func strategies() -> [(String, (StreamingJSONEncoder) -> Void)] {
        var all: [(String, (StreamingJSONEncoder) -> Void)] = []
        let dates: [(String, StreamingJSONEncoder.DateEncodingStrategy)] = [
            ("deferred", .deferredToDate), ("seconds", .secondsSince1970), ("ms", .millisecondsSince1970),
            ("iso", .iso8601), ("iso-fraction", .iso8601WithFractionalSeconds),
            ("rfc1123", .format(.rfc1123)), ("pattern", .format(.pattern("yyyy/MM/dd"))),
            (
                "custom",
                .custom({ date, encoder in
                    var container = encoder.singleValueContainer()
                    try container.encode("at \(Int(date.timeIntervalSince1970))")
                })
            ),
            ("per-key", .perKey(["createdAt": .iso8601], default: .secondsSince1970)),
        ]
        let datas: [(String, StreamingJSONEncoder.DataEncodingStrategy)] = [
            ("base64", .base64), ("bytes", .deferredToData),
            (
                "custom",
                .custom({ data, encoder in
                    var container = encoder.unkeyedContainer()
                    try container.encode(data.count)
                })
            ),
        ]
        let keys: [(String, StreamingJSONEncoder.KeyEncodingStrategy)] = [
            ("default", .useDefaultKeys), ("snake", .convertToSnakeCase), ("kebab", .convertToKebabCase),
        ]
        let layouts: [(String, StreamingJSONEncoder.OutputFormatting)] = [
            ("compact", []), ("sorted", [.sortedKeys]), ("sorted-unescaped", [.sortedKeys, .withoutEscapingSlashes]),
            ("unescaped", [.withoutEscapingSlashes]), ("pretty", [.prettyPrinted]),
            ("pretty-sorted", [.prettyPrinted, .sortedKeys]),
        ]
        for (dateName, date) in dates {
            for (dataName, data) in datas {
                for (keyName, key) in keys {
                    for (layoutName, layout) in layouts {
                        all.append(
                            (
                                "\(dateName) \(dataName) \(keyName) \(layoutName)",
                                { encoder in
                                    encoder.dateEncodingStrategy = date
                                    encoder.dataEncodingStrategy = data
                                    encoder.keyEncodingStrategy = key
                                    encoder.outputFormatting = layout
                                }
                            )
                        )
                    }
                }
            }
        }
        return all
    }

    @Test("Every member kind under every key, date and data strategy and layout: the general path's bytes")
    func everyStrategy() throws {
        let values = [KitchenSink.sample(1), KitchenSink.sample(2)]
        for (name, configure) in Self.strategies() {
            let generated = try Self.encoder(generated: true, configure).encode(values)
            let general = try Self.encoder(generated: false, configure).encode(values)
            #expect(Self.text(generated) == Self.text(general), "\(name)")
        }
        try Self.same(values)
        try Self.same(Renamed(first: 1, second: "two", third: true))
        try Self.same(Renamed(first: 1, second: "two", third: true)) { $0.outputFormatting = .sortedKeys }
        try Self.same(Box(item: Leaf(name: "n", weight: 1), items: []))
        try Self.same(Box(item: 3, items: [1, 2]))
        try Self.same(Node.chain(20))
        try Self.same(["a": [KitchenSink.sample()], "b": []]) { $0.outputFormatting = .sortedKeys }
        try Self.same([SelfWriting(value: 3)])
        try Self.same(Optional<Leaf>.none)
    }

    @Test("Foundation's JSONEncoder writes the same bytes under .sortedKeys, for each strategy both have")
    func foundation() throws {
        var value = KitchenSink.sample(1)
        // Foundation writes a URL as an object, a Decimal with its own digits, and JSONValue's
        // numbers as doubles: those members are left to the general path's own tests.
        value.price = 12.5
        value.extra = .null
        // Control characters whose code has a letter digit (`\u001f`) are written in lowercase
        // by both paths, as Foundation writes them.
        #expect(value.escapes.contains("\u{1F}"))
        let pairs: [(StreamingJSONEncoder.DateEncodingStrategy, JSONEncoder.DateEncodingStrategy)] = [
            (.deferredToDate, .deferredToDate), (.secondsSince1970, .secondsSince1970),
            (.millisecondsSince1970, .millisecondsSince1970), (.iso8601, .iso8601),
        ]
        for (ours, theirs) in pairs {
            for (ourData, theirData) in [
                (StreamingJSONEncoder.DataEncodingStrategy.base64, JSONEncoder.DataEncodingStrategy.base64),
                (.deferredToData, .deferredToData),
            ] {
                for (ourKeys, theirKeys) in [
                    (
                        StreamingJSONEncoder.KeyEncodingStrategy.useDefaultKeys,
                        JSONEncoder.KeyEncodingStrategy.useDefaultKeys
                    ), (.convertToSnakeCase, .convertToSnakeCase),
                ] {
                    let foundation = JSONEncoder()
                    foundation.outputFormatting = .sortedKeys
                    foundation.dateEncodingStrategy = theirs
                    foundation.dataEncodingStrategy = theirData
                    foundation.keyEncodingStrategy = theirKeys
                    let expected = Self.text(try foundation.encode(value.withoutURL))
                    let generated = try Self.encoder(generated: true) {
                        $0.outputFormatting = .sortedKeys
                        $0.dateEncodingStrategy = ours
                        $0.dataEncodingStrategy = ourData
                        $0.keyEncodingStrategy = ourKeys
                    }.encode(value.withoutURL)
                    #expect(Self.text(generated) == expected, "\(ours) \(ourData) \(ourKeys)")
                }
            }
        }
    }

    @Test("Round trips: what the generated writers write decodes back, through Sluice and Foundation")
    func roundTrips() throws {
        let values = [KitchenSink.sample(1), KitchenSink.sample(2)]
        for key in [StreamingJSONEncoder.KeyEncodingStrategy.useDefaultKeys, .convertToSnakeCase, .convertToKebabCase] {
            let encoder = Self.encoder(generated: true) {
                $0.keyEncodingStrategy = key
                $0.dateEncodingStrategy = .secondsSince1970
            }
            let decoder = StreamingJSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            switch key {
            case .convertToSnakeCase: decoder.keyDecodingStrategy = .convertFromSnakeCase
            case .convertToKebabCase: decoder.keyDecodingStrategy = .convertFromKebabCase
            default: break
            }
            #expect(try decoder.decode([KitchenSink].self, from: try encoder.encode(values)) == values)
        }
        let data = try Self.encoder(generated: true).encode(values)
        let foundation = JSONDecoder()
        #expect(try foundation.decode([KitchenSink].self, from: data).map(\.text) == values.map(\.text))
        #expect(
            try StreamingJSONDecoder().decode(Node.self, from: try Self.encoder(generated: true).encode(Node.chain(50)))
                == Node.chain(50)
        )
    }

    static func failure(_ encode: () throws -> Data) -> String {
        do {
            return "value: " + text(try encode())
        } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error else { return "\(error)" }
            return context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined() + ": "
                + context.debugDescription
        } catch {
            return "\(type(of: error)): \(error)"
        }
    }

    @Test("Errors are the general path's: non-finite doubles, nesting past the limit, a failing custom strategy")
    func errors() throws {
        var value = KitchenSink.sample()
        value.leaves[1].weight = .infinity
        let cases: [(String, any Encodable, (StreamingJSONEncoder) -> Void)] = [
            ("infinity", [value], { _ in }),
            ("nan in array", Box(item: 1.0, items: [1, .nan]), { _ in }),
            ("deep", Node.chain(200), { _ in }),
            ("deep enough", Node.chain(64), { _ in }),
            (
                "custom date throws", [KitchenSink.sample()],
                { encoder in
                    encoder.dateEncodingStrategy = .custom { _, _ in throw CocoaError(.coderInvalidValue) }
                }
            ),
        ]
        for (name, item, configure) in cases {
            func run(_ generated: Bool) -> String {
                Self.failure { try Self.encoder(generated: generated, configure).encode(item) }
            }
            let general = run(false)
            #expect(run(true) == general, "\(name)")
            if name != "deep enough" { #expect(!general.hasPrefix("value:"), "\(name)") }
        }
        // With the non-conforming float strategy the same values write.
        try Self.same([value]) {
            $0.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "+inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
        }
        // A failure after chunks went to the sink still names the general path's coding path.
        var big = (0..<2000).map { KitchenSink.sample($0) }
        big[1999].double = .nan
        var received = 0
        let streamed = Self.failure {
            try Self.encoder(generated: true).encode(big, chunkSize: 1024) { received += $0.count }
            return Data()
        }
        #expect(received > 0)
        #expect(streamed == Self.failure { try Self.encoder(generated: false).encode(big) })
        #expect(streamed.hasPrefix("[1999].double:"))
    }

    @Test("Streaming through the generated writers hands out chunks of the size asked for, never the document")
    func streamingMemory() throws {
        final class Models: Sequence {
            struct Iterator: IteratorProtocol {
                var left: Int
                mutating func next() -> Leaf? {
                    guard left > 0 else { return nil }
                    left -= 1
                    return Leaf(name: "leaf \(left)", weight: Double(left))
                }
            }
            func makeIterator() -> Iterator { Iterator(left: 200_000) }
        }
        var largest = 0
        var total = 0
        // An array of 200k models written in 16 KiB chunks: the writer holds one chunk and a
        // little more, never the document.
        let models = Array(Models())
        try Self.encoder(generated: true).encode(models, chunkSize: 16 * 1024) { chunk in
            largest = max(largest, chunk.count)
            total += chunk.count
        }
        #expect(largest == 16 * 1024)
        #expect(total > 5_000_000)
    }
}

extension KitchenSink {
    /// The value as Foundation gets it (URLs are written as strings by both).
    var withoutURL: KitchenSink { self }
}
