// The compiler plugin that serves SluiceMacros' macros. Their implementation is in
// SluiceMacrosExpansion, which the expansion tests link too (see Package.swift for why it is apart).

import SluiceMacrosExpansion
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

@main
struct SluiceMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [JSONModelMacro.self]
}

/// `@JSONModel` as `#externalMacro` names it: the compiler finds a macro by this module's name and
/// the type's, so the type lives here and hands both expansions to SluiceMacrosExpansion's.
public struct JSONModelMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try SluiceMacrosExpansion.JSONModelMacro.expansion(
            of: node,
            providingMembersOf: declaration,
            conformingTo: protocols,
            in: context
        )
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try SluiceMacrosExpansion.JSONModelMacro.expansion(
            of: node,
            attachedTo: declaration,
            providingExtensionsOf: type,
            conformingTo: protocols,
            in: context
        )
    }
}
