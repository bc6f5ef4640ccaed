import Foundation
import SluiceJSON
import Testing

/// Numbers stay text until asked for, and convert exactly or fail with the number named.
@Suite("Numbers")
struct NumberTests {
    private func number(_ text: String) throws -> JSONTape.Value {
        let tape = try JSONParser.parse(Array(text.utf8))
        return try tape.value(at: tape.startIndex)
    }

    @Test("the raw text is kept exactly as written")
    func rawText() throws {
        for text in ["0", "-0", "1.50", "-1.5E+03", "123456789012345678901234567890", "1e-400"] {
            #expect(try number(text).numberText() == text)
        }
    }

    @Test(
        "integers read exactly, including integral forms with fractions and exponents",
        arguments: [
            ("0", 0), ("-0", 0), ("42", 42), ("-42", -42), ("1e2", 100), ("10.0", 10), ("1500e-2", 15),
            ("0.05e2", 5), ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
        ] as [(String, Int64)]
    )
    func integers(text: String, value: Int64) throws {
        #expect(try number(text).integer(as: Int64.self) == value)
    }

    @Test("UInt64 reaches its maximum; a negative number never becomes unsigned")
    func unsigned() throws {
        #expect(try number("18446744073709551615").integer(as: UInt64.self) == .max)
        #expect(try number("-0").integer(as: UInt64.self) == 0)
        let error = try #require(throws: JSONError.self) { try number("-1").integer(as: UInt64.self) }
        #expect(error.message == "The number -1 does not fit in UInt64.")
        #expect(try number("255").integer(as: UInt8.self) == 255)
        #expect(throws: JSONError.self) { try number("256").integer(as: UInt8.self) }
        #expect(try number("-128").integer(as: Int8.self) == -128)
    }

    @Test("an integer over 64 bits is an error naming the value, never a wrap")
    func overflow() throws {
        var error = try #require(throws: JSONError.self) {
            try number("18446744073709551616").integer(as: UInt64.self)
        }
        #expect(error.kind == .numberOutOfRange)
        #expect(error.message == "The number 18446744073709551616 does not fit in UInt64.")
        #expect(error.position == JSONPosition(byteOffset: 0, line: 1, column: 1))
        error = try #require(throws: JSONError.self) { try number("9223372036854775808").integer(as: Int.self) }
        #expect(error.message == "The number 9223372036854775808 does not fit in Int.")
        error = try #require(throws: JSONError.self) { try number("-9223372036854775809").integer(as: Int64.self) }
        #expect(error.message == "The number -9223372036854775809 does not fit in Int64.")
        error = try #require(throws: JSONError.self) { try number("1e20").integer(as: Int.self) }
        #expect(error.message == "The number 1e20 does not fit in Int.")
        error = try #require(throws: JSONError.self) { try number("1e999999999999").integer(as: Int.self) }
        #expect(error.message == "The number 1e999999999999 does not fit in Int.")
    }

    @Test("the one-pass path for up to 18 digits agrees with the general one at its edges, for every width")
    func plainIntegerEdges() throws {
        // 18 digits take the one pass, 19 the general path: both sides of the border, signed.
        for text in ["999999999999999999", "-999999999999999999", "1000000000000000000", "-1000000000000000000"] {
            #expect(try number(text).integer(as: Int64.self) == Int64(text)!)
            #expect(try number(text).double() == Double(text)!)
        }
        #expect(try number("4294967295").integer(as: UInt32.self) == .max)
        #expect(throws: JSONError.self) { try number("4294967296").integer(as: UInt32.self) }
        #expect(try number("-2147483648").integer(as: Int32.self) == .min)
        let error = try #require(throws: JSONError.self) { try number("-2147483649").integer(as: Int32.self) }
        #expect(error.message == "The number -2147483649 does not fit in Int32.")
        #expect(throws: JSONError.self) { try number("-7").integer(as: UInt8.self) }
        #expect(try number("-0").integer(as: Int8.self) == 0)
    }

    @Test("a fraction is never truncated into an integer")
    func fraction() throws {
        let error = try #require(throws: JSONError.self) { try number("1.5").integer(as: Int.self) }
        #expect(error.message == "The number 1.5 has a fraction, so it does not fit in Int.")
        #expect(throws: JSONError.self) { try number("1e-1").integer(as: Int.self) }
    }

    @Test(
        "doubles round correctly on the fast and slow paths",
        arguments: [
            "0", "-0.0", "1.5", "3.141592653589793", "1e22", "1e23", "2.2250738585072014e-308",
            "1.7976931348623157e308", "123456789012345678901234567890", "0.1", "-12.5e-3", "5e-324",
            "9007199254740993",
        ]
    )
    func doubles(text: String) throws {
        #expect(try number(text).double() == Double(text)!)
    }

    @Test("a double beyond range is an error, too large or too small; zero with any exponent is zero")
    func doubleRange() throws {
        let error = try #require(throws: JSONError.self) { try number("1e400").double() }
        #expect(error.message == "The number 1e400 does not fit in Double.")
        // Foundation's decoder refuses a number that would round to zero, rather than lose it.
        let small = try #require(throws: JSONError.self) { try number("-1e-400").double() }
        #expect(small.message == "The number -1e-400 does not fit in Double.")
        #expect(throws: JSONError.self) { try number("0.0000000000000000000001234567890123456789e-320").double() }
        #expect(try number("0e-400").double() == 0)
        #expect(try number("-0.000e99999").double() == 0)
        #expect(try number("4.9406564584124654e-324").double() == .leastNonzeroMagnitude)
    }

    @Test("Float refuses what rounds to zero or infinity in Float, as Foundation does")
    func floatRange() throws {
        struct Holder: Decodable { var value: Float }
        for text in ["2.01e-1234", "1e-50", "1e39"] {
            let json = Data(#"{"value": \#(text)}"#.utf8)
            #expect(throws: DecodingError.self, "\(text)") {
                try StreamingJSONDecoder().decode(Holder.self, from: json)
            }
            #expect(throws: DecodingError.self, "\(text)") { try JSONDecoder().decode(Holder.self, from: json) }
        }
        let zero = Data(#"{"value": 0e-50}"#.utf8)
        #expect(try StreamingJSONDecoder().decode(Holder.self, from: zero).value == 0)
    }

    @Test("decimals read exactly without passing through Double")
    func decimals() throws {
        #expect(try number("0.1").decimal() == Decimal(string: "0.1"))
        #expect(
            try number("12345678901234567890123456789012345678").decimal()
                == Decimal(string: "12345678901234567890123456789012345678")
        )
        #expect(try number("-1.25e-3").decimal() == Decimal(string: "-0.00125"))
        let error = try #require(throws: JSONError.self) {
            try number("123456789012345678901234567890123456789").decimal()
        }
        #expect(
            error.message
                == "The number 123456789012345678901234567890123456789 has more significant digits than Decimal holds exactly."
        )
    }

    @Test("asking for the wrong type names both types and the position")
    func typeMismatch() throws {
        let tape = try JSONParser.parse(Array(#"{"a": "12"}"#.utf8))
        let value = try #require(try tape.value(at: tape.startIndex)["a"])
        let error = try #require(throws: JSONError.self) { try value.integer(as: Int.self) }
        #expect(error.kind == .typeMismatch)
        #expect(error.message == "Expected a number, found a string.")
        #expect(error.position == JSONPosition(byteOffset: 6, line: 1, column: 7))
    }
}
