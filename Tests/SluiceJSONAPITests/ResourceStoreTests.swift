import Foundation
import SluiceJSON
import SluiceJSONAPI
import Synchronization
import Testing

private struct StoreArticle: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: ToOne<StorePerson>
    var comments: ToMany<StoreComment>
}

private struct StorePerson: Resource {
    static let resourceType = "people"
    var id: String
    var name: String
}

private struct StoreComment: Resource {
    static let resourceType = "comments"
    var id: String?
    var lid: String?
    var body: String
    var author: ToOne<StorePerson>
}

private struct StoreReview: Resource {
    static let resourceType = "reviews"
    var id: String
    var author: ToOne<StorePerson>
    var editor: ToOne<StorePerson>?
    var readers: ToMany<StorePerson>
    var critics: ToMany<StorePerson>?
    /// A relationship no stored property holds: views follow it through its key path.
    var firstReader: ToOne<StorePerson> { ToOne(identifier: readers.identifiers.first) }
}

/// Any resources at all, for following relationships into a store of raw ones.
private struct StoreCrowd: Resource {
    static let resourceType = "crowds"
    var id: String
    var members: ToMany<AnyResource>
}

/// The identity map behind linking (linking by index: type numbers, per-type arrays, a table
/// per type keyed by the id's bytes), checked against a plain dictionary of identities.
@Suite("Resource store")
struct ResourceStoreTests {
    private func raw(_ type: String, id: String? = nil, lid: String? = nil) -> AnyResource {
        let identity =
            if let id { ResourceIdentity(type: type, id: id) } else {
                lid.map { ResourceIdentity(type: type, lid: $0) }
            }
        return AnyResource(type: type, identity: identity, model: nil, raw: nil)
    }

    @Test("finds what a dictionary of identities finds, over many types, ids and local ids")
    func agreesWithADictionary() {
        let store = ResourceStore()
        var reference: [ResourceIdentity: AnyResource] = [:]
        // 12 types: past the 8 whose numbers are found by comparing names; ids of every length
        // the hash reads in one word, two words and a tail, non-ASCII, and the empty id.
        let types = (0..<12).map { "type-\($0)" } + ["ünïcødé-type-name-longer-than-16"]
        var generator = SystemRandomNumberGenerator()
        for number in 0..<3000 {
            let type = types[number % types.count]
            let length = Int.random(in: 0...24, using: &generator)
            let id = String(number) + String(repeating: "é", count: length / 2) + String(repeating: "x", count: length)
            let isLocal = number % 7 == 0
            let resource = isLocal ? raw(type, lid: id) : raw(type, id: id)
            let identity = resource.identity!
            let added = store.add(resource)
            #expect(added == (reference[identity] == nil))
            if reference[identity] == nil { reference[identity] = resource }
        }
        #expect(store.count == reference.count)
        for (identity, resource) in reference {
            #expect(store[identity]?.identity == resource.identity)
            // The same key as the other kind of identity is another resource (or none).
            let other =
                identity.isLocal
                ? ResourceIdentity(type: identity.type, id: identity.key)
                : ResourceIdentity(type: identity.type, lid: identity.key)
            #expect(store[other]?.identity == reference[other]?.identity)
        }
        #expect(store[ResourceIdentity(type: "type-1", id: "no such id")] == nil)
        #expect(store[ResourceIdentity(type: "no such type", id: "1")] == nil)
    }

    @Test(
        "decimal ids, in order or crowded onto a few slots, resolve as a dictionary does, and missing ones do not",
        arguments: [1, 1 << 20, 1 << 40]
    )
    func decimalIDs(stride: Int) {
        // Decimal ids are their own hash: in order they fill consecutive slots; as multiples of
        // a large power of two they would all want one slot, and the table must spread them.
        let store = ResourceStore()
        var reference: [ResourceIdentity: AnyResource] = [:]
        for number in 1...20_000 {
            let resource = raw("people", id: String(number * stride))
            #expect(store.add(resource))
            reference[resource.identity!] = resource
        }
        // Beside them: ids that are not decimal numbers as written, which hash by their bytes,
        // and a local id that reads as a number.
        for other in ["007", "0", "-5", "12a", "1234567890123456789", "3.0"] {
            let resource = raw("people", id: other)
            #expect(store.add(resource))
            reference[resource.identity!] = resource
        }
        #expect(store.add(raw("people", lid: String(stride))))
        #expect(!store.add(raw("people", id: String(5 * stride))))
        for (identity, resource) in reference {
            #expect(store[identity]?.identity == resource.identity)
        }
        // Followed from a model, as linking reads them: ids, and one absent, in their order.
        let ids = reference.keys.filter { !$0.isLocal }.map(\.key).sorted() + ["absent"]
        let identifiers = ids.map { ResourceIdentifier(type: "people", id: $0) }
        let crowd = StoreCrowd(id: "c", members: ToMany(identifiers: identifiers))
        #expect(Linked(crowd, store: store).members.map { $0.model.id ?? "" } == Array(ids.dropLast()))
        // Keys that land inside the run of occupied slots but are not there: each answers
        // nil after a bounded walk (a walk to the end of the run, 20 000 slots, for every
        // relationship naming them, would make such a document take minutes).
        let started = ContinuousClock.now
        for _ in 0..<200 {
            for missing in [20_001 * stride, 32_768 + 3, 65_536 + 100, 131_072 + 5_000, 262_144 + 7] {
                #expect(store[ResourceIdentity(type: "people", id: String(missing))] == nil)
            }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(store.count == reference.count + 1)
        #expect(store.resources(ofType: "people").count == reference.count + 1)
    }

    @Test("the first resource with an identity stays; resources without one are not kept")
    func firstWins() {
        let store = ResourceStore()
        let first = AnyResource(
            type: "people",
            identity: ResourceIdentity(type: "people", id: "1"),
            model: nil,
            raw: nil
        )
        #expect(store.add(first))
        #expect(!store.add(raw("people", id: "1")))
        #expect(store.add(raw("people", lid: "1")))
        #expect(store.add(AnyResource(type: "people", identity: nil, model: nil, raw: nil)))
        #expect(store.count == 2)
        #expect(
            store.resources(ofType: "people").map(\.identity) == [first.identity, raw("people", lid: "1").identity]
        )
        #expect(store.resources(ofType: "articles").isEmpty)
    }

    @Test("a decoded document lists each type's resources in document order and resolves by identifier")
    func decodedDocument() throws {
        let json = #"""
            {"data": [{"type": "articles", "id": "1", "attributes": {"title": "A"},
                       "relationships": {"author": {"data": {"type": "people", "id": "9"}},
                                         "comments": {"data": [{"type": "comments", "id": "5"},
                                                               {"type": "comments", "id": "404"},
                                                               {"type": "comments", "lid": "draft"}]}}},
                      {"type": "articles", "id": "2", "attributes": {"title": "B"},
                       "relationships": {"author": {"data": {"type": "people", "id": "10"}},
                                         "comments": {"data": []}}}],
             "included": [{"type": "people", "id": "10", "attributes": {"name": "Ben"}},
                          {"type": "people", "id": "9", "attributes": {"name": "Ann"}},
                          {"type": "comments", "id": "5", "attributes": {"body": "Hi"},
                           "relationships": {"author": {"data": {"type": "people", "id": "10"}}}},
                          {"type": "comments", "lid": "draft", "attributes": {"body": "Later"},
                           "relationships": {"author": {"data": null}}}]}
            """#
        let decoder = JSONAPIDecoder(registry: [StoreArticle.self, StorePerson.self, StoreComment.self])
        let document = try decoder.decode([Linked<StoreArticle>].self, from: Data(json.utf8))
        #expect(document.store.count == 6)
        #expect(document.store.resources(ofType: "people").compactMap(\.id) == ["10", "9"])
        #expect(document.store.resources(ofType: "articles").compactMap(\.id) == ["1", "2"])
        #expect(
            document.store.resources(ofType: "comments").map { $0.id ?? "lid:" + ($0.lid ?? "") } == ["5", "lid:draft"]
        )
        #expect(document.data.map { $0.author?.name } == ["Ann", "Ben"])
        // The comment not included (404) is left out; the local one resolves by its lid.
        #expect(document.data[0].comments.map(\.body) == ["Hi", "Later"])
        #expect(document.data[0].comments.first?.author?.name == "Ben")
        #expect(
            document.store.resolve(ResourceIdentifier(type: "people", id: "9"), as: StorePerson.self)?.name == "Ann"
        )
        // The right type name with the wrong model type resolves to nothing.
        #expect(document.store.resolve(ResourceIdentifier(type: "people", id: "9"), as: StoreArticle.self) == nil)
        #expect(document.store.resolve(ResourceIdentifier(type: "people"), as: StorePerson.self) == nil)
    }

    /// `text` held on the heap: built up with spare room, where a literal or a short String
    /// made from bytes is kept inside the String value.
    private func heapForm(_ text: String) -> String {
        var string = ""
        string.reserveCapacity(64)
        string.append(text)
        return string
    }

    @Test("an id resolves whether its String is held in the small form or on the heap")
    func idsInEitherForm() {
        // Short ids are kept inside the String value, the same text built up with spare room is
        // kept on the heap; the store hashes the two forms by different paths.
        let ids = [
            "0", "7", "10", "00", "01", "123456789", "123456789012345", "12345678901234", "1a", "a1", " 1", "-1",
            "é1", "99999999",
        ]
        let store = ResourceStore()
        for (index, id) in ids.enumerated() {
            let stored = index % 2 == 0 ? id : heapForm(id)
            #expect(store.add(raw("people", id: stored)))
        }
        for (index, id) in ids.enumerated() {
            let asked = index % 2 == 0 ? heapForm(id) : id
            #expect(store[ResourceIdentity(type: "people", id: asked)]?.id == id, "id \(id)")
            #expect(store.resolve(ResourceIdentifier(type: "people", id: asked), as: AnyResource.self)?.id == id)
        }
        #expect(store[ResourceIdentity(type: "people", id: "8")] == nil)
        #expect(store[ResourceIdentity(type: "people", id: heapForm("1234567890123456"))] == nil)
    }

    @Test("views follow stored, optional and computed relationships, whatever form the identifiers take")
    func followsEveryShape() {
        // Ids and types in Swift's small form, on the heap, past fifteen bytes, not ASCII, and a
        // local id: the views read small ones in place and hand the rest to the general lookup.
        let ids = ["1", heapForm("2"), "a-uuid-like-id-0000-1111-2222-3333", "née", heapForm("4"), "x7"]
        let store = ResourceStore()
        for id in ids {
            let model = StorePerson(id: id, name: "name of \(id)")
            let identity = ResourceIdentity(type: "people", id: id)
            #expect(store.add(AnyResource(type: "people", identity: identity, model: model, raw: nil)))
        }
        let local = AnyResource(
            type: "people",
            identity: ResourceIdentity(type: "people", lid: "local"),
            model: StorePerson(id: "", name: "a local one"),
            raw: nil
        )
        #expect(store.add(local))
        func person(_ id: String, type: String = "people") -> ResourceIdentifier {
            ResourceIdentifier(type: type, id: id)
        }
        let review = StoreReview(
            id: "r",
            author: ToOne(identifier: person(heapForm("1"))),
            editor: ToOne(identifier: person("a-uuid-like-id-0000-1111-2222-3333", type: heapForm("people"))),
            readers: ToMany(identifiers: [
                person("née"), person("missing"), person("4"), ResourceIdentifier(type: "people", lid: "local"),
                person("x7"),
            ]),
            critics: ToMany(identifiers: [person(heapForm("2")), person("1", type: "robots")])
        )
        let linked = Linked(review, store: store)
        #expect(linked.author?.name == "name of 1")
        #expect(linked.editor?.name == "name of a-uuid-like-id-0000-1111-2222-3333")
        #expect(linked.readers.map(\.name) == ["name of née", "name of 4", "a local one", "name of x7"])
        #expect(linked.critics.map(\.name) == ["name of 2"])
        #expect(linked.firstReader?.name == "name of née")
        // Absent: no identifier, an optional relationship that is nil, a type the store lacks.
        var bare = review
        bare.author = ToOne(identifier: nil)
        bare.editor = nil
        bare.critics = nil
        let unlinked = Linked(bare, store: store)
        #expect(unlinked.author == nil)
        #expect(unlinked.editor == nil)
        #expect(unlinked.critics.isEmpty)
        bare.editor = ToOne(identifier: nil)
        #expect(Linked(bare, store: store).editor == nil)
        bare.author = ToOne(identifier: person("1", type: "robots"))
        #expect(Linked(bare, store: store).author == nil)
    }

    @Test("views outlive the document and the models they were made from")
    func viewsKeepWhatTheyRead() throws {
        let json = #"""
            {"data": {"type": "articles", "id": "1", "attributes": {"title": "A title longer than fifteen bytes"},
                      "relationships": {"author": {"data": {"type": "people", "id": "9"}},
                                        "comments": {"data": [{"type": "comments", "id": "5"}]}}},
             "included": [{"type": "people", "id": "9", "attributes": {"name": "Ann, named at some length"}},
                          {"type": "comments", "id": "5", "attributes": {"body": "A body past the small form"},
                           "relationships": {"author": {"data": {"type": "people", "id": "9"}}}}]}
            """#
        let decoder = JSONAPIDecoder(registry: [StoreArticle.self, StorePerson.self, StoreComment.self])
        // Views reached through relationships, kept after the document and the primary view go:
        // the store they hold keeps every resource they stand for.
        var (author, comment): (Linked<StorePerson>?, Linked<StoreComment>?) = (nil, nil)
        weak var weakStore: ResourceStore?
        do {
            let document = try decoder.decode(Linked<StoreArticle>.self, from: Data(json.utf8))
            weakStore = document.store
            author = document.data.author
            comment = document.data.comments.first
        }
        #expect(weakStore != nil)
        #expect(author?.name == "Ann, named at some length")
        #expect(comment?.body == "A body past the small form")
        #expect(comment?.author?.name == "Ann, named at some length")
        let copies = Array(repeating: comment, count: 3)
        author = nil
        comment = nil
        #expect(copies.compactMap { $0?.author?.name }.count == 3)
        // A view made from a model (the store does not hold it) keeps its own copy.
        let store = ResourceStore()
        var made: Linked<StorePerson>? = Linked(
            StorePerson(id: "7", name: String(repeating: "long name ", count: 4)),
            store: store
        )
        let kept = made
        made = nil
        #expect(kept?.name == String(repeating: "long name ", count: 4))
        #expect(kept?.as(StorePerson.self)?.id == "7")
    }

    /// A document of `people` people and as many comments, each comment by the person of its
    /// number, with the comment numbered `bad` (if any) missing its body.
    private func manyResources(people: Int, bad: Int? = nil) -> [UInt8] {
        var json = #"{"data": ["#
        for number in 0..<people {
            if number > 0 { json += "," }
            json +=
                #"{"type": "people", "id": "\#(number)", "attributes": {"name": "person number \#(number), named at length"}}"#
        }
        json += #"], "included": ["#
        for number in 0..<people {
            if number > 0 { json += "," }
            let body = number == bad ? "" : #""body": "comment \#(number)", "#
            json += #"{"type": "comments", "id": "\#(number)", "attributes": {\#(body)"likes": 1},"#
            json += #""relationships": {"author": {"data": {"type": "people", "id": "\#(number)"}}}}"#
        }
        return Array((json + "]}").utf8)
    }

    @Test("models kept in shared blocks: each keeps its fields and identity past the document")
    func blocksOfModels() throws {
        // More resources of each type than one block holds, and a resource that fails part way
        // through its model: the entries after it are the next resources', whole.
        let count = 1_500
        let decoder = JSONAPIDecoder(registry: [StorePerson.self, StoreComment.self])
        let skipped = Mutex<[String]>([])
        decoder.onUndecodableResource = { resource in skipped.withLock { $0.append(resource.pointer) } }
        var kept: [AnyResource] = []
        var people: [Linked<StorePerson>] = []
        do {
            let document = try decoder.decode([Linked<StorePerson>].self, from: manyResources(people: count, bad: 700))
            #expect(document.store.count == 2 * count - 1)
            people = [document.data[0], document.data[count - 1]]
            kept = document.included
            for (number, person) in document.data.enumerated() {
                #expect(person.id == "\(number)" && person.name == "person number \(number), named at length")
            }
        }
        #expect(skipped.withLock { $0 } == ["/included/700"])
        #expect(kept.count == count - 1)
        for (offset, resource) in kept.enumerated() {
            let number = offset < 700 ? offset : offset + 1
            #expect(resource.identity == ResourceIdentity(type: "comments", id: "\(number)"))
            let comment = resource.as(StoreComment.self)
            #expect(comment?.body == "comment \(number)" && comment?.author.identifier?.id == "\(number)")
            #expect(resource.withModel(as: StoreComment.self, \.body) == "comment \(number)")
            #expect((resource.model as? StoreComment)?.id == "\(number)")
        }
        #expect(
            people.map(\.name) == ["person number 0, named at length", "person number \(count - 1), named at length"]
        )
    }

    @Test("streamed resources stay whole while the decoder fills the rest of their block")
    func streamedBlocks() async throws {
        let count = 1_200
        let decoder = JSONAPIDecoder(registry: [StorePerson.self, StoreComment.self])
        // Resources are kept as they arrive and read only after the stream ends, and read on
        // another task while it runs: entries handed out are never written again.
        var kept: [AnyResource] = []
        try await withThrowingTaskGroup(of: Int.self) { group in
            for try await streamed in decoder.resources(
                from: ChunkSequence(bytes: manyResources(people: count), size: 777)
            ) {
                let resource = streamed.resource
                kept.append(resource)
                group.addTask {
                    resource.as(StorePerson.self)?.name.count ?? resource.as(StoreComment.self)?.body.count ?? -1
                }
            }
            var lengths = 0
            for try await length in group { lengths += length }
            #expect(lengths > 0)
        }
        #expect(kept.count == 2 * count)
        for (offset, resource) in kept.enumerated() {
            let number = offset % count
            if offset < count {
                #expect(resource.as(StorePerson.self)?.name == "person number \(number), named at length")
            } else {
                #expect(resource.as(StoreComment.self)?.body == "comment \(number)")
            }
            #expect(resource.id == "\(number)")
        }
    }

    @Test("readers and a writer at once: pages appended while other tasks resolve")
    func concurrentReads() async throws {
        let store = ResourceStore()
        for id in 0..<500 { store.add(raw("people", id: String(id))) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for id in 500..<5000 { store.add(self.raw("people", id: String(id))) }
                return 0
            }
            for _ in 0..<3 {
                group.addTask {
                    var found = 0
                    for id in 0..<500 where store[ResourceIdentity(type: "people", id: String(id))] != nil {
                        found += 1
                    }
                    return found
                }
            }
            for try await found in group where found != 0 { #expect(found == 500) }
        }
        #expect(store.count == 5000)
        #expect(store.resources(ofType: "people").count == 5000)
    }
}
