// A nested decode's errors with the coding path of where it stands put in front.

import Foundation

extension DecodingError {
    /// The same error with `prefix` put before its coding path.
    package func prefixingCodingPath(_ prefix: [any CodingKey]) -> DecodingError {
        guard !prefix.isEmpty else { return self }
        return mappingContext { context in
            Context(
                codingPath: prefix + context.codingPath,
                debugDescription: context.debugDescription,
                underlyingError: context.underlyingError
            )
        }
    }

    /// The same error with its context changed by `transform`.
    package func mappingContext(_ transform: (Context) -> Context) -> DecodingError {
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, transform(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, transform(context))
        case .keyNotFound(let key, let context): return .keyNotFound(key, transform(context))
        case .dataCorrupted(let context): return .dataCorrupted(transform(context))
        @unknown default: return self
        }
    }
}

extension DecodingError.Context {
    /// The context of a decoding fault: the fault itself as the underlying error, so that a
    /// reader wording its own messages (the JSON:API decoder) takes its fields, and its sentence
    /// with the place as the description.
    init(codingPath: [any CodingKey], fault: JSONError) {
        self.init(codingPath: codingPath, debugDescription: fault.messageWithPlace, underlyingError: fault)
    }
}
