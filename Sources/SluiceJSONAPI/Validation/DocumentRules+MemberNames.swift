// Member names: allowed and reserved characters, @-members, extension members, and names given
// twice in one object.
// https://jsonapi.org/format/1.1/#document-member-names

import SluiceJSON

extension DocumentRules {
    /// A member `object` does not define: allowed if it is an @-member, or an extension member
    /// of an applied extension (judged at the end if not applied yet); reported otherwise.
    mutating func checkOtherMember(
        _ name: String,
        of object: SpecificationObject,
        pointer: @autoclosure () -> String,
        position: JSONPosition
    ) {
        if name.hasPrefix("@") { return }
        if let colon = name.firstIndex(of: ":") {
            if let fault = Self.extensionNameFault(name, colon: colon) {
                report(pointer(), position, fault)
            } else if !appliedNamespaces.contains(String(name[..<colon])) {
                unannounced.append((name, String(name[..<colon]), object, pointer(), position))
            }
            return
        }
        guard Self.isValidMemberName(Substring(name)) else {
            report(pointer(), position, Self.badName(name))
            return
        }
        report(
            pointer(),
            position,
            "\(object.phrase) may hold only \(Self.list(object.members)), not \(name).",
            severity: undefinedMemberSeverity
        )
    }

    var undefinedMemberSeverity: JSONAPIViolation.Severity { strictMembers ? .error : .warning }

    /// `a, b and c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// What is wrong with the extension member name `name` (`namespace:member`, its colon at
    /// `colon`), or `nil` when both parts follow their rules.
    static func extensionNameFault(_ name: String, colon: String.Index) -> String? {
        if !isValidNamespace(name[..<colon]) {
            return "The extension namespace of the member \(name) must be made of a-z, A-Z and 0-9 only."
        }
        if !isValidMemberName(name[name.index(after: colon)...]) {
            return "The member name \(name) breaks JSON:API's naming rules."
        }
        return nil
    }

    static func badName(_ name: String) -> String {
        "The member name \(String(reflecting: name)) breaks JSON:API's naming rules: use a-z, A-Z, 0-9 and non-ASCII characters, with -, _ or space only inside."
    }

    /// The 1.1 member name rules: globally allowed characters at the ends, `-`, `_` and space also
    /// allowed inside, none of the reserved characters.
    static func isValidMemberName(_ name: Substring) -> Bool {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return false }
        func globallyAllowed(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCIIAlphanumeric || scalar.value >= 0x80 }
        guard globallyAllowed(first), globallyAllowed(last) else { return false }
        return scalars.allSatisfy { globallyAllowed($0) || $0 == "-" || $0 == "_" || $0 == " " }
    }

    /// An implementation-defined member name (an attribute, a relationship, a member of meta or
    /// of an attribute's value): @-members are left alone; extension members are allowed where
    /// `allowExtension` says so and checked in their two parts.
    mutating func checkMemberName(
        _ name: String,
        pointer: @autoclosure () -> String,
        position: JSONPosition,
        allowExtension: Bool
    ) {
        if name.hasPrefix("@") { return }
        if allowExtension, let colon = name.firstIndex(of: ":") {
            if let fault = Self.extensionNameFault(name, colon: colon) { report(pointer(), position, fault) }
            return
        }
        if !Self.isValidMemberName(Substring(name)) { report(pointer(), position, Self.badName(name)) }
    }

    /// The member names of every object inside `value` (an attribute's value, a meta object's
    /// member), at any depth. Iterative, so a deep value cannot exhaust the stack.
    mutating func checkNestedNames(in value: JSONTape.Value, pointer: String, allowExtension: Bool) {
        guard value.kind == .objectStart || value.kind == .arrayStart else { return }
        var pending = [(value, pointer)]
        while let (container, path) = pending.popLast() {
            if container.kind == .objectStart, let members = try? container.members() {
                for member in members {
                    let memberPath = path + "/" + jsonPointerEscaped(member.key)
                    checkMemberName(
                        member.key,
                        pointer: memberPath,
                        position: member.value.position,
                        allowExtension: allowExtension
                    )
                    if member.value.kind == .objectStart || member.value.kind == .arrayStart {
                        pending.append((member.value, memberPath))
                    }
                }
            } else if container.kind == .arrayStart, let elements = try? container.elements() {
                for (index, element) in elements.enumerated()
                where element.kind == .objectStart || element.kind == .arrayStart {
                    pending.append((element, "\(path)/\(index)"))
                }
            }
        }
    }

    // MARK: Names given twice

    /// Reports each member whose name an earlier member of the same object has, in every object
    /// inside `value`, at any depth. A warning: RFC 8259 says only that names SHOULD be unique, and
    /// JSON:API adds nothing; but readers differ on which value they keep (the first, the last, or
    /// an error), so such a document means different things to different clients.
    ///
    /// One pass over the value's tokens with a stack of open objects, rather than a walk through
    /// `members()`: every resource goes through here, and the walk makes a `Value` and a `String`
    /// per member. Pointers are spelled only for a report.
    mutating func checkDuplicateNames(in value: JSONTape.Value, pointer: String) {
        guard value.kind == .objectStart || value.kind == .arrayStart else { return }
        let tape = value.tape
        // Taken out, not copied: a copy would share the buffers with `duplicateScratch`, and the
        // first append would then allocate new ones for every resource.
        var (keys, objects) = duplicateScratch
        duplicateScratch = ([], [])
        defer {
            keys.removeAll(keepingCapacity: true)
            objects.removeAll(keepingCapacity: true)
            duplicateScratch = (keys, objects)
        }
        for index in value.index..<value.endIndex {
            let token = tape[index]
            switch token.kind {
            case .objectStart:
                objects.append(OpenObject(firstKey: keys.count))
            case .objectEnd:
                guard let object = objects.popLast() else { continue }
                keys.removeSubrange(object.firstKey...)
            case .key:
                guard !objects.isEmpty else { continue }
                let top = objects.count - 1
                if let first = objects[top].insert(token, into: &keys, tape: tape) {
                    let name = tape.text(of: token)
                    report(
                        Self.pointer(to: index, in: value, from: pointer),
                        token.position,
                        Self.duplicateName(name, first: first),
                        severity: .warning
                    )
                }
            default:
                continue
            }
        }
    }

    /// An object whose members are being read: its keys are `keys[firstKey...]`, compared byte
    /// for byte while there are few (most objects have a handful of members, and no `String` is
    /// made for them), through a dictionary once there are many.
    struct OpenObject {
        let firstKey: Int
        private var table: [String: JSONPosition] = [:]
        private static let listLimit = 16

        init(firstKey: Int) { self.firstKey = firstKey }

        /// Adds the key `token`; returns where the same name first appeared when it is a repeat.
        mutating func insert(_ token: JSONToken, into keys: inout [JSONToken], tape: JSONTape) -> JSONPosition? {
            if table.isEmpty {
                for earlier in keys[firstKey...] where earlier.length == token.length {
                    if tape.withUnsafeText(of: earlier, { tape.text(of: token, equals: $0) }) {
                        return earlier.position
                    }
                }
                keys.append(token)
                if keys.count - firstKey > Self.listLimit {
                    for key in keys[firstKey...] { table[tape.text(of: key)] = key.position }
                }
                return nil
            }
            let name = tape.text(of: token)
            if let earlier = table[name] { return earlier }
            table[name] = token.position
            return nil
        }
    }

    static func duplicateName(_ name: String, first: JSONPosition) -> String {
        let shown = name.isEmpty ? "\"\"" : name
        return
            "The member \(shown) appears again in the same object (first at line \(first.line), column \(first.column)); names within an object should be unique (RFC 8259), and readers differ on which value they keep."
    }

    /// The pointer of the member whose key is the token at `keyIndex` inside `value` (at
    /// `pointer`): found by descending through the containers that hold it. Members and elements
    /// come in token order, so the first whose value ends after `keyIndex` holds it (a member's
    /// key stands just before its value).
    static func pointer(to keyIndex: Int, in value: JSONTape.Value, from pointer: String) -> String {
        var path = pointer
        var container = value
        while true {
            if let members = try? container.members(),
                let member = members.first(where: { keyIndex < $0.value.endIndex })
            {
                path += "/" + jsonPointerEscaped(member.key)
                if keyIndex < member.value.index { return path }
                container = member.value
            } else if let elements = try? container.elements(),
                let (position, element) = elements.enumerated().first(where: { keyIndex < $0.element.endIndex })
            {
                path += "/\(position)"
                container = element
            } else {
                return path
            }
        }
    }
}
