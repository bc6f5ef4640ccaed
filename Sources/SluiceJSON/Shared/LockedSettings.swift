import Foundation

/// A value behind a lock: the settings of a coder that may be changed on one thread while others
/// encode or decode, each of which takes one snapshot when it starts (as Foundation's coders
/// allow). One place for the locking, so the coders themselves are plainly `Sendable`.
package final class LockedSettings<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `value` holds `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// One setting, read or written under the lock.
    package subscript<Member>(_ keyPath: WritableKeyPath<Value, Member>) -> Member {
        get { lock.withLock { value[keyPath: keyPath] } }
        set { lock.withLock { value[keyPath: keyPath] = newValue } }
    }

    /// All the settings at once, for one encode or decode.
    package var snapshot: Value { lock.withLock { value } }

    /// Changes the settings in one step under the lock.
    package func update(_ change: (inout Value) -> Void) {
        lock.withLock { change(&value) }
    }
}

/// Facts about types worked out once per process and shared by every coder: what a type's
/// conformances are. Why: the runtime's first answer to "does this type conform" (and every
/// failed cast) scans the process's conformance records, tens of thousands of instructions, and a
/// coder asks about each model type again and again.
package final class TypeFacts<Fact>: @unchecked Sendable {
    // @unchecked Sendable: every access to `facts` holds `lock`.
    private let lock = NSLock()
    private var facts: [ObjectIdentifier: Fact] = [:]

    package init() {}

    /// The fact known about `type`, if it has been worked out.
    ///
    /// Lookup and recording are separate calls, not one call taking a closure that works the fact
    /// out: callers run unspecialized, where such a closure (generic over the type) is allocated
    /// on every call, hits included.
    package func fact(about type: Any.Type) -> Fact? {
        lock.withLock { facts[ObjectIdentifier(type)] }
    }

    /// Records the fact about `type`.
    package func record(_ fact: Fact, about type: Any.Type) {
        lock.withLock { facts[ObjectIdentifier(type)] = fact }
    }

    /// Records `fact` about `type` unless one is recorded already; returns the one recorded, so
    /// that threads racing to work a fact out all end up with the same one.
    package func recordIfAbsent(_ fact: Fact, about type: Any.Type) -> Fact {
        lock.withLock {
            if let recorded = facts[ObjectIdentifier(type)] { return recorded }
            facts[ObjectIdentifier(type)] = fact
            return fact
        }
    }
}
