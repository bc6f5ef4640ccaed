import Foundation
import Testing

@testable import SluiceJSON

/// `decode(_:from:configuration:)` and `encode(_:configuration:)`, the coders' entry points for types
/// whose coding takes a configuration, with the same results as Foundation's.
@Suite("Coding configurations")
struct CodingConfigurationTests {
    /// A price whose currency is not in the JSON but in the configuration.
    struct Price: DecodableWithConfiguration, EncodableWithConfiguration, Equatable {
        var amount: Int
        var currency: String

        enum CodingKeys: String, CodingKey { case amount }

        init(amount: Int, currency: String) {
            self.amount = amount
            self.currency = currency
        }

        init(from decoder: any Decoder, configuration: String) throws {
            amount = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .amount)
            currency = configuration
        }

        func encode(to encoder: any Encoder, configuration: String) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(configuration == currency ? amount : -amount, forKey: .amount)
        }
    }

    struct Euros: DecodingConfigurationProviding, EncodingConfigurationProviding {
        static let decodingConfiguration = "EUR"
        static let encodingConfiguration = "EUR"
    }

    @Test("decoding with a configuration, given or from a provider, as Foundation decodes")
    func decoding() throws {
        let data = Data(#"{"amount": 12}"#.utf8)
        let expected = try JSONDecoder().decode(Price.self, from: data, configuration: "CHF")
        #expect(expected == Price(amount: 12, currency: "CHF"))
        #expect(try StreamingJSONDecoder().decode(Price.self, from: data, configuration: "CHF") == expected)
        #expect(try StreamingJSONDecoder().decode(Price.self, from: data, configuration: Euros.self).currency == "EUR")
        #expect(throws: DecodingError.self) {
            try StreamingJSONDecoder().decode(Price.self, from: Data(#"{"amount": "x"}"#.utf8), configuration: "CHF")
        }
    }

    @Test("encoding with a configuration, given or from a provider, as Foundation encodes")
    func encoding() throws {
        let price = Price(amount: 5, currency: "EUR")
        let foundation = try JSONEncoder().encode(price, configuration: "CHF")
        #expect(try StreamingJSONEncoder().encode(price, configuration: "CHF") == foundation)
        #expect(
            String(decoding: try StreamingJSONEncoder().encode(price, configuration: Euros.self), as: UTF8.self)
                == #"{"amount":5}"#
        )
    }
}
