// The importers' form of a record: what an import stores of it (table, key, columns, links to
// other records), written from the tape into one byte buffer by the layer that knows the format
// (plain records here, JSON:API resources in SluiceJSONAPIImport).
//
// Why: an import once wrote each resource from a tree of `String`s, `JSONValue`s and arrays built
// on the reading threads and torn down on the writing one; its retains, releases and frees took as
// long on the writer as SQLite's own work (perf). A record is one allocation, built on the reading
// threads (the parallel workers among them), and the writer binds its bytes to SQLite or copies
// them into PostgreSQL's COPY stream as they are.

package import SluiceJSON

/// One record as an import writes it, in a single buffer: a JSON:API resource (its type, key,
/// attributes, relationships) or a plain JSON record (its table, key and columns), made on the
/// reading threads and handed to an ``ImportWriter`` in blocks.
///
/// A writer reads a record in order with ``withReader(_:)``: the table (a resource's type), the
/// key, the columns with their values, then the links (a resource's relationships; none for a
/// plain record):
///
/// ```swift
/// record.withReader { reader in
///     let table = reader.text()
///     let (kind, key) = reader.key()             // .none: nothing to key the row by
///     for _ in 0..<reader.count() {
///         let column = reader.text()
///         let value = reader.value()
///     }
///     for _ in 0..<reader.count() {
///         let name = reader.text()
///         let linkage = reader.linkage()
///         let meta = reader.meta()
///         let identifiers = reader.count()
///         for _ in 0..<identifiers {
///             let targetTable = reader.text()
///             let (targetKind, targetKey) = reader.key()
///         }
///     }
/// }
/// ```
public struct ImportRecord: Sendable {
    // Layout (native-endian integers, unaligned): the type (`u32` length and UTF-8), the key kind
    // (`u8`: 0 none, 1 `id`, 2 `lid`) and key; the attribute count (`u32`) and each attribute:
    // name, `ValueTag` (`u8`) and its payload; the relationship count (`u32`) and each
    // relationship: name, linkage kind (`u8`: 0 no `data`, 1 `null`, 2 to-one, 3 to-many), `meta`
    // as JSON text (`i32` length, -1 when absent or `null`), the identifier count (`u32`) and each
    // identifier's type, key kind and key. Strings are unescaped UTF-8; objects and arrays are
    // compact JSON text as `JSONValue.jsonText` writes it.
    /// A record built by appends: its own array. A plain record, built in a reading thread's
    /// buffer: empty, its bytes a range of a block shared with the records built after it; read
    /// every record with ``withReader(_:)``, never through this.
    package var bytes: [UInt8]
    private var block: ImportRecordBlock?
    private var offset = 0
    private var count = 0

    /// What an attribute's value is, with what its payload holds.
    package enum ValueTag: UInt8, Sendable {
        /// No payload.
        case null, `false`, `true`
        /// A number that `Int64` holds exactly: the `Int64`, then the text as written.
        case integer
        /// A number a finite `Double` approximates: the `Double`, then the text as written.
        case real
        /// A number beyond a double's range: its text.
        case bigNumber
        /// A string: its UTF-8.
        case string
        /// An object or array: its compact JSON text.
        case json
    }

    package init() {
        bytes = []
        bytes.reserveCapacity(512)
    }

    /// The record whose bytes a format layer wrote (a decoder's raw encoding of a resource).
    package init(encoded: [UInt8]) {
        bytes = encoded
    }

    /// The record of the `count` bytes at `offset` of `block`, written there once and for all.
    package init(in block: ImportRecordBlock, offset: Int, count: Int) {
        bytes = []
        self.block = block
        self.offset = offset
        self.count = count
    }

    package mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ value: UInt8) { bytes.append(value) }

    package mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    package mutating func appendBytes(_ text: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: text)
    }

    package var byteCount: Int { bytes.count }

    package mutating func appendJSON(of value: JSONTape.Value) {
        value.writeJSON(into: &bytes)
    }

    /// Overwrites the `u32` at `at` (a count or length reserved before it was known).
    package mutating func patch(_ value: UInt32, at: Int) {
        withUnsafeBytes(of: value) { source in
            for offset in 0..<4 { bytes[at + offset] = source[offset] }
        }
    }
}

// MARK: Reading a record

extension ImportRecord {
    /// What a record's key is.
    public enum KeyKind: UInt8, Sendable {
        /// No key: a resource with neither `id` nor `lid`; the writer leaves it out.
        case none
        /// A resource's `id`, or a plain record's key (its `--pk` members, or its source and
        /// position).
        case id
        /// A resource's `lid`, for a resource that has no `id`.
        case lid
    }

    /// A column's value as read from a record; texts are UTF-8 that point into the record's
    /// buffer, valid inside ``ImportRecord/withReader(_:)`` only.
    public enum Value {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number that `Int64` holds exactly, with its text as written.
        case integer(Int64, text: UnsafeRawBufferPointer)
        /// A number that a finite `Double` approximates, with its text as written.
        case real(Double, text: UnsafeRawBufferPointer)
        /// A number beyond a double's range: its text as written.
        case bigNumber(UnsafeRawBufferPointer)
        /// A string, unescaped.
        case string(UnsafeRawBufferPointer)
        /// An object or array, as compact JSON text.
        case json(UnsafeRawBufferPointer)
    }

    /// What a link (a relationship) holds.
    public enum Linkage: UInt8 {
        /// No `data` member: what an earlier import wrote stays.
        case absent
        /// `data` is `null`: no target.
        case null
        /// One target (to-one).
        case one
        /// A list of targets (to-many), perhaps empty.
        case many
    }

    /// A to-one link's target: its table (type) and its key (its `id`, else its `lid`), as the
    /// record's bytes.
    public struct ToOneTarget {
        /// The target's table (a resource's type), UTF-8.
        public let type: UnsafeRawBufferPointer
        /// The target's key, UTF-8.
        public let key: UnsafeRawBufferPointer
    }

    /// A cursor over a record's bytes, valid inside ``ImportRecord/withReader(_:)`` only. Each call
    /// reads the next field, so they must come in the order the record's documentation shows.
    public struct Reader {
        let base: UnsafeRawBufferPointer
        var offset = 0

        mutating func u32() -> UInt32 {
            let value = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            offset += 4
            return value
        }

        mutating func u8() -> UInt8 {
            let value = base[offset]
            offset += 1
            return value
        }

        /// The next count: of columns, of links, or of a link's identifiers.
        public mutating func count() -> Int { Int(u32()) }

        /// The next text (a table, column, link or key name), UTF-8.
        public mutating func text() -> UnsafeRawBufferPointer {
            let length = Int(u32())
            defer { offset += length }
            return UnsafeRawBufferPointer(rebasing: base[offset..<(offset + length)])
        }

        /// A key kind and its key (an empty buffer for `.none`).
        public mutating func key() -> (KeyKind, UnsafeRawBufferPointer) {
            let kind = KeyKind(rawValue: u8()) ?? .none
            return (kind, kind == .none ? UnsafeRawBufferPointer(start: base.baseAddress, count: 0) : text())
        }

        /// The next column's value.
        public mutating func value() -> Value {
            switch ValueTag(rawValue: u8()) ?? .null {
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .integer:
                let integer = base.loadUnaligned(fromByteOffset: offset, as: Int64.self)
                offset += 8
                return .integer(integer, text: text())
            case .real:
                let real = base.loadUnaligned(fromByteOffset: offset, as: Double.self)
                offset += 8
                return .real(real, text: text())
            case .bigNumber: return .bigNumber(text())
            case .string: return .string(text())
            case .json: return .json(text())
            }
        }

        /// The next link's linkage kind.
        public mutating func linkage() -> Linkage { Linkage(rawValue: u8()) ?? .absent }

        /// The target of to-one linkage of `identifiers` identifiers (0 for `null`, 1 for an
        /// identifier): `nil` for `null` and for an identifier with neither `id` nor `lid`.
        public mutating func toOneTarget(identifiers: Int) -> ToOneTarget? {
            guard identifiers == 1 else { return nil }
            let type = text()
            let (kind, key) = key()
            return kind == .none ? nil : ToOneTarget(type: type, key: key)
        }

        /// A relationship's `meta` as JSON text, or `nil`.
        public mutating func meta() -> UnsafeRawBufferPointer? {
            let length = Int32(bitPattern: u32())
            guard length >= 0 else { return nil }
            defer { offset += Int(length) }
            return UnsafeRawBufferPointer(rebasing: base[offset..<(offset + Int(length))])
        }
    }

    /// Calls `body` with a reader at the record's start; the texts it gives live as long as the call.
    public func withReader<R>(_ body: (inout Reader) throws -> R) rethrows -> R {
        if let block {
            var reader = Reader(base: UnsafeRawBufferPointer(start: block.base + offset, count: count))
            return try withExtendedLifetime(block) { try body(&reader) }
        }
        return try bytes.withUnsafeBytes { buffer in
            var reader = Reader(base: buffer)
            return try body(&reader)
        }
    }
}

// MARK: Writing values from the tape

extension ImportRecord: ImportRecordSink {
    /// The integer a JSON number's text spells without fraction or exponent, if `Int64` holds it.
    @inlinable
    package static func exactInteger(_ text: UnsafeRawBufferPointer) -> Int64? {
        guard !text.isEmpty, text.count <= 20 else { return nil }
        let negative = text[0] == UInt8(ascii: "-")
        var index = negative ? 1 : 0
        guard index < text.count else { return nil }
        var magnitude: UInt64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}
