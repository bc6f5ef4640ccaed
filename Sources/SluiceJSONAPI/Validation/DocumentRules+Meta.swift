// Meta information: an object whose member names follow the naming rules, at any depth.
// https://jsonapi.org/format/1.1/#document-meta

import SluiceJSON

extension DocumentRules {
    /// A meta object: an object whose member names follow the naming rules, at any depth.
    mutating func checkMeta(_ value: JSONTape.Value, pointer: String) {
        guard value.kind == .objectStart else {
            report(pointer, value.position, SpecificationText.mustBeObject("meta", value.kind))
            return
        }
        checkNestedNames(in: value, pointer: pointer, allowExtension: true)
    }
}
