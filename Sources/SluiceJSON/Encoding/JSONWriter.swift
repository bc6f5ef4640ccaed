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
        /// The indentation of one level when pretty printed: whitespace only (anything else is
        /// replaced by four spaces, since yajl refuses it). Default: four spaces.
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
    /// What has been written, for the structure checks. Behind a pointer, as `output` is: every
    /// access to a class's stored property is checked for exclusivity at run time, several
    /// times per token here, and a pointer's memory is not.
    private let structure: UnsafeMutablePointer<Structure>
    /// The indentation string, which yajl keeps a pointer to: a copy owned by the writer.
    private let indent: UnsafeMutablePointer<CChar>
    /// Whether the top-level value is complete.
    public var isComplete: Bool { structure.pointee.isComplete }

    /// Creates a writer that hands its output to `sink` in chunks of `options.chunkSize` bytes.
    public init(options: Options = Options(), sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        // Checked here too: `chunkSize` is settable after `Options.init`, and 0 would hand the
        // sink empty chunks forever.
        precondition(options.chunkSize > 0, "chunkSize must be positive")
        self.sink = sink
        chunkSize = options.chunkSize
        output = .allocate(capacity: 1)
        output.initialize(to: OutputBuffer(capacity: options.chunkSize + 256))
        structure = .allocate(capacity: 1)
        structure.initialize(to: Structure())
        guard let handle = yajl_gen_alloc(nil) else { fatalError("yajl_gen_alloc failed: out of memory") }
        self.handle = handle
        // yajl refuses an indent of anything but whitespace and then dereferences a null pointer
        // when it indents; such an indent is replaced by four spaces.
        let isWhitespace = options.indent.utf8.allSatisfy { [9, 10, 11, 12, 13, 32].contains($0) }
        let indentText = (isWhitespace ? options.indent : "    ").utf8CString
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
                let buffer = context.assumingMemoryBound(to: OutputBuffer.self)
                // yajl prints a control character's escape, `\u00XX`, as a print of its own, and
                // no other print of six bytes starts so (a string's runs between escapes hold no
                // backslash). Its hex digits go out in lowercase, as Foundation's encoder and the
                // generated writers write them.
                if length == 6, text[0] == 0x5C, text[1] == 0x75, text[2] == 0x30, text[3] == 0x30 {
                    var escape: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x5C, 0x75, 0x30, 0x30, 0, 0)
                    escape.4 = UInt8(bitPattern: text[4]) | (text[4] >= 0x41 ? 0x20 : 0)
                    escape.5 = UInt8(bitPattern: text[5]) | (text[5] >= 0x41 ? 0x20 : 0)
                    withUnsafeBytes(of: &escape) { buffer.pointee.append($0.baseAddress!, count: 6) }
                    return
                }
                buffer.pointee.append(UnsafeRawPointer(text), count: length)
            },
            UnsafeMutableRawPointer(output)
        )
    }

    deinit {
        yajl_gen_free(handle)
        indent.deallocate()
        output.pointee.deallocate()
        output.deinitialize(count: 1)
        structure.deinitialize(count: 1)
        structure.deallocate()
        output.deallocate()
    }

    // MARK: Structure

    /// Opens an object; write keys and values, then ``endObject()``.
    public func beginObject() throws { try perform(.beginObject, "open an object") { yajl_gen_map_open(handle) } }
    /// Closes the innermost open object.
    public func endObject() throws { try perform(.endObject, "close an object") { yajl_gen_map_close(handle) } }
    /// Opens an array.
    public func beginArray() throws { try perform(.beginArray, "open an array") { yajl_gen_array_open(handle) } }
    /// Closes the innermost open array.
    public func endArray() throws { try perform(.endArray, "close an array") { yajl_gen_array_close(handle) } }

    /// Writes a member name; the member's value follows.
    public func key(_ name: String) throws {
        var name = name
        try perform(.key, "write a key") { name.withUTF8 { generateString($0) } }
    }

    // MARK: Values

    /// Writes a string, escaped as JSON requires.
    public func string(_ value: String) throws {
        var value = value
        try perform(.value, "write a string") { value.withUTF8 { generateString($0) } }
    }

    /// Writes a string from raw UTF-8 bytes, which are checked strictly first.
    ///
    /// - Throws: ``Failure`` naming the offset of the first invalid byte.
    public func string(utf8 bytes: UnsafeRawBufferPointer) throws {
        if let offset = UTF8Validation.firstInvalidSequence(in: bytes) {
            throw Failure(message: "The bytes handed in as a string are not valid UTF-8 at offset \(offset).")
        }
        try perform(.value, "write a string") { generateString(bytes.assumingMemoryBound(to: UInt8.self)) }
    }

    /// Writes a number from its text, unchanged, once checked against JSON's number grammar.
    ///
    /// - Throws: ``Failure`` for text that is not a JSON number (`+1`, `01`, `1.`, `NaN`).
    public func number(text: String) throws {
        var text = text
        let isNumber = text.withUTF8 { JSONNumberText.isNumber(UnsafeRawBufferPointer($0)) }
        guard isNumber else { throw Failure(message: "\(String(reflecting: text)) is not a JSON number.") }
        try writeNumber(text)
    }

    /// Writes number text the caller has already checked (the encoder's tree holds only valid
    /// text): no second pass over it.
    package func number(validatedText text: String) throws { try writeNumber(text) }

    /// Writes number text known to be valid: no second check of text the writer made itself.
    private func writeNumber(_ text: String) throws {
        var text = text
        try perform(.value, "write a number") {
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { yajl_gen_number(handle, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Writes an integer.
    public func number<T: BinaryInteger>(_ value: T) throws {
        try writeNumber(String(value))
    }

    /// Writes a double in the shortest text that reads back as the same value.
    ///
    /// - Throws: ``Failure`` for infinities and NaN, which JSON numbers cannot express.
    public func number(_ value: Double) throws {
        guard value.isFinite else { throw Failure(message: "\(value) cannot be written as a JSON number.") }
        try writeNumber(JSONNumberText.shortestText(value))
    }

    /// Writes `true` or `false`.
    public func bool(_ value: Bool) throws {
        try perform(.value, "write a Boolean") { yajl_gen_bool(handle, value ? 1 : 0) }
    }

    /// Writes `null`.
    public func null() throws { try perform(.value, "write null") { yajl_gen_null(handle) } }

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
    /// - Throws: ``Failure`` when a container is still open or nothing was written; the sink's
    ///   error when it fails. After any failure the writer stays failed and rethrows it.
    public func finish() throws {
        if let failure = structure.pointee.failure { throw failure }
        guard !structure.pointee.finished else { throw Failure(message: "The writer has already finished.") }
        guard structure.pointee.isComplete else {
            throw Failure(
                message: structure.pointee.containers.isEmpty
                    ? "The document is empty: no value was written."
                    : "The document is incomplete: \(structure.pointee.containers.count) container(s) are still open."
            )
        }
        do {
            try flush(force: true)
        } catch {
            structure.pointee.failure = error
            throw error
        }
        structure.pointee.finished = true
    }

    /// yajl_gen_string with a valid pointer even for an empty string (whose buffer has none).
    private func generateString(_ bytes: UnsafeBufferPointer<UInt8>) -> yajl_gen_status {
        if let base = bytes.baseAddress { return yajl_gen_string(handle, base, bytes.count) }
        var zero: UInt8 = 0
        return withUnsafePointer(to: &zero) { yajl_gen_string(handle, $0, 0) }
    }

    /// The most containers open at once: yajl's generator keeps a fixed array of 128 states and
    /// does not check the bound itself.
    public static let maxDepth = 127

    /// Checks the call against the structure written so far (yajl checks little: it accepts a
    /// key in an array, a close of the wrong kind, and writes past its state array), makes it,
    /// turns yajl's status into a ``Failure``, then hands over full chunks. Any failure leaves
    /// the writer failed: later calls throw the same error.
    @inline(__always)
    private func perform(_ event: Structure.Event, _ action: String, _ call: () -> yajl_gen_status) throws {
        try structure.pointee.advance(event, action, call)
        do {
            try flush(force: false)
        } catch {
            structure.pointee.failure = error
            throw error
        }
    }

    private func flush(force: Bool) throws {
        guard output.pointee.count >= chunkSize || (force && output.pointee.count > 0) else { return }
        var start = 0
        // Chunks the sink took are dropped even when a later one fails, so none is sent twice.
        defer { output.pointee.removeFirst(start) }
        let buffer = output.pointee
        while buffer.count - start >= chunkSize || (force && start < buffer.count) {
            let end = min(start + chunkSize, buffer.count)
            try sink(UnsafeRawBufferPointer(start: buffer.bytes + start, count: end - start))
            start = end
        }
    }
}

/// The structure a writer has written: open containers, whether a key is due, completion, and the
/// first failure.
struct Structure {
    /// What a call writes.
    enum Event {
        case value, key, beginObject, beginArray, endObject, endArray
    }

    /// The open containers, innermost last: `true` for objects.
    var containers: [Bool] = []
    /// Inside an object, whether a member name is due.
    var expectingKey = false
    /// Whether the top-level value is complete.
    var isComplete = false
    var finished = false
    /// The first failure (a refused call, a failing sink): later calls throw it again.
    var failure: (any Error)?

    /// Refuses `event` if the structure does not allow it, else makes the call through `call`
    /// and records the event.
    mutating func advance(_ event: Event, _ action: String, _ call: () -> yajl_gen_status) throws {
        if let failure { throw failure }
        guard !finished else { throw JSONWriter.Failure(message: "Cannot \(action): the writer has already finished.") }
        if let refusal = refusal(of: event, action) {
            let failure = JSONWriter.Failure(message: refusal)
            self.failure = failure
            throw failure
        }
        let status = call()
        guard status == yajl_gen_status_ok else {
            let failure = JSONWriter.Failure(
                message: "Cannot \(action): yajl's generator failed with status \(status.rawValue)."
            )
            self.failure = failure
            throw failure
        }
        switch event {
        case .key: expectingKey = false
        case .beginObject, .beginArray:
            containers.append(event == .beginObject)
            expectingKey = event == .beginObject
        case .value, .endObject, .endArray:
            if event != .value { containers.removeLast() }
            if containers.isEmpty { isComplete = true } else if containers.last == true { expectingKey = true }
        }
    }

    /// Why `event` is not allowed now, or `nil`.
    private func refusal(of event: Event, _ action: String) -> String? {
        let inObject = containers.last == true
        switch event {
        case .value, .beginObject, .beginArray:
            if isComplete { return "Cannot \(action): the document's single top-level value is already complete." }
            if inObject && expectingKey {
                return "Cannot \(action) where an object's member name is due; write a key first."
            }
            if event != .value && containers.count >= JSONWriter.maxDepth {
                return "Cannot \(action): the writer nests at most \(JSONWriter.maxDepth) levels."
            }
            return nil
        case .key:
            return inObject && expectingKey
                ? nil : "Cannot \(action): a member name belongs in an object, before each value."
        case .endObject:
            if inObject && expectingKey { return nil }
            return inObject
                ? "Cannot \(action): its last member name has no value."
                : "Cannot \(action): the innermost open container is not an object."
        case .endArray:
            return containers.last == false ? nil : "Cannot \(action): the innermost open container is not an array."
        }
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
