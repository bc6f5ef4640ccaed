// How the encoders' snake and kebab key strategies split a key into words. One file for two
// targets: SluiceJSON converts keys at run time with it, and SluiceMacrosExpansion (a symbolic link
// to this file) converts a `@JSONModel` model's member names at expansion time, so the generated
// writers' names and the general path's cannot drift apart. The macro is built for the host and
// cannot depend on SluiceJSON (which links yajl), hence the link rather than an import.

enum KeyWords {
    /// Word splitting as Foundation's `convertToSnakeCase` splits, so that both write the same
    /// names: from the second character on, each uppercase letter ends the word before it; when
    /// the next lowercase letter does not follow that capital directly, the capitals up to the one
    /// before it form a word of their own (`myURLValue` → `my_url_value`, `URLs` → `u_r_ls`); the
    /// last word runs to the end. Words may be empty (`a_B` → `a__b`), and every word is
    /// lowercased. The decoder's snake and kebab strategies read these spellings back (through
    /// Foundation's conversion of the name) and Sluice's earlier ones too
    /// (`JSONKeyStrategy.matchesSeparated`).
    static func separated(_ key: String, _ separator: Character) -> String {
        let characters = Array(key)
        guard !characters.isEmpty else { return key }
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchFrom = 1
        while let capital = (searchFrom..<characters.count).first(where: { isUpper(characters[$0]) }) {
            words.append(wordStart..<capital)
            guard let lower = (capital..<characters.count).first(where: { isLower(characters[$0]) }) else {
                wordStart = capital
                break
            }
            if lower == capital + 1 {
                wordStart = capital
            } else {
                // A run of capitals: a word up to the capital that starts the lowercase word.
                words.append(capital..<lower - 1)
                wordStart = lower - 1
            }
            searchFrom = lower + 1
        }
        words.append(wordStart..<characters.count)
        var result = ""
        for (index, word) in words.enumerated() {
            if index > 0 { result.append(separator) }
            for character in characters[word] { result.append(contentsOf: character.lowercased()) }
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
