// Primary data for responses whose content is not resources: none at all, or a relationship's
// linkage as identifiers.

/// Primary data of any shape, or none: for responses whose `meta` is what matters (a delete
/// that returns meta, a relationship change).
public struct NoPrimaryData: PrimaryData, Sendable {
    public static var primaryModelTypes: [any Resource.Type] { [] }
    public static var holdsIdentifiers: Bool { false }
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        .success(NoPrimaryData())
    }
}

/// What a relationship change may answer with (200): the relationship's linkage as it now is,
/// read as identifiers whatever models are registered. Empty when the answer has no `data`.
public struct RelationshipLinkage: PrimaryData, Sendable {
    /// The identifiers: none for `null` or an empty to-many, one for a to-one.
    public var identifiers: [ResourceIdentifier]
    public static var primaryModelTypes: [any Resource.Type] { [] }
    public static var holdsIdentifiers: Bool { true }
    public static func make(from content: PrimaryContent, store: ResourceStore) -> Result<Self, PrimaryShapeMismatch> {
        let items: [PrimaryItem]
        switch content {
        case .absent, .null: items = []
        case .single(let item): items = [item]
        case .collection(let all): items = all
        }
        return .success(
            RelationshipLinkage(
                identifiers: items.compactMap { item in
                    switch ResourceIdentifier.make(item: item, store: store) {
                    case .success(let identifier): identifier
                    case .failure: nil
                    }
                }
            )
        )
    }
}
