// Error objects: their members, their links and their source.
// https://jsonapi.org/format/1.1/#error-objects

import SluiceJSON

extension DocumentRules {
    mutating func checkErrors(_ value: JSONTape.Value, pointer: String) {
        guard let elements = try? value.elements() else {
            report(
                pointer,
                value.position,
                "errors must be an array of error objects, but it is \(value.kind.nounPhrase)."
            )
            return
        }
        for (index, element) in elements.enumerated() {
            checkErrorObject(element, pointer: "\(pointer)/\(index)")
        }
    }

    mutating func checkErrorObject(_ value: JSONTape.Value, pointer: String) {
        guard let members = try? value.members() else {
            report(
                pointer,
                value.position,
                "An error object must be an object, but this one is \(value.kind.nounPhrase)."
            )
            return
        }
        var hasStandardMember = false
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "id", "status", "code", "title", "detail":
                requireString(member.value, named: member.key, at: path)
            case "links":
                checkLinks(member.value, pointer: path, object: .errorLinks)
            case "source":
                checkErrorSource(member.value, pointer: path)
            case "meta":
                checkMeta(member.value, pointer: path)
            default:
                checkOtherMember(member.key, of: .error, pointer: path, position: member.value.position)
                continue
            }
            hasStandardMember = true
        }
        if !hasStandardMember {
            report(
                pointer,
                value.position,
                "An error object must have at least one of id, links, status, code, title, detail, source or meta."
            )
        }
    }

    mutating func checkErrorSource(_ value: JSONTape.Value, pointer: String) {
        guard let members = objectMembers(of: value, named: "source", at: pointer) else { return }
        for member in members {
            let path = pointer + "/" + jsonPointerEscaped(member.key)
            switch member.key {
            case "pointer":
                guard member.value.kind == .string, let text = try? member.value.string() else {
                    requireString(member.value, named: "pointer", at: path)
                    continue
                }
                if let fault = Self.jsonPointerFault(text) {
                    report(path, member.value.position, "pointer must be a JSON Pointer (RFC 6901): \(fault).")
                }
            case "parameter", "header":
                requireString(member.value, named: member.key, at: path)
            default:
                checkOtherMember(member.key, of: .errorSource, pointer: path, position: member.value.position)
            }
        }
    }

    /// Why `text` is not a JSON Pointer (RFC 6901), or `nil` when it is one: empty, or `/` then
    /// reference tokens in which `~` is always followed by `0` or `1`.
    static func jsonPointerFault(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        guard text.hasPrefix("/") else { return "\(String(reflecting: text)) does not start with /" }
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "~" else { continue }
            let next = scalars.next()
            if next != "0" && next != "1" {
                return "in \(String(reflecting: text)), ~ must be followed by 0 or 1 (write ~0 for ~ and ~1 for /)"
            }
        }
        return nil
    }
}
