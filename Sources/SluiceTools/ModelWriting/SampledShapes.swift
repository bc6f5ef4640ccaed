// What a sample taught about its values: counts per kind, per member and per resource type, from
// which `SwiftModelWriter` picks the Swift types. Counts only, no values kept, so that a sample
// of any size is learned in memory that grows with its shapes, not its length.

import Foundation
import SluiceJSON
import SluiceJSONAPI

/// The values seen at one place of a sample (an attribute, a member of a nested object, the
/// elements of an array), by kind.
final class ValueShape {
    /// Values seen, `null` included.
    private(set) var count = 0
    private(set) var nulls = 0
    private(set) var bools = 0
    /// Numbers without a fraction or an exponent that reads as one, within 32 bits.
    private(set) var smallIntegers = 0
    /// Integers past 32 bits (that fit 64).
    private(set) var largeIntegers = 0
    /// Numbers with a fraction, an exponent or too many digits for 64 bits.
    private(set) var fractions = 0
    private(set) var strings = 0
    /// The date formats every string seen so far reads in (``DateFormat``'s bits).
    private(set) var dateFormats = DateFormat.all
    /// Whether every string seen so far is an absolute URL.
    private(set) var allURLs = true
    private(set) var objects = 0
    private(set) var arrays = 0
    /// The shortest and longest arrays seen here (`Int.max` and 0 before any): an array of numbers
    /// whose length never varies may be written as a fixed-size value.
    private(set) var shortestArray = Int.max
    private(set) var longestArray = 0
    /// The members of the objects seen here.
    private(set) lazy var object: ObjectShape = ObjectShape()
    /// The elements of the arrays seen here.
    private(set) lazy var elements: ValueShape = ValueShape()

    init() {}

    /// The date formats a string can be in, as `JSONDateFormat` names them.
    struct DateFormat: OptionSet {
        let rawValue: UInt8
        static let iso8601 = DateFormat(rawValue: 1)
        static let rfc1123 = DateFormat(rawValue: 2)
        static let rfc850 = DateFormat(rawValue: 4)
        static let asctime = DateFormat(rawValue: 8)
        static let all: DateFormat = [.iso8601, .rfc1123, .rfc850, .asctime]
    }

    /// Adds one array whose elements were counted one by one in `elements` (an array read element
    /// by element, never held whole).
    func observeArray(of elements: ValueShape) {
        count += 1
        arrays += 1
        // An array read element by element has no one length to note.
        shortestArray = 0
        longestArray = Int.max
        self.elements = elements
    }

    private func noteArray(length: Int) {
        shortestArray = min(shortestArray, length)
        longestArray = max(longestArray, length)
    }

    /// Adds the counts of `other`: the values of a map's members, taken for one value.
    func absorb(_ other: ValueShape) {
        count += other.count
        nulls += other.nulls
        bools += other.bools
        smallIntegers += other.smallIntegers
        largeIntegers += other.largeIntegers
        fractions += other.fractions
        if other.strings > 0 {
            dateFormats.formIntersection(other.dateFormats)
            allURLs = allURLs && other.allURLs
        }
        strings += other.strings
        if other.objects > 0 {
            objects += other.objects
            object.absorb(other.object)
        }
        if other.arrays > 0 {
            arrays += other.arrays
            shortestArray = min(shortestArray, other.shortestArray)
            longestArray = max(longestArray, other.longestArray)
            elements.absorb(other.elements)
        }
    }

    /// Adds `value`.
    func observe(_ value: JSONValue) {
        count += 1
        switch value {
        case .null:
            nulls += 1
        case .bool:
            bools += 1
        case .number(let text):
            if let integer = Int64(text) {
                if Int32(exactly: integer) != nil { smallIntegers += 1 } else { largeIntegers += 1 }
            } else {
                fractions += 1
            }
        case .string(let text):
            strings += 1
            observeString(text)
        case .array(let values):
            arrays += 1
            noteArray(length: values.count)
            for element in values { elements.observe(element) }
        case .object(let members):
            objects += 1
            object.observe(members)
        }
    }

    private func observeString(_ text: String) {
        if !dateFormats.isEmpty {
            var text = text
            let formats = text.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                var found: DateFormat = []
                if dateFormats.contains(.iso8601), JSONDateText.iso8601(raw, fractionalSeconds: .optional) != nil {
                    found.insert(.iso8601)
                }
                if dateFormats.contains(.rfc1123), JSONDateText.rfc1123(raw) != nil { found.insert(.rfc1123) }
                if dateFormats.contains(.rfc850), JSONDateText.rfc850(raw) != nil { found.insert(.rfc850) }
                if dateFormats.contains(.asctime), JSONDateText.asctime(raw) != nil { found.insert(.asctime) }
                return found
            }
            dateFormats.formIntersection(formats)
        }
        if allURLs {
            // Absolute: a scheme and an authority (`https://host/...`), as links are written.
            let url = text.contains("://") ? URL(string: text) : nil
            allURLs = url?.scheme != nil && url?.host != nil
        }
    }

    /// The kinds seen other than `null`.
    var kinds: Set<Kind> {
        var kinds: Set<Kind> = []
        if bools > 0 { kinds.insert(.bool) }
        if smallIntegers + largeIntegers + fractions > 0 { kinds.insert(.number) }
        if strings > 0 { kinds.insert(.string) }
        if objects > 0 { kinds.insert(.object) }
        if arrays > 0 { kinds.insert(.array) }
        return kinds
    }

    enum Kind: Hashable {
        case bool, number, string, object, array
    }
}

/// The members of the objects seen at one place, in the order first seen.
final class ObjectShape {
    /// The most distinct member names kept: past it the objects are taken for maps keyed by data
    /// (ids, dates), which no struct can declare, and no more names are kept.
    static let maximumMembers = 300

    /// Objects seen.
    private(set) var count = 0
    private(set) var members: [(name: String, shape: ValueShape)] = []
    private var positions: [String: Int] = [:]
    /// Whether more than ``maximumMembers`` names were met.
    private(set) var isMap = false

    func observe(_ object: JSONObject) {
        count += 1
        for (name, value) in object { observeMember(name, value) }
    }

    /// Adds one member of an object counted with ``countObject()``: for a root object read member
    /// by member rather than held whole.
    func observeMember(_ name: String, _ value: JSONValue) {
        if let position = positions[name] {
            members[position].shape.observe(value)
        } else if !isMap {
            guard members.count < Self.maximumMembers else {
                isMap = true
                return
            }
            positions[name] = members.count
            let shape = ValueShape()
            shape.observe(value)
            members.append((name, shape))
        }
    }

    /// Counts an object whose members came through ``observeMember(_:_:)``.
    func countObject() { count += 1 }

    /// Adds the members and counts of `other` (see `ValueShape.absorb(_:)`).
    func absorb(_ other: ObjectShape) {
        count += other.count
        isMap = isMap || other.isMap
        for member in other.members {
            if let position = positions[member.name] {
                members[position].shape.absorb(member.shape)
            } else if members.count < Self.maximumMembers {
                positions[member.name] = members.count
                let shape = ValueShape()
                shape.absorb(member.shape)
                members.append((member.name, shape))
            } else {
                isMap = true
            }
        }
    }

    /// Whether these objects look like maps keyed by data rather than records: more names than a
    /// struct would declare, or names that are data (see ``isDataKey(_:)``): four in five of them,
    /// or the one name of objects that only ever had one. A map of one entry in the sample is
    /// still a map, so the models read the next document, whose entry has another key.
    var looksLikeMap: Bool {
        if isMap { return true }
        guard !members.isEmpty else { return false }
        let data = members.filter { member in Self.isDataKey(member.name) }.count
        return data * 5 >= members.count * 4
    }

    /// Whether a member name reads as data, not as a name a schema gives: it starts with a digit
    /// (ids, years, dates), or it is a code in capitals (`PLEYEL_PLEYEL`, `EUR`, `FR-75`) with
    /// no lower-case letter and more than one character.
    static func isDataKey(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        if first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") { return true }
        guard name.utf8.count > 1 else { return false }
        var letters = 0
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): letters += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."): break
            default: return false
            }
        }
        return letters > 0
    }

    /// The values of all members as one shape: what a map's values hold.
    var mergedValues: ValueShape {
        let merged = ValueShape()
        for member in members { merged.absorb(member.shape) }
        return merged
    }

    /// Adds a member whose values were counted elsewhere.
    func adoptMember(_ name: String, _ shape: ValueShape) {
        guard positions[name] == nil, members.count < Self.maximumMembers else { return }
        positions[name] = members.count
        members.append((name, shape))
    }
}

/// One relationship of one resource type.
final class RelationshipShape {
    /// Resources that had it.
    private(set) var count = 0
    /// Had it with `data: null`, or without `data`.
    private(set) var empty = 0
    private(set) var toOne = 0
    private(set) var toMany = 0
    /// The types its linkage named (up to a few dozen).
    private(set) var targets: [String] = []

    func observe(_ relationship: JSONValue) {
        count += 1
        guard case .object(let object) = relationship, let data = object["data"] else {
            empty += 1
            return
        }
        switch data {
        case .null:
            empty += 1
            toOne += 1
        case .object(let identifier):
            toOne += 1
            note(identifier)
        case .array(let identifiers):
            toMany += 1
            for case .object(let identifier) in identifiers { note(identifier) }
        default:
            empty += 1
        }
    }

    /// Adds a relationship a decoder has read (`ModelSampler.add(_:)`), counted as the same
    /// relationship object read from a document is.
    func observe(_ relationship: RawRelationship) {
        count += 1
        switch relationship.data {
        case nil:
            empty += 1
        case .null?:
            empty += 1
            toOne += 1
        case .one(let identifier)?:
            toOne += 1
            note(type: identifier.type)
        case .many(let identifiers)?:
            toMany += 1
            for identifier in identifiers { note(type: identifier.type) }
        }
    }

    /// Adds the counts of `other`, the same relationship in another sample.
    func absorb(_ other: RelationshipShape) {
        count += other.count
        empty += other.empty
        toOne += other.toOne
        toMany += other.toMany
        for target in other.targets { note(type: target) }
    }

    private func note(_ identifier: JSONObject) {
        if case .string(let type)? = identifier["type"] { note(type: type) }
    }

    private func note(type: String) {
        if !targets.contains(type) && targets.count < 64 { targets.append(type) }
    }
}

/// The resources of one type.
final class ResourceShape {
    let type: String
    /// Resources read.
    private(set) var count = 0
    /// Resources with an `id` that is a string.
    private(set) var withID = 0
    let attributes = ObjectShape()
    private(set) var relationships: [(name: String, shape: RelationshipShape)] = []
    private var positions: [String: Int] = [:]

    init(type: String) {
        self.type = type
    }

    /// Adds the counts of `other`, the same type in another sample.
    func absorb(_ other: ResourceShape) {
        count += other.count
        withID += other.withID
        attributes.absorb(other.attributes)
        for relationship in other.relationships {
            self.relationship(named: relationship.name)?.absorb(relationship.shape)
        }
    }

    /// Adds a resource object read from a document.
    func observe(_ resource: JSONObject) {
        count += 1
        if case .string? = resource["id"] { withID += 1 }
        if case .object(let attributes)? = resource["attributes"] { self.attributes.observe(attributes) }
        if case .object(let relationships)? = resource["relationships"] {
            for (name, relationship) in relationships { self.relationship(named: name)?.observe(relationship) }
        }
    }

    /// Adds a resource a decoder has read (`ModelSampler.add(_:)`).
    func observe(_ resource: RawResource) {
        count += 1
        if resource.id != nil { withID += 1 }
        attributes.observe(resource.attributes)
        for (name, relationship) in zip(resource.relationshipNames, resource.relationshipValues) {
            self.relationship(named: name)?.observe(relationship)
        }
    }

    /// The relationship `name`, made when first met; `nil` past `ObjectShape.maximumMembers`.
    private func relationship(named name: String) -> RelationshipShape? {
        if let position = positions[name] { return relationships[position].shape }
        guard relationships.count < ObjectShape.maximumMembers else { return nil }
        positions[name] = relationships.count
        let shape = RelationshipShape()
        relationships.append((name, shape))
        return shape
    }
}
