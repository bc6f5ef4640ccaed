import Foundation

/// The JSON:API media type with its two permitted parameters.
struct JSONAPIMediaType {
    static let name = "application/vnd.api+json"
    var extensions: [String] = []
    var profiles: [String] = []
    /// Whether the parsed value named the JSON:API media type.
    var isJSONAPI = false
    /// The media type, lowercased, without parameters (`application/json`).
    var essence = ""

    init(extensions: [String], profiles: [String]) {
        self.extensions = extensions
        self.profiles = profiles
        isJSONAPI = true
        essence = Self.name
    }

    /// Reads a `Content-Type` value, keeping only `ext` and `profile`: clients must ignore the
    /// other parameters of the JSON:API media type in responses.
    init(parsing value: String?) {
        guard let value else { return }
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        essence = parts.first?.lowercased() ?? ""
        isJSONAPI = essence == Self.name
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            let list = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").map(
                String.init
            )
            switch pair[0].lowercased() {
            case "ext": extensions = list
            case "profile": profiles = list
            default: continue
            }
        }
    }

    /// `application/vnd.api+json; ext="..."; profile="..."`, values quoted as HTTP requires.
    var headerValue: String {
        var value = Self.name
        if !extensions.isEmpty { value += "; ext=\"\(extensions.joined(separator: " "))\"" }
        if !profiles.isEmpty { value += "; profile=\"\(profiles.joined(separator: " "))\"" }
        return value
    }

    /// Whether a body of this type can be a JSON document: the JSON:API media type, JSON, any
    /// `+json` type; a missing `Content-Type` is given the benefit of the doubt.
    var isJSON: Bool {
        essence.isEmpty || essence == "application/json" || essence.hasSuffix("+json") || essence == "text/json"
    }
}
