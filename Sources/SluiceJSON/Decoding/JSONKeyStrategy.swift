import Foundation

/// How a decoder finds the JSON member for a property's coding key.
///
/// Every strategy compares UTF-8 bytes in place: no `String` is made for a member name, except by
/// ``custom(_:)``, whose closure takes coding keys. Where a strategy accepts more than
/// one spelling, a member spelled exactly as the key wins over the others, wherever it stands.
public enum JSONKeyStrategy: Sendable {
    /// The member's name is the coding key, byte for byte.
    case useDefaultKeys
    /// The member's name is the coding key in snake_case: `firstName` reads `first_name`, and
    /// `myURLValue` reads `my_url_value`, as ``StreamingJSONEncoder``'s `convertToSnakeCase`
    /// writes it. Also read: a member spelled exactly as the key, and a member that Foundation's
    /// `convertFromSnakeCase` turns into the key (`FIRST_NAME` → `firstName`), so that this is
    /// a superset of Foundation's behaviour.
    case convertFromSnakeCase
    /// The member's name is the coding key in kebab-case: `firstName` reads `first-name`. Also
    /// read: the exact key, and names that become the key as in ``convertFromSnakeCase``.
    case convertFromKebabCase
    /// Letter case, `_` and `-` are ignored: `firstName` reads `firstName`, `FirstName`,
    /// `first_name`, `first-name` and `FiRst_NAme`. Comparison ignores ASCII letter case only.
    case loose
    /// Foundation's `JSONDecoder.KeyDecodingStrategy.custom`: the function turns the coding path
    /// of each member (ending with the member's name as written) into the coding key it stands
    /// for. Calls the function once per member of every object decoded, so it is the slowest
    /// strategy. The same closure shape as `StreamingJSONEncoder.KeyEncodingStrategy.custom`.
    case custom(@Sendable ([any CodingKey]) -> any CodingKey)
    /// The member's name is what the function returns for the coding key's string value: called
    /// once per key looked up, and no `String` is made per member, so it is much cheaper than
    /// ``custom(_:)``. The encoder's `memberName` writes the same names.
    case memberName(@Sendable (String) -> String)

    /// Calls `body` with a matcher that tells whether a member name (UTF-8 bytes) stands for `key`.
    /// The key's bytes (or a custom strategy's member name) are prepared once, so a lookup that
    /// compares many member names pays for the key only once. The matcher accepts every spelling
    /// the strategy allows; ``member(forKey:search:)`` also lets an exact spelling win.
    package func withMatcher<R>(forKey key: String, _ body: ((UnsafeRawBufferPointer) -> Bool) -> R) -> R {
        var target: String
        switch self {
        case .useDefaultKeys, .convertFromSnakeCase, .convertFromKebabCase, .loose: target = key
        case .memberName(let transform): target = transform(key)
        case .custom(let transform):
            return body { name in
                transform([AnyCodingKey(String(decoding: name, as: UTF8.self))]).stringValue == key
            }
        }
        return target.withUTF8 { keyBytes in
            let keyBuffer = UnsafeRawBufferPointer(keyBytes)
            switch self {
            case .convertFromSnakeCase, .convertFromKebabCase:
                let separator = separatorByte
                return body { name in
                    name.hasSameBytes(as: keyBuffer)
                        || Self.matchesSeparated(name, keyBytes: keyBuffer, separator: separator)
                        || Self.camelCaseEquals(name, keyBuffer, separator: separator)
                }
            case .loose:
                return body { name in Self.looselyEquals(name, keyBuffer) }
            default:
                return body { name in name.hasSameBytes(as: keyBuffer) }
            }
        }
    }

    /// The value of the member of `object` that stands for `key`: the exact spelling first, then
    /// any other the strategy accepts.
    package func firstMember(of object: JSONTape.Value, forKey key: String) -> JSONTape.Value? {
        member(forKey: key) { object.firstMember(where: $0) }
    }

    /// The member that stands for `key`, found by `search` (which returns the first member whose
    /// name satisfies its predicate, in whatever order it looks): the exact spelling first, then
    /// any other the strategy accepts. The tape decoder searches from its cursor; others from
    /// the start of the object.
    ///
    /// Inlined, with the default strategy first: the tape decoder calls it for every property.
    @inline(__always)
    package func member(
        forKey key: String,
        search: ((UnsafeRawBufferPointer) -> Bool) -> JSONTape.Value?
    ) -> JSONTape.Value? {
        switch self {
        case .useDefaultKeys:
            var key = key
            return key.withUTF8 { keyBytes in search { $0.hasSameBytes(as: UnsafeRawBufferPointer(keyBytes)) } }
        case .memberName, .custom:
            return withMatcher(forKey: key, search)
        case .convertFromSnakeCase, .convertFromKebabCase, .loose:
            var key = key
            return key.withUTF8 { keyBytes in
                let keyBuffer = UnsafeRawBufferPointer(keyBytes)
                if let exact = search({ $0.hasSameBytes(as: keyBuffer) }) { return exact }
                if case .loose = self {
                    return search { Self.looselyEquals($0, keyBuffer) }
                }
                let separator = separatorByte
                return search { name in
                    Self.matchesSeparated(name, keyBytes: keyBuffer, separator: separator)
                        || Self.camelCaseEquals(name, keyBuffer, separator: separator)
                }
            }
        }
    }

    private var separatorByte: UInt8 {
        if case .convertFromKebabCase = self { return UInt8(ascii: "-") }
        return UInt8(ascii: "_")
    }

    /// Whether `name` is `key` split into words as ``StreamingJSONEncoder``'s
    /// `convertToSnakeCase` / `convertToKebabCase` write it (Foundation's splitting, see
    /// `KeyWords.separated`), compared on bytes: `firstName` → `first_name`, `myURLValue` →
    /// `my_url_value`, `URLString` → `u_rl_string`. One rule for both directions, so what Sluice
    /// encodes it decodes. ASCII letters only change case.
    private static func matchesSeparated(
        _ name: UnsafeRawBufferPointer,
        keyBytes: UnsafeRawBufferPointer,
        separator: UInt8
    ) -> Bool {
        var index = 0
        let matched = separatedBytes(of: keyBytes, separator: separator) { byte in
            guard index < name.count, name[index] == byte else { return false }
            index += 1
            return true
        }
        return matched && index == name.count
    }

    /// Hands `body` the bytes of `key` split into words as Foundation's `convertToSnakeCase`
    /// splits it, ASCII capitals lowercased and `separator` between words, until `body` returns
    /// `false`; returns whether it accepted them all. From the second byte on, each capital ends
    /// the word before it; when the next lowercase letter does not follow it directly, the
    /// capitals up to the one before that letter form a word of their own.
    @inline(__always)
    private static func separatedBytes(
        of key: UnsafeRawBufferPointer,
        separator: UInt8,
        _ body: (UInt8) -> Bool
    ) -> Bool {
        func isUpper(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "A") < 26 }
        func isLower(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "a") < 26 }
        let count = key.count
        guard count > 0 else { return true }
        var first = true
        func word(_ range: Range<Int>) -> Bool {
            if !first, !body(separator) { return false }
            first = false
            for offset in range {
                let byte = key[offset]
                if !body(isUpper(byte) ? byte | 0x20 : byte) { return false }
            }
            return true
        }
        var wordStart = 0
        var searchFrom = 1
        while true {
            var capital = searchFrom
            while capital < count, !isUpper(key[capital]) { capital += 1 }
            guard capital < count else { break }
            if !word(wordStart..<capital) { return false }
            var lower = capital + 1
            while lower < count, !isLower(key[lower]) { lower += 1 }
            guard lower < count else {
                wordStart = capital
                break
            }
            if lower == capital + 1 {
                wordStart = capital
            } else {
                if !word(capital..<lower - 1) { return false }
                wordStart = lower - 1
            }
            searchFrom = lower + 1
        }
        return word(wordStart..<count)
    }

    /// Whether Foundation's snake_case conversion turns `name` into `key` (see
    /// ``withCamelCaseConversion(of:separator:_:)``, which both this matcher and the generated
    /// readers' tables use, so the two cannot drift apart). A name with a single word is left as
    /// it is, so it matches only exactly.
    private static func camelCaseEquals(
        _ name: UnsafeRawBufferPointer,
        _ key: UnsafeRawBufferPointer,
        separator: UInt8
    ) -> Bool {
        withCamelCaseConversion(of: name, separator: separator) { converted in
            converted?.hasSameBytes(as: key) ?? false
        }
    }

    // MARK: Spellings, for the generated readers' tables
    //
    // The generated readers look a member's name up in tables of spellings made once per type,
    // rather than running a matcher per property. Each function below gives the one spelling
    // that the matcher above accepts, so both paths find the same member: the tests check each
    // against its matcher.

    /// The only name `matchesSeparated` accepts for `key`: `myURLValue` → `my_url_value`.
    package static func separatedSpelling(of key: [UInt8], separator: UInt8) -> [UInt8] {
        var spelling: [UInt8] = []
        spelling.reserveCapacity(key.count + 4)
        _ = key.withUnsafeBytes { keyBytes in
            separatedBytes(of: keyBytes, separator: separator) { byte in
                spelling.append(byte)
                return true
            }
        }
        return spelling
    }

    /// `name` as `looselyEquals` compares it: ASCII letters lowercased, `_` and `-` dropped. Two
    /// names are loosely equal exactly when their loose spellings are the same.
    package static func looseSpelling(of name: [UInt8]) -> [UInt8] {
        name.filter { !isLooseSeparator($0) }.map(lowercased)
    }

    /// Calls `body` with the loose spelling of `name`, made in temporary storage.
    package static func withLooseSpelling<R>(
        of name: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(byteCount: max(name.count, 1), alignment: 1) { buffer in
            var count = 0
            for byte in name where !isLooseSeparator(byte) {
                buffer[count] = lowercased(byte)
                count += 1
            }
            return body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Calls `body` with Foundation's camel-case conversion of `name`, or with `nil` for a name it
    /// leaves as it is (a single word): separators at either end are kept, the words between them
    /// are joined, the first in lowercase and the others with an uppercase first letter and
    /// lowercase after it, as Foundation's `capitalized` has it (`snake_ćase` → `snakeĆase`,
    /// `user_2fa` → `user2Fa`).
    package static func withCamelCaseConversion<R>(
        of name: UnsafeRawBufferPointer,
        separator: UInt8,
        _ body: (UnsafeRawBufferPointer?) -> R
    ) -> R {
        // Words of ASCII letters only, nearly all names, on bytes. Anything else through
        // `String`, whose `capitalized` also starts a word after a digit (`2fa` -> `2Fa`) and
        // maps letters beyond ASCII, as Foundation's conversion does.
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        if name.contains(where: { $0 != separator && !isLetter($0) }) {
            guard var converted = unicodeCamelCase(String(decoding: name, as: UTF8.self), separator: separator) else {
                return body(nil)
            }
            return converted.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
        var start = 0
        while start < name.count && name[start] == separator { start += 1 }
        var end = name.count
        while end > start && name[end - 1] == separator { end -= 1 }
        guard (start..<end).contains(where: { name[$0] == separator }) else { return body(nil) }
        return withUnsafeTemporaryAllocation(byteCount: name.count, alignment: 1) { buffer in
            var count = 0
            for _ in 0..<start {
                buffer[count] = separator
                count += 1
            }
            var firstWord = true
            var atWordStart = true
            for index in start..<end {
                let byte = name[index]
                if byte == separator {
                    if !atWordStart { firstWord = false }
                    atWordStart = true
                    continue
                }
                buffer[count] = atWordStart && !firstWord ? uppercased(byte) : lowercased(byte)
                count += 1
                atWordStart = false
            }
            for _ in end..<name.count {
                buffer[count] = separator
                count += 1
            }
            return body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// `withCamelCaseConversion` for names with anything but ASCII letters: the same words, with
    /// `String`'s case mappings and Foundation's `capitalized`, as its conversion has them.
    private static func unicodeCamelCase(_ name: String, separator: UInt8) -> String? {
        let mark = Character(Unicode.Scalar(separator))
        let leading = name.prefix { $0 == mark }
        let rest = name.dropFirst(leading.count)
        let trailing = rest.reversed().prefix { $0 == mark }
        let middle = rest.dropLast(trailing.count)
        let words = middle.split(separator: mark)
        guard let first = words.first, words.count > 1 else { return nil }
        let others = words.dropFirst().map(\.capitalized)
        return String(leading) + first.lowercased() + others.joined() + String(trailing)
    }

    /// Whether `name` stands for `key` under this strategy: the matcher both paths agree with,
    /// for tests of the spelling tables.
    package func matches(_ name: [UInt8], key: String) -> Bool {
        name.withUnsafeBytes { name in withMatcher(forKey: key) { $0(name) } }
    }

    /// Equality ignoring ASCII letter case, `_` and `-`.
    static func looselyEquals(_ name: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) -> Bool {
        var nameIndex = 0
        var keyIndex = 0
        while true {
            while nameIndex < name.count && isLooseSeparator(name[nameIndex]) { nameIndex += 1 }
            while keyIndex < key.count && isLooseSeparator(key[keyIndex]) { keyIndex += 1 }
            guard nameIndex < name.count, keyIndex < key.count else {
                return nameIndex == name.count && keyIndex == key.count
            }
            guard lowercased(name[nameIndex]) == lowercased(key[keyIndex]) else { return false }
            nameIndex += 1
            keyIndex += 1
        }
    }

    private static func isLooseSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func uppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }

    /// The member name a property's key reads under this strategy: `firstName` → `first_name`.
    package func memberName(forProperty key: String) -> String {
        switch self {
        case .useDefaultKeys, .loose, .custom: return key
        case .convertFromSnakeCase: return Self.separated(key, separator: "_")
        case .convertFromKebabCase: return Self.separated(key, separator: "-")
        case .memberName(let transform): return transform(key)
        }
    }

    /// The coding key name `allKeys` gives for the member `name`: under the snake and kebab
    /// strategies, Foundation's conversion of it (`first_name` → `firstName`, `ALL_CAPS` →
    /// `allCaps`), else the name as written.
    package func keyName(forMember name: String) -> String {
        let separator: UInt8
        switch self {
        case .custom(let transform): return transform([AnyCodingKey(name)]).stringValue
        case .convertFromSnakeCase: separator = UInt8(ascii: "_")
        case .convertFromKebabCase: separator = UInt8(ascii: "-")
        case .useDefaultKeys, .loose, .memberName: return name
        }
        // Foundation's conversion, as its allKeys names members (`ALL_CAPS` → `allCaps`), which
        // the lookup accepts too.
        var bytes = name
        return bytes.withUTF8 { utf8 in
            Self.withCamelCaseConversion(of: UnsafeRawBufferPointer(utf8), separator: separator) { converted in
                converted.map { String(decoding: $0, as: UTF8.self) } ?? name
            }
        }
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
