// Uniquing and parent back-references for reference models.
//
// Both are opt-in and cost nothing when unused: uniquing is a table of registered types consulted
// only when it is not empty, and a parent link is a closure a child hands to its decoder, which
// the decoder runs when the nearest enclosing value of the parent's type has been decoded.

import Foundation

/// The reference model types a decode uniques, each with the member that identifies an instance.
///
/// ```swift
/// var options = TapeDecodingOptions()
/// options.uniquing.register(User.self, identityKey: "id")
/// // Every object decoded as a User with the same "id" is the same instance.
/// ```
public struct JSONUniquing: Sendable {
    /// The identity member's coding key name, by type.
    var keys: [ObjectIdentifier: String] = [:]

    /// Creates an empty table: nothing is uniqued.
    public init() {}

    /// Uniques instances of `type` by the member that `identityKey` names (a coding key name, found
    /// under the key strategy like any property). An object without that member, or with `null`
    /// there, decodes to a new instance every time.
    ///
    /// When an identity is seen again, the instance decoded first is returned; if `type` is
    /// ``JSONMergeable``, it is first updated from the new object.
    public mutating func register<T: AnyObject & Decodable>(_ type: T.Type, identityKey: String) {
        keys[ObjectIdentifier(type)] = identityKey
    }

    /// Whether no type is registered.
    public var isEmpty: Bool { keys.isEmpty }
}

/// A reference model that takes the values of a later object with its identity (see
/// ``JSONUniquing``), as an import updates the record it already has.
public protocol JSONMergeable: AnyObject {
    /// Updates the instance from another object with the same identity. Members the object lacks
    /// should leave their properties as they are.
    func merge(from decoder: any Decoder) throws
}

/// Instances uniqued by identity, kept across decodes when handed to several of them through
/// ``TapeDecodingOptions/identityStore`` or ``StreamingJSONDecoder/identityStore``. The store
/// grows with the identities it meets; ``removeAll()`` empties it.
///
/// The map is thread-safe, so decodes running at once may share a store; the instances are not
/// guarded: a ``JSONMergeable`` type merged from several decodes at once must protect its own state.
public final class JSONIdentityStore: @unchecked Sendable {
    // @unchecked Sendable: every access to `instances` holds `lock`.
    private let lock = NSLock()
    private var instances: [Identity: AnyObject] = [:]

    /// An instance's identity: its type, and its identity member's JSON kind and text (so the
    /// string `"1"` and the number `1` are different identities).
    struct Identity: Hashable {
        let type: ObjectIdentifier
        let kind: JSONToken.Kind
        let text: String
    }

    /// Creates an empty store.
    public init() {}

    /// The number of instances held.
    public var count: Int { lock.withLock { instances.count } }

    /// Forgets every instance.
    public func removeAll() { lock.withLock { instances.removeAll() } }

    /// The instance of `type` whose identity member is the string `identity`, if one was decoded.
    public func instance<T: AnyObject>(of type: T.Type, identifiedBy identity: String) -> T? {
        lock.withLock { instances[Identity(type: ObjectIdentifier(type), kind: .string, text: identity)] as? T }
    }

    /// The instance of `type` whose identity member is the number `identity`, if one was decoded.
    public func instance<T: AnyObject>(of type: T.Type, identifiedBy identity: Int) -> T? {
        lock.withLock { instances[Identity(type: ObjectIdentifier(type), kind: .number, text: String(identity))] as? T }
    }

    func instance(for identity: Identity) -> AnyObject? {
        lock.withLock { instances[identity] }
    }

    /// Keeps `instance` unless another was stored for `identity` meanwhile; returns the one kept.
    func keep(_ instance: AnyObject, for identity: Identity) -> AnyObject {
        lock.withLock {
            if let existing = instances[identity] { return existing }
            instances[identity] = instance
            return instance
        }
    }
}

/// A child's request for a back-reference, waiting for its parent to be decoded.
struct PendingChild {
    /// The parent's type.
    let parentType: ObjectIdentifier
    /// The nesting (`DecodeState.nesting`) at which the child asked: only a value that completes
    /// at a smaller nesting encloses the child.
    let depth: Int
    /// Sets the back-reference.
    let attach: (AnyObject) -> Void
}

extension Decoder {
    /// Asks for `attach` to be called with the nearest enclosing value of type `Parent`, once that
    /// value has been decoded: the way a nested reference model gets a back-reference to the
    /// object that holds it. Call it from the child's `init(from:)`.
    ///
    /// ```swift
    /// final class Comment: Decodable {
    ///     let text: String
    ///     weak var post: Post?
    ///     required init(from decoder: any Decoder) throws {
    ///         text = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .text)
    ///         decoder.linkToParent(Post.self) { [weak self] post in self?.post = post }
    ///     }
    /// }
    /// ```
    ///
    /// Only Sluice's decoders link parents; under another decoder this does nothing. A child whose
    /// parent never completes (decoded on its own, or the parent's decode failed) is not called.
    /// Capture the child `weak`: a parent may drop a child it decoded (filtering an array) before
    /// the link runs, and keep the back-reference `weak` so parent and child do not keep each other
    /// alive. Call it from a child decoded as a value of its own (a property, an element), not from
    /// a type decoded in place with `Type(from: decoder)`, which shares its parent's level.
    public func linkToParent<Parent: AnyObject>(_ type: Parent.Type, _ attach: @escaping (Parent) -> Void) {
        guard let decoder = self as? TapeDecoder else { return }
        decoder.context.state.pendingChildren.append(
            PendingChild(parentType: ObjectIdentifier(type), depth: decoder.context.state.nesting) { parent in
                // Safe because the entry is only run for values of `Parent`'s type.
                attach(unsafeDowncast(parent, to: Parent.self))
            }
        )
    }
}

extension DecodeState {
    /// Runs the parent links that `value`, just decoded at `depth`, completes: those registered
    /// since `mark` by children nested deeper, waiting for `T`.
    func attachChildren<T>(since mark: Int, to value: T, depth: Int) {
        let type = ObjectIdentifier(T.self)
        var index = mark
        while index < pendingChildren.count {
            let child = pendingChildren[index]
            if child.parentType == type && child.depth > depth {
                // Safe to cast: only class types are registered as parents (`Parent: AnyObject`).
                child.attach(value as AnyObject)
                pendingChildren.remove(at: index)
            } else {
                index += 1
            }
        }
    }
}
