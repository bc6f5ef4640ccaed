// The jsonapi object: version, ext, profile and meta.
// https://jsonapi.org/format/1.1/#document-jsonapi-object

import SluiceJSON

extension DocumentRules {
    mutating func checkJSONAPIObject(_ value: JSONTape.Value, pointer: String) {
        guard let members = objectMembers(of: value, named: "jsonapi", at: pointer) else { return }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "version":
                requireString(member.value, named: "version", at: path)
            case "ext", "profile":
                let uris = (try? member.value.elements()).map { Array($0) }
                guard let uris, uris.allSatisfy({ $0.kind == .string }) else {
                    report(path, member.value.position, "\(member.key) must be an array of URI strings.")
                    continue
                }
                if member.key == "ext" {
                    for uri in uris {
                        if let text = try? uri.string(), let namespace = Self.namespace(ofExtension: text) {
                            appliedNamespaces.insert(namespace)
                        }
                    }
                }
            case "meta":
                checkMeta(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .jsonapi, pointer: path, position: member.value.position)
            }
        }
    }
}
