import SluiceJSON

/// The resource models a decoder knows, by their `type`.
///
/// Heterogeneous `included` and polymorphic relationships decode each resource to the model
/// registered for its `type`. A type with no model is kept raw (``RawResource``) by default; in
/// strict mode it is an error naming the type and where it stands.
///
/// ```swift
/// let registry: ResourceRegistry = [Article.self, Person.self, Comment.self]
/// ```
public struct ResourceRegistry: @unchecked Sendable, ExpressibleByArrayLiteral {
    // @unchecked: the entries are metatypes and byte arrays, immutable once registered; Swift does
    // not see `any Resource.Type` as Sendable only because `Resource` does not require it.
    private var entries: [(name: [UInt8], type: any Resource.Type)] = []

    /// Creates a registry of `types`. A later type with the same `resourceType` replaces an earlier one.
    public init(_ types: [any Resource.Type]) {
        for type in types { register(type) }
    }

    public init(arrayLiteral types: (any Resource.Type)...) {
        self.init(types)
    }

    /// Adds `type`, replacing any model registered for the same `resourceType`.
    public mutating func register(_ type: any Resource.Type) {
        guard type != AnyResource.self else { return }
        let name = Array(type.resourceType.utf8)
        entries.removeAll { $0.name == name }
        entries.append((name, type))
    }

    /// The names of the registered types.
    public var typeNames: [String] { entries.map { String(decoding: $0.name, as: UTF8.self) } }

    /// The model registered for the type named by `token`'s text, compared as bytes.
    func model(forTypeToken token: JSONToken, on tape: JSONTape) -> (any Resource.Type)? {
        tape.withUnsafeText(of: token) { name in
            entries.first { entry in entry.name.withUnsafeBytes { $0.hasSameBytes(as: name) } }?.type
        }
    }
}
