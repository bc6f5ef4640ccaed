@testable @_spi(Reference) import SluiceJSON

/// Feeds one input to a fresh parser in different cuts and records everything observable, so that
/// tests can require the same transcript however the input is split: where a network or a file
/// cuts the input must never change what a reader sees.
enum ChunkingVerifier {
    /// How an input is cut into chunks.
    enum Split: CustomStringConvertible {
        case whole
        case byteByByte
        case fixed(Int)
        case random(seed: UInt64)

        var description: String {
            switch self {
            case .whole: return "whole"
            case .byteByByte: return "byte by byte"
            case .fixed(let size): return "chunks of \(size)"
            case .random(let seed): return "random splits (seed \(seed))"
            }
        }

        func chunks(of count: Int) -> [Range<Int>] {
            switch self {
            case .whole:
                return [0..<count]
            case .byteByByte:
                return (0..<count).map { $0..<($0 + 1) }
            case .fixed(let size):
                return stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
            case .random(let seed):
                var generator = SeededGenerator(seed: seed)
                var ranges: [Range<Int>] = []
                var start = 0
                while start < count {
                    // Mostly short chunks, so that tokens are often cut, with a long one now and then.
                    let length = Int.random(in: 1...(Bool.random(using: &generator) ? 7 : 200), using: &generator)
                    let end = min(start + length, count)
                    ranges.append(start..<end)
                    start = end
                }
                return ranges
            }
        }
    }

    /// Everything a consumer can see: each token (with its text and position) and the outcome.
    struct Transcript: Equatable, CustomStringConvertible {
        var tokens: [String] = []
        var outcome = ""

        var description: String {
            (tokens.suffix(5) + ["=> " + outcome]).joined(separator: "\n")
        }
    }

    /// Parses `bytes` cut by `split`. With `releasing`, the consumer reads the new tokens after
    /// each chunk and releases them, as a streaming consumer does; otherwise the whole tape is
    /// kept and read at the end, container links included. Without `usesTokenizer`, yajl reads
    /// every byte: the reference the tokenizer must match.
    static func transcript(
        of bytes: [UInt8],
        split: Split,
        releasing: Bool,
        limits: JSONLimits = .default,
        usesTokenizer: Bool = true
    ) -> Transcript {
        let parser = JSONParser(limits: limits, usesTokenizer: usesTokenizer)
        var transcript = Transcript()
        func drain() {
            let tape = parser.tape
            for index in tape.indices {
                transcript.tokens.append(describe(tokenAt: index, on: tape, withLinks: !releasing))
            }
            parser.removeAllTokens()
        }
        do {
            for range in split.chunks(of: bytes.count) {
                try bytes[range].withUnsafeBytes { chunk in try parser.parse(chunk) }
                if releasing { drain() }
            }
            try parser.finish()
            drain()
            transcript.outcome = "ok"
        } catch let error as JSONError {
            drain()
            // The whole error as a user sees it: message, position, excerpt and caret.
            transcript.outcome =
                "\(error.kind) \(error.position): \(error.message) | \(error.excerpt) | ^\(error.excerptColumn)"
        } catch {
            transcript.outcome = "unexpected error \(error)"
        }
        return transcript
    }

    static func describe(tokenAt index: Int, on tape: JSONTape, withLinks: Bool) -> String {
        let token = tape[index]
        var text = "\(token.kind) \(token.position)"
        if token.hasText {
            text += " " + String(reflecting: tape.text(of: token))
            if token.kind == .number {
                // The trailer of digits read at writing: every writer must leave the same one.
                let digits = tape.withUnsafeText(of: token) { JSONNumberText.Digits(after: $0) }
                text += " digits \(digits.significand) \(digits.scale) \(digits.flags)"
            }
        } else if withLinks, token.kind == .objectStart || token.kind == .arrayStart {
            let end = tape.endOfValue(at: index)
            text += " ends \(end.map(String.init) ?? "never"), \((try? tape.value(at: index))?.count ?? -1) children"
        }
        return text
    }
}
