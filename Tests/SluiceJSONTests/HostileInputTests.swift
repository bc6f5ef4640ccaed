import Foundation
import SluiceJSON
import Testing

/// Input built to exhaust memory or time: each ends in a clear error (or a correct result) with
/// memory bounded by the limits, never by the input. The inputs are generated chunk by chunk, so
/// the tests themselves never hold them.
@Suite("Hostile input")
struct HostileInputTests {
    /// Feeds `chunks` until the parser throws; returns the error and the bytes fed before it.
    static func feed(_ parser: JSONParser, _ chunks: some Sequence<[UInt8]>) -> (JSONError?, Int) {
        var fed = 0
        for chunk in chunks {
            do {
                try parser.parse(chunk)
            } catch {
                return (error, fed)
            }
            fed += chunk.count
            parser.removeAllTokens()
        }
        do { try parser.finish() } catch { return (error, fed) }
        return (nil, fed)
    }

    @Test("a 1 GB string is refused once it passes the string limit, after 16 MiB, not 1 GB")
    func gigabyteString() {
        let parser = JSONParser()
        let megabyte = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let chunks = [Array(#"{"note": ""#.utf8)] + Array(repeating: megabyte, count: 1024)
        let (error, fed) = Self.feed(parser, chunks.lazy)
        #expect(error?.kind == .stringLimitExceeded)
        #expect(error?.message == "A string is longer than the limit of 16777216 bytes.")
        #expect(error?.position == JSONPosition(byteOffset: 9, line: 1, column: 10))
        // Stopped at the first chunk past the limit: 17 MiB read of 1 GiB.
        #expect(fed <= (17 << 20) + 16, "read \(fed) bytes")
        #expect(parser.tape.peakByteCount < 1 << 10)
    }

    @Test("ten million empty objects stream through in memory the size of one chunk")
    func tenMillionEmptyObjects() throws {
        let count = 10_000_000
        let perChunk = 20_000
        let parser = JSONParser()
        var objects = 0
        try parser.parse(Array("[{}".utf8))
        let chunk = Array(String(repeating: ",{}", count: perChunk).utf8)
        for _ in 0..<(count - 1) / perChunk {
            try parser.parse(chunk)
            let tape = parser.tape
            for index in tape.startIndex..<tape.endIndex where tape[index].kind == .objectStart { objects += 1 }
            parser.removeAllTokens()
        }
        try parser.parse(Array(String(repeating: ",{}", count: (count - 1) % perChunk).utf8) + [UInt8(ascii: "]")])
        try parser.finish()
        let tape = parser.tape
        for index in tape.startIndex..<tape.endIndex where tape[index].kind == .objectStart { objects += 1 }
        #expect(objects == count)
        // Two tokens per object, one chunk's worth at most: not twenty million.
        #expect(parser.tape.peakTokenCount <= 2 * perChunk + 4, "peak \(parser.tape.peakTokenCount)")
        #expect(parser.bytesParsed == 3 * count - 1 + 2)
    }

    @Test("a 100 000-deep nest cut into 7-byte chunks stops at the depth limit, for parser and decoders")
    func deepNest() throws {
        let depth = 100_000
        let text = Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8)
        let chunks = stride(from: 0, to: text.count, by: 7).map { Array(text[$0..<min($0 + 7, text.count)]) }
        let parser = JSONParser()
        let (error, fed) = Self.feed(parser, chunks)
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.position == JSONPosition(byteOffset: 512, line: 1, column: 513))
        #expect(error?.message == "Arrays and objects are nested more than 512 levels deep, the limit.")
        #expect(fed < 520)
        // The decoders meet the same limit instead of recursing 100 000 levels.
        #expect(throws: (any Error).self) { try StreamingJSONDecoder().decode(JSONValue.self, from: Data(text)) }
        #expect(throws: (any Error).self) { try StreamingJSONDecoder().decode([[Int]].self, from: Data(text)) }
        // A deeper limit is the caller's choice; the parser itself holds one small frame per level.
        let deep = JSONParser(limits: JSONLimits(maxDepth: depth))
        let (none, all) = Self.feed(deep, chunks)
        #expect(none == nil)
        #expect(all == text.count)
    }

    @Test("numbers of 100 000 digits: kept exactly as text, refused by types they do not fit")
    func hundredThousandDigits() throws {
        let digits = String(repeating: "7", count: 100_000)
        let tiny = "0." + String(repeating: "0", count: 100_000) + "1"
        let json = Data("[\(digits), -\(digits), \(tiny)]".utf8)
        let values = try StreamingJSONDecoder().decode([JSONValue].self, from: json)
        #expect(values.map { $0.numberText?.count } == [100_000, 100_001, 100_003])
        #expect(throws: (any Error).self) { try StreamingJSONDecoder().decode([Int].self, from: json) }
        #expect(throws: (any Error).self) { try StreamingJSONDecoder().decode([Decimal].self, from: json) }
        do {
            let doubles = try StreamingJSONDecoder().decode([Double].self, from: json)
            // If read at all, as the nearest doubles: never garbage.
            #expect(doubles[0] == .infinity && doubles[1] == -.infinity && doubles[2] == 0)
        } catch {
            #expect("\(error)".contains("Double"), "\(error)")
        }
        // Under a tighter limit, the digits are refused as they arrive.
        var limits = JSONLimits()
        limits.maxStringBytes = 1000
        let (error, _) = Self.feed(JSONParser(limits: limits), [Array(json)])
        #expect(error?.kind == .stringLimitExceeded)
        #expect(error?.message == "A number is longer than the limit of 1000 bytes.")
    }

    @Test("invalid UTF-8 cut by a chunk's edge is reported at its first byte, through the async decoder")
    func invalidUTF8AtAChunkEdge() async throws {
        let first = Array(#"["ok", "ab"#.utf8) + [0xE2]
        let second: [UInt8] = [0x28, 0xA1] + Array(#"x"]"#.utf8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            continuation.yield(first)
            continuation.yield(second)
            continuation.finish()
        }
        do {
            _ = try await StreamingJSONDecoder().decode([String].self, from: chunks)
            Issue.record("decoded invalid UTF-8")
        } catch {
            let description = "\(error)"
            #expect(description.contains("Invalid UTF-8 in a string"), "\(description)")
            #expect(description.contains("byte 10"), "\(description)")
        }
    }
}
