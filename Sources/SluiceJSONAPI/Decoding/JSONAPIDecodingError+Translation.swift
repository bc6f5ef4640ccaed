// How a model's `DecodingError` becomes an error that says where in the document the fault is:
// the JSON Pointer of the member, its position, an excerpt and the Swift property, in the
// validator's words where a rule of the specification is what the value breaks.

import Foundation
import SluiceJSON

extension JSONAPIDecodingError {
    /// A model's `DecodingError` as a `JSONAPIDecodingError` whose pointer names the member in the
    /// document: `/data/0/attributes/title`, `/included/2/relationships/author/data`.
    static func translating(
        _ error: DecodingError,
        in view: ResourceObjectView,
        pointer: String,
        model: any Resource.Type,
        keyStrategy: JSONKeyStrategy
    ) -> JSONAPIDecodingError {
        let (path, context) = Self.pathAndContext(of: error)
        let resourcePointer = pointer
        var pointer = pointer
        var value = view.value
        if let first = path.first {
            let name = first.stringValue
            if ["id", "lid", "type"].contains(name) {
                pointer += "/" + name
                value = (name == "id" ? view.id : name == "lid" ? view.lid : view.type) ?? value
            } else if let field = view.field(name, strategy: keyStrategy) {
                // The member's name as written: the key token just before its value.
                let written = field.value.tape.text(of: field.value.tape[field.value.index - 1])
                pointer += (field.isRelationship ? "/relationships/" : "/attributes/") + escape(written)
                value = field.value
            } else if name == "meta" || name == "links" {
                pointer += "/" + name
                value = (name == "meta" ? view.meta : view.links) ?? value
            }
            (pointer, value) = descend(
                path.dropFirst(),
                from: value,
                pointer: pointer,
                strategy: keyStrategy
            )
        }
        var message = Self.sentence(of: error, context: context, at: value)
        if case .keyNotFound(let key, _) = error, path.count <= 1 {
            message = "The resource has no attribute or relationship \"\(key.stringValue)\"."
            if ["id", "lid", "type"].contains(key.stringValue) {
                message = "The resource object has no \(key.stringValue) member."
            } else if let hint = spellingHint(for: key.stringValue, in: view) {
                message += " " + hint
            }
        }
        let excerpt = Self.excerpt(of: value)
        return Self.inSpecificationWords(
            JSONAPIDecodingError(
                pointer: pointer,
                position: value.position,
                message: message,
                underlyingError: error,
                property: Self.swiftName(of: error, path: path, model: model),
                excerpt: excerpt.text,
                excerptColumn: excerpt.column
            ),
            faults: DocumentRules.errors(in: view.value, as: .resource, at: resourcePointer)
        )
    }

    /// `error`, or the validator's sentence when one of `faults` (what the validator's rules find
    /// in the value that failed) stands at the same pointer (or, for a missing member, at the
    /// object that lacks it, which the validator names since the member has no position): a value
    /// that breaks the specification reads the same here as in `sluice validate`. The rules run
    /// only once decoding has failed, so they cost nothing on the way to success.
    private static func inSpecificationWords(
        _ error: JSONAPIDecodingError,
        faults: [JSONAPIViolation]
    ) -> JSONAPIDecodingError {
        var missingMember = false
        if case .keyNotFound? = error.underlyingError as? DecodingError { missingMember = true }
        let parent = error.pointer.lastIndex(of: "/").map { String(error.pointer[..<$0]) }
        guard
            let fault = faults.first(where: { $0.pointer == error.pointer })
                ?? (missingMember ? faults.first(where: { $0.pointer == parent }) : nil)
        else { return error }
        var worded = error
        worded.pointer = fault.pointer
        worded.position = fault.position
        worded.message = fault.message
        return worded
    }

    /// What the decoder said of the fault: its message alone when the fault is at `value`, whose
    /// position the error states first; its whole sentence, place included, when it lies
    /// elsewhere (deeper than the pointer reaches, or for a fault that is no `JSONError`).
    private static func sentence(
        of error: DecodingError,
        context: DecodingError.Context?,
        at value: JSONTape.Value
    ) -> String {
        guard let context else { return "\(error)" }
        if let fault = context.underlyingError as? JSONError, fault.position == value.position { return fault.message }
        return context.debugDescription
    }

    /// `Post.publishedAt: Date`: the model type, the coding path in Swift's notation, and the type
    /// the model asked for when the error names it.
    private static func swiftName(of error: DecodingError, path: [any CodingKey], model: any Resource.Type) -> String {
        var name = String(describing: model)
        for key in path {
            // An element key's name is its index, or `Index 3` as Foundation's coders name it; a
            // member key's is its name, even when it has an integer value too (CodingKeys with Int
            // raw values).
            if let index = key.intValue, key.stringValue == String(index) || key.stringValue == "Index \(index)" {
                name += "[\(index)]"
            } else {
                name += "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(let type, _), .valueNotFound(let type, _): name += ": \(type)"
        default: break
        }
        return name
    }

    /// When a property's member is missing but one spelled differently is there, the key strategy
    /// that would find it: `"published-at" is present: set keyDecodingStrategy = .convertFromKebabCase.`
    private static func spellingHint(for key: String, in view: ResourceObjectView) -> String? {
        let tape = view.value.tape
        var found: String?
        JSONKeyStrategy.loose.withMatcher(forKey: key) { matches in
            view.forEachField { name, _, _ in
                guard found == nil else { return }
                tape.withUnsafeText(of: name) { bytes in if matches(bytes) { found = tape.text(of: name) } }
            }
        }
        guard let found else { return nil }
        let strategy =
            found.contains("-") ? ".convertFromKebabCase" : found.contains("_") ? ".convertFromSnakeCase" : ".loose"
        return "\"\(found)\" is present: set keyDecodingStrategy = \(strategy)."
    }

    /// The value as it reads in the document, member name first, on one line of at most 72
    /// characters, and the column where the value starts. Rendered from the tape (the input's
    /// bytes are gone by now), so spacing is the canonical one, not the input's.
    private static func excerpt(of value: JSONTape.Value) -> (text: String, column: Int) {
        let tape = value.tape
        var text = ""
        if value.index > tape.startIndex, tape[value.index - 1].kind == .key {
            var bytes: [UInt8] = []
            JSONValue.writeString(tape.text(of: tape[value.index - 1]), into: &bytes)
            text = String(decoding: bytes, as: UTF8.self) + ": "
        }
        let column = text.count
        let limit = 72
        guard column < limit, let rendered = try? value.jsonValue().jsonText else { return ("", 0) }
        text += rendered
        if text.count > limit { text = String(text.prefix(limit - 1)) + "\u{2026}" }
        return (text, column)
    }

    /// A `DecodingError` of one of the specification's own objects (links, `jsonapi`, error
    /// objects, identifiers, raw resources) as a `JSONAPIDecodingError` pointing into `value`.
    static func translating(
        _ error: DecodingError,
        at value: JSONTape.Value,
        pointer: String,
        as role: DocumentRules.Role
    ) -> JSONAPIDecodingError {
        let (path, context) = Self.pathAndContext(of: error)
        let (fullPointer, deepest) = descend(path[...], from: value, pointer: pointer, strategy: .useDefaultKeys)
        let excerpt = Self.excerpt(of: deepest)
        return Self.inSpecificationWords(
            JSONAPIDecodingError(
                pointer: fullPointer,
                position: deepest.position,
                message: Self.sentence(of: error, context: context, at: deepest),
                underlyingError: error,
                excerpt: excerpt.text,
                excerptColumn: excerpt.column
            ),
            faults: DocumentRules.errors(in: value, as: role, at: pointer)
        )
    }

    /// Follows coding keys down from `value`, extending the pointer as far as the values go.
    /// Members are found as the decoder found them, under `strategy`, and named as written.
    private static func descend(
        _ path: ArraySlice<any CodingKey>,
        from value: JSONTape.Value,
        pointer: String,
        strategy: JSONKeyStrategy
    ) -> (String, JSONTape.Value) {
        var pointer = pointer
        var value = value
        for key in path {
            if let index = key.intValue, value.kind == .arrayStart, let element = value[index] {
                pointer += "/\(index)"
                value = element
            } else if value.kind == .objectStart,
                let member = strategy.withMatcher(forKey: key.stringValue, { value.firstMember(where: $0) })
            {
                pointer += "/" + escape(member.tape.text(of: member.tape[member.index - 1]))
                value = member
            } else {
                pointer += "/" + escape(key.stringValue)
                break
            }
        }
        return (pointer, value)
    }

    private static func pathAndContext(of error: DecodingError) -> ([any CodingKey], DecodingError.Context?) {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return (context.codingPath, context)
        case .keyNotFound(let key, let context):
            return (context.codingPath + [key], context)
        @unknown default:
            return ([], nil)
        }
    }

    private static func escape(_ token: String) -> String { jsonPointerEscaped(token) }
}
