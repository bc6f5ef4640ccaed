// How the encoders' snake and kebab key strategies split a key into words. One file for two
// targets: SluiceJSON converts keys at run time with it, and SluiceMacrosPlugin (a symbolic link to
// this file) converts a `@JSONModel` model's member names at expansion time, so the generated
// writers' names and the general path's cannot drift apart. The plugin is built for the host and
// cannot depend on SluiceJSON (which links yajl), hence the link rather than an import.

enum KeyWords {
    /// Word splitting: a new word at a lowercase-to-uppercase step, and before the last capital
    /// of a run followed by a lowercase letter (`myURLValue` → `my_url_value`). Agrees with
    /// Foundation on camelCase keys; keys with acronyms or underscores may differ. The decoder's
    /// snake/kebab strategies accept this spelling too (`JSONKeyStrategy.matchesSeparated`, the
    /// same rule on bytes), so every key round-trips.
    static func separated(_ key: String, _ separator: Character) -> String {
        let characters = Array(key)
        guard !characters.isEmpty else { return key }
        var result = ""
        for (index, character) in characters.enumerated() {
            if index > 0, isUpper(character) {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && isLower(characters[index + 1])
                if isLower(previous) || previous.isNumber || (isUpper(previous) && nextIsLower) {
                    result.append(separator)
                }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// A character's case is its first scalar's, as Foundation's splitter reads letters: a
    /// combining mark after a letter (`L̥ͅ`) does not change which case the letter is, where
    /// `Character.isUppercase` would say neither.
    private static func isUpper(_ character: Character) -> Bool {
        character.unicodeScalars.first?.properties.isUppercase ?? false
    }

    private static func isLower(_ character: Character) -> Bool {
        character.unicodeScalars.first?.properties.isLowercase ?? false
    }
}
