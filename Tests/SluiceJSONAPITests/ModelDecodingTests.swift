import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// Key strategies, custom keys, nested objects, polymorphism, unknown types, errors with pointers.
@Suite("Resource models")
struct ModelDecodingTests {
    struct Address: Decodable, Equatable {
        var street: String
        var geo: [Double]
    }

    struct Venue: Resource {
        static let resourceType = "venues"
        var id: String
        var displayName: String
        var descriptionText: String
        var addresses: [Address]
        var openingYear: Int?
        var meta: JSONValue?

        enum CodingKeys: String, CodingKey {
            case id
            case displayName
            case descriptionText = "description"
            case addresses
            case openingYear
            case meta
        }
    }

    static let venueJSON = #"""
        {"data": {"type": "venues", "id": "v1",
          "attributes": {"display-name": "Hall", "description": "Big", "opening-year": 1999,
                         "addresses": [{"street": "Main", "geo": [1.5, -2]}, {"street": "Side", "geo": []}]},
          "meta": {"rank": 3}}}
        """#

    @Test("kebab-case members, a custom key, nested objects and arrays of them, resource meta")
    func kebabCaseAndNestedObjects() throws {
        let decoder = JSONAPIDecoder()
        decoder.keyDecodingStrategy = .convertFromKebabCase
        let venue = try decoder.decode(Linked<Venue>.self, from: Data(Self.venueJSON.utf8)).data
        #expect(venue.displayName == "Hall")
        #expect(venue.descriptionText == "Big")
        #expect(venue.openingYear == 1999)
        #expect(venue.addresses == [Address(street: "Main", geo: [1.5, -2]), Address(street: "Side", geo: [])])
        #expect(venue.meta?["rank"]?.numberText == "3")
    }

    @Test("snake_case members")
    func snakeCase() throws {
        let decoder = JSONAPIDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let json = Self.venueJSON.replacingOccurrences(of: "display-name", with: "display_name")
            .replacingOccurrences(of: "opening-year", with: "opening_year")
        let venue = try decoder.decode(Linked<Venue>.self, from: Data(json.utf8)).data
        #expect(venue.displayName == "Hall")
        #expect(venue.openingYear == 1999)
    }

    @Test("a model error names the member with a JSON Pointer and its position")
    func modelErrorPointer() throws {
        let json = """
            {"data": [
              {"type": "people", "id": "1", "attributes": {"firstName": "A", "lastName": "B"}},
              {"type": "people", "id": "2", "attributes": {"firstName": 7, "lastName": "B"}}
            ]}
            """
        let error = try #require(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode([Linked<Person>].self, from: Data(json.utf8))
        }
        #expect(error.pointer == "/data/1/attributes/firstName")
        #expect(error.position == JSONPosition(byteOffset: 155, line: 3, column: 61))
        #expect(error.message == "Expected a string, found a number.")
        #expect(error.property == "Person.firstName: String")
        #expect(
            error.description == """
                line 3, column 61: /data/1/attributes/firstName (Person.firstName: String): Expected a string, found a number.
                    "firstName": 7
                                 ^
                """
        )
        #expect(error.localizedDescription == error.description)
    }

    @Test("a missing attribute is named, with the resource's pointer")
    func missingAttribute() throws {
        let error = try #require(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(
                Linked<Person>.self,
                from: Data(#"{"data": {"type": "people", "id": "1", "attributes": {"firstName": "A"}}}"#.utf8)
            )
        }
        #expect(error.pointer == "/data")
        #expect(error.message == "The resource has no attribute or relationship \"lastName\".")
    }

    @Test("id and type must be strings")
    func nonStringIdentifiers() throws {
        let error = try #require(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(
                Linked<Person>.self,
                from: Data(
                    #"{"data": {"type": "people", "id": 1, "attributes": {"firstName": "A", "lastName": "B"}}}"#.utf8
                )
            )
        }
        #expect(error.pointer == "/data/id")
        #expect(error.message == "id must be a string, but it is a number.")
    }

    struct Review: Resource {
        static let resourceType = "reviews"
        var id: String
        var subject: ToOne<AnyResource>
        var mentions: ToMany<AnyResource>
    }

    @Test("a polymorphic relationship resolves each target to its registered type")
    func polymorphic() throws {
        let json = #"""
            {"data": [{"type": "reviews", "id": "r1", "relationships": {
                        "subject": {"data": {"type": "people", "id": "9"}},
                        "mentions": {"data": [{"type": "comments", "id": "5"}, {"type": "people", "id": "9"}, {"type": "ghosts", "id": "0"}]}}}],
             "included": [{"type": "people", "id": "9", "attributes": {"firstName": "Dan", "lastName": "G"}},
                          {"type": "comments", "id": "5", "attributes": {"body": "First!"}}]}
            """#
        let decoder = JSONAPIDecoder(registry: [Person.self, Comment.self])
        let review = try #require(try decoder.decode([Linked<Review>].self, from: Data(json.utf8)).data.first)
        #expect(review.subject?.as(Person.self)?.firstName == "Dan")
        #expect(review.subject?.as(Comment.self) == nil)
        #expect(review.mentions.map(\.type) == ["comments", "people"], "ghosts/0 is not included, so it is left out")
        #expect(review.mentions[0].as(Comment.self)?.body == "First!")
        #expect(review.model.mentions.identifiers.count == 3, "every identifier stays available")
    }

    @Test("unknown types are kept raw by default and rejected, with type and pointer, when asked")
    func unknownTypes() throws {
        let json = #"""
            {"data": [], "included": [{"type": "people", "id": "9", "attributes": {"firstName": "Dan", "lastName": "G"}},
                                      {"type": "tags", "id": "t", "attributes": {"label": "x", "weight": 1.50}}]}
            """#
        let lenient = try JSONAPIDecoder(registry: [Person.self]).decode([AnyResource].self, from: Data(json.utf8))
        let tag = try #require(lenient.included.last)
        #expect(tag.model == nil)
        #expect(tag.raw?.attributes["weight"] == .number("1.50"))
        let strict = JSONAPIDecoder(registry: [Person.self])
        strict.rejectsUnknownTypes = true
        let error = try #require(throws: JSONAPIDecodingError.self) {
            try strict.decode([AnyResource].self, from: Data(json.utf8))
        }
        #expect(error.pointer == "/included/1/type")
        #expect(error.message == "No model is registered for the resource type \"tags\" (registered: \"people\").")
        #expect(error.position?.line == 2)
    }

    @Test("an error document throws a typed error carrying every error object")
    func errorDocument() throws {
        let json = #"""
            {"jsonapi": {"version": "1.1"}, "errors": [
              {"id": "e1", "status": "422", "code": "blank", "title": "Invalid Attribute", "detail": "First name must contain at least two characters.",
               "source": {"pointer": "/data/attributes/firstName"}, "links": {"about": "http://x/e1", "type": "http://x/types/blank"}, "meta": {"hint": 2}},
              {"status": "400", "source": {"parameter": "include"}},
              {"status": "406", "source": {"header": "Accept"}}
            ], "meta": {"request": "abc"}}
            """#
        let error = try #require(throws: JSONAPIErrorDocument.self) {
            try JSONAPIDecoder().decode([Linked<Person>].self, from: Data(json.utf8))
        }
        #expect(error.errors.count == 3)
        let first = error.errors[0]
        #expect(
            first.id == "e1" && first.status == "422" && first.code == "blank" && first.title == "Invalid Attribute"
        )
        #expect(first.detail == "First name must contain at least two characters.")
        #expect(first.source?.pointer == "/data/attributes/firstName")
        #expect(first.links?["about"]?.href == "http://x/e1")
        #expect(first.links?["type"]?.href == "http://x/types/blank")
        #expect(first.meta?["hint"]?.numberText == "2")
        #expect(error.errors[1].source?.parameter == "include")
        #expect(error.errors[2].source?.header == "Accept")
        #expect(error.meta?["request"]?.stringValue == "abc")
        #expect(error.jsonapi?.version == "1.1")
        #expect(error.description.hasPrefix("The document reports 3 errors: 422 Invalid Attribute (First name must"))
    }

    @Test("a document that is not an object, or whose data has the wrong shape, is refused")
    func wrongShapes() throws {
        var error = try #require(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode([AnyResource].self, from: Data("[1]".utf8))
        }
        #expect(error.message == "A JSON:API document must be an object, but this one is an array.")
        error = try #require(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode([AnyResource].self, from: Data(#"{"data": "x"}"#.utf8))
        }
        #expect(error.pointer == "/data")
        #expect(
            error.message
                == "Primary data must be a resource object, an array of resource objects, or null, but it is a string."
        )
        error = try #require(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode([AnyResource].self, from: Data(#"{"data": [{"id": "1"}]}"#.utf8))
        }
        #expect(error.pointer == "/data/0")
        #expect(error.message == "A resource object must have a type member.")
    }

    @Test("syntax errors surface as JSONError with line and column")
    func syntaxError() throws {
        let error = try #require(throws: JSONError.self) {
            try JSONAPIDecoder().decode([AnyResource].self, from: Data("{\"data\": [\n  {\"type\": \"a\",}\n]}".utf8))
        }
        #expect(error.line == 2)
        #expect(error.message.hasPrefix("Trailing comma: ',' before '}' ends the object"))
    }
}
