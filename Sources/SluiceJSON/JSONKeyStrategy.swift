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

    /// Whether the member name `name` (UTF-8 bytes) stands for the coding key `key` under this
    /// strategy. Compares bytes as it converts, making no `String`.
    package func matches(_ name: UnsafeRawBufferPointer, key: String) -> Bool {
        switch self {
        case .useDefaultKeys:
            return Self.equal(name, key)
        case .convertFromSnakeCase:
            return Self.equal(name, key) || Self.matchesSeparated(name, key: key, separator: UInt8(ascii: "_"))
        case .convertFromKebabCase:
            return Self.equal(name, key) || Self.matchesSeparated(name, key: key, separator: UInt8(ascii: "-"))
        case .custom(let transform):
            return Self.equal(name, transform(key))
        }
    }

    private static func equal(_ name: UnsafeRawBufferPointer, _ key: String) -> Bool {
        var key = key
        return key.withUTF8 { keyBytes in
            keyBytes.count == name.count && keyBytes.elementsEqual(name)
        }
    }

    /// `firstName` against `first_name`: each uppercase ASCII letter after the first character
    /// stands for the separator and the letter in lowercase.
    private static func matchesSeparated(_ name: UnsafeRawBufferPointer, key: String, separator: UInt8) -> Bool {
        var index = 0
        var first = true
        for byte in key.utf8 {
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && !first {
                guard index + 1 < name.count, name[index] == separator, name[index + 1] == byte + 32 else {
                    return false
                }
                index += 2
            } else {
                guard index < name.count, name[index] == byte else { return false }
                index += 1
            }
            first = false
        }
        return index == name.count
    }
}
