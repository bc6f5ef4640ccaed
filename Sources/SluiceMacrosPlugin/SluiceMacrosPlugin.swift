// The compiler plugin that serves SluiceMacros' macros.

import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct SluiceMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [JSONModelMacro.self]
}
