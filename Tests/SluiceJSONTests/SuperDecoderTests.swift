import Foundation
import Testing

@testable import SluiceJSON

/// Super decoders for members that are not there: Foundation's decoder gives a decoder at `null`
/// (so a superclass whose members are optional, or that reads a single optional value, decodes),
/// and a drop-in replacement must do the same instead of throwing `keyNotFound`.
@Suite("Super decoders")
struct SuperDecoderTests {
    class Base: Decodable {
        let note: String?
        required init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            note = container.decodeNil() ? nil : try container.decode(String.self)
        }
    }

    final class Child: Base {
        let name: String
        enum CodingKeys: String, CodingKey { case name, parent }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            try super.init(from: container.superDecoder(forKey: .parent))
        }
    }

    final class Plain: Base {
        enum CodingKeys: String, CodingKey { case other }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try super.init(from: container.superDecoder())
        }
    }

    @Test("an absent member gives a decoder at null, a present one its value, as with Foundation")
    func absentMembers() throws {
        for text in [#"{"name": "a"}"#, #"{"name": "a", "parent": "p"}"#, #"{"name": "a", "parent": null}"#] {
            let data = Data(text.utf8)
            let foundation = try JSONDecoder().decode(Child.self, from: data)
            let sluice = try StreamingJSONDecoder().decode(Child.self, from: data)
            #expect(sluice.name == foundation.name && sluice.note == foundation.note, "\(text)")
        }
        #expect(try StreamingJSONDecoder().decode(Plain.self, from: Data("{}".utf8)).note == nil)
        #expect(try JSONDecoder().decode(Plain.self, from: Data("{}".utf8)).note == nil)
        #expect(try StreamingJSONDecoder().decode(Plain.self, from: Data(#"{"super": "s"}"#.utf8)).note == "s")
    }

    @Test("a required value read from an absent member's super decoder is a valueNotFound at the member's path")
    func requiredFromAbsent() {
        struct Strict: Decodable {
            enum CodingKeys: String, CodingKey { case parent }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                _ = try Int(from: container.superDecoder(forKey: .parent))
            }
        }
        for decode in [
            { _ = try StreamingJSONDecoder().decode(Strict.self, from: Data("{}".utf8)) },
            { _ = try JSONDecoder().decode(Strict.self, from: Data("{}".utf8)) },
        ] as [() throws -> Void] {
            do {
                try decode()
                Issue.record("decoded an Int from nothing")
            } catch let DecodingError.valueNotFound(_, context) {
                #expect(context.codingPath.map(\.stringValue) == ["parent"])
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}
