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
        return [declaration]
    }
}

/// What the macro reads of a model declaration.
struct Model {
    /// One property that Codable decodes.
    struct Property {
        var name: String
        /// The JSON member it is read from.
        var member: String
        /// Whether it is optional (read with `decodeIfPresent`, as Codable does). Its type is not
        /// needed: the read infers it from the property, where the property declares it.
        var isOptional: Bool
    }

    var isClass: Bool
    var isGeneric: Bool
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
        var stored: [(name: String, type: TypeSyntax?, node: Syntax)] = []
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
                for item in keys.memberBlock.members {
                    guard let cases = item.decl.as(EnumCaseDeclSyntax.self) else { continue }
                    for element in cases.elements {
                        let name = Self.identifier(element.name.text)
                        if let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self) {
                            guard raw.segments.count == 1, let text = raw.segments.first?.as(StringSegmentSyntax.self)
                            else {
                                return problem(
                                    raw,
                                    "The raw value of CodingKeys.\(name) must be a plain string literal."
                                )
                            }
                            names[name] = text.content.text
                        } else {
                            names[name] = name
                        }
                    }
                }
                codingKeys = names
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
                // Codable does not decode a constant that already has its value.
                if isLet && binding.initializer != nil { continue }
                // Without an annotation the type is the initial value's, never optional (an
                // optional needs an annotation to start as nil): the read infers it either way.
                let name = Self.identifier(pattern.identifier.text)
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
            properties.append(Property(name: name, member: member, isOptional: type.map(Self.isOptional) ?? false))
        }
        return Model(isClass: isClass, isGeneric: isGeneric, access: access, properties: properties)
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
        for (index, property) in properties.enumerated() {
            let read = property.isOptional ? "decodeIfPresent" : "decode"
            lines.append(
                "        self.\(Self.escaped(property.name)) = try jsonModelReader.\(read)(at: \(index))"
            )
        }
        lines.append("        jsonModelReader.finish(self)")
        lines.append("    }")
        return lines.joined(separator: "\n")
    }

    // MARK: Reading syntax

    /// Whether `initializer` is `init(from: Decoder)` (any spelling of the decoder's type).
    static func isDecodingInitializer(_ initializer: InitializerDeclSyntax) -> Bool {
        let parameters = initializer.signature.parameterClause.parameters
        guard parameters.count == 1, let parameter = parameters.first, parameter.firstName.text == "from" else {
            return false
        }
        let type = parameter.type.trimmedDescription
        return type == "Decoder" || type == "any Decoder" || type == "some Decoder" || type == "Swift.Decoder"
            || type == "any Swift.Decoder"
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
