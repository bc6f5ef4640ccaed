// `@JSONModel`: reads a model's stored properties and writes the initializer that Sluice's decoders
// call instead of its Codable conformance (see SluiceJSON's JSONModelReader for the reading side).
//
// The expansion is plain Swift a user could have written: a table of member names, then one line
// per property reading it by its index in the table. What the macro must get exactly right is which
// properties Codable's synthesized `init(from:)` decodes, and under which names, since the two paths
// must agree: stored properties that are not `static`, not computed and not `lazy`, except `let`s
// with an initial value; named by a `CodingKeys` enum's raw values when the model declares one
// (properties without a case are not decoded), else by their own names.

import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

@main
struct SluiceMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [JSONModelMacro.self]
}

/// `@JSONModel`: a generated tape reader for a `Decodable` struct or final class.
public struct JSONModelMacro: MemberMacro, ExtensionMacro {
    /// For a final class, the initializer goes in the class itself: an extension can add only
    /// convenience initializers to a class. A struct gets it in the extension, which keeps its
    /// memberwise initializer.
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let model = Model.read(declaration, in: context) else { return [] }
        // Written for an extension's body; the compiler indents members itself.
        let initializer = model.initializer().split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? $0.dropFirst(4) : $0 }.joined(separator: "\n")
        return [DeclSyntax(stringLiteral: initializer)]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let model = Model.read(declaration, in: context, reportsProblems: true) else { return [] }
        var members = [model.membersTable()]
        if !model.isClass { members.append(model.initializer()) }
        let source = """
            extension \(type.trimmedDescription): SluiceJSON.JSONModelDecodable {
            \(members.joined(separator: "\n\n"))
            }
            """
        guard let declaration = DeclSyntax(stringLiteral: source).as(ExtensionDeclSyntax.self) else { return [] }
        guard model.writes else { return [declaration] }
        let writer = """
            extension \(type.trimmedDescription): SluiceJSON.JSONModelEncodable {
            \(model.keysTable(typeName: type.trimmedDescription))

            \(model.fieldWriter())
            }
            """
        guard let writing = DeclSyntax(stringLiteral: writer).as(ExtensionDeclSyntax.self) else { return [declaration] }
        return [declaration, writing]
    }
}

/// What the macro reads of a model declaration.
struct Model {
    /// One property that Codable decodes.
    struct Property {
        var name: String
        /// The JSON member it is read from.
        var member: String
        /// Whether it is optional (read with `decodeIfPresent`, as Codable does).
        var isOptional: Bool
        /// The declared type, as written; `nil` when the property has none (its initial value
        /// gives it).
        var type: String? = nil
    }

    var isClass: Bool
    var isGeneric: Bool
    /// Whether the model is declared `Codable` or `Encodable` and writes itself with Codable's
    /// synthesized `encode(to:)`: then a writer is generated too.
    var writes: Bool
    /// The properties Codable's synthesized `encode(to:)` writes, in its order: the `CodingKeys`
    /// cases' order when the model declares them, else the declaration order. (Unlike decoding,
    /// a `let` with an initial value is written.)
    var written: [Property]
    /// `public `, `package ` or nothing: the generated members' access, so that a public model's
    /// conformance is public too.
    var access: String
    var properties: [Property]

    /// Reads `declaration`; `nil` (after a diagnostic, when `reportsProblems`) when the macro
    /// cannot serve it. Both roles read the declaration; only one reports, so that each problem is
    /// said once.
    static func read(
        _ declaration: some DeclGroupSyntax,
        in context: some MacroExpansionContext,
        reportsProblems: Bool = false
    ) -> Model? {
        func problem(_ node: some SyntaxProtocol, _ message: String) -> Model? {
            if reportsProblems { context.diagnose(Diagnostic(node: Syntax(node), message: MacroMessage(message))) }
            return nil
        }
        let isClass: Bool
        let isGeneric: Bool
        let access: String
        let modifiers: DeclModifierListSyntax
        if let structure = declaration.as(StructDeclSyntax.self) {
            isClass = false
            modifiers = structure.modifiers
            isGeneric = structure.genericParameterClause != nil
        } else if let type = declaration.as(ClassDeclSyntax.self) {
            isClass = true
            modifiers = type.modifiers
            isGeneric = type.genericParameterClause != nil
            guard modifiers.contains(where: { $0.name.tokenKind == .keyword(.final) }) else {
                return problem(
                    type.name,
                    "@JSONModel needs a final class: a subclass would inherit a reader that knows only this class's properties. Mark '\(type.name.text)' final."
                )
            }
        } else {
            return problem(declaration, "@JSONModel applies to a struct or a final class.")
        }
        if modifiers.contains(where: { $0.name.tokenKind == .keyword(.public) || $0.name.tokenKind == .keyword(.open) })
        {
            access = "public "
        } else if modifiers.contains(where: { $0.name.tokenKind == .keyword(.package) }) {
            access = "package "
        } else {
            access = ""
        }

        var codingKeys: [String: String]?
        var keyOrder: [String] = []
        var stored: [(name: String, type: TypeSyntax?, node: Syntax)] = []
        // Stored properties Codable writes (a `let` with its value included), by name.
        var storedForWriting: [(name: String, type: TypeSyntax?)] = []
        var encodesItself = false
        for member in declaration.memberBlock.members {
            let decl = member.decl
            if let initializer = decl.as(InitializerDeclSyntax.self), Self.isDecodingInitializer(initializer) {
                return problem(
                    initializer,
                    "This type decodes itself with its own init(from:), which the generated reader would bypass; remove @JSONModel, or the custom init(from:)."
                )
            }
            if let keys = decl.as(EnumDeclSyntax.self), keys.name.text == "CodingKeys" {
                let allowed: Set<String> = ["String", "CodingKey", "Sendable", "Hashable", "Equatable", "CaseIterable"]
                let inherited = keys.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
                guard inherited.contains("String"), inherited.allSatisfy(allowed.contains) else {
                    return problem(
                        keys.name,
                        "@JSONModel reads CodingKeys with String raw values ('enum CodingKeys: String, CodingKey'); key path keys and other kinds need the general path, so remove @JSONModel."
                    )
                }
                var names: [String: String] = [:]
                keyOrder = []
                for item in keys.memberBlock.members {
                    guard let cases = item.decl.as(EnumCaseDeclSyntax.self) else { continue }
                    for element in cases.elements {
                        let name = Self.identifier(element.name.text)
                        if let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self) {
                            // The literal's value, escapes undone (`"a\\"b"` names the member `a"b`).
                            guard raw.segments.count == 1, let text = raw.representedLiteralValue
                            else {
                                return problem(
                                    raw,
                                    "The raw value of CodingKeys.\(name) must be a plain string literal."
                                )
                            }
                            names[name] = text
                        } else {
                            names[name] = name
                        }
                        keyOrder.append(name)
                    }
                }
                codingKeys = names
                continue
            }
            if let function = decl.as(FunctionDeclSyntax.self), Self.isEncodingFunction(function) {
                encodesItself = true
                continue
            }
            guard let variable = decl.as(VariableDeclSyntax.self) else { continue }
            let skipped: Set<Keyword> = [.static, .class, .lazy]
            if variable.modifiers.contains(where: { modifier in
                if case .keyword(let keyword) = modifier.name.tokenKind { return skipped.contains(keyword) }
                return false
            }) {
                continue
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                if let accessors = binding.accessorBlock, !Self.onlyObservers(accessors) { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    return problem(binding.pattern, "@JSONModel reads properties declared one name at a time.")
                }
                let name = Self.identifier(pattern.identifier.text)
                storedForWriting.append((name, binding.typeAnnotation?.type))
                // Codable does not decode a constant that already has its value.
                if isLet && binding.initializer != nil { continue }
                // Without an annotation the type is the initial value's, never optional (an
                // optional needs an annotation to start as nil): the read infers it either way.
                stored.append((name, binding.typeAnnotation?.type, Syntax(binding)))
            }
        }

        var properties: [Property] = []
        var seen: [String: String] = [:]
        for (name, type, node) in stored {
            let member: String
            if let codingKeys {
                guard let key = codingKeys[name] else { continue }
                member = key
            } else {
                member = name
            }
            if let other = seen[member] {
                return problem(node, "'\(name)' and '\(other)' are both read from the member \"\(member)\".")
            }
            seen[member] = name
            properties.append(
                Property(
                    name: name,
                    member: member,
                    isOptional: type.map(Self.isOptional) ?? false,
                    type: type?.trimmedDescription
                )
            )
        }
        var written: [Property] = []
        if let codingKeys {
            let byName = Dictionary(
                storedForWriting.map { ($0.name, $0.type) },
                uniquingKeysWith: { first, _ in first }
            )
            for name in keyOrder {
                // A case without a property fails to compile in Codable's own synthesis.
                guard let member = codingKeys[name], let type = byName[name] else { continue }
                written.append(Property(name: name, member: member, isOptional: type.map(Self.isOptional) ?? false))
            }
        } else {
            written = storedForWriting.map {
                Property(name: $0.name, member: $0.name, isOptional: $0.type.map(Self.isOptional) ?? false)
            }
        }
        let declaresEncodable = declaration.inheritanceClause?.inheritedTypes.contains { inherited in
            let name = inherited.type.trimmedDescription
            return ["Codable", "Encodable", "Swift.Codable", "Swift.Encodable"].contains(name)
        }
        return Model(
            isClass: isClass,
            isGeneric: isGeneric,
            writes: declaresEncodable == true && !encodesItself,
            written: written,
            access: access,
            properties: properties
        )
    }

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
    func initializer() -> String {
        var lines: [String] = []
        lines.append(
            "    \(access)init(jsonModelReader: borrowing SluiceJSON.JSONModelReader) throws {"
        )
        // Every property is read before any is assigned, in one tuple assignment: assigned
        // between throwing reads, the half-made model was copied whole (and the original
        // released) to be returned. The tuple on the left gives each read its type.
        if properties.count == 1, let property = properties.first {
            let read = property.isOptional ? "decodeIfPresent" : "decode"
            lines.append("        self.\(Self.escaped(property.name)) = try jsonModelReader.\(read)(at: 0)")
        } else if !properties.isEmpty {
            let targets = properties.map { "self.\(Self.escaped($0.name))" }.joined(separator: ", ")
            lines.append("        (\(targets)) = (")
            for (index, property) in properties.enumerated() {
                let read = property.isOptional ? "decodeIfPresent" : "decode"
                let separator = index == properties.count - 1 ? "" : ","
                lines.append("            try jsonModelReader.\(read)(at: \(index))\(separator)")
            }
            lines.append("        )")
        }
        lines.append("        jsonModelReader.finish(self)")
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

    // MARK: Reading syntax

    /// Whether `function` is `encode(to: Encoder)`: the model writes itself, so no writer is
    /// generated (it would bypass that function).
    static func isEncodingFunction(_ function: FunctionDeclSyntax) -> Bool {
        function.name.text == "encode"
            && takesCoder(function.signature.parameterClause.parameters, label: "to", type: "Encoder")
    }

    /// Whether `initializer` is `init(from: Decoder)` (any spelling of the decoder's type).
    static func isDecodingInitializer(_ initializer: InitializerDeclSyntax) -> Bool {
        takesCoder(initializer.signature.parameterClause.parameters, label: "from", type: "Decoder")
    }

    /// Whether `parameters` are one parameter labelled `label` of the protocol `type` (`Encoder`
    /// or `Decoder`), in any of the spellings Swift accepts for it.
    private static func takesCoder(_ parameters: FunctionParameterListSyntax, label: String, type: String) -> Bool {
        guard parameters.count == 1, let parameter = parameters.first, parameter.firstName.text == label else {
            return false
        }
        let spelled = parameter.type.trimmedDescription
        return [type, "any \(type)", "some \(type)", "Swift.\(type)", "any Swift.\(type)"].contains(spelled)
    }

    /// Whether an accessor block only observes a stored property (`willSet`, `didSet`).
    static func onlyObservers(_ block: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy {
            $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
        }
    }

    /// Whether a declared type is optional: `T?`, `T!` or `Optional<T>`.
    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "Optional" && identifier.genericArgumentClause?.arguments.count == 1
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.baseType.trimmedDescription == "Swift" && member.name.text == "Optional"
        }
        return false
    }

    /// A name without the backticks that let it be a keyword.
    static func identifier(_ text: String) -> String {
        text.hasPrefix("`") && text.hasSuffix("`") && text.count > 1 ? String(text.dropFirst().dropLast()) : text
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

/// A diagnostic of `@JSONModel`: one sentence naming what to change.
struct MacroMessage: DiagnosticMessage {
    let message: String
    init(_ message: String) { self.message = message }
    var diagnosticID: MessageID { MessageID(domain: "SluiceMacros", id: "JSONModel") }
    var severity: DiagnosticSeverity { .error }
}
