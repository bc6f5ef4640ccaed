// Direct tape readers for the JSON:API types every resource carries (relationships, identifiers,
// links), so that decoding a resource does not pay for Codable's containers on each of them.
// Their Codable `init(from:)` stays for other decoders; both read the same members.

public import SluiceJSON

/// Small helpers to read members with `DecodingError`s whose coding paths are relative to the
/// value being read.
///
/// The type an error names is taken as an autoclosure: in a generic reader such as `ToOne<T>`,
/// naming `ToOne.self` looks its metadata up at run time, which only a failure should pay for.
enum TapeRead {
    static func mismatch(
        _ expected: String,
        _ value: JSONTape.Value,
        path: [String],
        type: @autoclosure () -> Any.Type
    ) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: path.map { AnyCodingKey($0) },
            debugDescription:
                "Expected \(expected), found \(value.kind.nounPhrase) at line \(value.position.line), column \(value.position.column)."
        )
        return value.isNull ? .valueNotFound(type(), context) : .typeMismatch(type(), context)
    }

    static func string(_ value: JSONTape.Value, path: String) throws -> String {
        guard value.kind == .string, let text = try? value.string() else {
            throw mismatch("a string", value, path: [path], type: String.self)
        }
        return text
    }

    static func optionalString(_ value: JSONTape.Value, path: String) throws -> String? {
        value.isNull ? nil : try string(value, path: path)
    }

    static func members(
        _ value: JSONTape.Value,
        path: [String] = [],
        type: @autoclosure () -> Any.Type
    ) throws -> JSONTape.Members {
        guard value.kind == .objectStart, let members = try? value.members() else {
            throw mismatch("an object", value, path: path, type: type())
        }
        return members
    }

    /// The resource identifiers of a to-many linkage array, each error placed under its index.
    static func identifiers(
        _ data: JSONTape.Value,
        context: TapeDecodingContext,
        type: @autoclosure () -> Any.Type
    ) throws -> [ResourceIdentifier] {
        guard data.kind == .arrayStart, let elements = try? data.elements() else {
            throw mismatch("an array of resource identifiers", data, path: [], type: type())
        }
        var identifiers: [ResourceIdentifier] = []
        identifiers.reserveCapacity(data.count)
        for element in elements {
            do {
                identifiers.append(try ResourceIdentifier(from: element, context: context))
            } catch let error as DecodingError {
                throw error.prefixingCodingPath([AnyCodingKey(intValue: identifiers.count)])
            }
        }
        return identifiers
    }

    /// A decoding error from a nested reader, moved under `key`.
    static func nest<T>(_ key: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DecodingError {
            throw error.prefixingCodingPath([AnyCodingKey(key)])
        }
    }
}

extension ResourceIdentifier: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        var type: String?
        var id: String?
        var lid: String?
        var meta: JSONValue?
        for member in try TapeRead.members(value, type: ResourceIdentifier.self) {
            switch value.tape.withUnsafeText(of: member.keyToken, { ResourceMember(name: $0) }) {
            case .type: type = try TapeRead.string(member.value, path: "type")
            case .id: id = try TapeRead.optionalString(member.value, path: "id")
            case .lid: lid = try TapeRead.optionalString(member.value, path: "lid")
            case .meta: meta = member.value.isNull ? nil : try member.value.jsonValue()
            default: break
            }
        }
        guard let type else {
            throw DecodingError.keyNotFound(
                AnyCodingKey("type"),
                DecodingError.Context(
                    codingPath: [],
                    debugDescription:
                        "The resource identifier at line \(value.position.line), column \(value.position.column) has no type member."
                )
            )
        }
        self.init(type: type, id: id, lid: lid, meta: meta)
    }
}

/// Reads the members a relationship object has: `data` through `readData`, `meta` and `links`.
private func readRelationship(
    _ value: JSONTape.Value,
    context: TapeDecodingContext,
    type: @autoclosure () -> Any.Type,
    readData: (JSONTape.Value) throws -> Void
) throws -> (hasLinkage: Bool, meta: JSONValue?, links: Links?) {
    var hasLinkage = false
    var meta: JSONValue?
    var links: Links?
    for member in try TapeRead.members(value, type: type()) {
        switch value.tape.withUnsafeText(of: member.keyToken, { ResourceMember(name: $0) }) {
        case .data:
            hasLinkage = true
            try TapeRead.nest("data") { try readData(member.value) }
        case .meta:
            meta = member.value.isNull ? nil : try member.value.jsonValue()
        case .links:
            links =
                member.value.isNull
                ? nil : try TapeRead.nest("links") { try Links(from: member.value, context: context) }
        default:
            break
        }
    }
    return (hasLinkage, meta, links)
}

extension ToOne: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        var identifier: ResourceIdentifier?
        let parts = try readRelationship(value, context: context, type: ToOne.self) { data in
            identifier = data.isNull ? nil : try ResourceIdentifier(from: data, context: context)
        }
        self.identifier = identifier
        hasLinkage = parts.hasLinkage
        meta = parts.meta
        links = parts.links
    }
}

extension ToMany: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        var identifiers: [ResourceIdentifier] = []
        let parts = try readRelationship(value, context: context, type: ToMany.self) { data in
            guard !data.isNull else { return }
            identifiers = try TapeRead.identifiers(data, context: context, type: [ResourceIdentifier].self)
        }
        self.identifiers = identifiers
        hasLinkage = parts.hasLinkage
        meta = parts.meta
        links = parts.links
    }
}

extension Links: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        var names: [String] = []
        var links: [Link] = []
        for member in try TapeRead.members(value, type: Links.self) {
            let name = member.key
            let link: Link
            switch member.value.kind {
            case .null: link = .null
            case .string: link = .url(try member.value.string())
            default:
                link = try TapeRead.nest(name) { try member.value.decode(Link.self, context: context.withDefaultKeys) }
            }
            names.append(name)
            links.append(link)
        }
        self.init(names: names, values: links)
    }
}

extension RawResource: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        var type: String?
        var id: String?
        var lid: String?
        var attributes = JSONObject()
        var names: [String] = []
        var relationships: [RawRelationship] = []
        var meta: JSONValue?
        var links: Links?
        for member in try TapeRead.members(value, type: RawResource.self) {
            switch value.tape.withUnsafeText(of: member.keyToken, { ResourceMember(name: $0) }) {
            case .type: type = try TapeRead.string(member.value, path: "type")
            case .id: id = try TapeRead.optionalString(member.value, path: "id")
            case .lid: lid = try TapeRead.optionalString(member.value, path: "lid")
            case .attributes:
                if case .object(let object) = try member.value.jsonValue() { attributes = object }
            case .relationships:
                for relationship in try TapeRead.members(member.value, path: ["relationships"], type: RawResource.self)
                {
                    let name = relationship.key
                    names.append(name)
                    relationships.append(
                        try TapeRead.nest("relationships") {
                            try TapeRead.nest(name) { try RawRelationship(from: relationship.value, context: context) }
                        }
                    )
                }
            case .meta: meta = member.value.isNull ? nil : try member.value.jsonValue()
            case .links:
                links =
                    member.value.isNull
                    ? nil : try TapeRead.nest("links") { try Links(from: member.value, context: context) }
            case .data, .other: break
            }
        }
        guard let type else {
            throw DecodingError.keyNotFound(
                AnyCodingKey("type"),
                DecodingError.Context(codingPath: [], debugDescription: "The resource object has no type member.")
            )
        }
        self.init(
            type: type,
            id: id,
            lid: lid,
            attributes: attributes,
            relationshipNames: names,
            relationshipValues: relationships,
            meta: meta,
            links: links
        )
    }
}

extension RawRelationship: JSONTapeDecodable {
    public init(from value: JSONTape.Value, context: TapeDecodingContext) throws {
        var linkage: Linkage?
        let parts = try readRelationship(value, context: context, type: RawRelationship.self) { data in
            switch data.kind {
            case .null:
                linkage = .null
            case .arrayStart:
                linkage = .many(try TapeRead.identifiers(data, context: context, type: [ResourceIdentifier].self))
            default:
                linkage = .one(try ResourceIdentifier(from: data, context: context))
            }
        }
        self.init(data: linkage, meta: parts.meta, links: parts.links)
    }
}

// MARK: Relationships in generated readers
//
// A `@JSONModel` resource reads its relationships through these overloads, which the compiler
// picks over the generic read for `ToOne` and `ToMany` properties. They read the usual shape
// (`data` holding identifiers with `type` and `id` or `lid`, with `meta` and `links` beside it)
// straight from the tape's tokens: no nested decoder, no type lookup, no member iterator.
// Anything else (an identifier's own `meta`, a value of the wrong kind, a missing `type`) goes
// to the general reader, which gives the same value or the same error as a model without the
// macro.

// Inlinable, so that each is specialized for its target in the model's module: unspecialized,
// making a `ToOne<Target>` looked its metadata up at run time, which cost more than reading the
// relationship. The reading itself is not generic: it fills in a `ToOne<AnyResource>` (or
// `ToMany`), whose layout is that of every `ToOne` since `Target` only names a type, in the
// caller's own variable, seen through a rebound pointer. (Made generic, field by field, the
// parts were copied four times on the way; returned and bit-cast to the target, the whole
// relationship was copied once and released once.)
@_documentation(visibility: internal)
extension JSONModelReader {
    /// Reads the required to-one relationship `field`.
    @inlinable
    public func decode<Target>(_ type: ToOne<Target>.Type = ToOne<Target>.self, at field: Int) throws -> ToOne<Target> {
        if let index = plainMemberIndex(field) {
            var relationship = ToOne<Target>(unfilled: ())
            if relationship.readPlain(at: index, field: field, of: self) { return relationship }
        }
        return try decodeGenerically(type, at: field)
    }

    /// Reads the optional to-one relationship `field`.
    @inlinable
    public func decodeIfPresent<Target>(
        _ type: ToOne<Target>.Type = ToOne<Target>.self,
        at field: Int
    ) throws -> ToOne<Target>? {
        if let index = plainMemberIndex(field), plainTokens[index].kind != .null {
            var relationship = ToOne<Target>(unfilled: ())
            if relationship.readPlain(at: index, field: field, of: self) { return relationship }
        }
        return try decodeIfPresentGenerically(type, at: field)
    }

    /// Reads the required to-many relationship `field`.
    @inlinable
    public func decode<Target>(
        _ type: ToMany<Target>.Type = ToMany<Target>.self,
        at field: Int
    ) throws -> ToMany<Target> {
        if let index = plainMemberIndex(field) {
            var relationship = ToMany<Target>(unfilled: ())
            if relationship.readPlain(at: index, field: field, of: self) { return relationship }
        }
        return try decodeGenerically(type, at: field)
    }

    /// Reads the optional to-many relationship `field`.
    @inlinable
    public func decodeIfPresent<Target>(
        _ type: ToMany<Target>.Type = ToMany<Target>.self,
        at field: Int
    ) throws -> ToMany<Target>? {
        if let index = plainMemberIndex(field), plainTokens[index].kind != .null {
            var relationship = ToMany<Target>(unfilled: ())
            if relationship.readPlain(at: index, field: field, of: self) { return relationship }
        }
        return try decodeIfPresentGenerically(type, at: field)
    }
}

extension ToOne {
    /// Fills this unfilled relationship from the member of property `field`, at tape index
    /// `index`, in its usual shape; `false`, leaving it unfilled, for one the general reader must
    /// read or report.
    @inlinable
    mutating func readPlain(at index: Int, field: Int, of reader: borrowing JSONModelReader) -> Bool {
        withUnsafeMutablePointer(to: &self) { relationship in
            // Safe: `Target` is only a name, so every `ToOne` has the same layout.
            relationship.withMemoryRebound(to: ToOne<AnyResource>.self, capacity: 1) {
                readPlainToOne(at: index, field: field, of: reader, into: &$0.pointee)
            }
        }
    }
}

extension ToMany {
    /// Fills this unfilled relationship (see `ToOne.readPlain(at:field:of:)`).
    @inlinable
    mutating func readPlain(at index: Int, field: Int, of reader: borrowing JSONModelReader) -> Bool {
        withUnsafeMutablePointer(to: &self) { relationship in
            relationship.withMemoryRebound(to: ToMany<AnyResource>.self, capacity: 1) {
                readPlainToMany(at: index, field: field, of: reader, into: &$0.pointee)
            }
        }
    }
}

// The two readers take the reader itself, not a tape value and the context: each is borrowed
// from it unretained, where a `JSONTape.Value` and the context cost a retain and a release each
// for every relationship. Only a relationship's `meta` or `links` takes them counted.

/// Fills `relationship` from a to-one relationship object in its usual shape; `false` for one the
/// general reader must read or report.
@usableFromInline
func readPlainToOne(
    at index: Int,
    field: Int,
    of reader: borrowing JSONModelReader,
    into relationship: inout ToOne<AnyResource>
) -> Bool {
    // One pass over the tokens for the relationship object and its identifier.
    let tokens = reader.plainTokens
    guard let parts = plainRelationship(tokens, at: index, field: field, of: reader) else { return false }
    if parts.data >= 0 && tokens[parts.data].kind != .null {
        guard let identifier = plainIdentifier(tokens, at: parts.data) else { return false }
        relationship.identifier = ResourceIdentifier(tokens, identifier)
    }
    relationship.hasLinkage = parts.data >= 0
    relationship.rare = RareRelationshipMembers.make(meta: parts.meta, links: parts.links)
    return true
}

/// Fills `relationship` from a to-many relationship object in its usual shape; `false` for one
/// the general reader must read or report.
@usableFromInline
func readPlainToMany(
    at index: Int,
    field: Int,
    of reader: borrowing JSONModelReader,
    into relationship: inout ToMany<AnyResource>
) -> Bool {
    let tokens = reader.plainTokens
    guard let parts = plainRelationship(tokens, at: index, field: field, of: reader) else { return false }
    if parts.data >= 0 {
        let data = tokens[parts.data]
        switch data.kind {
        case .null:
            break
        case .arrayStart:
            guard let after = tokens.end(ofValue: data, at: parts.data) else { return false }
            var identifiers: [ResourceIdentifier] = []
            // An empty to-many (`"data": []`, common) reserves nothing: reserving no capacity
            // still makes a new empty buffer, some 70 instructions.
            if data.length > 0 { identifiers.reserveCapacity(Int(data.length)) }
            var position = parts.data + 1
            while position < after - 1 {
                guard let identifier = plainIdentifier(tokens, at: position) else { return false }
                identifiers.append(ResourceIdentifier(tokens, identifier))
                position = identifier.after
            }
            relationship.identifiers = identifiers
        default:
            return false
        }
    }
    relationship.hasLinkage = parts.data >= 0
    relationship.rare = RareRelationshipMembers.make(meta: parts.meta, links: parts.links)
    return true
}

/// The members of the relationship object at `index` in its usual shape: the tape index of
/// `data`'s value (-1 when there is none) and its `meta` and `links` read as the general reader
/// reads them; `nil` when it is not an object or those members need the general reader's errors.
@inline(__always)
private func plainRelationship(
    _ tokens: TapeTokens,
    at index: Int,
    field: Int,
    of reader: borrowing JSONModelReader
) -> (data: Int, meta: JSONValue?, links: Links?)? {
    let start = tokens[index]
    guard start.kind == .objectStart, let after = tokens.end(ofValue: start, at: index) else { return nil }
    // The shape most relationship objects have, `{"data": …}` alone, told at once.
    if after >= index + 4 {
        let member = tokens.run(from: index + 1, count: 2)
        if member[0].length == 4 && tokens.text(of: member[0]).isLiteral("data")
            && tokens.end(ofValue: member[1], at: index + 2) == after - 1
        {
            return (index + 2, nil, nil)
        }
    }
    var data = -1
    var meta: JSONValue?
    var links: Links?
    var position = index + 1
    let end = after - 1
    while position < end {
        let valueIndex = position + 1
        let member = tokens[valueIndex]
        // A repeated `meta` or `links` is read each time, the last one kept, as the general
        // reader's loop does; a repeated `data` goes to the general reader, which reads (and
        // may reject) each one.
        switch ResourceMember(name: tokens.text(of: tokens[position])) {
        case .data:
            guard data < 0 else { return nil }
            data = valueIndex
        case .meta:
            guard member.kind != .null else {
                meta = nil
                break
            }
            guard let read = tokens.jsonValue(at: valueIndex) else { return nil }
            meta = read
        case .links:
            guard member.kind != .null else {
                links = nil
                break
            }
            guard let tape = reader.plainMember(field)?.tape, let member = try? tape.value(at: valueIndex),
                let read = try? Links(from: member, context: reader.decodingContext)
            else { return nil }
            links = read
        default:
            break
        }
        position = tokens.end(ofValue: member, at: valueIndex) ?? end
    }
    return (data, meta, links)
}

/// The tokens of the identifier at `index` in its usual shape (`type`, `id` or `lid`, no
/// `meta`): the tape indices of `type`'s string and of `id`'s and `lid`'s (-1 when absent or
/// `null`), and the index just past the identifier; `nil` for anything the general reader must
/// read or report. Indices, not an identifier: the caller makes the identifier's Strings straight
/// into the relationship, and an identifier made here was copied on its way there.
@inline(__always)
private func plainIdentifier(_ tokens: TapeTokens, at index: Int) -> (type: Int, id: Int, lid: Int, after: Int)? {
    let start = tokens[index]
    guard start.kind == .objectStart, let after = tokens.end(ofValue: start, at: index) else { return nil }
    // The shape nearly every identifier has, `{"type": "…", "id": "…"}`, told at once: its end
    // four tokens on, so two members with scalar values.
    if after == index + 6 {
        let members = tokens.run(from: index + 1, count: 4)
        let (typeKey, typeValue, idKey, idValue) = (members[0], members[1], members[2], members[3])
        if typeValue.kind == .string && idValue.kind == .string && typeKey.length == 4 && idKey.length == 2
            && tokens.text(of: typeKey).isLiteral("type") && tokens.text(of: idKey).isLiteral("id")
        {
            return (index + 2, index + 4, -1, after)
        }
    }
    var type = -1
    var id = -1
    var lid = -1
    var position = index + 1
    let end = after - 1
    while position < end {
        let valueIndex = position + 1
        let value = tokens[valueIndex]
        let kind = value.kind
        switch ResourceMember(name: tokens.text(of: tokens[position])) {
        case .type:
            guard kind == .string else { return nil }
            type = valueIndex
        case .id:
            guard kind == .string || kind == .null else { return nil }
            id = kind == .null ? -1 : valueIndex
        case .lid:
            guard kind == .string || kind == .null else { return nil }
            lid = kind == .null ? -1 : valueIndex
        case .meta:
            return nil
        default:
            break
        }
        position = tokens.end(ofValue: value, at: valueIndex) ?? end
    }
    return type < 0 ? nil : (type, id, lid, after)
}

extension ResourceIdentifier {
    /// The identifier whose tokens `plainIdentifier` found.
    @inline(__always)
    fileprivate init(_ tokens: TapeTokens, _ found: (type: Int, id: Int, lid: Int, after: Int)) {
        self.init(
            type: tokens.string(of: tokens[found.type]),
            id: found.id < 0 ? nil : tokens.string(of: tokens[found.id]),
            lid: found.lid < 0 ? nil : tokens.string(of: tokens[found.lid])
        )
    }
}
