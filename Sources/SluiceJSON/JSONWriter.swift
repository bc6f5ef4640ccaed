// The writer: yajl's generator behind a Swift API that hands output over in chunks.
//
// yajl_gen checks the structure (a key before every member value, containers closed in order, one
// top-level value) and escapes strings. It prints through a callback; here the callback appends to
// a buffer the writer owns, without capturing anything (the buffer is reached through the context
// pointer, as the parser reaches its state). After each call, once the buffer holds a chunk's worth,
// the writer hands it to the sink and empties it. So a million-resource document never sits in
// memory whole, and a sink that throws (a full disk) stops the writing with its own error: Swift
// errors never cross the C frame.
//
// Numbers are written as text: Swift's shortest round-trip form for doubles (yajl_gen_double uses
// printf's %.20g, which prints 0.1 as 0.10000000000000000555), and raw number text as given once
// it is checked against JSON's grammar.

internal import CYajl
import Foundation

/// Writes JSON text token by token, in constant memory, to a buffer, a file or any byte sink.
///
/// ```swift
/// let writer = JSONWriter(options: .init(prettyPrinted: true)) { chunk in
///     try handle.write(contentsOf: chunk)
/// }
/// try writer.beginObject()
/// try writer.key("name")
/// try writer.string("Ada")
/// try writer.key("born")
/// try writer.number(1815)
/// try writer.endObject()
/// try writer.finish()
/// ```
///
/// Every call checks the structure: a value where a key is due, a close without an open, or a
/// second top-level value throws ``JSONWriter/Failure``, naming the call. A writer is not
/// thread-safe.
public final class JSONWriter {
    /// How the text is laid out and escaped.
    public struct Options: Sendable, Hashable {
        /// Newlines and indentation. Default: compact.
        public var prettyPrinted: Bool
        /// The indentation of one level when pretty printed. Default: four spaces.
        public var indent: String
        /// Whether `/` is written as `\/` (for embedding in HTML `<script>`). Default: no.
        public var escapesSlashes: Bool
        /// Bytes handed to the sink at a time (the last chunk may be shorter). Default: 64 KiB.
        public var chunkSize: Int

        /// Creates options.
        public init(
            prettyPrinted: Bool = false,
            indent: String = "    ",
            escapesSlashes: Bool = false,
            chunkSize: Int = 64 * 1024
        ) {
            precondition(chunkSize > 0, "chunkSize must be positive")
            self.prettyPrinted = prettyPrinted
            self.indent = indent
            self.escapesSlashes = escapesSlashes
            self.chunkSize = chunkSize
        }
    }

    /// A call the writer refused: out of order, invalid text, or a sink that failed.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, in one sentence.
        public let message: String
        public var description: String { message }
    }

    private let handle: OpaquePointer
    private let output: UnsafeMutablePointer<OutputBuffer>
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let chunkSize: Int
    private var finished = false
    /// The indentation string, which yajl keeps a pointer to: a copy owned by the writer.
    private let indent: UnsafeMutablePointer<CChar>
    /// Open containers, to know when the top-level value is complete.
    private var depth = 0
    /// Whether the top-level value is complete.
    public private(set) var isComplete = false

    /// Creates a writer that hands its output to `sink` in chunks of `options.chunkSize` bytes.
    public init(options: Options = Options(), sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.sink = sink
        chunkSize = options.chunkSize
        output = .allocate(capacity: 1)
        output.initialize(to: OutputBuffer(capacity: options.chunkSize + 256))
        guard let handle = yajl_gen_alloc(nil) else { fatalError("yajl_gen_alloc failed: out of memory") }
        self.handle = handle
        let indentText = options.indent.utf8CString
        indent = .allocate(capacity: indentText.count)
        indentText.withUnsafeBufferPointer { indent.initialize(from: $0.baseAddress!, count: $0.count) }
        _ = cyajl_gen_config_flag(handle, yajl_gen_beautify, options.prettyPrinted ? 1 : 0)
        _ = cyajl_gen_config_flag(handle, yajl_gen_escape_solidus, options.escapesSlashes ? 1 : 0)
        // Swift strings are valid UTF-8 by construction, and raw bytes are checked here, strictly.
        _ = cyajl_gen_config_flag(handle, yajl_gen_validate_utf8, 0)
        _ = cyajl_gen_config_indent(handle, indent)
        _ = cyajl_gen_config_print_callback(
            handle,
            { context, text, length in
                // Safe because the context is `output`, alive as long as the generator.
                guard let context, let text, length > 0 else { return }
                context.assumingMemoryBound(to: OutputBuffer.self).pointee.append(UnsafeRawPointer(text), count: length)
            },
            UnsafeMutableRawPointer(output)
        )
    }

    deinit {
        yajl_gen_free(handle)
        indent.deallocate()
        output.pointee.deallocate()
        output.deinitialize(count: 1)
        output.deallocate()
    }

    // MARK: Structure

    /// Opens an object; write keys and values, then ``endObject()``.
    public func beginObject() throws { try check(yajl_gen_map_open(handle), "open an object", nesting: 1) }
    /// Closes the innermost open object.
    public func endObject() throws { try check(yajl_gen_map_close(handle), "close an object", nesting: -1) }
    /// Opens an array.
    public func beginArray() throws { try check(yajl_gen_array_open(handle), "open an array", nesting: 1) }
    /// Closes the innermost open array.
    public func endArray() throws { try check(yajl_gen_array_close(handle), "close an array", nesting: -1) }

    /// Writes a member name; the member's value follows.
    public func key(_ name: String) throws {
        var name = name
        let status = name.withUTF8 { generateString($0) }
        try check(status, "write a key", isKey: true)
    }

    // MARK: Values

    /// Writes a string, escaped as JSON requires.
    public func string(_ value: String) throws {
        var value = value
        let status = value.withUTF8 { generateString($0) }
        try check(status, "write a string")
    }

    /// Writes a string from raw UTF-8 bytes, which are checked strictly first.
    ///
    /// - Throws: ``Failure`` naming the offset of the first invalid byte.
    public func string(utf8 bytes: UnsafeRawBufferPointer) throws {
        if let offset = UTF8Validation.firstInvalidSequence(in: bytes) {
            throw Failure(message: "The bytes handed in as a string are not valid UTF-8 at offset \(offset).")
        }
        try check(generateString(bytes.assumingMemoryBound(to: UInt8.self)), "write a string")
    }

    /// Writes a number from its text, unchanged, once checked against JSON's number grammar.
    ///
    /// - Throws: ``Failure`` for text that is not a JSON number (`+1`, `01`, `1.`, `NaN`).
    public func number(text: String) throws {
        var text = text
        let status = try text.withUTF8 { bytes -> yajl_gen_status in
            guard JSONNumberText.isNumber(UnsafeRawBufferPointer(bytes)) else {
                throw Failure(
                    message: "\(String(reflecting: String(decoding: bytes, as: UTF8.self))) is not a JSON number."
                )
            }
            return bytes.withMemoryRebound(to: CChar.self) { yajl_gen_number(handle, $0.baseAddress, $0.count) }
        }
        try check(status, "write a number")
    }

    /// Writes an integer.
    public func number<T: BinaryInteger>(_ value: T) throws {
        try number(text: String(value))
    }

    /// Writes a double in the shortest text that reads back as the same value.
    ///
    /// - Throws: ``Failure`` for infinities and NaN, which JSON numbers cannot express.
    public func number(_ value: Double) throws {
        guard value.isFinite else { throw Failure(message: "\(value) cannot be written as a JSON number.") }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        try number(text: text)
    }

    /// Writes `true` or `false`.
    public func bool(_ value: Bool) throws { try check(yajl_gen_bool(handle, value ? 1 : 0), "write a Boolean") }

    /// Writes `null`.
    public func null() throws { try check(yajl_gen_null(handle), "write null") }

    /// Writes a ``JSONValue``, numbers with their text as they are.
    public func value(_ value: JSONValue) throws {
        switch value {
        case .null: try null()
        case .bool(let flag): try bool(flag)
        case .number(let text): try number(text: text)
        case .string(let text): try string(text)
        case .array(let elements):
            try beginArray()
            for element in elements { try self.value(element) }
            try endArray()
        case .object(let object):
            try beginObject()
            for (name, member) in zip(object.keys, object.values) {
                try key(name)
                try self.value(member)
            }
            try endObject()
        }
    }

    /// Hands the remaining output to the sink and checks the document is complete.
    ///
    /// - Throws: ``Failure`` when a container is still open or nothing was written.
    public func finish() throws {
        precondition(!finished, "JSONWriter.finish() called twice")
        finished = true
        try flush(force: true)
    }

    /// yajl_gen_string with a valid pointer even for an empty string (whose buffer has none).
    private func generateString(_ bytes: UnsafeBufferPointer<UInt8>) -> yajl_gen_status {
        if let base = bytes.baseAddress { return yajl_gen_string(handle, base, bytes.count) }
        var zero: UInt8 = 0
        return withUnsafePointer(to: &zero) { yajl_gen_string(handle, $0, 0) }
    }

    /// Turns yajl's status into a ``Failure``; then follows the nesting and hands over full chunks.
    private func check(_ status: yajl_gen_status, _ action: String, nesting: Int = 0, isKey: Bool = false) throws {
        precondition(!finished, "JSONWriter used after finish()")
        switch status {
        case yajl_gen_status_ok:
            break
        case yajl_gen_keys_must_be_strings:
            throw Failure(message: "Cannot \(action) where an object's member name is due; write a key first.")
        case yajl_max_depth_exceeded:
            throw Failure(message: "Cannot \(action): yajl's generator nests at most 128 levels.")
        case yajl_gen_in_error_state:
            throw Failure(message: "Cannot \(action): the container being closed is not the innermost open one.")
        case yajl_gen_generation_complete:
            throw Failure(message: "Cannot \(action): the document's single top-level value is already complete.")
        case yajl_gen_invalid_number:
            throw Failure(message: "Cannot \(action): the number is not valid JSON.")
        case yajl_gen_invalid_string:
            throw Failure(message: "Cannot \(action): the string is not valid UTF-8.")
        default:
            throw Failure(message: "Cannot \(action): yajl's generator failed with status \(status.rawValue).")
        }
        depth += nesting
        if depth == 0 && !isKey { isComplete = true }
        try flush(force: false)
    }

    private func flush(force: Bool) throws {
        if force {
            guard isComplete, depth == 0 else {
                throw Failure(
                    message: depth > 0
                        ? "The document is incomplete: \(depth) container(s) are still open."
                        : "The document is empty: no value was written."
                )
            }
        }
        guard output.pointee.count >= chunkSize || (force && output.pointee.count > 0) else { return }
        var start = 0
        let buffer = output.pointee
        while buffer.count - start >= chunkSize || (force && start < buffer.count) {
            let end = min(start + chunkSize, buffer.count)
            try sink(UnsafeRawBufferPointer(start: buffer.bytes + start, count: end - start))
            start = end
        }
        output.pointee.removeFirst(start)
    }
}

/// The bytes yajl has printed and the sink has not taken: a plain growable buffer, so that the
/// print callback copies with memcpy (appending a raw buffer to an Array went element by element).
struct OutputBuffer {
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        bytes = .allocate(capacity: capacity)
    }

    mutating func append(_ source: UnsafeRawPointer, count length: Int) {
        if count + length > capacity {
            var newCapacity = capacity * 2
            while newCapacity < count + length { newCapacity *= 2 }
            let newBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBytes.moveInitialize(from: bytes, count: count)
            bytes.deallocate()
            bytes = newBytes
            capacity = newCapacity
        }
        // Safe because the buffer has room for `length` more bytes after growing.
        UnsafeMutableRawPointer(bytes + count).copyMemory(from: source, byteCount: length)
        count += length
    }

    /// Drops the first `length` bytes, moving the rest to the front.
    mutating func removeFirst(_ length: Int) {
        guard length > 0 else { return }
        UnsafeMutableRawPointer(bytes).copyMemory(from: bytes + length, byteCount: count - length)
        count -= length
    }

    func deallocate() { bytes.deallocate() }
}

extension JSONWriter {
    /// Writes a document with `body` and returns its bytes: for small documents held in memory.
    public static func bytes(options: Options = Options(), _ body: (JSONWriter) throws -> Void) throws -> [UInt8] {
        var result: [UInt8] = []
        let writer = JSONWriter(options: options) { result.append(contentsOf: $0) }
        try body(writer)
        try writer.finish()
        return result
    }
}
