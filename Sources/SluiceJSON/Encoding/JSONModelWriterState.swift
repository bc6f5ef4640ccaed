// The direct writer's state behind the pointer every `JSONModelWriter` copy shares, and the
// decimal printing it and other writers use.

package import Foundation

/// The object being written: its table, held so that its pointers stay valid.
@usableFromInline
struct ObjectKeys {
    /// Unowned: tables live as long as their types (static or shared); a strong reference cost a
    /// retain and a release per object.
    unowned(unsafe) let table: JSONModelKeys?
    let view: JSONModelKeyView

    func codingKey(_ field: Int) -> (any CodingKey)? { table?.codingKeys[field] }
}

/// A direct writer's state, behind the pointer every `JSONModelWriter` copy shares. Not part of
/// the public API: usable from inlinable code only so that the generated members' key writes
/// inline.
@usableFromInline
package struct JSONModelWriterState {
    var bytes: UnsafeMutablePointer<UInt8>
    var count = 0
    var capacity: Int
    /// Bytes handed to the sink at a time; `Int.max` collects the whole document.
    let chunkSize: Int
    let sink: ((UnsafeRawBufferPointer) throws -> Void)?
    /// Whether any chunk has gone to the sink (after which a fault cannot be answered by writing
    /// the document again through the general path).
    package private(set) var hasFlushed = false
    /// A sink's error, kept until the writer can throw it (appends do not throw).
    var sinkError: (any Error)?
    var needsComma = false
    /// Member keys written so far: how an encoder tells whether an optional member was present.
    package var keysWritten = 0
    /// Set by an encoder of a higher layer while it writes one part of its format, so that a value
    /// can write itself one way there and another elsewhere, without this layer knowing what the
    /// part is; 0 outside any.
    package var scope = 0
    var depth = 0
    let maxDepth: Int
    let strategy: Int
    let sortsKeys: Bool
    let escapesSlashes: Bool
    let escapes: UnsafePointer<UInt8>
    @usableFromInline var keys = ObjectKeys(table: nil, view: .empty)
    let tree: EncodingTree
    var captures = false
    /// Only a string written as the member's value itself is kept, not one nested in it.
    var captureDepth = 0
    var captured: String?
    var pending: StaticString?

    /// A writer's state under `tree`'s settings; `chunkSize` nil collects the document whole.
    ///
    /// - Parameter maxDepth: The most containers open at once, counting those the writer itself
    ///   opens (a JSON:API encoder opens the document's): `JSONWriter.maxDepth` less the tree's
    ///   base depth by default.
    package static func make(
        tree: EncodingTree,
        maxDepth: Int? = nil,
        chunkSize: Int?,
        sink: ((UnsafeRawBufferPointer) throws -> Void)?
    ) -> UnsafeMutablePointer<JSONModelWriterState> {
        let settings = tree.settings
        let strategy: Int
        switch settings.keyStrategy {
        case .convertToSnakeCase: strategy = 1
        case .convertToKebabCase: strategy = 2
        default: strategy = 0
        }
        let escapesSlashes = !settings.outputFormatting.contains(.withoutEscapingSlashes)
        let capacity = chunkSize.map { $0 + 4096 } ?? 64 * 1024
        let state = UnsafeMutablePointer<JSONModelWriterState>.allocate(capacity: 1)
        state.initialize(
            to: JSONModelWriterState(
                bytes: .allocate(capacity: capacity),
                capacity: capacity,
                chunkSize: chunkSize ?? .max,
                sink: sink,
                maxDepth: maxDepth ?? JSONWriter.maxDepth - tree.baseDepth,
                strategy: strategy,
                sortsKeys: settings.outputFormatting.contains(.sortedKeys),
                escapesSlashes: escapesSlashes,
                escapes: escapesSlashes ? EscapeTable.withSlash : EscapeTable.withoutSlash,
                tree: tree
            )
        )
        return state
    }

    /// Whether the settings let generated writers write: compact output and a key strategy the
    /// macro has names for. (Pretty output is yajl's layout, which the general path keeps.)
    package static func accepts(_ settings: StreamingJSONEncoder.Settings) -> Bool {
        guard settings.usesGeneratedWriters, !settings.outputFormatting.contains(.prettyPrinted) else { return false }
        switch settings.keyStrategy {
        case .useDefaultKeys, .convertToSnakeCase, .convertToKebabCase: return true
        case .custom, .memberName: return false
        }
    }

    /// Frees a state made by `make`, with its buffer unless `finish` handed it over.
    package static func free(_ state: UnsafeMutablePointer<JSONModelWriterState>) {
        state.pointee.bytes.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: Output

    /// Hands whatever remains to the sink; throws the sink's error if one failed.
    package mutating func finish() throws {
        emitChunks(all: true)
        if let sinkError { throw sinkError }
    }

    /// The sink's error, once one has failed: the encoder rethrows it rather than writing again.
    package var failedSink: (any Error)? { sinkError }

    /// The whole document of a collecting writer, as `Data` that takes over the buffer.
    package mutating func takeData() -> Data {
        let data = Data(bytesNoCopy: bytes, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
        bytes = .allocate(capacity: 1)
        capacity = 1
        count = 0
        return data
    }

    /// Drops what was written after `count` bytes (a collecting writer's duplicate value).
    package mutating func truncate(to count: Int) {
        self.count = min(self.count, count)
        needsComma = false
    }

    /// Throws the sink's error, if a flush failed since the last check.
    package func check() throws {
        if let sinkError { throw sinkError }
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { makeRoom(1) }
        bytes[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ source: UnsafeRawPointer, count length: Int) {
        if count + length > capacity {
            appendSlowly(source, count: length)
            return
        }
        (bytes + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: length)
        count += length
    }

    @inline(__always)
    mutating func append(ascii text: StaticString) {
        append(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
    }

    /// Copies in pieces, flushing between them: a string bigger than the buffer never makes the
    /// buffer that big when the output streams.
    private mutating func appendSlowly(_ source: UnsafeRawPointer, count length: Int) {
        var done = 0
        while done < length {
            if count == capacity { makeRoom(1) }
            let piece = min(length - done, capacity - count)
            (bytes + count).update(from: (source + done).assumingMemoryBound(to: UInt8.self), count: piece)
            count += piece
            done += piece
        }
    }

    /// Makes room for `needed` more bytes: hands full chunks to the sink, or grows a collecting
    /// buffer.
    mutating func makeRoom(_ needed: Int) {
        if chunkSize != .max, count >= chunkSize {
            emitChunks(all: false)
            if count + needed <= capacity { return }
        }
        if count + needed <= capacity { return }
        let grown = max(capacity * 2, count + needed)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: bytes, count: count)
        bytes.deallocate()
        bytes = larger
        capacity = grown
    }

    /// Hands every full chunk to the sink, and with `all` the rest too, in chunks of
    /// `chunkSize`; keeps what remains. After a sink fails, output is dropped and the error waits
    /// for the next check (appends do not throw). A collecting writer (no sink) keeps everything.
    private mutating func emitChunks(all: Bool) {
        guard let sink else { return }
        var start = 0
        while count - start >= chunkSize || (all && start < count) {
            let end = min(start + chunkSize, count)
            if sinkError == nil {
                do {
                    try sink(UnsafeRawBufferPointer(start: bytes + start, count: end - start))
                    hasFlushed = true
                } catch {
                    sinkError = error
                }
            }
            start = end
        }
        if start > 0 {
            (bytes).update(from: bytes + start, count: count - start)
            count -= start
        }
    }

    /// Makes sure `needed` bytes fit without a flush in between (numbers are trimmed after
    /// they are printed, which needs them in the buffer whole).
    @inline(__always)
    mutating func reserve(_ needed: Int) {
        if count + needed > capacity { makeRoom(needed) }
    }

    // MARK: Structure

    @inline(__always)
    mutating func openPending() {
        guard let pending else { return }
        self.pending = nil
        if needsComma { append(UInt8(ascii: ",")) }
        append(UnsafeRawPointer(pending.utf8Start), count: pending.utf8CodeUnitCount)
        depth += 1
        needsComma = false
    }

    @inline(__always)
    mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
    }

    @usableFromInline
    mutating func key(field: Int) {
        openPending()
        let start = Int(keys.view.spans[2 * field])
        let length = Int(keys.view.spans[2 * field + 1])
        // The bytes start with a comma, skipped for an object's first member.
        let skip = needsComma ? 0 : 1
        append(UnsafeRawPointer(keys.view.bytes + start + skip), count: length - skip)
        needsComma = false
        keysWritten &+= 1
    }

    mutating func checkDepth() throws {
        guard depth < maxDepth else { throw JSONModelWriterFault() }
    }

    @inline(__always)
    mutating func open(_ byte: UInt8) throws {
        try checkDepth()
        separate()
        append(byte)
        depth += 1
        needsComma = false
    }

    @inline(__always)
    mutating func close(_ byte: UInt8) {
        append(byte)
        depth -= 1
        needsComma = true
    }

    // MARK: Text

    /// `text` in quotes, escaped as yajl's generator escapes (so that both paths print the same
    /// bytes): `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\/` when slashes are escaped, other
    /// control characters as `\u00XX`.
    mutating func quoted(_ text: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        guard let base = text.baseAddress else {
            append(UInt8(ascii: "\""))
            return
        }
        let length = text.count
        var start = 0
        var index = 0
        while index < length {
            let escape = escapes[Int(base[index])]
            if escape != 0 {
                if index > start { append(UnsafeRawPointer(base + start), count: index - start) }
                reserve(6)
                bytes[count] = UInt8(ascii: "\\")
                if escape == UInt8(ascii: "u") {
                    let byte = base[index]
                    bytes[count + 1] = UInt8(ascii: "u")
                    bytes[count + 2] = UInt8(ascii: "0")
                    bytes[count + 3] = UInt8(ascii: "0")
                    bytes[count + 4] = EscapeTable.hexDigit(byte >> 4)
                    bytes[count + 5] = EscapeTable.hexDigit(byte & 0x0F)
                    count += 6
                } else {
                    bytes[count + 1] = escape
                    count += 2
                }
                start = index + 1
            }
            index += 1
        }
        if length > start { append(UnsafeRawPointer(base + start), count: length - start) }
        append(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: Int64) {
        if value < 0 {
            unsigned(value.magnitude, negative: true)
        } else {
            unsigned(UInt64(value), negative: false)
        }
    }

    /// The digits (see `withDecimalDigits`), copied in place.
    mutating func unsigned(_ value: UInt64, negative: Bool) {
        reserve(21)
        withDecimalDigits(of: value, negative: negative) { digits in
            (bytes + count).update(from: digits.baseAddress!.assumingMemoryBound(to: UInt8.self), count: digits.count)
            count += digits.count
        }
    }
}

/// Receives the standard library's number text: `_writeASCII` is its hook for ASCII text, which
/// floating-point types print through without making a String.
struct BufferStream: TextOutputStream {
    let state: UnsafeMutablePointer<JSONModelWriterState>

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { state.pointee.append(UnsafeRawPointer($0.baseAddress!), count: $0.count) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        state.pointee.append(UnsafeRawPointer(base), count: buffer.count)
    }
}

/// Which bytes of a string are escaped, and how: the letter after the backslash, `u` for
/// `\u00XX`, 0 for bytes written as they are.
private enum EscapeTable {
    // Immutable after they are made.
    nonisolated(unsafe) static let withoutSlash: UnsafePointer<UInt8> = make(slash: false)
    nonisolated(unsafe) static let withSlash: UnsafePointer<UInt8> = make(slash: true)

    /// The digits of `\u00XX` in lowercase, as Foundation's encoder writes them (``JSONWriter``
    /// turns yajl's capitals into the same).
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private static func make(slash: Bool) -> UnsafePointer<UInt8> {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in 0..<0x20 { table[byte] = UInt8(ascii: "u") }
        table[0x08] = UInt8(ascii: "b")
        table[0x09] = UInt8(ascii: "t")
        table[0x0A] = UInt8(ascii: "n")
        table[0x0C] = UInt8(ascii: "f")
        table[0x0D] = UInt8(ascii: "r")
        table[Int(UInt8(ascii: "\""))] = UInt8(ascii: "\"")
        table[Int(UInt8(ascii: "\\"))] = UInt8(ascii: "\\")
        if slash { table[Int(UInt8(ascii: "/"))] = UInt8(ascii: "/") }
        return UnsafePointer(table)
    }
}

/// Calls `body` with the decimal digits of `value`, after a minus sign when `negative`: printed
/// backwards into 24 bytes on the stack, so that a writer puts an integer in its buffer without
/// making a `String` (the JSON writers, PostgreSQL's COPY text).
@inlinable @inline(__always)
package func withDecimalDigits<Result>(
    of value: UInt64,
    negative: Bool = false,
    _ body: (UnsafeRawBufferPointer) throws -> Result
) rethrows -> Result {
    var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits and a sign fit
    return try withUnsafeMutableBytes(of: &scratch) { scratch in
        var position = scratch.count
        var rest = value
        repeat {
            position -= 1
            scratch[position] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        } while rest != 0
        if negative {
            position -= 1
            scratch[position] = UInt8(ascii: "-")
        }
        return try body(UnsafeRawBufferPointer(rebasing: scratch[position...]))
    }
}
