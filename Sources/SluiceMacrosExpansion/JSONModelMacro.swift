// `@JSONModel`: reads a model's stored properties and writes the initializer that Sluice's decoders
// call instead of its Codable conformance (see SluiceJSON's JSONModelReader for the reading side).
//
// The expansion is plain Swift a user could have written: a table of member names, then one line
// per property reading it by its index in the table. What the macro must get exactly right is which
// properties Codable's synthesized `init(from:)` decodes, and under which names, since the two paths
// must agree: stored properties that are not `static`, not computed and not `lazy`, except `let`s
// with an initial value; named by a `CodingKeys` enum's raw values when the model declares one
// (properties without a case are not decoded), else by their own names.

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

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
