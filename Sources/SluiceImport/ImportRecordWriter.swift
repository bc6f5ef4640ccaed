// Where a record's bytes are written while it is built: a record's own array (`ImportRecord`),
// or a reading thread's buffer (`ImportRecordWriter`) that plain records are built in and copied
// out of whole. Why the buffer: an `Array.append` per field (a length, a name, a tag, a payload:
// a dozen per member) checked uniqueness and capacity each time, a fifth of the reading thread's
// samples on a plain import; the buffer's writes are stores. The encoding of values and numbers
// is written once, below, for both.

package import SluiceJSON

/// Where a record's bytes go while it is built (see the file's comment).
package protocol ImportRecordSink {
    /// Bytes written so far.
    var byteCount: Int { get }
    mutating func append(_ value: UInt8)
    mutating func append(_ value: UInt32)
    mutating func append(_ value: UInt64)
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer)
    /// Overwrites the `u32` at `at` (a count or length reserved before it was known).
    mutating func patch(_ value: UInt32, at: Int)
    /// `value` as compact JSON text.
    mutating func appendJSON(of value: JSONTape.Value)
}

extension ImportRecordSink {
    @inlinable
    package mutating func appendText(_ text: UnsafeRawBufferPointer) {
        append(UInt32(text.count))
        appendBytes(text)
    }

    @inlinable
    package mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { appendText(UnsafeRawBufferPointer($0)) }
    }

    /// Reserves a `u32` length and returns where it is, for text written in place.
    @inlinable
    package mutating func beginText() -> Int {
        let at = byteCount
        append(UInt32(0))
        return at
    }

    /// Fills in the length reserved at `at` with what was written since.
    @inlinable
    package mutating func endText(_ at: Int) {
        patch(UInt32(byteCount - at - 4), at: at)
    }

    /// A value as an attribute's tag and payload: scalars as themselves, objects and arrays as
    /// compact JSON text.
    @inlinable
    package mutating func appendValue(_ value: JSONTape.Value) {
        appendValue(in: value.tape, at: value.index)
    }

    /// The value that starts at `index` on `tape`, as ``appendValue(_:)`` writes it, without a
    /// `Value` made for a scalar (one holds the tape: a retain and a release per value).
    @inlinable
    package mutating func appendValue(in tape: JSONTape, at index: Int) {
        let token = tape[index]
        switch token.kind {
        case .null: append(ImportRecord.ValueTag.null.rawValue)
        case .true: append(ImportRecord.ValueTag.true.rawValue)
        case .false: append(ImportRecord.ValueTag.false.rawValue)
        case .string:
            append(ImportRecord.ValueTag.string.rawValue)
            tape.withUnsafeText(of: token) { appendText($0) }
        case .number:
            tape.withUnsafeText(of: token) { appendNumber($0) }
        case .objectStart, .arrayStart:
            append(ImportRecord.ValueTag.json.rawValue)
            let at = beginText()
            if let value = try? tape.value(at: index) { appendJSON(of: value) }
            endText(at)
        case .objectEnd, .arrayEnd, .key:
            append(ImportRecord.ValueTag.null.rawValue)
        }
    }

    /// A number: as an `Int64` where one holds it exactly (what `Int64(text)` accepts), else a
    /// finite `Double`, else its text only.
    @inlinable
    package mutating func appendNumber(_ text: UnsafeRawBufferPointer) {
        if let integer = ImportRecord.exactInteger(text) {
            append(ImportRecord.ValueTag.integer.rawValue)
            append(UInt64(bitPattern: integer))
        } else if let real = Double(String(decoding: text, as: UTF8.self)), real.isFinite {
            append(ImportRecord.ValueTag.real.rawValue)
            append(real.bitPattern)
        } else {
            append(ImportRecord.ValueTag.bigNumber.rawValue)
        }
        appendText(text)
    }
}

/// A reading thread's buffer for building records: written with stores, copied out whole as
/// each record's array (see the file's comment). One per thread; not shared.
package final class ImportRecordWriter: ImportRecordSink {
    // One thread's, one call at a time: every write skips the run-time exclusivity check, which
    // would cost more than the store itself.
    @exclusivity(unchecked) private var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) package private(set) var byteCount = 0
    /// JSON text of nested values is written by the tape into an array first.
    @exclusivity(unchecked) private var json: [UInt8] = []
    /// Where finished records are copied to.
    @exclusivity(unchecked) private var block: ImportRecordBlock?
    package init(capacity: Int = 4096) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    @inline(__always)
    private func reserve(_ count: Int) {
        if byteCount + count > capacity { grow(to: byteCount + count) }
    }

    private func grow(to needed: Int) {
        let larger = max(capacity * 2, needed)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        moved.copyMemory(from: base, byteCount: byteCount)
        base.deallocate()
        base = moved
        capacity = larger
    }

    /// Stores `value`'s bytes next (native-endian, unaligned).
    @inline(__always)
    private func store<Value: FixedWidthInteger>(_ value: Value) {
        reserve(MemoryLayout<Value>.size)
        base.storeBytes(of: value, toByteOffset: byteCount, as: Value.self)
        byteCount += MemoryLayout<Value>.size
    }

    @inline(__always)
    package func append(_ value: UInt8) { store(value) }

    @inline(__always)
    package func append(_ value: UInt32) { store(value) }

    @inline(__always)
    package func append(_ value: UInt64) { store(value) }

    @inline(__always)
    package func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + byteCount).copyMemory(from: source, byteCount: bytes.count)
        byteCount += bytes.count
    }

    package func patch(_ value: UInt32, at: Int) {
        base.storeBytes(of: value, toByteOffset: at, as: UInt32.self)
    }

    package func appendJSON(of value: JSONTape.Value) {
        json.removeAll(keepingCapacity: true)
        value.writeJSON(into: &json)
        json.withUnsafeBytes { appendBytes($0) }
    }

    /// A copy of the bytes written from `offset` on.
    package func bytes(from offset: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: base + offset, count: byteCount - offset))
    }

    /// Drops what was written since the last record: a record that failed half-way is set
    /// aside, and the buffer starts the next.
    package func discardRecord() { byteCount = 0 }

    /// The record written since the last one, copied out; the buffer starts the next.
    package func takeRecord() -> ImportRecord {
        if block.map({ $0.capacity - $0.used < byteCount }) ?? true {
            block = ImportRecordBlock(capacity: max(ImportRecordBlock.capacity, byteCount))
        }
        let block = block!
        (block.base + block.used).copyMemory(from: base, byteCount: byteCount)
        let record = ImportRecord(in: block, offset: block.used, count: byteCount)
        block.used += byteCount
        byteCount = 0
        return record
    }
}

/// Finished records, one after another: one allocation for a few hundred records rather than
/// one each. A record allocated on the reading thread and freed on the writing one cost a
/// `malloc`, a `free` and, as the two threads took turns at the reader's heap lock, wake-ups in
/// the kernel; a block is freed once, when the last of its records is.
///
/// @unchecked Sendable: its reading thread appends records past `used`; a record's bytes are
/// written before the record is handed to another thread (through the import's pipe, under its
/// lock) and never after, so no byte is written and read at once.
package final class ImportRecordBlock: @unchecked Sendable {
    /// A block's size: a few hundred ordinary records.
    static let capacity = 1 << 18
    let base: UnsafeMutableRawPointer
    let capacity: Int
    /// Bytes taken by records; only the reading thread reads or writes it.
    @exclusivity(unchecked) var used = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }
}
