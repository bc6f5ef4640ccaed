/// How a decoder finds the JSON member for a property's coding key.
public enum JSONKeyStrategy: Sendable {
    /// The member's name is the coding key, byte for byte.
    case useDefaultKeys
    /// The member's name is the coding key in snake_case: `firstName` reads `first_name`.
    /// A member spelled exactly as the key is accepted too.
    case convertFromSnakeCase
    /// The member's name is the coding key in kebab-case: `firstName` reads `first-name`.
    /// A member spelled exactly as the key is accepted too.
    case convertFromKebabCase
    /// The member's name is what the function returns for the coding key's string value.
    case custom(@Sendable (String) -> String)

    /// Calls `body` with a matcher that tells whether a member name (UTF-8 bytes) stands for `key`.
    /// The key's bytes (or a custom strategy's member name) are prepared once, so a lookup that
    /// compares many member names pays for the key only once.
    package func withMatcher<R>(forKey key: String, _ body: ((UnsafeRawBufferPointer) -> Bool) -> R) -> R {
        var target: String
        var separator: UInt8?
        switch self {
        case .useDefaultKeys: target = key
        case .convertFromSnakeCase:
            target = key
            separator = UInt8(ascii: "_")
        case .convertFromKebabCase:
            target = key
            separator = UInt8(ascii: "-")
        case .custom(let transform): target = transform(key)
        }
        return target.withUTF8 { keyBytes in
            let keyBuffer = UnsafeRawBufferPointer(keyBytes)
            if let separator {
                return body { name in
                    name.hasSameBytes(as: keyBuffer)
                        || Self.matchesSeparated(name, keyBytes: keyBuffer, separator: separator)
                }
            }
            return body { name in name.hasSameBytes(as: keyBuffer) }
        }
    }

    /// `firstName` against `first_name`, on bytes: each uppercase ASCII letter after the first
    /// character stands for the separator and the letter in lowercase.
    private static func matchesSeparated(
        _ name: UnsafeRawBufferPointer,
        keyBytes: UnsafeRawBufferPointer,
        separator: UInt8
    ) -> Bool {
        guard name.count > keyBytes.count else { return false }
        var index = 0
        for (offset, byte) in keyBytes.enumerated() {
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && offset > 0 {
                guard index + 1 < name.count, name[index] == separator, name[index + 1] == byte + 32 else {
                    return false
                }
                index += 2
            } else {
                guard index < name.count, name[index] == byte else { return false }
                index += 1
            }
        }
        return index == name.count
    }

    /// The member name a property's key reads under this strategy: `firstName` → `first_name`.
    package func memberName(forProperty key: String) -> String {
        switch self {
        case .useDefaultKeys: return key
        case .convertFromSnakeCase: return Self.separated(key, separator: "_")
        case .convertFromKebabCase: return Self.separated(key, separator: "-")
        case .custom(let transform): return transform(key)
        }
    }

    /// The coding key name `allKeys` gives for the member `name`: its property name when looking
    /// that up finds this member again (`first_name` → `firstName`), else the name as written,
    /// which the lookup accepts too (`user_2fa` would read as `user2fa`, which looks for
    /// `user2fa`).
    package func keyName(forMember name: String) -> String {
        let property = propertyName(forMember: name)
        return property != name && memberName(forProperty: property) == name ? property : name
    }

    /// The property name a member name stands for: `first_name` → `firstName`.
    /// Custom strategies cannot be inverted; their member names are returned as they are.
    package func propertyName(forMember name: String) -> String {
        let separator: Character
        switch self {
        case .convertFromSnakeCase: separator = "_"
        case .convertFromKebabCase: separator = "-"
        case .useDefaultKeys, .custom: return name
        }
        let parts = name.split(separator: separator, omittingEmptySubsequences: true)
        guard parts.count > 1 else { return name }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    private static func separated(_ key: String, separator: Character) -> String {
        var result = ""
        for (offset, character) in key.enumerated() {
            if character.isASCII && character.isUppercase && offset > 0 {
                result.append(separator)
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }

}
