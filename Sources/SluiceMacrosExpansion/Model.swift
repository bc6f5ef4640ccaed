// What `@JSONModel` reads of a model declaration: which properties Codable decodes and encodes,
// under which names, and whether the macro can serve the model at all.

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

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

        /// The reader's function that reads it: `decodeIfPresent` for an optional, as Codable.
        var read: String { isOptional ? "decodeIfPresent" : "decode" }
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
    /// Whether the model is a struct whose memberwise initializer the generated reader can call
    /// with the decoded properties alone: it declares no initializer of its own, and every
    /// stored property is a plain one the initializer takes (no attribute such as a property
    /// wrapper, nothing private, lazy or observed), decoded or else given a default value.
    var buildsWhole: Bool

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
        // Stored properties the memberwise initializer may be called without.
        var defaulted: Set<String> = []
        var buildsWhole = !isClass
        // Stored properties Codable writes (a `let` with its value included), by name.
        var storedForWriting: [(name: String, type: TypeSyntax?)] = []
        var encodesItself = false
        for member in declaration.memberBlock.members {
            let decl = member.decl
            if decl.is(InitializerDeclSyntax.self) { buildsWhole = false }
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
            let keywords = variable.modifiers.compactMap { modifier -> Keyword? in
                if case .keyword(let keyword) = modifier.name.tokenKind { return keyword }
                return nil
            }
            if keywords.contains(where: skipped.contains) {
                if keywords.contains(.lazy) { buildsWhole = false }
                continue
            }
            if !variable.attributes.isEmpty || keywords.contains(.private) || keywords.contains(.fileprivate) {
                buildsWhole = false
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
                if binding.accessorBlock != nil { buildsWhole = false }
                if !isLet && binding.initializer != nil { defaulted.insert(name) }
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
        // Every stored property the memberwise initializer takes without a default must be read.
        let read = Set(properties.map(\.name))
        if stored.contains(where: { !read.contains($0.name) && !defaulted.contains($0.name) }) { buildsWhole = false }
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
            properties: properties,
            buildsWhole: buildsWhole
        )
    }
}
