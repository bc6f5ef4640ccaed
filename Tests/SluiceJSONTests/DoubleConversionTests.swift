import Foundation
import Testing

@testable @_spi(Reference) import SluiceJSON

/// The Eisel-Lemire conversion against the standard library's correctly rounded one, over the
/// inputs it is likeliest to get wrong: 17-digit doubles as serializers write them, halfway cases,
/// subnormals, the edges of the range and every power of ten the table holds.
@Suite("Double conversion")
struct DoubleConversionTests {
    static func converted(_ text: String) throws -> Double {
        var text = text
        return try text.withUTF8 { try JSONNumberText.double(UnsafeRawBufferPointer($0)) }
    }

    /// The standard library's double for `text`, or `nil` where the conversion must fail: past
    /// the range, or rounded to zero from digits that are not all zero (as Foundation refuses).
    static func expected(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        let digits = text.prefix { $0 != "e" && $0 != "E" }
        if value == 0, digits.contains(where: { $0 >= "1" && $0 <= "9" }) { return nil }
        return value
    }

    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Self.expected(text)
        let actual = try? converted(text)
        if let expected {
            #expect(actual?.bitPattern == expected.bitPattern, "\(text)", sourceLocation: sourceLocation)
        } else {
            #expect(actual == nil, "\(text) is out of range", sourceLocation: sourceLocation)
        }
    }

    /// Every text read again as an element of one array parsed by the tokenizer and by yajl
    /// alone, through the tape: the trailer each writer leaves after a number's text must give the
    /// same double as the text, and the same integer (or the same refusal) as the text's path.
    static func expectSameOnTape(_ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let document = Array(("[" + texts.joined(separator: ",") + "]").utf8)
        for usesTokenizer in [true, false] {
            let parser = JSONParser(limits: .default, usesTokenizer: usesTokenizer)
            do {
                try parser.parse(document)
                try parser.finish()
                let elements = try #require(try? parser.tape.value(at: 0).elements(), sourceLocation: sourceLocation)
                for (element, text) in zip(elements, texts) {
                    let expected = Self.expected(text)
                    let actual = try? element.double()
                    #expect(
                        actual?.bitPattern == expected?.bitPattern,
                        "\(text), tokenizer \(usesTokenizer)",
                        sourceLocation: sourceLocation
                    )
                    var bytes = text
                    let fromText = bytes.withUTF8 {
                        try? JSONNumberText.integer(UnsafeRawBufferPointer($0), as: Int64.self)
                    }
                    #expect(
                        (try? element.integer(as: Int64.self)) == fromText,
                        "\(text) as Int64",
                        sourceLocation: sourceLocation
                    )
                }
            } catch {
                Issue.record("\(error)", sourceLocation: sourceLocation)
            }
        }
    }

    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("200 000 random doubles, written shortest and with 17 digits, convert back bit for bit")
    func randomDoubles() {
        var generator = Generator(state: 42)
        var texts: [String] = []
        for _ in 0..<100_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            Self.expectSame("\(value)")
            Self.expectSame(String(format: "%.17g", value))
            if texts.count < 20_000 { texts += ["\(value)", String(format: "%.17g", value)] }
        }
        Self.expectSameOnTape(texts)
    }

    @Test("decimals as coordinates are written: 1 to 15 digits, a point, 1 to 15 more, 19 at most")
    func usualDecimals() {
        var generator = Generator(state: 11)
        var texts: [String] = []
        for whole in 1...15 {
            for places in 1...min(15, 19 - whole) {
                for pattern in 0..<40 {
                    var text = String(Int.random(in: 1...9, using: &generator))
                    for _ in 1..<whole { text += String(Int.random(in: 0...9, using: &generator)) }
                    text += "."
                    // Random digits, and the endings a conversion is likeliest to round wrongly.
                    for place in 0..<places {
                        let last = place == places - 1
                        switch pattern % 4 {
                        case 1: text += last ? "5" : "0"
                        case 2: text += "9"
                        case 3: text += last ? "1" : "0"
                        default: text += String(Int.random(in: 0...9, using: &generator))
                        }
                    }
                    texts += [text, "-" + text]
                }
            }
        }
        for text in texts { Self.expectSame(text) }
        Self.expectSameOnTape(texts)
    }

    @Test("random significands of 1 to 19 digits times every power of ten from 1e-360 to 1e330")
    func randomDecimals() {
        var generator = Generator(state: 7)
        var texts: [String] = []
        for exponent in -360...330 {
            for digits in [1, 5, 15, 16, 17, 18, 19] {
                var significand = UInt64.random(in: 1...9, using: &generator)
                for _ in 1..<digits { significand = significand * 10 + UInt64.random(in: 0...9, using: &generator) }
                Self.expectSame("\(significand)e\(exponent)")
                Self.expectSame("-\(significand)e\(exponent)")
                texts += ["\(significand)e\(exponent)", "-\(significand)", "\(significand)"]
            }
        }
        Self.expectSameOnTape(texts)
    }

    @Test(
        "edges: halfway cases, subnormals, the largest and smallest doubles, zeros, 20 digits",
        arguments: [
            "9007199254740993", "9007199254740995", "9007199254740992.5", "2.2250738585072011e-308",
            "2.2250738585072014e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
            "0", "-0", "0.0e400", "1e-400", "1e400", "123456789012345678901234567890", "0.30000000000000004",
            "1.00000000000000011102230246251565404236316680908203125", "7.2057594037927933e16", "8.98846567431158e307",
            "1.1754943508222875e-38", "3.4028234663852886e38", "0.1", "1e23", "8.5e-322", "5e-324",
        ]
    )
    func edges(text: String) {
        Self.expectSame(text)
        Self.expectSameOnTape(text.hasPrefix("-") ? [text] : [text, "-" + text])
    }

    @Test(
        "digits written with the point at every place and leading zeros: the one-pass reader's shapes, 1 to 21 digits"
    )
    func pointAtEveryPlace() {
        var generator = Generator(state: 11)
        var texts: [String] = []
        for digits in 1...21 {
            for _ in 0..<40 {
                var text = String(UInt64.random(in: 1...9, using: &generator))
                for _ in 1..<digits { text += String(UInt64.random(in: 0...9, using: &generator)) }
                for place in 1...digits {
                    let written = String(text.prefix(place)) + "." + String(text.dropFirst(place))
                    let number = written.hasSuffix(".") ? String(written.dropLast()) : written
                    Self.expectSame(number)
                    Self.expectSame("-0.000" + text)
                    Self.expectSame(number + "e-7")
                    Self.expectSame("0." + String(repeating: "0", count: place) + text + "E+12")
                    texts += [
                        number, "-0.000" + text, number + "e-7",
                        "0." + String(repeating: "0", count: place) + text + "E+12",
                    ]
                }
            }
        }
        Self.expectSameOnTape(texts)
    }
}
