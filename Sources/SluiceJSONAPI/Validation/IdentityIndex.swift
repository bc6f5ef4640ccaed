// The resource identities of one validated document, held compactly so that a document of ten
// million resources is checked in a few hundred megabytes: duplicates, lids that name no
// resource, and reachability of included resources all look identities up here.
//
// Why not `[ResourceIdentity: String]`: a dictionary entry of two Strings, a Bool and a pointer
// String cost some 150 bytes a resource once the Strings were allocated, 1.4 GB for ten million.
// Here an identity is one entry in a byte arena (about 12 bytes for a decimal id) and one 4-byte
// slot in an open-addressing table of arena offsets. Keys are compared exactly, byte for byte, on
// every probe that lands on an entry, so two identities never merge however their hashes collide.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Exact, compact storage of resource identities with a few flags each. Not thread-safe: one
/// validation run owns it.
final class IdentityIndex {
    /// What an entry stands for; bits of its flags byte.
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// A `lid` identity rather than an `id` one (part of the key).
        static let local = Flags(rawValue: 1 << 0)
        /// A resource object with this identity has been read (not only linked to).
        static let resource = Flags(rawValue: 1 << 1)
        /// Reached from primary data through relationships (primary resources are reached).
        static let reached = Flags(rawValue: 1 << 2)
        /// An included resource that was not reached when it was read: judged at the end.
        static let pending = Flags(rawValue: 1 << 3)
        /// Its relationships' targets wait in the deferred edges, for when it is reached.
        static let hasDeferredEdges = Flags(rawValue: 1 << 4)
        /// Named by a `lid` in linkage: a resource with it must appear somewhere.
        static let linkedByLid = Flags(rawValue: 1 << 5)
    }

    /// An entry's handle: its offset in the arena.
    typealias Entry = UInt32

    /// Where a resource object stood: its index in `data` or `included`, as stored in an entry.
    struct Place: Equatable {
        let isIncluded: Bool
        let index: Int

        /// `/included/12`, `/data/3`, or `/data` for a single primary resource.
        var pointer: String {
            if isIncluded { return "/included/\(index)" }
            return index < 0 ? "/data" : "/data/\(index)"
        }
        /// A single primary resource (`data` is an object).
        static let singlePrimary = Place(isIncluded: false, index: -1)
        fileprivate var encoded: UInt32 {
            index < 0 ? UInt32.max : UInt32(truncatingIfNeeded: index) << 1 | (isIncluded ? 1 : 0)
        }
        fileprivate init(isIncluded: Bool, index: Int) {
            self.isIncluded = isIncluded
            self.index = index
        }
        fileprivate init(encoded: UInt32) {
            if encoded == .max {
                self = .singlePrimary
            } else {
                self.init(isIncluded: encoded & 1 == 1, index: Int(encoded >> 1))
            }
        }
        static func included(_ index: Int) -> Place { Place(isIncluded: true, index: index) }
        static func primary(_ index: Int?) -> Place {
            index.map { Place(isIncluded: false, index: $0) } ?? .singlePrimary
        }
    }

    /// The most distinct types given a number; a document with more stores the others' names in
    /// each entry (so that a document of a million one-off types cannot grow the table of names).
    static let maximumInternedTypes = 1 << 16

    // Entry layout in the arena: flags (1 byte), place (4 bytes, little-endian), type (varint:
    // 0, then the name's length and bytes, for a type without a number; else its number + 1),
    // id (a byte 0 then a varint for a canonical decimal of at most 18 digits, else a byte 1,
    // the length as a varint and the bytes).
    private var arena: UnsafeMutableRawPointer
    private var arenaCount = 0
    private var arenaCapacity: Int
    /// Arena offset + 1 of the entry in each slot; 0 for an empty slot.
    private var slots: UnsafeMutablePointer<UInt32>
    private var slotMask: Int
    private(set) var count = 0
    private var typeNumbers: [String: Int] = [:]
    private var typeNames: [String] = []
    /// Per index, so that crafted ids cannot all fall in one run of slots.
    private let seed = UInt64.random(in: .min ... .max)

    init() {
        arenaCapacity = 4096
        arena = malloc(arenaCapacity)!
        slotMask = 1023
        slots = .allocate(capacity: slotMask + 1)
        slots.initialize(repeating: 0, count: slotMask + 1)
    }

    deinit {
        free(arena)
        slots.deallocate()
    }

    // MARK: Keys

    /// An identity as the table compares it.
    struct Key {
        let type: String
        let id: String
        let isLocal: Bool
        /// The id's value when it is a canonical decimal the arena stores as a number.
        fileprivate let decimal: UInt64?

        init(type: String, id: String, isLocal: Bool) {
            self.type = type
            self.id = id
            self.isLocal = isLocal
            decimal = Self.canonicalDecimal(id)
        }

        init(_ identity: ResourceIdentity) {
            self.init(type: identity.type, id: identity.key, isLocal: identity.isLocal)
        }

        /// `"0"` or digits without a leading zero, at most 18 of them (below 10^18, so a UInt64
        /// holds it); anything else is kept as bytes, so each spelling stays distinct.
        private static func canonicalDecimal(_ text: String) -> UInt64? {
            var text = text
            return text.withUTF8 { bytes -> UInt64? in
                guard !bytes.isEmpty, bytes.count <= 18, bytes[0] != UInt8(ascii: "0") || bytes.count == 1 else {
                    return nil
                }
                var value: UInt64 = 0
                for byte in bytes {
                    guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
                }
                return value
            }
        }
    }

    private func hash(
        type: UnsafeRawBufferPointer,
        isLocal: Bool,
        decimal: UInt64?,
        id: UnsafeRawBufferPointer
    ) -> UInt64 {
        let typeHash = ByteHash.hash(type, seed: seed ^ (isLocal ? 0x9E37_79B9_7F4A_7C15 : 0))
        return decimal.map { ByteHash.mix(typeHash ^ $0) } ?? ByteHash.hash(id, seed: typeHash)
    }

    private func hash(of key: Key) -> UInt64 {
        var type = key.type
        var id = key.id
        return type.withUTF8 { typeBytes in
            id.withUTF8 { idBytes in
                hash(
                    type: UnsafeRawBufferPointer(typeBytes),
                    isLocal: key.isLocal,
                    decimal: key.decimal,
                    id: UnsafeRawBufferPointer(idBytes)
                )
            }
        }
    }

    // MARK: Arena

    private func reserve(_ bytes: Int) {
        guard arenaCount + bytes > arenaCapacity else { return }
        var capacity = arenaCapacity
        while arenaCount + bytes > capacity { capacity += max(capacity / 8, 4096) }
        // realloc, not a fresh block and a copy: glibc moves a large block by remapping its
        // pages, so growing the arena never holds two copies of it, and small steps (an eighth)
        // cost no copying while keeping the unused tail small.
        guard let grown = realloc(arena, capacity) else { fatalError("out of memory growing the identity index") }
        arena = grown
        arenaCapacity = capacity
    }

    private func append(_ byte: UInt8) {
        arena.storeBytes(of: byte, toByteOffset: arenaCount, as: UInt8.self)
        arenaCount += 1
    }

    private func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    private func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        appendVarint(UInt64(bytes.count))
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        (arena + arenaCount).copyMemory(from: base, byteCount: bytes.count)
        arenaCount += bytes.count
    }

    /// Reads a varint at `offset`, advancing it.
    private func varint(at offset: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = arena.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// The decoded key of the entry at `entry`: its type's bytes, whether it is local, its
    /// decimal id or its id's bytes.
    private func withKey<R>(
        of entry: Entry,
        _ body: (UnsafeRawBufferPointer, Bool, UInt64?, UnsafeRawBufferPointer) -> R
    ) -> R {
        var offset = Int(entry)
        let flags = Flags(rawValue: arena.load(fromByteOffset: offset, as: UInt8.self))
        offset += 5
        let typeNumber = Int(varint(at: &offset))
        let typeBytes: UnsafeRawBufferPointer?
        if typeNumber == 0 {
            let length = Int(varint(at: &offset))
            typeBytes = UnsafeRawBufferPointer(start: arena + offset, count: length)
            offset += length
        } else {
            typeBytes = nil
        }
        let tag = arena.load(fromByteOffset: offset, as: UInt8.self)
        offset += 1
        let decimal: UInt64?
        let idBytes: UnsafeRawBufferPointer
        if tag == 0 {
            decimal = varint(at: &offset)
            idBytes = UnsafeRawBufferPointer(start: nil, count: 0)
        } else {
            decimal = nil
            let length = Int(varint(at: &offset))
            idBytes = UnsafeRawBufferPointer(start: arena + offset, count: length)
        }
        if let typeBytes { return body(typeBytes, flags.contains(.local), decimal, idBytes) }
        var name = typeNames[typeNumber - 1]
        return name.withUTF8 { body(UnsafeRawBufferPointer($0), flags.contains(.local), decimal, idBytes) }
    }

    private func matches(_ entry: Entry, _ key: Key) -> Bool {
        var type = key.type
        var id = key.id
        return withKey(of: entry) { entryType, entryIsLocal, entryDecimal, entryID in
            guard entryIsLocal == key.isLocal, entryDecimal == key.decimal else { return false }
            let sameType = type.withUTF8 { entryType.elementsEqual(UnsafeRawBufferPointer($0)) }
            guard sameType else { return false }
            if key.decimal != nil { return true }
            return id.withUTF8 { entryID.elementsEqual(UnsafeRawBufferPointer($0)) }
        }
    }

    // MARK: Table

    /// The entry for `key`, made with `flags` and `place` when there was none.
    ///
    /// - Returns: The entry, and whether it was there before; `nil` when a new entry would take
    ///   the arena past 4 GiB, which the table's 32-bit offsets cannot reach.
    func insert(_ key: Key, flags: Flags, place: Place) -> (entry: Entry, existed: Bool)? {
        let hash = hash(of: key)
        var slot = Int(truncatingIfNeeded: hash) & slotMask
        while true {
            let stored = slots[slot]
            if stored == 0 { break }
            if matches(stored - 1, key) { return (stored - 1, true) }
            slot = (slot + 1) & slotMask
        }
        guard let entry = makeEntry(key, flags: flags, place: place) else { return nil }
        slots[slot] = entry + 1
        count += 1
        if count * 4 > (slotMask + 1) * 3 { growSlots() }
        return (entry, false)
    }

    private func makeEntry(_ key: Key, flags: Flags, place: Place) -> Entry? {
        var type = key.type
        var id = key.id
        let typeNumber: Int
        if let number = typeNumbers[key.type] {
            typeNumber = number
        } else if typeNames.count < Self.maximumInternedTypes {
            typeNames.append(key.type)
            typeNumber = typeNames.count
            typeNumbers[key.type] = typeNumber
        } else {
            typeNumber = 0
        }
        let needed = 32 + (typeNumber == 0 ? type.utf8.count : 0) + (key.decimal == nil ? id.utf8.count : 0)
        guard arenaCount + needed < Int(UInt32.max) else { return nil }
        reserve(needed)
        let entry = Entry(arenaCount)
        append((key.isLocal ? flags.union(.local) : flags).rawValue)
        withUnsafeBytes(of: place.encoded.littleEndian) { appendRaw($0) }
        appendVarint(UInt64(typeNumber))
        if typeNumber == 0 { type.withUTF8 { appendBytes(UnsafeRawBufferPointer($0)) } }
        if let decimal = key.decimal {
            append(0)
            appendVarint(decimal)
        } else {
            append(1)
            id.withUTF8 { appendBytes(UnsafeRawBufferPointer($0)) }
        }
        return entry
    }

    private func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        (arena + arenaCount).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        arenaCount += bytes.count
    }

    /// Doubles the table; the entries' hashes come from their keys in the arena, so the old table
    /// is freed before the rest of the arena grows again.
    private func growSlots() {
        let oldSlots = slots
        let oldCount = slotMask + 1
        slotMask = oldCount * 2 - 1
        slots = .allocate(capacity: slotMask + 1)
        slots.initialize(repeating: 0, count: slotMask + 1)
        for index in 0..<oldCount where oldSlots[index] != 0 {
            let stored = oldSlots[index]
            let hash = withKey(of: stored - 1) { type, isLocal, decimal, id in
                self.hash(type: type, isLocal: isLocal, decimal: decimal, id: id)
            }
            var slot = Int(truncatingIfNeeded: hash) & slotMask
            while slots[slot] != 0 { slot = (slot + 1) & slotMask }
            slots[slot] = stored
        }
        oldSlots.deallocate()
    }

    // MARK: Entries

    func flags(of entry: Entry) -> Flags {
        Flags(rawValue: arena.load(fromByteOffset: Int(entry), as: UInt8.self))
    }

    func setFlags(_ flags: Flags, of entry: Entry) {
        arena.storeBytes(of: flags.rawValue, toByteOffset: Int(entry), as: UInt8.self)
    }

    func insertFlags(_ flags: Flags, of entry: Entry) {
        setFlags(self.flags(of: entry).union(flags), of: entry)
    }

    func place(of entry: Entry) -> Place {
        Place(encoded: UInt32(littleEndian: arena.loadUnaligned(fromByteOffset: Int(entry) + 1, as: UInt32.self)))
    }

    func setPlace(_ place: Place, of entry: Entry) {
        arena.storeBytes(of: place.encoded.littleEndian, toByteOffset: Int(entry) + 1, as: UInt32.self)
    }

    /// The identity an entry stands for, made again for a message.
    func identity(of entry: Entry) -> ResourceIdentity {
        withKey(of: entry) { type, isLocal, decimal, id in
            let typeName = String(decoding: type, as: UTF8.self)
            let key = decimal.map { String($0) } ?? String(decoding: id, as: UTF8.self)
            return isLocal ? ResourceIdentity(type: typeName, lid: key) : ResourceIdentity(type: typeName, id: key)
        }
    }

    /// Calls `body` with every entry whose flags contain `flags`, in the order they were made.
    func forEachEntry(containing flags: Flags, _ body: (Entry) -> Void) {
        var offset = 0
        while offset < arenaCount {
            let entry = Entry(offset)
            if self.flags(of: entry).isSuperset(of: flags) { body(entry) }
            offset += 5
            if varint(at: &offset) == 0 { offset += Int(varint(at: &offset)) }
            let tag = arena.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            let value = Int(varint(at: &offset))
            if tag == 1 { offset += value }
        }
    }
}
