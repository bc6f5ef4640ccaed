import SwiftDiagnostics

/// A diagnostic of `@JSONModel`: one sentence naming what to change.
struct MacroMessage: DiagnosticMessage {
    let message: String
    init(_ message: String) { self.message = message }
    var diagnosticID: MessageID { MessageID(domain: "SluiceMacros", id: "JSONModel") }
    var severity: DiagnosticSeverity { .error }
}
