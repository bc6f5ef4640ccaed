import Foundation
import SluiceJSON
import SluiceJSONAPI
import Testing

/// The JSON:API 1.1 rules the validator learnt to check exactly, each test named after its rule,
/// each with the pointer and sentence it reports.
@Suite("JSON:API 1.1 rules, to the letter")
struct SpecificationRuleTests {
    static func violations(
        _ json: String,
        request: JSONAPIValidator.RequestTarget? = nil,
        strict: Bool = false,
        extensions: [String] = []
    ) throws -> [JSONAPIViolation] {
        var validator = JSONAPIValidator(request: request, strictMembers: strict)
        validator.appliedExtensions = extensions
        return try validator.validate(Data(json.utf8))
    }

    static let atomic = #""jsonapi": {"ext": ["https://jsonapi.org/ext/atomic"]}"#

    // MARK: Objects the specification defines hold only the members it defines

    @Test(
        "objects defined by the specification must not contain additional members: a warning, an error when strict",
        arguments: [
            (
                #"{"meta": {}, "foo": 1}"#, "/foo",
                "The top level of a document may hold only data, errors, meta, jsonapi, links and included, not foo."
            ),
            (
                #"{"meta": {}, "jsonapi": {"vesion": "1.1"}}"#, "/jsonapi/vesion",
                "The jsonapi object may hold only version, ext, profile and meta, not vesion."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "name": "Dan"}}"#, "/data/name",
                "A resource object may hold only type, id, lid, attributes, relationships, links and meta, not name."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "relationships": {"boss": {"data": null, "count": 1}}}}"#,
                "/data/relationships/boss/count", "A relationship object may hold only links, data and meta, not count."
            ),
            (
                #"{"data": {"type": "people", "id": "1", "relationships": {"boss": {"data": {"type": "people", "id": "9", "name": "x"}}}}}"#,
                "/data/relationships/boss/data/name",
                "A resource identifier object may hold only type, id, lid and meta, not name."
            ),
            (
                #"{"data": [], "links": {"self": {"href": "/a", "method": "GET"}}}"#, "/links/self/method",
                "A link object may hold only href, rel, describedby, title, type, hreflang and meta, not method."
            ),
            (
                #"{"errors": [{"status": "400", "message": "x"}]}"#, "/errors/0/message",
                "An error object may hold only id, links, status, code, title, detail, source and meta, not message."
            ),
            (
                #"{"errors": [{"status": "400", "source": {"pointer": "/data", "line": 3}}]}"#, "/errors/0/source/line",
                "The source of an error object may hold only pointer, parameter and header, not line."
            ),
            (
                #"{"errors": [{"status": "400", "links": {"help": "/h"}}]}"#, "/errors/0/links/help",
                "The links object of an error object may hold only about and type, not help."
            ),
        ]
    )
    func undefinedMembers(json: String, pointer: String, message: String) throws {
        let lenient = try Self.violations(json)
        #expect(lenient.map(\.pointer) == [pointer], "\(lenient)")
        #expect(lenient.first?.message == message)
        #expect(lenient.first?.severity == .warning)
        let strict = try Self.violations(json, strict: true)
        #expect(strict.map(\.severity) == [.error])
        #expect(strict.first?.message == message)
    }

    @Test("extension members are allowed where jsonapi.ext announces the extension, wherever jsonapi comes")
    func extensionMembersNeedTheirExtension() throws {
        let resource = #""data": {"type": "articles", "id": "1", "version:id": "42"}"#
        let announcedLast = "{\(resource), \"jsonapi\": {\"ext\": [\"https://jsonapi.org/ext/version\"]}}"
        #expect(try Self.violations(announcedLast, strict: true).isEmpty)
        // Named by the caller (the media type's ext parameter), by URI or by namespace.
        #expect(
            try Self.violations("{\(resource)}", strict: true, extensions: ["https://jsonapi.org/ext/version"]).isEmpty
        )
        #expect(try Self.violations("{\(resource)}", strict: true, extensions: ["version"]).isEmpty)
        let unannounced = try Self.violations("{\(resource)}")
        #expect(unannounced.map(\.pointer) == ["/data/version:id"])
        #expect(unannounced.first?.severity == .warning)
        #expect(
            unannounced.first?.message
                == "A resource object may hold the extension member version:id only when its extension (namespace version) is applied: announced in jsonapi.ext or in the media type."
        )
        // A namespace is a-z, A-Z and 0-9 only, announced or not.
        let badNamespace = try Self.violations(#"{"meta": {}, "my-ext:x": 1}"#)
        #expect(
            badNamespace.map(\.message) == [
                "The extension namespace of the member my-ext:x must be made of a-z, A-Z and 0-9 only."
            ]
        )
        #expect(badNamespace.first?.severity == .error)
    }

    // MARK: Member names

    @Test(
        "type values must adhere to the same constraints as member names",
        arguments: [
            (#"{"data": {"type": "blog posts!", "id": "1"}}"#, "/data/type", "blog posts!"),
            (#"{"data": {"type": "", "id": "1"}}"#, "/data/type", ""),
            (
                #"{"data": {"type": "a", "id": "1", "relationships": {"r": {"data": {"type": "-people", "id": "9"}}}}}"#,
                "/data/relationships/r/data/type", "-people"
            ),
        ]
    )
    func typeNames(json: String, pointer: String, type: String) throws {
        let violations = try Self.violations(json)
        #expect(violations.map(\.pointer) == [pointer], "\(violations)")
        #expect(
            violations.first?.message
                == "The type \(String(reflecting: type)) breaks JSON:API's naming rules, which types follow as member names do: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
        )
        #expect(violations.first?.severity == .error)
        // Non-ASCII characters, and - _ and space inside, are allowed.
        #expect(try Self.violations(#"{"data": {"type": "blog_posts-é x", "id": "1"}}"#).isEmpty)
    }

    @Test(
        "member names in meta objects and inside attribute values follow the member name rules, at any depth",
        arguments: [
            (#"{"meta": {"page.size": 10}}"#, "/meta/page.size"),
            (#"{"meta": {"paging": [{"$next": 1}]}}"#, "/meta/paging/0/$next"),
            (#"{"data": {"type": "a", "id": "1", "meta": {"x y ": 1}}}"#, "/data/meta/x y "),
            (
                #"{"data": {"type": "a", "id": "1", "attributes": {"address": {"zip.code": "1"}}}}"#,
                "/data/attributes/address/zip.code"
            ),
            (#"{"errors": [{"status": "500", "meta": {"a/b": 1}}]}"#, "/errors/0/meta/a~1b"),
            (#"{"meta": {}, "jsonapi": {"meta": {"[x]": 1}}}"#, "/jsonapi/meta/[x]"),
        ]
    )
    func namesInMeta(json: String, pointer: String) throws {
        let violations = try Self.violations(json)
        #expect(violations.map(\.pointer) == [pointer], "\(violations)")
        #expect(violations.first?.message.hasPrefix("The member name ") == true)
        #expect(
            violations.first?.message.hasSuffix(
                "breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
            ) == true
        )
        // @-members are left alone anywhere.
        #expect(try Self.violations(#"{"meta": {"@context": {"@vocab": "x"}}}"#).isEmpty)
    }

    // MARK: Extensions

    @Test("a document whose only top-level member is defined by an applied extension is valid")
    func extensionOnlyDocument() throws {
        #expect(
            try Self.violations(
                #"{\#(Self.atomic), "atomic:operations": [{"op": "remove", "ref": {"type": "a", "id": "1"}}]}"#
            ).isEmpty
        )
        #expect(try Self.violations(#"{"atomic:results": [{}], \#(Self.atomic)}"#).isEmpty)
        #expect(
            try Self.violations(#"{"atomic:results": [{}]}"#, extensions: ["https://jsonapi.org/ext/atomic"]).isEmpty
        )
        // Without the extension applied, the member is not the extension's, and the document has nothing.
        let unannounced = try Self.violations(#"{"atomic:operations": []}"#)
        #expect(unannounced.map(\.pointer) == ["/atomic:operations", ""])
        #expect(unannounced.map(\.severity) == [.warning, .error])
        #expect(
            unannounced.last?.message
                == "A document must contain at least one of data, errors, meta or a member of an applied extension."
        )
    }

    @Test(
        "the atomic extension: no data, included or errors beside operations or results, not both, and arrays",
        arguments: [
            (
                #"{\#(atomic), "atomic:operations": [], "data": null}"#, "/data",
                "A document with atomic:operations must not contain data (Atomic Operations extension)."
            ),
            (
                #"{\#(atomic), "atomic:results": [], "errors": []}"#, "/errors",
                "A document with atomic:results must not contain errors (Atomic Operations extension)."
            ),
            (
                #"{\#(atomic), "atomic:results": [], "atomic:operations": []}"#, "/atomic:operations",
                "A document must not contain both atomic:operations and atomic:results."
            ),
            (
                #"{\#(atomic), "atomic:operations": {}}"#, "/atomic:operations",
                "atomic:operations must be an array of operation objects, but it is an object."
            ),
        ]
    )
    func atomicDocuments(json: String, pointer: String, message: String) throws {
        let violations = try Self.violations(json)
        #expect(
            violations.contains { $0.pointer == pointer && $0.message == message && $0.severity == .error },
            "\(violations)"
        )
    }

    // MARK: Requests

    @Test("a relationship provided in a POST or PATCH request must be a relationship object with data")
    func requestRelationshipsNeedData() throws {
        let json =
            #"{"data": {"type": "articles", "relationships": {"author": {"links": {"related": "/a/1/author"}}, "tags": {"data": []}}}}"#
        let violations = try Self.violations(json, request: .resource)
        #expect(violations.map(\.pointer) == ["/data/relationships/author"])
        #expect(
            violations.first?.message
                == "A relationship provided in a request must have a data member: the linkage the resource is to have."
        )
        // Responses may give links only.
        #expect(
            try Self.violations(
                #"{"data": {"type": "articles", "id": "1", "relationships": {"author": {"links": {"related": "/x"}}}}}"#
            ).isEmpty
        )
    }

    @Test(
        "a request to a resource endpoint must include a single resource object as primary data",
        arguments: [
            (
                #"{"data": [{"type": "articles"}]}"#, "/data",
                "A request to a resource endpoint must hold a single resource object as primary data, but data is an array."
            ),
            (
                #"{"data": null}"#, "/data",
                "A request to a resource endpoint must hold a single resource object as primary data, but data is null."
            ),
            (
                #"{"meta": {}}"#, "",
                "A request document must hold a single resource object (a request to a resource endpoint) as primary data, but it has no data member."
            ),
        ]
    )
    func resourceRequests(json: String, pointer: String, message: String) throws {
        let violations = try Self.violations(json, request: .resource)
        #expect(violations.map(\.pointer) == [pointer], "\(violations)")
        #expect(violations.first?.message == message)
    }

    @Test("a request to a relationship endpoint holds resource linkage: null, an identifier or an array of them")
    func relationshipRequests() throws {
        #expect(
            try Self.violations(
                #"{"data": [{"type": "tags", "id": "2"}, {"type": "tags", "id": "3"}]}"#,
                request: .relationship
            ).isEmpty
        )
        #expect(try Self.violations(#"{"data": null}"#, request: .relationship).isEmpty)
        #expect(try Self.violations(#"{"data": {"type": "people", "id": "9"}}"#, request: .relationship).isEmpty)
        let resourceObjects = try Self.violations(
            #"{"data": [{"type": "tags", "id": "2", "attributes": {"x": 1}}, {"id": "3"}]}"#,
            request: .relationship,
            strict: true
        )
        #expect(resourceObjects.map(\.pointer) == ["/data/0/attributes", "/data/1"])
        #expect(resourceObjects.last?.message == "A resource identifier must have a type member.")
        // The same body sent to a resource endpoint is wrong the other way round.
        #expect(!(try Self.violations(#"{"data": [{"type": "tags", "id": "2"}]}"#, request: .resource)).isEmpty)
    }

    // MARK: Error objects

    @Test(
        "error objects: source.pointer is a JSON Pointer string, parameter and header are strings, about and type are links",
        arguments: [
            (
                #"{"errors": [{"source": {"pointer": "data/attributes"}}]}"#, "/errors/0/source/pointer",
                #"pointer must be a JSON Pointer (RFC 6901): "data/attributes" does not start with /."#
            ),
            (
                #"{"errors": [{"source": {"pointer": "/data/a~2b"}}]}"#, "/errors/0/source/pointer",
                #"pointer must be a JSON Pointer (RFC 6901): in "/data/a~2b", ~ must be followed by 0 or 1 (write ~0 for ~ and ~1 for /)."#
            ),
            (
                #"{"errors": [{"source": {"pointer": 3}}]}"#, "/errors/0/source/pointer",
                "pointer must be a string, but it is a number."
            ),
            (
                #"{"errors": [{"source": {"parameter": ["sort"]}}]}"#, "/errors/0/source/parameter",
                "parameter must be a string, but it is an array."
            ),
            (
                #"{"errors": [{"source": {"header": null}}]}"#, "/errors/0/source/header",
                "header must be a string, but it is null."
            ),
            (#"{"errors": [{"source": "body"}]}"#, "/errors/0/source", "source must be an object, but it is a string."),
            (
                #"{"errors": [{"links": {"about": 1}}]}"#, "/errors/0/links/about",
                "The link about must be a string, a link object or null, but it is a number."
            ),
            (
                #"{"errors": [{"links": {"type": {"title": "x"}}}]}"#, "/errors/0/links/type",
                "A link object must have an href member."
            ),
        ]
    )
    func errorObjects(json: String, pointer: String, message: String) throws {
        let violations = try Self.violations(json)
        #expect(violations.map(\.pointer) == [pointer], "\(violations)")
        #expect(violations.first?.message == message)
        #expect(violations.first?.severity == .error)
        // Valid pointers: the root (empty), escapes, and the empty member name.
        let valid =
            #"{"errors": [{"source": {"pointer": ""}}, {"source": {"pointer": "/data/a~0b~1c"}}, {"source": {"pointer": "/"}}]}"#
        #expect(try Self.violations(valid).isEmpty)
    }

    // MARK: Pointers

    @Test("pointers: the root is the empty pointer, a member named \"\" is /, and a bad href is reported at its href")
    func pointers() throws {
        let root = try Self.violations(#"{"links": {}}"#)
        #expect(root.map(\.pointer) == [""])
        #expect(root.first?.description.hasPrefix("line 1, column 1: (root): ") == true)
        let empty = try Self.violations(#"{"meta": {}, "": 1}"#)
        #expect(empty.map(\.pointer) == ["/"])
        let slash = try Self.violations(#"{"meta": {"a/b~": 1}}"#)
        #expect(slash.map(\.pointer) == ["/meta/a~1b~0"])
        let href = try Self.violations(#"{"data": [], "links": {"self": {"href": 5}}}"#)
        #expect(href.map(\.pointer) == ["/links/self/href"])
        #expect(href.first?.message == "href must be a string, but it is a number.")
        #expect(href.first?.position == JSONPosition(byteOffset: 40, line: 1, column: 41))
    }

    // MARK: Names within an object are unique (RFC 8259, which JSON:API documents must follow)

    @Test("member names within an object should be unique: a repeat is a warning naming the first, at any depth")
    func repeatedNames() throws {
        let nested = try Self.violations(
            #"{"data": {"type": "a", "id": "1", "attributes": {"title": "x", "body": {"k": [{"v": 1, "v": 2}]}, "title": "y"}}}"#
        )
        #expect(nested.map(\.pointer) == ["/data/attributes/body/k/0/v", "/data/attributes/title"])
        #expect(nested.allSatisfy { $0.severity == .warning })
        #expect(
            nested.last?.message
                == "The member title appears again in the same object (first at line 1, column 50); names within an object should be unique (RFC 8259), and readers differ on which value they keep."
        )
        #expect(nested.last?.position == JSONPosition(byteOffset: 98, line: 1, column: 99))
        // Strict members make undefined members errors, not repeats.
        #expect(try Self.violations(#"{"meta": {"a": 1, "a": 2}}"#, strict: true).map(\.severity) == [.warning])
    }

    @Test("a repeated name is found however it is spelt, in big objects, and only within one object")
    func repeatedNamesEdges() throws {
        // Escapes are compared after decoding: "a\u0062" is "ab".
        #expect(try Self.violations(#"{"meta": {"a\u0062": 1, "ab": 2}}"#).map(\.pointer) == ["/meta/ab"])
        // Same length, other bytes; the same name in sibling and nested objects.
        #expect(
            try Self.violations(#"{"meta": {"ab": 1, "ba": 2, "x": {"ab": 3}, "y": [{"ab": 4}, {"ab": 5}]}}"#).isEmpty
        )
        // A nested object closes and its parent goes on: only the parent's repeat counts.
        let parent = try Self.violations(#"{"meta": {"k": {"k": 1, "j": 2}, "j": 3, "k": 4}}"#)
        #expect(parent.map(\.pointer) == ["/meta/k"])
        #expect(parent.first?.position.column == 42)
        // Past the short list, through the dictionary: member 30 repeats member 3.
        var members = (0..<40).map { #""m\#($0)": \#($0)"# }
        members[30] = #""m3": 30"#
        let big = try Self.violations(#"{"meta": {"# + members.joined(separator: ", ") + "}}")
        #expect(big.map(\.pointer) == ["/meta/m3"])
        #expect(
            big.first?.message.hasPrefix("The member m3 appears again in the same object (first at line 1, column 38)")
                == true
        )
        // The top level, the member "" and a repeated data.
        let top = try Self.violations(#"{"meta": {}, "": 1, "meta": {}, "": 2}"#)
        #expect(top.filter { $0.message.contains("appears again") }.map(\.pointer) == ["/meta", "/"])
        let data = try Self.violations(#"{"data": [], "data": {"type": "a", "id": "1"}}"#)
        #expect(data.map(\.pointer) == ["/data"])
        #expect(data.first?.message.hasPrefix("The member data appears again") == true)
    }

    @Test("violations come in document order: a resource's members, then the values inside its attributes")
    func documentOrder() throws {
        let json = #"{"data": {"type": "a", "id": "1", "attributes": {"x": {"b.c": 1}}, "meta": {"d.e": 2}}}"#
        let violations = try Self.violations(json)
        #expect(violations.map(\.pointer) == ["/data/attributes/x/b.c", "/data/meta/d.e"])
    }
}

/// The same fault reads the same in the decoder (`sluice flatten`) as in the validator.
@Suite("One wording for decoder and validator")
struct SharedWordingTests {
    @Test(
        "a fault both find is worded alike, at the same pointer",
        arguments: [
            #"{"errors": [{"status": 500}]}"#,
            #"{"errors": [{"source": {"pointer": "x"}}]}"#,
            #"{"data": [], "errors": []}"#,
            #"{"errors": [], "data": []}"#,
            #"{"data": 5}"#,
            #"{"data": {"id": "1"}}"#,
            #"{"data": {"type": "a", "id": 1}}"#,
            #"{"data": {"type": "a", "id": "1", "links": {"self": {"href": 5}}}}"#,
            #"{"data": [], "links": {"next": {"title": "x"}}}"#,
            #"{"data": [], "jsonapi": {"version": 1}}"#,
            #"[]"#,
        ]
    )
    func sameWords(json: String) throws {
        let first = try #require(try JSONAPIValidator().validate(Data(json.utf8)).first)
        do {
            _ = try JSONAPIDecoder().decode([AnyResource].self, from: Data(json.utf8))
            Issue.record("the decoder accepted \(json)")
        } catch let error as JSONAPIDecodingError {
            #expect(error.message == first.message)
            #expect(error.pointer == first.pointer)
            #expect(error.position == first.position)
        }
    }

    @Test("an error object's summary reads well with whatever members it has")
    func errorSummaries() {
        #expect(
            ErrorObject(
                status: "422",
                title: "Invalid Attribute",
                detail: "title is empty",
                source: .init(pointer: "/data/attributes/title")
            ).summary
                == "422 Invalid Attribute (title is empty) at /data/attributes/title"
        )
        #expect(ErrorObject(detail: "Rate limit exceeded").summary == "Rate limit exceeded")
        #expect(ErrorObject(status: "500").summary == "500")
        #expect(
            ErrorObject(code: "E42", source: .init(parameter: "sort")).summary == "code E42 in the query parameter sort"
        )
        #expect(ErrorObject(id: "7f3").summary == "an error with no status, title, code or detail, id 7f3")
        #expect(ErrorObject(meta: ["trace": "x"]).summary == "an error with no status, title, code or detail")
        #expect(
            ErrorObject(title: "Forbidden", source: .init(header: "Authorization")).summary
                == "Forbidden in the header Authorization"
        )
        #expect(
            JSONAPIErrorDocument(errors: []).description
                == "The document is an error document, but its errors array is empty."
        )
    }
}
