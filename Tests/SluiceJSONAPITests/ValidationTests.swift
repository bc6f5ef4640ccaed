import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// Every strict-validation rule, each with an invalid document and its exact message.
@Suite("Strict validation")
struct ValidationTests {
    static func violations(_ json: String, request: Bool = false) throws -> [JSONAPIViolation] {
        try JSONAPIValidator(isRequestDocument: request).validate(Data(json.utf8))
    }

    static let person = #"{"type": "people", "id": "9", "attributes": {"name": "Dan"}}"#

    @Test(
        "the specification's compound document is valid, included before or after data",
        arguments: ["compound.json", "compound-included-first.json"]
    )
    func validDocument(fixture: String) throws {
        let violations = try JSONAPIValidator().validate(FileChunkReader(path: Fixtures.path(fixture)))
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test(
        "each rule reports its pointer and sentence",
        arguments: [
            (#"[]"#, "", "A JSON:API document must be an object, but this one is an array."),
            (
                #"{"links": {}}"#, "",
                "A document must contain at least one of data, errors, meta or a member of an applied extension."
            ),
            (
                #"{"data": null, "errors": [{"status": "500"}]}"#, "/data",
                "A document must not contain both data and errors."
            ),
            (#"{"meta": {}, "included": []}"#, "/included", "A document without data must not contain included."),
            (
                #"{"data": 5}"#, "/data",
                "Primary data must be a resource object, an array of resource objects, or null, but it is a number."
            ),
            (#"{"data": ["x"]}"#, "/data/0", "Expected a resource object, found a string."),
            (#"{"data": {"id": "1"}}"#, "/data", "A resource object must have a type member."),
            (#"{"data": {"type": "people"}}"#, "/data", "A resource object in a response must have an id member."),
            (#"{"data": {"type": "people", "id": 1}}"#, "/data/id", "id must be a string, but it is a number."),
            (#"{"data": {"type": 7, "id": "1"}}"#, "/data/type", "type must be a string, but it is a number."),
            (
                #"{"data": {"type": "people", "id": "1", "lid": 2}}"#, "/data/lid",
                "lid must be a string, but it is a number."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "attributes": []}}"#, "/data/attributes",
                "attributes must be an object, but it is an array."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "relationships": 1}}"#, "/data/relationships",
                "relationships must be an object, but it is a number."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "links": "x"}}"#, "/data/links",
                "links must be an object, but it is a string."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "meta": []}}"#, "/data/meta",
                "meta must be an object, but it is an array."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "attributes": {"type": "x"}}}"#, "/data/attributes/type",
                "A resource cannot have a field named type; it is reserved for identification."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "attributes": {"boss": 1}, "relationships": {"boss": {"data": null}}}}"#,
                "/data/relationships/boss",
                "The field boss is both an attribute and a relationship; fields share one namespace."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "relationships": {"boss": {}}}}"#, "/data/relationships/boss",
                "A relationship object must contain at least one of links, data or meta."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "relationships": {"boss": {"data": "9"}}}}"#,
                "/data/relationships/boss/data",
                "Resource linkage must be null, a resource identifier object or an array of them, but it is a string."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "relationships": {"boss": {"data": {"id": "9"}}}}}"#,
                "/data/relationships/boss/data", "A resource identifier must have a type member."
            ),
            (
                #"{"data": [{"type": "people", "id": "1"}, {"type": "people", "id": "1"}]}"#, "/data/1",
                "The resource people with id 1 appears twice, first at /data/0; a document holds one resource object per type and id."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "attributes": {"first.name": "x"}}}"#,
                "/data/attributes/first.name",
                "The member name \"first.name\" breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "attributes": {"-name": "x"}}}"#, "/data/attributes/-name",
                "The member name \"-name\" breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
            ),
            (
                #"{"errors": [{"foo": 1}]}"#, "/errors/0",
                "An error object must have at least one of id, links, status, code, title, detail, source or meta."
            ),
            (#"{"errors": [{"status": 500}]}"#, "/errors/0/status", "status must be a string, but it is a number."),
            (
                #"{"meta": {}, "jsonapi": {"version": 1.1}}"#, "/jsonapi/version",
                "version must be a string, but it is a number."
            ),
            (#"{"meta": {}, "jsonapi": {"ext": "https://x"}}"#, "/jsonapi/ext", "ext must be an array of URI strings."),
            (
                #"{"data": [], "links": {"next": 2}}"#, "/links/next",
                "The link next must be a string, a link object or null, but it is a number."
            ),
            (
                #"{"data": [], "links": {"next": {"rel": "next"}}}"#, "/links/next",
                "A link object must have an href member."
            ),
            (
                #"{"meta": {}, "bad.member": 1}"#, "/bad.member",
                "The member name \"bad.member\" breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
            ),
        ]
    )
    func rule(json: String, pointer: String, message: String) throws {
        let violations = try Self.violations(json)
        let match = violations.first { $0.pointer == pointer && $0.message == message }
        #expect(match != nil, "got \(violations)")
        #expect(match?.severity == .error)
    }

    @Test("every violation is collected, in document order, with positions")
    func collectsAll() throws {
        let json = """
            {"data": [
              {"type": "people", "id": 1},
              {"type": "people", "attributes": {"id": 2}}
            ]}
            """
        let violations = try Self.violations(json)
        #expect(violations.map(\.pointer) == ["/data/0/id", "/data/1", "/data/1/attributes/id"])
        #expect(violations[0].position == JSONPosition(byteOffset: 38, line: 2, column: 28))
        #expect(violations[0].description == "line 2, column 28: /data/0/id: id must be a string, but it is a number.")
    }

    @Test("a request document may leave out id, or use lid; lids must name a resource")
    func requestDocuments() throws {
        let valid = #"""
            {"data": {"type": "articles", "lid": "a1", "relationships": {"author": {"data": {"type": "people", "lid": "p1"}}}},
             "included": [{"type": "people", "lid": "p1", "attributes": {"name": "x"}}]}
            """#
        #expect(try Self.violations(valid, request: true).isEmpty)
        let dangling =
            #"{"data": {"type": "articles", "lid": "a1", "relationships": {"author": {"data": {"type": "people", "lid": "p9"}}}}}"#
        let violations = try Self.violations(dangling, request: true)
        #expect(violations.map(\.message) == ["The lid p9 of type people names no resource object in this document."])
        #expect(violations.first?.pointer == "/data/relationships/author/data")
        // A new resource may have neither id nor lid in a request.
        #expect(try Self.violations(#"{"data": {"type": "articles"}}"#, request: true).isEmpty)
    }

    @Test("an included resource unreachable from primary data is a warning of its own")
    func unreachableIncluded() throws {
        let json = "{\"data\": [], \"included\": [\(Self.person)]}"
        let violations = try Self.violations(json)
        #expect(violations.count == 1)
        #expect(violations.first?.severity == .warning)
        #expect(violations.first?.pointer == "/included/0")
        #expect(
            violations.first?.message
                == "The included resource people/9 is not reachable from primary data through relationships (allowed only when sparse fieldsets left the linkage out)."
        )
    }

    @Test("extension members of an announced extension and @-members are allowed at the top level")
    func extensionMembers() throws {
        let announced =
            #"{"meta": {}, "jsonapi": {"ext": ["https://jsonapi.org/ext/atomic"]}, "atomic:results": [], "@context": "x"}"#
        #expect(try Self.violations(announced).isEmpty)
    }

    @Test("a links object holds only the link names its object defines, beside extension and @-members")
    func closedLinksObjects() throws {
        let json = #"""
            {"links": {"self": "/a", "next": "/a?page=2", "wrong": "/b", "@note": "x"},
             "data": {"type": "a", "id": "1", "links": {"self": "/a/1", "invalid": "x"},
                      "relationships": {"r": {"links": {"related": "/a/1/r", "last": "/x", "wrong": "/c"}}}}}
            """#
        let loose = try Self.violations(json)
        #expect(loose.map(\.pointer) == ["/links/wrong", "/data/links/invalid", "/data/relationships/r/links/wrong"])
        #expect(loose.allSatisfy { $0.severity == .warning })
        #expect(
            loose.first?.message
                == "The top-level links object may hold only self, related, describedby, first, last, prev and next, not wrong."
        )
        #expect(loose[1].message == "The links object of a resource object may hold only self, not invalid.")
        let strict = try JSONAPIValidator(request: nil, strictMembers: true).validate(Data(json.utf8))
        #expect(strict.map(\.severity) == [.error, .error, .error])
        // An applied extension's members are allowed.
        let extended = try Self.violations(
            #"{"jsonapi": {"ext": ["https://e.x/ext/e"]}, "meta": {}, "links": {"e:x": "/"}}"#
        )
        #expect(extended.isEmpty, "\(extended)")
    }

    @Test(
        "a link under an undefined name is still a link: its value must be a string, a link object or null",
        arguments: [
            (#"{"meta": {}, "links": {"aren": []}}"#, "/links/aren", "an array"),
            (
                #"{"data": {"type": "a", "id": "1", "relationships": {"r": {"links": {"wrong": 5}}}}}"#,
                "/data/relationships/r/links/wrong", "a number"
            ),
            (
                #"{"data": {"type": "a", "id": "1", "links": {"wrong": {"foo": "bar"}}}}"#, "/data/links/wrong",
                "href"
            ),
        ]
    )
    func undefinedLinkValues(json: String, pointer: String, fault: String) throws {
        let violations = try Self.violations(json)
        // The name is a warning; the value an error, whatever the member rules.
        #expect(violations.contains { $0.pointer == pointer && $0.severity == .warning })
        let errors = violations.filter { $0.severity == .error }
        #expect(errors.count == 1, "\(violations)")
        #expect(errors.first?.pointer.hasPrefix(pointer) == true)
        #expect(errors.first?.message.contains(fault) == true, "\(errors)")
    }

    @Test("pagination links belong to to-many relationships: on a to-one relationship they are undefined")
    func toOnePagination() throws {
        let toOne = #"""
            {"data": {"type": "a", "id": "1", "relationships": {
                "one": {"data": {"type": "b", "id": "2"}, "links": {"self": "/r", "next": "/r?page=2"}},
                "none": {"links": {"related": "/x", "prev": "/y"}, "data": null},
                "many": {"data": [], "links": {"next": "/m?page=2"}},
                "unknown": {"links": {"next": "/u?page=2"}}}}}
            """#
        let loose = try Self.violations(toOne)
        #expect(loose.map(\.pointer) == ["/data/relationships/one/links/next", "/data/relationships/none/links/prev"])
        #expect(
            loose.first?.message
                == "The links object of a to-one relationship object may hold only self and related, not next."
        )
        let strict = try JSONAPIValidator(request: nil, strictMembers: true).validate(Data(toOne.utf8))
        #expect(strict.map(\.severity) == [.error, .error])
    }

    @Test("full linkage can be required: an unreachable included resource is then an error")
    func fullLinkage() throws {
        let json = #"{"data": {"type": "a", "id": "1"}, "included": [{"type": "b", "id": "2"}]}"#
        #expect(try Self.violations(json).map(\.severity) == [.warning])
        var validator = JSONAPIValidator()
        validator.requiresFullLinkage = true
        let strict = try validator.validate(Data(json.utf8))
        #expect(strict.map(\.severity) == [.error])
        #expect(strict.first?.pointer == "/included/0")
    }

    @Test("an update request needs the id of the resource it updates; a create may have a lid")
    func updateRequest() throws {
        let patch = #"{"data": {"type": "articles", "lid": "x", "attributes": {"title": "T"}}}"#
        #expect(try JSONAPIValidator(request: .resource).validate(Data(patch.utf8)).isEmpty)
        let update = try JSONAPIValidator(request: .update).validate(Data(patch.utf8))
        #expect(update.map(\.pointer) == ["/data"])
        #expect(
            update.first?.message
                == "A resource object in an update request must have an id member: the resource to update."
        )
        let withID = #"{"data": {"type": "articles", "id": "1", "attributes": {"title": "T"}}}"#
        #expect(try JSONAPIValidator(request: .update).validate(Data(withID.utf8)).isEmpty)
        let collection = try JSONAPIValidator(request: .update).validate(Data(#"{"data": []}"#.utf8))
        #expect(
            collection.first?.message.hasPrefix("A request to a resource endpoint must hold a single resource") == true
        )
    }
}
