// Writing Swift from what the samples taught: a `@JSONModel` struct per resource type (or per
// object shape of plain JSON), each property's type picked from every value seen, names in
// Swift's camel case with coding keys only where the key strategy would not map them.

import Foundation
public import SluiceJSON
import SluiceJSONAPI

/// The Swift a ``ModelSampler`` writes.
public struct GeneratedModels: Sendable {
    /// Everything in one Swift file.
    public let source: String
    /// A file per type, each with its imports.
    public let files: [File]
    /// How to decode the sample with the models: the decoder, its registry and strategies, as the
    /// comment at the top of ``source`` says it.
    public let usage: [String]
    /// The key strategy the member names call for.
    public let keyStrategy: JSONKeyStrategy

    /// How the models type strings that were absolute URLs in every sample.
    public enum URLProperties: String, Sendable, Hashable, CaseIterable {
        /// As `String`: the default. Reading a `URL` parses it (Foundation's parser, about as
        /// long as reading the rest of a small object), and a value the parser refuses fails the
        /// whole decode; a `String` is read as it is and turned into a `URL` where it is used.
        case string
        /// As `URL`, as `JSONDecoder` reads them.
        case url
    }

    /// One Swift file of ``GeneratedModels/files``.
    public struct File: Sendable, Hashable {
        /// Its name: the type's, `Article.swift`.
        public let name: String
        /// The Swift source.
        public let contents: String
    }
}

extension ModelSampler {
    /// The Swift models for what was read: one `@JSONModel` `Resource` per resource type for
    /// JSON:API samples (with a struct for each type only linked to), else a struct for the root
    /// object or the root array's elements, and one per nested object structure: shapes met at
    /// several places with the same members, each of the same kinds, become one type (its
    /// properties optional where any place lacked them).
    ///
    /// - Parameters:
    ///   - rootName: The plain JSON root's type name (`Root` when `nil`).
    ///   - urls: How strings that are all absolute URLs are typed: `String` (the default) or `URL`.
    public func models(rootName: String? = nil, urls: GeneratedModels.URLProperties = .string) -> GeneratedModels {
        var writer = SwiftModelWriter(strategy: SwiftModelWriter.detectStrategy(self), urls: urls)
        writer.write(self, rootName: rootName)
        return writer.finished(self)
    }
}

struct SwiftModelWriter {
    /// A struct to write.
    struct Model {
        var name: String
        var resourceType: String?
        var note: String?
        var properties: [Property] = []
    }

    struct Property {
        var name: String
        /// The JSON name (as the strategy converts it) when it differs from `name`.
        var codingKey: String?
        var type: String
        var comment: String
    }

    let strategy: JSONKeyStrategy
    /// How strings that are all absolute URLs are typed.
    let urls: GeneratedModels.URLProperties
    private(set) var models: [Model] = []
    /// Object shapes met at several places with the same structure, each written once.
    private var shapes = ShapeGroups()
    private var names: Set<String> = []
    private var dateFormats: [String] = []
    private var rootType: String?
    private var isJSONAPI = false

    init(strategy: JSONKeyStrategy, urls: GeneratedModels.URLProperties = .string) {
        self.strategy = strategy
        self.urls = urls
    }

    // MARK: Strategy

    /// The convention most multi-word member names follow: kebab case when more of them join
    /// their words with hyphens than in any other way, snake case for underscores, else the names
    /// as they are (camel case, or one-word names). A vote, so that one odd name (citm's
    /// `PLEYEL_PLEYEL` among its camel-case names) does not choose for all the others; the keys of
    /// objects taken for maps are data, and do not vote.
    static func detectStrategy(_ sampler: ModelSampler) -> JSONKeyStrategy {
        var votes = StyleVotes()
        func count(_ object: ObjectShape) {
            for member in object.members {
                votes.add(member.name)
                count(member.shape)
            }
        }
        func count(_ shape: ValueShape) {
            if shape.objects > 0 {
                if shape.object.looksLikeMap {
                    count(shape.object.mergedValues)
                } else {
                    count(shape.object)
                }
            }
            if shape.arrays > 0 { count(shape.elements) }
        }
        for resource in sampler.resources {
            count(resource.attributes)
            for relationship in resource.relationships { votes.add(relationship.name) }
        }
        count(sampler.rootObject)
        count(sampler.rootElements)
        return votes.strategy
    }

    /// How many member names join words each way (`StyleVotes.add(_:)`).
    struct StyleVotes {
        var hyphens = 0
        var underscores = 0
        var camel = 0

        /// Counts `name` for the way it joins its words: a separator between two letters or
        /// digits (a leading `_`, as in `_id`, joins nothing), or a lower-case letter followed by
        /// an upper-case one.
        mutating func add(_ name: String) {
            let bytes = Array(name.utf8)
            var hyphen = false
            var underscore = false
            var hump = false
            for index in bytes.indices.dropFirst() {
                let byte = bytes[index]
                let previous = bytes[index - 1]
                let isWordByte = { (byte: UInt8) in
                    (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                }
                if (byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")) && isWordByte(previous),
                    index + 1 < bytes.count, isWordByte(bytes[index + 1])
                {
                    if byte == UInt8(ascii: "-") { hyphen = true } else { underscore = true }
                }
                if byte >= 0x41 && byte <= 0x5A && previous >= 0x61 && previous <= 0x7A { hump = true }
            }
            if hyphen { hyphens += 1 }
            if underscore { underscores += 1 }
            if hump { camel += 1 }
        }

        var strategy: JSONKeyStrategy {
            if hyphens > underscores && hyphens > camel { return .convertFromKebabCase }
            if underscores > hyphens && underscores > camel { return .convertFromSnakeCase }
            return .useDefaultKeys
        }
    }

    /// `key` as the strategy hands it to the model: Foundation's conversion, as the decoders
    /// match it (`JSONKeyStrategy.withCamelCaseConversion`).
    func converted(_ key: String) -> String {
        let separator: UInt8
        switch strategy {
        case .convertFromSnakeCase: separator = UInt8(ascii: "_")
        case .convertFromKebabCase: separator = UInt8(ascii: "-")
        default: return key
        }
        var bytes = key
        return bytes.withUTF8 { name in
            JSONKeyStrategy.withCamelCaseConversion(of: UnsafeRawBufferPointer(name), separator: separator) {
                $0.map { String(decoding: $0, as: UTF8.self) } ?? key
            }
        }
    }

    // MARK: Writing

    mutating func write(_ sampler: ModelSampler, rootName: String?) {
        let elementName = rootName.map { Self.typeName($0, singular: true) } ?? "Element"
        let rootObjectName = rootName.map { Self.typeName($0, singular: false) } ?? "Root"
        shapes.collect(sampler, rootObjectName: rootObjectName, elementName: elementName)
        if !sampler.resources.isEmpty {
            isJSONAPI = true
            writeResources(sampler)
        } else if sampler.rootElements.count > 0 {
            let name = elementName
            rootType =
                "[\(swiftType(sampler.rootElements, suggestedName: name, total: sampler.rootElements.count).spelled)]"
        } else if sampler.rootObject.count > 0 {
            let name = uniqueName(rootObjectName)
            writeObject(sampler.rootObject, named: name)
            rootType = name
        } else if sampler.rootScalars.count > 0 {
            rootType = swiftType(sampler.rootScalars, suggestedName: "Root", total: sampler.rootScalars.count).spelled
        }
    }

    private mutating func writeResources(_ sampler: ModelSampler) {
        // Names first, so that relationships can name types read later.
        var typeNames: [String: String] = [:]
        for resource in sampler.resources {
            typeNames[resource.type] = uniqueName(Self.typeName(resource.type, singular: true))
        }
        var linkedOnly: [String] = []
        for resource in sampler.resources {
            for relationship in resource.relationships {
                for target in relationship.shape.targets where typeNames[target] == nil {
                    typeNames[target] = uniqueName(Self.typeName(target, singular: true))
                    linkedOnly.append(target)
                }
            }
        }
        // Resource models first, in the order their types were met; nested structs after them.
        let first = models.count
        for resource in sampler.resources {
            models.append(Model(name: typeNames[resource.type]!, resourceType: resource.type))
        }
        for (offset, resource) in sampler.resources.enumerated() {
            var model = models[first + offset]
            let total = resource.count
            let idOptional = resource.withID < total
            model.properties.append(
                Property(
                    name: "id",
                    codingKey: nil,
                    type: idOptional ? "String?" : "String",
                    comment: "Present in \(resource.withID) of \(total)."
                )
            )
            var taken: Set<String> = ["id", "type", "resourceType"]
            for member in resource.attributes.members {
                model.properties.append(property(member.name, member.shape, of: total, taken: &taken))
            }
            for relationship in resource.relationships {
                let shape = relationship.shape
                let (name, key) = propertyName(for: relationship.name, taken: &taken)
                let target = shape.targets.count == 1 ? typeNames[shape.targets[0]]! : "AnyResource"
                var type: String
                if shape.toMany > 0 && shape.toOne == 0 {
                    type = "ToMany<\(target)>"
                } else if shape.toMany == 0 {
                    type = "ToOne<\(target)>"
                } else {
                    type = "JSONValue"  // to-one in some resources and to-many in others
                }
                if shape.count < total || shape.empty > 0 { type += "?" }
                model.properties.append(
                    Property(
                        name: name,
                        codingKey: key,
                        type: type,
                        comment: "A relationship in \(shape.count) of \(total)"
                            + (shape.empty > 0 ? ", without linkage in \(shape.empty)." : ".")
                    )
                )
            }
            models[first + offset] = model
        }
        for type in linkedOnly {
            models.insert(
                Model(
                    name: typeNames[type]!,
                    resourceType: type,
                    note: "Only linked to in the samples, never included: its attributes are unknown.",
                    properties: [Property(name: "id", codingKey: nil, type: "String", comment: "The linkage's id.")]
                ),
                at: first + sampler.resources.count
            )
        }
    }

    private mutating func writeObject(_ object: ObjectShape, named name: String) {
        // Its place is taken before the members are read: their nested types come after it.
        let index = models.count
        models.append(Model(name: name))
        var model = Model(name: name)
        var taken: Set<String> = []
        for member in object.members {
            model.properties.append(property(member.name, member.shape, of: object.count, taken: &taken))
        }
        models[index] = model
    }

    /// The property for the member `name` of `total` objects, whose values `shape` counted.
    private mutating func property(
        _ name: String,
        _ shape: ValueShape,
        of total: Int,
        taken: inout Set<String>
    ) -> Property {
        let (property, key) = propertyName(for: name, taken: &taken)
        let type = swiftType(shape, suggestedName: Self.typeName(name, singular: false), total: total)
        let comment =
            shape.count > 0 && shape.nulls == shape.count
            ? "Present in \(shape.count) of \(total), always null: its type is unknown."
            : "Present in \(shape.count) of \(total)" + (shape.nulls > 0 ? ", null in \(shape.nulls)." : ".")
        return Property(name: property, codingKey: key, type: type.spelled, comment: comment)
    }

    /// A property's type: its name, and whether some objects lack the member or hold `null`.
    struct SwiftType {
        var type: String
        var optional: Bool

        init(_ type: String, _ optional: Bool) {
            self.type = type
            self.optional = optional
        }

        /// As declared: `String`, `String?`; `JSONValue?` stays one optional.
        var spelled: String { optional && !type.hasSuffix("?") ? type + "?" : type }
    }

    /// The Swift type for the values of `shape`, optional when some of the `total` objects lack
    /// it or hold `null`.
    private mutating func swiftType(_ shape: ValueShape, suggestedName: String, total: Int) -> SwiftType {
        let optional = shape.nulls > 0 || shape.count < total
        let kinds = shape.kinds
        guard kinds.count == 1, let kind = kinds.first else { return SwiftType("JSONValue", optional) }
        switch kind {
        case .bool:
            return SwiftType("Bool", optional)
        case .number:
            if shape.fractions > 0 { return SwiftType("Double", optional) }
            return SwiftType(shape.largeIntegers > 0 ? "Int64" : "Int", optional)
        case .string:
            if let format = Self.dateFormatNames.first(where: { shape.dateFormats.contains($0.format) }) {
                if !dateFormats.contains(format.name) { dateFormats.append(format.name) }
                return SwiftType("Date", optional)
            }
            return SwiftType(shape.allURLs && urls == .url ? "URL" : "String", optional)
        case .array:
            if let fixed = Self.fixedSizeVector(shape) { return SwiftType(fixed, optional) }
            let element = swiftType(
                shape.elements,
                suggestedName: Self.singular(suggestedName),
                total: shape.elements.count
            )
            guard shape.elements.count > 0 else { return SwiftType("[JSONValue]", optional) }
            return SwiftType("[\(element.spelled)]", optional)
        case .object:
            if shape.object.members.isEmpty { return SwiftType("[String: JSONValue]", optional) }
            if shape.object.looksLikeMap {
                let values = shape.object.mergedValues
                let value = swiftType(values, suggestedName: Self.singular(suggestedName), total: values.count)
                return SwiftType("[String: \(value.spelled)]", optional)
            }
            guard let group = shapes.group(of: shape.object) else {
                let name = uniqueName(suggestedName)
                writeObject(shape.object, named: name)
                return SwiftType(name, optional)
            }
            if let name = group.name { return SwiftType(name, optional) }
            let name = uniqueName(group.suggestedName)
            group.name = name
            writeObject(group.merged, named: name)
            return SwiftType(name, optional)
        }
    }

    /// `SIMD2<Double>` (to `SIMD4`) for arrays of numbers with fractions that always have that
    /// many elements, none null: coordinates, points, colours. A value that holds its numbers
    /// inline, with no allocation per array, and that Codable reads and writes as the same JSON
    /// array. Integers stay arrays (`indices: [Int]` pairs read as positions, not vectors).
    static func fixedSizeVector(_ shape: ValueShape) -> String? {
        let elements = shape.elements
        guard shape.shortestArray == shape.longestArray, (2...4).contains(shape.shortestArray),
            elements.count > 0, elements.nulls == 0, elements.kinds == [.number], elements.fractions > 0
        else { return nil }
        return "SIMD\(shape.shortestArray)<Double>"
    }

    private static let dateFormatNames: [(format: ValueShape.DateFormat, name: String)] = [
        (.iso8601, "iso8601"), (.rfc1123, "rfc1123"), (.rfc850, "rfc850"), (.asctime, "asctime"),
    ]

    // MARK: Names

    /// A property name for the member `key`, and the coding key it needs when the strategy's
    /// conversion of the key is not that name.
    private func propertyName(for key: String, taken: inout Set<String>) -> (name: String, codingKey: String?) {
        let converted = converted(key)
        var name = Self.identifier(from: converted)
        while taken.contains(name) { name += "_" }
        taken.insert(name)
        let plain = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
        return (name, plain == converted ? nil : converted)
    }

    /// `name`, or `NameModel` for a name the models' own types use, numbered from 2 when taken.
    private mutating func uniqueName(_ name: String) -> String {
        let base = Self.reservedTypeNames.contains(name) ? name + "Model" : name
        var candidate = base
        var number = 2
        while names.contains(candidate) {
            candidate = base + String(number)
            number += 1
        }
        names.insert(candidate)
        return candidate
    }

    /// A type name for `text` (a resource type or a member name): its words in upper camel case,
    /// the last made singular when `singular`.
    static func typeName(_ text: String, singular: Bool) -> String {
        var words = Self.words(text)
        if singular, let last = words.popLast() { words.append(Self.singular(last)) }
        let name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = name.first else { return "Value" }
        return first.isNumber ? "T" + name : name
    }

    /// The words of `text`: split at anything not a letter or digit, and where a lower-case letter
    /// meets an upper-case one.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousIsLower = false
        for character in text {
            guard character.isLetter || character.isNumber, character.isASCII else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousIsLower = false
                continue
            }
            if character.isUppercase && previousIsLower {
                words.append(current)
                current = ""
            }
            current.append(character)
            previousIsLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A plausible singular of an English plural (`people`, `categories`, `boxes`, `tags`).
    static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        if lower == "people" { return word.prefix(1) + "erson" }
        if lower == "children" { return String(word.dropLast(3)) }
        if lower.hasSuffix("ies") && lower.count > 4 { return String(word.dropLast(3)) + "y" }
        for ending in ["sses", "uses", "shes", "ches", "xes", "zzes"] where lower.hasSuffix(ending) {
            return String(word.dropLast(2))
        }
        if lower.hasSuffix("s") && !lower.hasSuffix("ss") && !lower.hasSuffix("us") && !lower.hasSuffix("is")
            && lower.count > 2
        {
            return String(word.dropLast())
        }
        return word
    }

    /// A Swift identifier for `text`: kept when it is one, escaped with backticks when it is a
    /// keyword, else made of its letters and digits (in camel case, `_` before a leading digit).
    static func identifier(from text: String) -> String {
        let isIdentifier =
            !text.isEmpty && text.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "_") && $0.isASCII }
            && !(text.first?.isNumber ?? true)
        var name: String
        if isIdentifier {
            name = text
        } else {
            let words = Self.words(text)
            name = words.enumerated().map { index, word in
                index == 0 ? word : word.prefix(1).uppercased() + word.dropFirst()
            }.joined()
            if name.isEmpty { name = "value" }
            if name.first?.isNumber == true { name = "_" + name }
        }
        if keywords.contains(name) { return "`\(name)`" }
        return name
    }

    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "some", "any",
    ]

    /// Names a generated type must not take: the types the models' properties use.
    static let reservedTypeNames: Set<String> = [
        "String", "Int", "Int64", "Double", "Bool", "Date", "URL", "Data", "Array", "Dictionary", "Optional",
        "JSONValue", "JSONObject", "Resource", "AnyResource", "ToOne", "ToMany", "Links", "Link", "Codable",
        "Decodable", "Encodable", "Error", "Type", "Protocol", "Self",
    ]

    // MARK: Output

    func finished(_ sampler: ModelSampler) -> GeneratedModels {
        let usage = usageLines(sampler)
        let imports =
            isJSONAPI
            ? ["import Foundation", "import SluiceJSONAPI", "import SluiceMacros"]
            : ["import Foundation", "import SluiceMacros"]
        var header = ["// Written by `sluice models` from \(describe(sampler)).", "//", "// Decode with:"]
        header += usage.map { "//     " + $0 }
        let bodies = models.map(Self.declaration)
        var source = header + [""] + imports
        for body in bodies { source += [""] + body }
        let files = zip(models, bodies).map { model, body in
            GeneratedModels.File(
                name: model.name + ".swift",
                contents: (imports + [""] + body).joined(separator: "\n") + "\n"
            )
        }
        return GeneratedModels(
            source: source.joined(separator: "\n") + "\n",
            files: files,
            usage: usage,
            keyStrategy: strategy
        )
    }

    private func describe(_ sampler: ModelSampler) -> String {
        let samples = sampler.samples == 1 ? "1 sample" : "\(sampler.samples) samples"
        if isJSONAPI {
            let resources = sampler.resources.reduce(0) { $0 + $1.count }
            let types = sampler.resources.count == 1 ? "1 resource type" : "\(sampler.resources.count) resource types"
            return "\(samples): \(types), \(resources) resources read"
        }
        return samples
    }

    private func usageLines(_ sampler: ModelSampler) -> [String] {
        var lines: [String] = []
        if isJSONAPI {
            let registered = models.filter { $0.resourceType != nil }.map { "\($0.name).self" }.joined(separator: ", ")
            lines.append("let decoder = JSONAPIDecoder(registry: [\(registered)])")
        } else {
            lines.append("let decoder = StreamingJSONDecoder()")
        }
        switch strategy {
        case .convertFromKebabCase: lines.append("decoder.keyDecodingStrategy = .convertFromKebabCase")
        case .convertFromSnakeCase: lines.append("decoder.keyDecodingStrategy = .convertFromSnakeCase")
        default: break
        }
        if dateFormats == ["iso8601"] {
            lines.append("decoder.dateDecodingStrategy = .iso8601")
        } else if dateFormats.count == 1 {
            lines.append("decoder.dateDecodingStrategy = .format(.\(dateFormats[0]))")
        } else if !dateFormats.isEmpty {
            lines.append(
                "decoder.dateDecodingStrategy = .anyOf([\(dateFormats.map { "." + $0 }.joined(separator: ", "))])"
            )
        }
        if isJSONAPI {
            let primary = models.first?.name ?? "AnyResource"
            lines.append("let document = try decoder.decode([Linked<\(primary)>].self, from: data)")
        } else if let rootType {
            lines.append("let value = try decoder.decode(\(rootType).self, from: data)")
        }
        return lines
    }

    private static func declaration(_ model: Model) -> [String] {
        var lines: [String] = []
        if let note = model.note { lines.append("/// \(note)") }
        lines.append("@JSONModel")
        lines.append(
            model.resourceType == nil ? "struct \(model.name): Codable {" : "struct \(model.name): Resource, Codable {"
        )
        if let resourceType = model.resourceType {
            lines.append("    static let resourceType = \(resourceType.debugDescription)")
            lines.append("")
        }
        for property in model.properties {
            lines.append("    /// \(property.comment)")
            lines.append("    var \(property.name): \(property.type)")
        }
        if model.properties.contains(where: { $0.codingKey != nil }) {
            lines.append("")
            lines.append("    enum CodingKeys: String, CodingKey {")
            for property in model.properties {
                if let key = property.codingKey {
                    lines.append("        case \(property.name) = \(key.debugDescription)")
                } else {
                    lines.append("        case \(property.name)")
                }
            }
            lines.append("    }")
        }
        lines.append("}")
        return lines
    }
}
