// Questions about a declaration's syntax that reading a model asks: whether a function encodes
// or an initializer decodes, whether a type is optional, a name without its backticks.

import SwiftSyntax

extension Model {
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
}
