// The code `@JSONModel` writes from a model: the member table, the initializer that reads the
// properties, for an encodable model the key table and the writer of one member, and how names and
// strings are written into that code.

extension Model {
    /// The table of member names, built once per type (once per specialization for a generic
    /// type, which can have no stored static property: a shared table looked up by type).
    func membersTable() -> String {
        let names = properties.map { Self.stringLiteral($0.member) }.joined(separator: ", ")
        if isGeneric {
            return
                "    \(access)static var jsonModelMembers: SluiceJSON.JSONModelMembers { SluiceJSON.JSONModelMembers.shared(by: Self.self, names: [\(names)]) }"
        }
        return "    \(access)static let jsonModelMembers = SluiceJSON.JSONModelMembers([\(names)])"
    }

    /// The initializer that reads the properties from a reader whose members are filed: the
    /// protocol's `init(from:context:)` makes the reader (or takes the general path) and calls it,
    /// and so can a JSON:API decoder, which files a resource's members itself.
    ///
    /// For a struct whose memberwise initializer it can call (``Model/buildsWhole``) it writes
    /// `readJSONModel(_:)` instead, which builds the model in that one call, and an initializer
    /// that assigns what it returns.
    func initializer() -> String {
        if buildsWhole { return wholeReader() }
        var lines: [String] = []
        lines.append(
            "    \(access)init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {"
        )
        // Every property is read before any is assigned, in one tuple assignment, whose left
        // side gives each read its type. (An initializer that assigns properties, in a tuple or
        // not, still returns a model of more than four references by copying it whole: why
        // structs take `wholeReader` when they can.)
        if properties.count == 1, let property = properties.first {
            lines.append("        self.\(Self.escaped(property.name)) = try jsonModelReader.\(property.read)(at: 0)")
        } else if !properties.isEmpty {
            let targets = properties.map { "self.\(Self.escaped($0.name))" }.joined(separator: ", ")
            lines.append("        (\(targets)) = (")
            for (index, property) in properties.enumerated() {
                let separator = index == properties.count - 1 ? "" : ","
                lines.append("            try jsonModelReader.\(property.read)(at: \(index))\(separator)")
            }
            lines.append("        )")
        }
        lines.append("        jsonModelReader.\(finishCall)")
        lines.append("    }")
        return lines.joined(separator: "\n")
    }

    /// The initializer's call that ends the object: a class hands itself to the children waiting
    /// for their parent; a struct, which no child can take as its parent, ends it without itself,
    /// so that it is not copied into a temporary for a generic call.
    var finishCall: String {
        isClass ? "finish(self)" : "finish()"
    }

    /// `readJSONModel(_:)` for a struct with a usable memberwise initializer: every property
    /// read as that initializer's argument, in declaration order, the model built by the one
    /// call. Why: Swift 6.3 returns a struct whose initializer assigned its properties one at a
    /// time by copying it whole out of the initializer and destroying the original (a retain and
    /// a release of every reference it holds, for a model of more than four); a value the
    /// memberwise initializer built is returned as it is.
    func wholeReader() -> String {
        var lines = [
            "    \(access)static func readJSONModel(_ jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws -> Self {"
        ]
        if properties.isEmpty {
            lines.append("        let model = Self()")
        } else {
            lines.append("        let model = try Self(")
            for (index, property) in properties.enumerated() {
                let separator = index == properties.count - 1 ? "" : ","
                lines.append(
                    "            \(Self.escaped(property.name)): jsonModelReader.\(property.read)(at: \(index))\(separator)"
                )
            }
            lines.append("        )")
        }
        lines.append("        jsonModelReader.\(finishCall)")
        lines.append("        return model")
        lines.append("    }")
        lines.append("")
        lines.append("    \(access)init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {")
        lines.append("        self = try Self.readJSONModel(jsonModelReader)")
        lines.append("    }")
        return lines.joined(separator: "\n")
    }

    /// The written names as a table: each name escaped as JSON for each built-in key strategy,
    /// the order of the names under `.sortedKeys`, and key paths for the value types.
    func keysTable(typeName: String) -> String {
        let names = written.map { Self.stringLiteral($0.member) }.joined(separator: ", ")
        var escaped: [String] = []
        var sorted: [String] = []
        for strategy in [nil, "_", "-"] as [Character?] {
            let spelled = written.map { property in
                strategy.map { KeyWords.separated(property.member, $0) } ?? property.member
            }
            escaped.append("[" + spelled.map { Self.stringLiteral(Self.jsonEscaped($0)) }.joined(separator: ", ") + "]")
            // Ordered as the general path orders Strings at run time (`<`); a stable sort keeps
            // the encoding order for equal names.
            let order = spelled.indices.sorted { spelled[$0] < spelled[$1] || (spelled[$0] == spelled[$1] && $0 < $1) }
            sorted.append("[" + order.map(String.init).joined(separator: ", ") + "]")
        }
        // By the type's name: `Self` in a class's stored property initializer is not allowed. A
        // generic type's table is a computed property, where `Self` names the specialization.
        let root = isGeneric ? "Self" : typeName
        let paths = written.map { "\\\(root).\(Self.escaped($0.name))" }.joined(separator: ", ")
        let table =
            "SluiceJSON.JSONModelKeys(names: [\(names)], escaped: [\(escaped.joined(separator: ", "))], sorted: [\(sorted.joined(separator: ", "))], values: [\(paths)])"
        if isGeneric {
            return
                "    \(access)static var jsonModelKeys: SluiceJSON.JSONModelKeys { SluiceJSON.JSONModelKeys.shared(by: Self.self) { \(table) } }"
        }
        return "    \(access)static let jsonModelKeys = \(table)"
    }

    /// The function that writes one member by its index in the table: a key then a value, by
    /// the writer's overload for the property's type; nothing for an absent optional.
    func fieldWriter() -> String {
        var lines = [
            "    \(access)func writeJSONModelField(_ field: Int, to writer: SluiceJSON.JSONModelWriter) throws {"
        ]
        lines.append("        switch field {")
        for (index, property) in written.enumerated() {
            let write = property.isOptional ? "writeIfPresent" : "write"
            lines.append(
                "        case \(index): try writer.\(write)(self.\(Self.escaped(property.name)), field: \(index))"
            )
        }
        lines.append("        default: break")
        lines.append("        }")
        lines.append("    }")
        return lines.joined(separator: "\n")
    }

    /// `text` escaped as yajl's generator escapes a string (without the quotes, `/` as is: the
    /// writer escapes it when the settings ask).
    static func jsonEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\u{8}": escaped += "\\b"
            case "\u{C}": escaped += "\\f"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 {
                    // Lowercase, as Foundation's encoder and both of Sluice's writers write it.
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    /// A property name as it can be written after `self.` (keywords need no backticks there,
    /// except a few that would read as something else).
    static func escaped(_ name: String) -> String {
        ["init", "self", "Type"].contains(name) ? "`\(name)`" : name
    }

    /// `text` as a Swift string literal.
    static func stringLiteral(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            default:
                if scalar.value < 0x20 {
                    literal += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    literal.unicodeScalars.append(scalar)
                }
            }
        }
        return literal + "\""
    }
}
