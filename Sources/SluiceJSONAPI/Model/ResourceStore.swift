import Foundation
import SluiceJSON

#if os(Linux)
import Synchronization
#endif

/// Every resource of a document (primary and included), by identity: the identity map through
/// which relationships resolve.
///
/// Relationships hold identifiers, never references, and resolve through the store on demand. So
/// cycles (an article's author whose articles include the article) need no special care, nothing
/// is resolved twice, and releasing the document releases every model.
///
/// Thread-safe: a document (and every `Linked` view of it) may be read from several tasks while
/// another appends a page to it (`Document.appending(_:)` adds to the shared store).
public final class ResourceStore: @unchecked Sendable {
    // How resources are found (linking by index): types are numbered in the order they are met
    // (a decoder numbers its registry's types first), each type keeps its resources in a table
    // whose entries are in the order they were added, and an identity is found as (type number,
    // id) through the table's open addressing (a decimal id is its own hash, any other key is
    // hashed by its UTF-8 bytes; see `TypeTable.hash`). A lookup costs a short comparison of type
    // names, one cheap hash and usually one comparison of ids; the
    // `[ResourceIdentity: AnyResource]` dictionary it replaced hashed two Strings with SipHash and
    // built an identity value for every relationship followed.
    //
    // The tables are a struct behind a pointer rather than stored properties of the class: Swift
    // checks exclusive access to a class's stored properties at run time when an access spans a
    // call, which cost more than the lookup itself.
    //
    // @unchecked Sendable: every access to `tables` holds `lock`, but for the decoder's
    // `addBeforePublishing` before the store is shared.
    private let lock = StoreLock()
    private let tables: UnsafeMutablePointer<StoreTables>

    /// Creates an empty store.
    public init() {
        tables = .allocate(capacity: 1)
        tables.initialize(to: StoreTables())
    }

    /// Creates an empty store whose types are numbered in the order of `typeNames` (a decoder's
    /// registry), so that the types a document is expected to hold are found first.
    convenience init(typeNames: [String]) {
        self.init()
        for name in typeNames where !name.isEmpty { _ = tables.pointee.numberAdding(type: name) }
    }

    deinit {
        tables.pointee.releaseTables()
        tables.deinitialize(count: 1)
        tables.deallocate()
    }

    /// The number of resources with an identity.
    public var count: Int {
        lock.withLock { tables.pointee.total }
    }

    /// Adds `resource`; returns `false`, leaving the first in place, when one with the same identity
    /// is already there.
    @discardableResult
    public func add(_ resource: AnyResource) -> Bool {
        guard let identity = resource.identity else { return true }
        return lock.withLock { tables.pointee.insert(resource, identity: identity) }
    }

    /// `add(_:)` without the lock, for the decoder filling a store that no other thread can see
    /// yet (it is published with the document when the decode returns): a decode adds every
    /// resource of the document, and the lock was a measurable share of linking.
    func addBeforePublishing(_ resource: AnyResource) {
        guard let identity = resource.identity else { return }
        _ = tables.pointee.insert(resource, identity: identity)
    }

    /// The resource with `identity`.
    public subscript(identity: ResourceIdentity) -> AnyResource? {
        lock.withLock {
            tables.pointee.find(type: identity.type, key: identity.key, isLocal: identity.isLocal)
        }?.resource
    }

    /// The resources of the type named `type`, in the order they were added (primary data before
    /// included resources, each in document order); empty when the store holds none. Made anew at
    /// each call, in time proportional to their number.
    ///
    /// ```swift
    /// let people = document.store.resources(ofType: "people")
    /// ```
    public func resources(ofType type: String) -> [AnyResource] {
        lock.withLock {
            guard let number = tables.pointee.number(ofType: type) else { return [] }
            return tables.pointee.resources(ofTypeNumber: number)
        }
    }

    /// The model an identifier names, if the document holds it and it is a `T`.
    @inlinable
    public func resolve<T: Resource>(_ identifier: ResourceIdentifier?, as type: T.Type = T.self) -> T? {
        guard let identifier, let resource = resource(for: identifier) else { return nil }
        return resource.as(T.self)
    }

    /// The resource an identifier names, found from the identifier's own fields: no
    /// ``ResourceIdentity`` is made on the way.
    @usableFromInline
    func resource(for identifier: ResourceIdentifier) -> AnyResource? {
        held(for: identifier)?.resource
    }

    /// ``held(for:)`` for the identifier at `identifier`, read where it lies: linking follows
    /// relationships inside models the store holds, and a copy of each identifier retained its
    /// strings and its box for the lookup alone.
    ///
    /// An identifier whose type and id are both held in Swift's small form (up to 15 ASCII
    /// bytes in the String value itself, as nearly all are) is looked up on copies of those
    /// words: a small string owns no storage, so its words are the whole string, with nothing
    /// to retain or release. Any other goes through ``held(for:)``.
    @usableFromInline
    func held(identifierAt identifier: UnsafePointer<ResourceIdentifier>) -> HeldResource? {
        #if _endian(little) && (arch(x86_64) || arch(arm64))
        if let id = identifier.pointer(to: \.id).flatMap(payload), let type = identifier.pointer(to: \.type) {
            let key = UnsafeRawPointer(id).load(as: (UInt64, UInt64).self)
            let name = UnsafeRawPointer(type).load(as: (UInt64, UInt64).self)
            if isSmallASCII(key) && isSmallASCII(name),
                let answer = lock.withLock({ tables.pointee.find(smallType: name, smallKey: key) })
            {
                return answer
            }
        }
        #endif
        return held(for: identifier.pointee)
    }

    /// Where the resource an identifier names lies, its storage not retained. Safe while the
    /// caller holds the store: a store never removes or replaces a resource, so each storage
    /// lives as long as the store. Why: a `Linked` view made from it need not retain it at all
    /// (the view retains the store), where a resource handed back retained, then copied into the
    /// view and released, cost atomic operations on a cold cache line for every relationship
    /// followed.
    @usableFromInline
    func held(for identifier: ResourceIdentifier) -> HeldResource? {
        guard identifier.id != nil || identifier.lid != nil else { return nil }
        return lock.withLock {
            // The identifier's fields are read where it lies, inside the lock: a key copied out
            // before an opaque call is retained across it. Unwrapped in place rather than bound:
            // binding copied the optional through the runtime's generic witness.
            if identifier.id != nil {
                return tables.pointee.find(type: identifier.type, key: identifier.id.unsafelyUnwrapped, isLocal: false)
            }
            return identifier.lid.flatMap { tables.pointee.find(type: identifier.type, key: $0, isLocal: true) }
        }
    }
}

/// The store's lock. On Linux the standard library's `Mutex`, whose lock and unlock are one
/// atomic operation each, inlined into the caller; elsewhere `NSLock` (`Mutex` needs macOS 15).
/// Why: every relationship a `Linked` view follows takes the lock once, and `NSLock`'s two calls
/// were an eighth of the instructions of following one.
private struct StoreLock: ~Copyable {
    #if os(Linux)
    private let mutex = Mutex(())

    @inline(__always)
    func withLock<Result>(_ body: () -> Result) -> Result {
        mutex.withLock { _ in body() }
    }
    #else
    private let lock = NSLock()

    @inline(__always)
    func withLock<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
    #endif
}

/// A resource the store holds: its storage, not retained, and its entry there.
@usableFromInline
struct HeldResource {
    @usableFromInline let storage: Unmanaged<ResourceStorage>
    @usableFromInline let index: Int

    @usableFromInline
    init(storage: Unmanaged<ResourceStorage>, index: Int) {
        self.storage = storage
        self.index = index
    }

    /// The resource, its storage retained: one that may outlive the store.
    @inlinable
    var resource: AnyResource { AnyResource(storage: storage.takeUnretainedValue(), index: index) }
}

/// A store's types and their resources.
///
/// The type names and tables a lookup reads are raw storage the store frees itself: held in
/// arrays, each was retained and released around every lookup (the name comparison is a call
/// the compiler cannot see into, so it kept the arrays alive across it).
private struct StoreTables {
    /// The type names and identity tables, by type number, `typeCount` of each.
    private var names: UnsafeMutablePointer<String>?
    private var types: UnsafeMutablePointer<TypeTable>?
    private var typeCount = 0
    private var typeCapacity = 0
    /// Type numbers by name, once there are too many types for a scan of the names to be quick.
    var byName: [String: Int] = [:]
    var total = 0

    /// Up to this many types, a type's number is found by comparing names in turn: most documents
    /// have a handful of types, and comparing two short Strings is cheaper than hashing one.
    static let scannedTypes = 8

    // Inlined down to the probe. A type's table is a value of raw pointers and counts, so
    // taking it out costs no retain. `mutating` though it changes nothing: called on
    // `tables.pointee`, a non-mutating method got a copy of the whole struct, since the name
    // comparison is a call the compiler cannot see into, and the copy retained and released
    // `byName` around every lookup (atomically: a relationship followed paid two atomic
    // operations for it).
    @inline(__always)
    mutating func find(type: String, key: String, isLocal: Bool) -> HeldResource? {
        guard let number = number(ofType: type), let types else { return nil }
        return types[number].held(key: key, isLocal: isLocal)
    }

    /// Adds `resource` under `identity`, whose key the table keeps (consumed: passed on rather
    /// than copied again, as the decoder adds every resource of a document).
    mutating func insert(_ resource: AnyResource, identity: consuming ResourceIdentity) -> Bool {
        let number = numberAdding(type: identity.type)
        guard types![number].insert(resource, key: identity.key, isLocal: identity.isLocal) else { return false }
        total += 1
        return true
    }

    /// The resources of type `number`, in the order added: its table's entries, where alone they
    /// are kept (an array of them beside the table cost every resource a retain, a release and an
    /// append).
    func resources(ofTypeNumber number: Int) -> [AnyResource] {
        types.map { $0[number].resources } ?? []
    }

    /// ``find(type:key:isLocal:)`` for a type name and an id both held in Swift's small ASCII
    /// form, given as the words of their String values: matched and hashed on those words, with
    /// no String made or retained. The answer is `nil` when the words alone cannot tell (a
    /// type name or key held in another form could be equal), for the caller to ask `find`.
    @inline(__always)
    mutating func find(smallType type: (UInt64, UInt64), smallKey key: (UInt64, UInt64)) -> HeldResource?? {
        // Two small ASCII strings are equal exactly when their words are.
        guard typeCount <= Self.scannedTypes, let types, let number = number(ofTypeWords: type) else { return nil }
        return types[number].held(smallKey: key)
    }

    /// The number of the type named `name`, if it has one (`mutating` for `find`'s reason).
    @inline(__always)
    mutating func number(ofType name: String) -> Int? {
        guard let names else { return nil }
        if typeCount <= Self.scannedTypes {
            // Compared by their words first for every name, since `==` on two that differ is a
            // call of some seventy instructions, and a lookup scans past the other types before
            // it reaches its own.
            if let number = number(ofTypeWords: unsafeBitCast(name, to: (UInt64, UInt64).self)) { return number }
            for number in 0..<typeCount where names[number] == name { return number }
            return nil
        }
        return byName[name]
    }

    /// The number of the type whose name's String value has the words `words`, among the first
    /// `typeCount`. Equal words are the same string: two small Strings (up to 15 bytes of UTF-8,
    /// as type names mostly are) made alike, or one storage; `nil` says only that no name has
    /// these words.
    @inline(__always)
    private func number(ofTypeWords words: (UInt64, UInt64)) -> Int? {
        guard let names else { return nil }
        for number in 0..<typeCount where unsafeBitCast(names[number], to: (UInt64, UInt64).self) == words {
            return number
        }
        return nil
    }

    /// The number of the type named `name`, a new one for a name not seen before.
    mutating func numberAdding(type name: String) -> Int {
        number(ofType: name) ?? addType(name)
    }

    private mutating func addType(_ name: String) -> Int {
        if typeCount == typeCapacity {
            let larger = Swift.max(8, typeCapacity * 2)
            let movedNames = UnsafeMutablePointer<String>.allocate(capacity: larger)
            let movedTypes = UnsafeMutablePointer<TypeTable>.allocate(capacity: larger)
            if let names, let types {
                movedNames.moveInitialize(from: names, count: typeCount)
                movedTypes.moveInitialize(from: types, count: typeCount)
                names.deallocate()
                types.deallocate()
            }
            names = movedNames
            types = movedTypes
            typeCapacity = larger
        }
        (names! + typeCount).initialize(to: name)
        (types! + typeCount).initialize(to: TypeTable())
        typeCount += 1
        if typeCount > Self.scannedTypes {
            if byName.isEmpty {
                for number in 0..<typeCount { byName[names![number]] = number }
            } else {
                byName[name] = typeCount - 1
            }
        }
        return typeCount - 1
    }

    /// Frees the names and the types' tables (their storage is not Swift's to release).
    mutating func releaseTables() {
        if let names, let types {
            for number in 0..<typeCount { types[number].release() }
            names.deinitialize(count: typeCount)
            types.deinitialize(count: typeCount)
            names.deallocate()
            types.deallocate()
        }
        names = nil
        types = nil
        typeCount = 0
        typeCapacity = 0
    }
}

/// One type's identities: an open-addressing table from identity (`id`, or `lid` for a local
/// one) to an entry holding the key and the resource. Raw storage, so that the table is a
/// trivial value (see `StoreTables.find`); its owner frees it with ``release()``.
private struct TypeTable {
    /// The entries in the order added: what a lookup compares and returns, together, because a
    /// lookup lands on a random resource of a large document, where each array it touched cost
    /// a cache miss.
    private var entries: UnsafeMutablePointer<Entry>?
    private var count = 0
    private var capacity = 0
    /// Power-of-two sized, at most half full. A slot holds the upper 32 bits of the key's hash
    /// and the entry's index + 1 (0: empty), so most probes that miss compare no String.
    private var slots: UnsafeMutablePointer<UInt64>?
    private var slotCount = 0
    /// Whether every key is hashed by its bytes: set once a probe ran long (see `hash`).
    private var scrambled = false
    /// The most slots any key lies past its hash's: a lookup that has stepped over this many
    /// without finding its key stops there. Without it, a key missing from the document whose
    /// slot falls inside a long run of consecutive ids (each in its own slot) would walk the
    /// whole run, for every relationship that names it.
    private var maxProbe = 0

    /// The longest run of occupied slots an insert may step over before the table is rebuilt
    /// with every key hashed by its bytes.
    private static let longestProbe = 48

    private struct Entry {
        var key: String
        var isLocal: Bool
        /// The key's hash, so that growing the table hashes nothing again.
        var hash: UInt64
        var resource: AnyResource
    }

    /// The resource with this key, its storage not retained (see `ResourceStore.held(for:)`).
    @inline(__always)
    func held(key: String, isLocal: Bool) -> HeldResource? {
        // An empty table answers before the key is hashed.
        guard slotCount > 0, let index = index(key: key, isLocal: isLocal, hash: hash(key, isLocal: isLocal)) else {
            return nil
        }
        return held(at: index)
    }

    /// The resource of entry `index`, its storage not retained.
    @inline(__always)
    private func held(at index: Int) -> HeldResource {
        let resource = entries.unsafelyUnwrapped + index
        return HeldResource(
            storage: .passUnretained(resource.pointee.resource.storage),
            index: resource.pointee.resource.index
        )
    }

    /// ``held(key:isLocal:)`` for an id in Swift's small ASCII form, given as its String's
    /// words (see `StoreTables.find(smallType:smallKey:)`): `nil` when an entry whose hash
    /// matches holds its key in another form, which only a String comparison can judge.
    @inline(__always)
    func held(smallKey key: (UInt64, UInt64)) -> HeldResource?? {
        guard slotCount > 0 else { return .some(nil) }
        let found = probe(hash: hash(words: key)) { entry -> Bool? in
            if entry.pointee.isLocal { return false }
            let stored = UnsafeRawPointer(entry.pointer(to: \.key)!).load(as: (UInt64, UInt64).self)
            if stored == key { return true }
            return isSmallASCII(stored) ? false : nil
        }
        guard let found else { return nil }
        return .some(found.map(held(at:)))
    }

    @inline(__always)
    private func index(key: String, isLocal: Bool, hash: UInt64) -> Int? {
        probe(hash: hash) { $0.pointee.isLocal == isLocal && $0.pointee.key == key } ?? nil
    }

    /// The entry the probe for `hash` finds: the first whose hash matches and that `judge`
    /// takes (`true`), `.some(nil)` when it meets an empty slot or has stepped over `maxProbe`
    /// first. `nil` when `judge` cannot tell for an entry (`nil`), which only
    /// ``held(smallKey:)``'s judge answers.
    @inline(__always)
    private func probe(hash: UInt64, _ judge: (UnsafeMutablePointer<Entry>) -> Bool?) -> Int?? {
        guard let slots, let entries else { return .some(nil) }
        let mask = slotCount - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        for _ in 0...maxProbe {
            let entry = slots[slot]
            if entry == 0 { return .some(nil) }
            if entry >> 32 == hash >> 32 {
                let index = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                switch judge(entries + index) {
                case true?: return index
                case nil: return nil
                case false?: break
                }
            }
            slot = (slot + 1) & mask
        }
        return .some(nil)
    }

    /// Every resource in the table, in the order added.
    var resources: [AnyResource] {
        guard let entries else { return [] }
        return UnsafeBufferPointer(start: entries, count: count).map(\.resource)
    }

    /// Adds `resource` under its identity unless one is there already.
    mutating func insert(_ resource: AnyResource, key: consuming String, isLocal: Bool) -> Bool {
        var hash = hash(key, isLocal: isLocal)
        if index(key: key, isLocal: isLocal, hash: hash) != nil { return false }
        if count == capacity { growEntries() }
        if (count + 1) * 2 > slotCount {
            growSlots()
            // Growing may have scrambled the table, which hashes keys anew.
            hash = self.hash(key, isLocal: isLocal)
        }
        let index = count
        (entries! + index).initialize(to: Entry(key: key, isLocal: isLocal, hash: hash, resource: resource))
        count += 1
        if !place(index, hash: hash) && !scrambled { scramble() }
        return true
    }

    private mutating func growEntries() {
        let larger = Swift.max(16, capacity * 2)
        let moved = UnsafeMutablePointer<Entry>.allocate(capacity: larger)
        if let entries {
            moved.moveInitialize(from: entries, count: count)
            entries.deallocate()
        }
        entries = moved
        capacity = larger
    }

    /// Puts entry `index` in the first free slot from its hash's; `false` when it stepped over
    /// more than `longestProbe` occupied slots to get there.
    private mutating func place(_ index: Int, hash: UInt64) -> Bool {
        let mask = slotCount - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        var steps = 0
        while slots![slot] != 0 {
            slot = (slot + 1) & mask
            steps += 1
        }
        slots![slot] = (hash & 0xFFFF_FFFF_0000_0000) | UInt64(index + 1)
        maxProbe = Swift.max(maxProbe, steps)
        return steps <= Self.longestProbe
    }

    /// Places every entry again in `size` new slots; `false` when one lies far from its slot.
    private mutating func rebuild(slotCount size: Int) -> Bool {
        slots?.deallocate()
        slots = .allocate(capacity: size)
        slots!.initialize(repeating: 0, count: size)
        slotCount = size
        maxProbe = 0
        var placedNear = true
        for index in 0..<count where !place(index, hash: entries![index].hash) { placedNear = false }
        return placedNear
    }

    private mutating func growSlots() {
        if !rebuild(slotCount: Swift.max(16, slotCount * 2)) && !scrambled { scramble() }
    }

    /// Hashes every key by its bytes from now on and rebuilds the table: decimal ids that
    /// crowd into a few slots (all multiples of a large power of two, say) spread out again.
    private mutating func scramble() {
        scrambled = true
        for index in 0..<count {
            entries![index].hash = hash(entries![index].key, isLocal: entries![index].isLocal)
        }
        _ = rebuild(slotCount: slotCount)
    }

    /// Frees the storage; the table is empty afterwards.
    mutating func release() {
        if let entries {
            entries.deinitialize(count: count)
            entries.deallocate()
        }
        slots?.deallocate()
        self = TypeTable()
    }

    /// The hash of a key. An `id` written as a decimal number (up to 18 digits, no leading zero)
    /// is its own hash, until the table is scrambled: documents mostly number their resources
    /// in order and link to resources near the ones before, so consecutive ids fill consecutive
    /// slots, and a lookup or an insert finds its slot in the cache lines the one before loaded,
    /// where a hash of the bytes sent each to a random line (a cache miss per relationship
    /// followed, the larger part of a lookup's time). Other keys, and `lid`s, are hashed by their
    /// bytes (see `ByteHash`), seeded apart.
    @inline(__always)
    private func hash(_ key: String, isLocal: Bool) -> UInt64 {
        if !isLocal && !scrambled, let value = Self.smallDecimalValue(key) { return value }
        var key = key
        return key.withUTF8 { hash(bytes: UnsafeRawBufferPointer($0), isLocal: isLocal) }
    }

    /// `hash` of an id in Swift's small ASCII form, given as its String value's words.
    @inline(__always)
    private func hash(words key: (UInt64, UInt64)) -> UInt64 {
        if !scrambled, let value = Self.smallDecimalValue(words: key) { return value }
        // The bytes lie in order from the first word's low byte (see `smallDecimalValue`).
        let count = Int(truncatingIfNeeded: (key.1 >> 56) & 0xF)
        return withUnsafeBytes(of: key) { words in
            hash(bytes: UnsafeRawBufferPointer(rebasing: words.prefix(count)), isLocal: false)
        }
    }

    /// `hash` of a key's UTF-8 bytes, where `smallDecimalValue` did not answer.
    @inline(__always)
    private func hash(bytes: UnsafeRawBufferPointer, isLocal: Bool) -> UInt64 {
        if !isLocal && !scrambled, let value = decimalIDValue(bytes) { return value }
        return ByteHash.hash(bytes, seed: isLocal ? 0x9E37_79B9_7F4A_7C15 : 0x2545_F491_4F6C_DD1D)
    }

    /// `decimalIDValue` of a key held in Swift's small form (up to 15 ASCII bytes, kept in the
    /// String value itself, as nearly every id is), read from the value's two words; `nil` for
    /// any other key, which `hash` reads through `withUTF8`. Why: copying the bytes out for
    /// `withUTF8` and the call to parse them were half of a lookup's instructions, and every
    /// resource added and every relationship followed hashes its id. Its rule is
    /// `decimalIDValue`'s, written out on the words: handing the words' bytes to that function
    /// instead cost 1.4 M instructions more on a 2 000-article decode. Both forms of an id must
    /// hash alike; `ResourceStoreTests` holds them to it.
    ///
    /// The layout read is the standard library's, fixed by its ABI on 64-bit platforms: the
    /// bytes in order from the low byte of the first word, then the second word's low seven
    /// bytes; that word's top nibble 0xE marks a small ASCII string, the next its byte count.
    @inline(__always)
    static func smallDecimalValue(_ key: String) -> UInt64? {
        smallDecimalValue(words: unsafeBitCast(key, to: (UInt64, UInt64).self))
    }

    /// ``smallDecimalValue(_:)`` of the String whose words are `words`.
    @inline(__always)
    static func smallDecimalValue(words: (UInt64, UInt64)) -> UInt64? {
        #if _endian(little) && (arch(x86_64) || arch(arm64))
        let (low, high) = words
        guard isSmallASCII(words) else { return nil }
        let count = Int(truncatingIfNeeded: (high >> 56) & 0xF)
        // No leading zero but in "0" itself, as `decimalIDValue` has it.
        guard count > 0, low & 0xFF != UInt64(UInt8(ascii: "0")) || count == 1 else { return nil }
        var value: UInt64 = 0
        var word = low
        for index in 0..<count {
            if index == 8 { word = high }
            let digit = UInt8(truncatingIfNeeded: word) &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ UInt64(digit)
            word >>= 8
        }
        return value
        #else
        return nil
        #endif
    }
}

/// A resource model seen through its document: its fields as they are, and its relationships
/// resolved to the related models, which are `Linked` in turn.
///
/// ```swift
/// let document = try decoder.decode([Linked<Article>].self, from: data)
/// let name = document.data[0].author?.name          // ToOne<Person> → Linked<Person>?
/// let bodies = document.data[0].comments.map(\.body) // ToMany<Comment> → [Linked<Comment>]
/// ```
///
/// A related resource the document does not include resolves to `nil` (to-one) or is left out
/// (to-many); its identifier stays on the model (`linked.model.author.identifier`).
@dynamicMemberLookup
public struct Linked<Model: Resource>: Sendable {
    /// The storage of the resource the view stands for, whose entry `index` it is. For any
    /// `Model` but ``AnyResource`` it is a `ModelStorage<Model>`: a view holds references, so
    /// that copying one, or making one for each relationship followed, costs a retain or two
    /// rather than a copy of the model's fields.
    ///
    /// Not retained by the view: `owner` keeps it alive, or, when that is `nil`, the store does
    /// (a store never removes a resource). Why: a view made by following a relationship lands on
    /// a resource no code has touched for a while, and retaining it cost an atomic write to a
    /// cold cache line, and another to release it, for every relationship followed.
    @usableFromInline unowned(unsafe) let storage: ResourceStorage
    @usableFromInline let index: Int
    /// The document's resources.
    public let store: ResourceStore
    /// `storage`, retained, when the store may not hold it: a view made from a model or from a
    /// resource handed in (primary data without an identity, a duplicate the store turned away).
    /// `nil` for the views relationships resolve to, whose storage the store's tables hold.
    @usableFromInline let owner: ResourceStorage?

    /// Creates a view of `model` through `store`.
    public init(_ model: Model, store: ResourceStore) {
        if let resource = model as? AnyResource {
            self.init(viewing: resource, store: store)
        } else {
            let storage = ModelStorage(model, type: Model.resourceType, identity: nil, raw: nil)
            self.init(viewing: AnyResource(storage: storage, index: 0), store: store)
        }
    }

    /// A view of `resource`, whose storage must be a `ModelStorage<Model>` unless `Model` is
    /// ``AnyResource``; the view keeps it alive.
    @usableFromInline
    init(viewing resource: AnyResource, store: ResourceStore) {
        self.storage = resource.storage
        self.index = resource.index
        self.store = store
        self.owner = resource.storage
    }

    /// A view of a resource the store holds (one a lookup in it handed back): the store keeps
    /// it alive, so the view does not retain it.
    @usableFromInline
    init(heldBy store: ResourceStore, resource: HeldResource) {
        self.storage = resource.storage.takeUnretainedValue()
        self.index = resource.index
        self.store = store
        self.owner = nil
    }

    /// The resource the view stands for.
    @inlinable
    var resource: AnyResource { AnyResource(storage: storage, index: index) }

    /// The resource's model.
    @inlinable
    public var model: Model {
        if Model.self == AnyResource.self { return resource as! Model }
        // Safe: every initializer keeps `storage` a ModelStorage<Model> for such a Model.
        return unsafeDowncast(storage, to: ModelStorage<Model>.self).models[index]
    }

    // The subscripts below are inlinable, so that they are specialized where the models are
    // declared: unspecialized, making each `Linked<Target>` looked its generic metadata up at
    // run time, which cost more than finding the resource. Each reads one field where the
    // storage holds it, without copying the rest of the model.

    /// A field of the model.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<Model, Value>) -> Value {
        reading { $0.pointee[keyPath: keyPath] }
    }

    /// A to-one relationship, resolved.
    @inlinable @inline(__always)
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToOne<Target>>) -> Linked<Target>? {
        follow { model in
            // A stored property is read where it lies (see `identifierAddress`).
            if let relationship = model.pointer(to: keyPath) {
                return Self.identifierAddress(in: relationship).flatMap { store.held(identifierAt: $0) }
            }
            return model.pointee[keyPath: keyPath].identifier.flatMap { store.held(for: $0) }
        }
    }

    /// An optional to-one relationship, resolved.
    @inlinable @inline(__always)
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToOne<Target>?>) -> Linked<Target>? {
        follow { model in
            if let relationship = model.pointer(to: keyPath) {
                let identifier = payload(of: relationship).flatMap(Self.identifierAddress)
                return identifier.flatMap { store.held(identifierAt: $0) }
            }
            return model.pointee[keyPath: keyPath]?.identifier.flatMap { store.held(for: $0) }
        }
    }

    /// Where the identifier of the to-one relationship at `relationship` lies, `nil` when it has
    /// none. Why addresses: a relationship read through its key path was copied whole (its
    /// identifier's strings and its boxes retained, then released) to take one field, which
    /// cost more than the lookup it was for; the key path's offset is a constant once the
    /// subscript is specialized where the model is declared.
    @inlinable @inline(__always)
    static func identifierAddress<Target>(
        in relationship: UnsafePointer<ToOne<Target>>
    ) -> UnsafePointer<ResourceIdentifier>? {
        relationship.pointer(to: \.identifier).flatMap(payload)
    }

    /// `body` of the model where the storage holds it. Why a pointer: handed over as a value
    /// from the block's memory, which the compiler cannot prove unchanged across a call, the
    /// whole model was copied out (every string and array retained) before a field was picked.
    @inlinable @inline(__always)
    func reading<Result>(_ body: (UnsafePointer<Model>) -> Result) -> Result {
        if Model.self == AnyResource.self { return withUnsafePointer(to: model, body) }
        let models = Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef {
            unsafeDowncast($0, to: ModelStorage<Model>.self).models
        }
        return body(models + index)
    }

    /// A view of the resource `find` looks up from the model, while the model is still borrowed.
    /// Why: the relationship taken out first was copied whole (through the runtime's generic
    /// witnesses for its optional fields), then its identifier, which cost more than the lookup.
    @inlinable @inline(__always)
    func follow<Target>(_ find: (UnsafePointer<Model>) -> HeldResource?) -> Linked<Target>? {
        guard let found = reading(find) else { return nil }
        return Linked<Target>(resolving: found, store: store)
    }

    /// A to-many relationship, resolved; members the document does not include are left out.
    @inlinable @inline(__always)
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToMany<Target>>) -> [Linked<Target>] {
        reading { model in
            // The identifiers read where the model holds them, as a to-one's are.
            if let relationship = model.pointer(to: keyPath) {
                return relationship.pointee.identifiers.withUnsafeBufferPointer(resolve)
            }
            return model.pointee[keyPath: keyPath].identifiers.withUnsafeBufferPointer(resolve)
        }
    }

    /// An optional to-many relationship, resolved.
    @inlinable @inline(__always)
    public subscript<Target>(dynamicMember keyPath: KeyPath<Model, ToMany<Target>?>) -> [Linked<Target>] {
        reading { model in
            if let relationship = model.pointer(to: keyPath) {
                return payload(of: relationship)?.pointee.identifiers.withUnsafeBufferPointer(resolve) ?? []
            }
            return (model.pointee[keyPath: keyPath]?.identifiers ?? []).withUnsafeBufferPointer(resolve)
        }
    }

    /// The resources `identifiers` name, in order, without those the document lacks: in one
    /// array sized up front (`compactMap` grew it as it went). Each identifier is looked up
    /// where it lies, not copied out.
    @inlinable
    func resolve<Target>(_ identifiers: UnsafeBufferPointer<ResourceIdentifier>) -> [Linked<Target>] {
        var linked: [Linked<Target>] = []
        guard let base = identifiers.baseAddress else { return linked }
        linked.reserveCapacity(identifiers.count)
        for offset in 0..<identifiers.count {
            if let found = store.held(identifierAt: base + offset),
                let view = Linked<Target>(resolving: found, store: store)
            {
                linked.append(view)
            }
        }
        return linked
    }

    /// This resource as a `T`, for polymorphic relationships (`Linked<AnyResource>`).
    public func `as`<T: Resource>(_ type: T.Type) -> Linked<T>? {
        Linked<T>(resolving: resource, store: store)
    }
}

extension Linked {
    /// A view of `resource` as a `Model`, or `nil` when its model is not one: the resource's own
    /// storage when the model is exactly a `Model` (or `Model` is ``AnyResource``), else a copy
    /// of the model in storage of its own (a class model seen as its superclass).
    @inlinable
    init?(resolving resource: AnyResource, store: ResourceStore) {
        if Model.self == AnyResource.self || resource.storage.modelType == ObjectIdentifier(Model.self) {
            self.init(viewing: resource, store: store)
        } else if let model = resource.as(Model.self) {
            self.init(model, store: store)
        } else {
            return nil
        }
    }
}

extension Linked {
    /// A view of the resource the store handed back, its storage unretained
    /// (`ResourceStore.held(for:)`): the store keeps it alive, so the view retains only the
    /// store; its model type is checked first. A class model seen as its superclass goes to the
    /// initializer above, whose view owns the copy it makes. (That one does not come here in
    /// turn: through `Unmanaged`, the document's primary views, which it makes, cost two retains
    /// more each.)
    @inlinable
    init?(resolving found: HeldResource, store: ResourceStore) {
        if Model.self == AnyResource.self
            || found.storage._withUnsafeGuaranteedRef({ $0.modelType }) == ObjectIdentifier(Model.self)
        {
            self.init(heldBy: store, resource: found)
        } else {
            self.init(resolving: found.resource, store: store)
        }
    }
}

/// A linked resource is identified as its model is, so lists of them work with SwiftUI's `ForEach`
/// and anything else that takes `Identifiable` elements.
extension Linked: Identifiable where Model: Identifiable {
    /// The model's identity.
    public var id: Model.ID { model.id }
}

/// Whether `words`, a String value's two words, hold a string in Swift's small ASCII form: up to
/// 15 bytes kept in the value itself, no storage to retain. The layout is the standard
/// library's, fixed by its ABI on 64-bit platforms: the second word's top nibble 0xE marks it.
@inline(__always)
func isSmallASCII(_ words: (UInt64, UInt64)) -> Bool {
    #if _endian(little) && (arch(x86_64) || arch(arm64))
    words.1 >> 60 == 0xE
    #else
    false
    #endif
}

/// Where the value of the optional at `optional` lies, `nil` when it holds none: told without
/// copying it (`!= nil` on an optional of an `Equatable` type picks the operator that compares
/// two optionals, which copies this one, retaining what it holds), and an optional's payload
/// lies at its start.
@inlinable @inline(__always)
func payload<Wrapped>(of optional: UnsafePointer<Wrapped?>) -> UnsafePointer<Wrapped>? {
    guard case .some = optional.pointee else { return nil }
    return UnsafeRawPointer(optional).assumingMemoryBound(to: Wrapped.self)
}
