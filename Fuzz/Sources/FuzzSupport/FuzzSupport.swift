// What the fuzz targets share: a deterministic source of choices drawn from the input itself (so a
// crash file replays exactly), chunk splitting, and a way to stop with a message libFuzzer records
// as a crash when an invariant breaks.

import Foundation
public import SluiceJSON
@_spi(Reference) import SluiceJSON

/// A small PRNG (SplitMix64) seeded from the input's bytes: the same input always makes the same
/// choices (chunk splits, limits), which keeps every crash reproducible from its file alone.
public struct InputRandom {
    private var state: UInt64

    /// Seeds from an FNV-1a hash of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        state = hash
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Chunk lengths that add up to `count`: one byte at a time for short inputs now and then,
    /// else random lengths from 1 to `maxChunk`.
    public mutating func splits(of count: Int, maxChunk: Int = 64) -> [Int] {
        var lengths: [Int] = []
        var left = count
        let oneByOne = count <= 512 && next() % 4 == 0
        while left > 0 {
            let length = oneByOne ? 1 : min(left, int(in: 1...maxChunk))
            lengths.append(length)
            left -= length
        }
        return lengths
    }
}

/// Stops the process with `message` on standard error: libFuzzer reports it as a crash and keeps
/// the input that caused it.
public func fuzzFailure(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("\n*** Fuzz invariant broken: \(message)\n".utf8))
    fatalError(message, file: file, line: line)
}

/// What a parse produced, for comparing two parses of the same bytes: every token (kind, text,
/// position), then the error that ended it, if any. The error's excerpt is left out: it shows the
/// bytes at hand, which depend on where the chunk ended.
public struct ParseRecord: Equatable, CustomStringConvertible {
    public struct Token: Equatable {
        public var kind: JSONToken.Kind
        public var text: [UInt8]
        public var position: JSONPosition
    }

    public var tokens: [Token] = []
    public var error: String?

    public init() {}

    /// Appends every token on `tape` and releases them, as a streaming reader does.
    public mutating func take(from parser: JSONParser) {
        let tape = parser.tape
        for index in tape.startIndex..<tape.endIndex {
            let token = tape[index]
            let text = token.hasText ? tape.withUnsafeText(of: token) { Array($0) } : []
            tokens.append(Token(kind: token.kind, text: text, position: token.position))
        }
        parser.removeTokens(before: tape.endIndex)
    }

    public mutating func fail(_ error: JSONError) {
        self.error = "\(error.kind) at \(error.position): \(error.message)"
    }

    public var description: String {
        "\(tokens.count) tokens, error: \(error ?? "none")"
    }

    /// Where two records first differ, for the failure message.
    public func firstDifference(from other: ParseRecord) -> String {
        for (index, (mine, theirs)) in zip(tokens, other.tokens).enumerated() where mine != theirs {
            return "token \(index): \(mine) against \(theirs)"
        }
        if tokens.count != other.tokens.count { return "\(tokens.count) tokens against \(other.tokens.count)" }
        return "error \(error ?? "none") against \(other.error ?? "none")"
    }
}

/// Parses `bytes` cut into chunks of the lengths in `splits`, reading and releasing the tokens
/// after each chunk as a streaming reader does; with `usesTokenizer` off, yajl reads every byte.
public func parseRecord(
    _ bytes: UnsafeRawBufferPointer,
    splits: [Int],
    limits: JSONLimits,
    usesTokenizer: Bool = true
) -> ParseRecord {
    let parser = JSONParser(limits: limits, usesTokenizer: usesTokenizer)
    var record = ParseRecord()
    var offset = 0
    do {
        for length in splits where length > 0 {
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            offset += length
            record.take(from: parser)
        }
        try parser.finish()
        record.take(from: parser)
    } catch {
        record.take(from: parser)
        record.fail(error)
    }
    return record
}

/// Small limits now and then, so that limit errors are crossed at chunk edges too.
public func fuzzLimits(_ random: inout InputRandom) -> JSONLimits {
    switch random.next() % 4 {
    case 0: JSONLimits(maxDepth: random.int(in: 1...8), maxStringBytes: random.int(in: 0...16))
    case 1: JSONLimits(maxDepth: 64, maxStringBytes: 1 << 10, maxDocumentBytes: random.int(in: 0...256))
    default: JSONLimits()
    }
}

/// Resolves an RFC 6901 pointer in `value`: whether it names a value there. Where an object
/// repeats a name, any of its members may be the one meant (RFC 6901 leaves that open).
public func resolves(_ pointer: String, in value: JSONValue) -> Bool {
    if pointer.isEmpty { return true }
    // JSONPath reads pointers scalar by scalar (a name may start with a combining mark).
    let tokens = JSONPath(pointer).steps
    guard pointer.unicodeScalars.first == "/" else { return false }
    func walk(_ current: JSONValue, _ rest: ArraySlice<String>) -> Bool {
        guard let token = rest.first else { return true }
        switch current {
        case .object(let object):
            return object.contains { $0.key == token && walk($0.value, rest.dropFirst()) }
        case .array(let elements):
            guard let index = Int(token), elements.indices.contains(index) else { return false }
            return walk(elements[index], rest.dropFirst())
        default:
            return false
        }
    }
    return walk(value, tokens[...])
}
