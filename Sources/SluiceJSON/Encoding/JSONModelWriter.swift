// What `@JSONModel` (SluiceMacros) generates its writers against: a direct writer that prints a
// model's members straight into a chunked byte buffer, with no tree in between.
//
// Why a second writer beside JSONWriter: the general path records every value into a tree (a class
// and two arrays per object, a String per key and per integer), sorts keys as Strings, then replays
// the tree into yajl's generator, which prints each string in four callbacks. For a model whose
// shape is known at compile time none of that is needed: the macro has escaped each member name,
// once per built-in key strategy, and ordered the members for `.sortedKeys` at expansion time; the
// writer copies those bytes and formats values in place (an escape table for strings, integers
// printed backwards into a stack buffer, doubles through the standard library's shortest
// round-trip formatter into the buffer itself, with no String).
//
// DESIGN's writer rules hold without yajl: the structure is valid by construction (the generated
// code opens and closes every container it writes, and a key is always followed by its value),
// Swift strings are valid UTF-8, and the depth is counted against the same limit as the general
// path. yajl's generator stays on the general path and is the reference the tests compare with.
//
// Errors: the writer throws a fault and the encoder runs the general path for the exact error (its
// coding path and message), so both paths fail alike; a fault is rare (a non-finite double, a
// model nested past the depth limit, a custom encode that throws), so the second pass costs
// nothing in the common case.

import Foundation

// MARK: The writer

/// Writes JSON text straight into a chunked buffer for the code `@JSONModel` generates.
///
/// A writer is made by `StreamingJSONEncoder` or `JSONAPIEncoder` for one document and handed to
/// the generated functions by value: it is one pointer to the writer's state, so passing it costs
/// nothing. It is not thread-safe, and it is valid only during the encode that made it.
@_documentation(visibility: internal)
public struct JSONModelWriter {
    @usableFromInline let state: UnsafeMutablePointer<JSONModelWriterState>

    package init(state: UnsafeMutablePointer<JSONModelWriterState>) {
        self.state = state
    }

    /// Whether objects are written in the order of their keys (`.sortedKeys`).
    public var sortsKeys: Bool { state.pointee.sortsKeys }

    // MARK: Members (what generated code calls)

    /// Writes member `field` of the model being written: its key, then `value`.
    @inlinable
    public func write<T: JSONModelValue>(_ value: T, field: Int) throws {
        key(field: field)
        try value.writeJSONModelValue(to: self)
    }

    /// Writes member `field` when `value` is not `nil` (Codable's `encodeIfPresent`).
    @inlinable
    public func writeIfPresent<T: JSONModelValue>(_ value: T?, field: Int) throws {
        guard let value else { return }
        key(field: field)
        try value.writeJSONModelValue(to: self)
    }

    /// Writes member `field` from a value the writer does not print itself (a `Date`, `Data`,
    /// `URL`, or a type with its own `encode(to:)`): through the encoder's strategies and, where
    /// needed, the general path's recorder.
    public func write<T: Encodable>(_ value: T, field: Int) throws {
        key(field: field)
        try self.value(value, key: state.pointee.keys.codingKey(field))
    }

    /// Writes member `field` from such a value when it is not `nil`.
    public func writeIfPresent<T: Encodable>(_ value: T?, field: Int) throws {
        guard let value else { return }
        key(field: field)
        try self.value(value, key: state.pointee.keys.codingKey(field))
    }

    /// Writes a model as an object: its members in the order the settings ask for.
    public func object<T: JSONModelEncodable>(_ model: T) throws {
        let (saved, view) = enterKeys(T.jsonModelKeys, sorted: sortsKeys)
        try beginObject()
        for position in 0..<view.count {
            try model.writeJSONModelField(Int(view.order[position]), to: self)
        }
        endObject()
        state.pointee.keys = saved
    }

    /// Writes the members `fields` of `model`, in that order, inside the object being written:
    /// for encoders that lay a model's members out themselves (JSON:API's `attributes`).
    package func members<T: JSONModelEncodable>(of model: T, fields: UnsafeBufferPointer<Int32>) throws {
        let (saved, _) = enterKeys(T.jsonModelKeys, sorted: false)
        for field in fields { try model.writeJSONModelField(Int(field), to: self) }
        state.pointee.keys = saved
    }

    /// Writes member `field` of `model` inside the object being written.
    package func member<T: JSONModelEncodable>(_ field: Int32, of model: T) throws {
        let (saved, _) = enterKeys(T.jsonModelKeys, sorted: false)
        try model.writeJSONModelField(Int(field), to: self)
        state.pointee.keys = saved
    }

    /// Makes `table`'s member names the current object's keys (in name order when `sorted`) and
    /// returns the enclosing object's, which the caller puts back when the members are written.
    /// (Not a function taking a closure: that closure was made once per object.)
    /// After an error nothing is put back: a writer that threw is not used again.
    @inline(__always)
    private func enterKeys(_ table: JSONModelKeys, sorted: Bool) -> (saved: ObjectKeys, view: JSONModelKeyView) {
        // Tables live as long as their types (a `static let`, or the shared table of a generic
        // type), so the view's pointers stay valid without holding the table.
        let view = table.view(strategy: keyStrategy, escapesSlashes: state.pointee.escapesSlashes, sorted: sorted)
        let saved = state.pointee.keys
        state.pointee.keys = ObjectKeys(table: table, view: view)
        return (saved, view)
    }

    /// The key strategy's index in `JSONModelKeys` tables: as written, snake case, kebab case.
    package var keyStrategy: Int { state.pointee.strategy }

    // MARK: Structure

    /// Writes the key of member `field` of the model being written.
    @inlinable
    public func key(field: Int) { state.pointee.key(field: field) }

    /// Writes a member name given at run time (dictionary keys), escaped.
    public func key(_ name: String) {
        state.pointee.openPending()
        if state.pointee.needsComma { state.pointee.append(UInt8(ascii: ",")) }
        var name = name
        name.withUTF8 { state.pointee.quoted($0) }
        state.pointee.append(UInt8(ascii: ":"))
        state.pointee.needsComma = false
    }

    /// Writes raw bytes that are already a member name and its colon, with a comma before them
    /// when a member precedes.
    package func key(raw bytes: StaticString) {
        state.pointee.openPending()
        if state.pointee.needsComma { state.pointee.append(UInt8(ascii: ",")) }
        state.pointee.append(UnsafeRawPointer(bytes.utf8Start), count: bytes.utf8CodeUnitCount)
        state.pointee.needsComma = false
    }

    /// Opens an object.
    public func beginObject() throws {
        try state.pointee.open(UInt8(ascii: "{"))
    }

    /// Closes the innermost object.
    public func endObject() { state.pointee.close(UInt8(ascii: "}")) }

    /// Opens an array.
    public func beginArray() throws {
        try state.pointee.open(UInt8(ascii: "["))
    }

    /// Closes the innermost array.
    public func endArray() { state.pointee.close(UInt8(ascii: "]")) }

    /// Makes the next member written open `raw` first (`"attributes":{`), so that a container
    /// with no members is not written at all. `true` from ``closePending()`` means it was opened.
    package func openWhenNeeded(_ raw: StaticString) throws {
        try state.pointee.checkDepth()
        state.pointee.pending = raw
    }

    /// Closes what ``openWhenNeeded(_:)`` opened, if a member opened it.
    package func closePending() {
        if state.pointee.pending != nil {
            state.pointee.pending = nil
        } else {
            state.pointee.close(UInt8(ascii: "}"))
        }
    }

    // MARK: Values

    /// Writes a string, escaped.
    public func string(_ value: String) {
        state.pointee.separate()
        var value = value
        value.withUTF8 { state.pointee.quoted($0) }
        if state.pointee.captures, state.pointee.depth == state.pointee.captureDepth { state.pointee.captured = value }
        state.pointee.needsComma = true
    }

    /// Writes `true` or `false`.
    public func bool(_ value: Bool) {
        state.pointee.separate()
        if value {
            state.pointee.append(ascii: "true")
        } else {
            state.pointee.append(ascii: "false")
        }
        state.pointee.needsComma = true
    }

    /// Writes `null`.
    public func null() {
        state.pointee.separate()
        state.pointee.append(ascii: "null")
        state.pointee.needsComma = true
    }

    /// Writes a signed integer.
    public func integer(_ value: Int64) {
        state.pointee.separate()
        state.pointee.integer(value)
        state.pointee.needsComma = true
    }

    /// Writes an unsigned integer.
    public func unsigned(_ value: UInt64) {
        state.pointee.separate()
        state.pointee.unsigned(value, negative: false)
        state.pointee.needsComma = true
    }

    /// Writes a double in its shortest round-trip text (`1.0` as `1`), or as the non-conforming
    /// float strategy says for infinities and NaN.
    public func double(_ value: Double) throws {
        guard value.isFinite else { return try nonFinite(value.isNaN, value > 0) }
        shortest(value)
    }

    /// Writes a float in its own shortest text (`0.1` as a Float is not Double's `0.1`).
    public func float(_ value: Float) throws {
        guard value.isFinite else { return try nonFinite(value.isNaN, value > 0) }
        shortest(value)
    }

    /// The standard library's shortest round-trip text, printed into the buffer through its
    /// `TextOutputStream` hook for ASCII (no String), with a trailing `.0` dropped as the general
    /// path and Foundation drop it.
    private func shortest<F: BinaryFloatingPoint & TextOutputStreamable>(_ value: F) {
        state.pointee.separate()
        // 32 bytes hold any double's text ("-2.2250738585072014e-308" is 24), so the number is
        // in the buffer whole when its end is checked.
        state.pointee.reserve(32)
        var stream = BufferStream(state: state)
        value.write(to: &stream)
        let end = state.pointee.count
        if state.pointee.bytes[end - 1] == UInt8(ascii: "0"), state.pointee.bytes[end - 2] == UInt8(ascii: ".") {
            state.pointee.count -= 2
        }
        state.pointee.needsComma = true
    }

    private func nonFinite(_ isNaN: Bool, _ isPositive: Bool) throws {
        guard case .convertToString(let positive, let negative, let nan) = state.pointee.tree.settings.floatStrategy
        else { throw JSONModelWriterFault() }
        string(isNaN ? nan : isPositive ? positive : negative)
    }

    /// Number text the writer or the general path's recorder made: valid by construction.
    func number(validatedText text: String) {
        state.pointee.separate()
        var text = text
        text.withUTF8 { state.pointee.append(UnsafeRawPointer($0.baseAddress!), count: $0.count) }
        state.pointee.needsComma = true
    }

    /// Writes any Encodable value: scalars, dates, data and URLs directly under the encoder's
    /// strategies, values the writer prints itself through their conformance, anything else
    /// recorded by the general path and written from the record.
    ///
    /// - Parameters:
    ///   - value: The value to write.
    ///   - key: The coding key the value is written under, for strategies that choose by key
    ///     (`.perKey` dates).
    public func value<T: Encodable>(_ value: T, key: (any CodingKey)? = nil) throws {
        if let scalar = TapeScalar(T.self) {
            switch scalar {
            case .string: return string(_identityCast(value, to: String.self))
            case .bool: return bool(_identityCast(value, to: Bool.self))
            case .int: return integer(Int64(_identityCast(value, to: Int.self)))
            case .int64: return integer(_identityCast(value, to: Int64.self))
            case .double: return try double(_identityCast(value, to: Double.self))
            case .uint64: return unsigned(_identityCast(value, to: UInt64.self))
            default: break
            }
        }
        if try writeIfConforming(value) { return }
        let tree = state.pointee.tree
        let node = try tree.node(for: value, path: key.map { [$0] } ?? [])
        try write(node)
    }

    /// Writes `value` through its type's `JSONModelValue` conformance, if it has one: found by
    /// metatype and the value cast by identity, since casting the value itself to an existential
    /// boxes any value bigger than three words (an allocation per model).
    ///
    /// - Returns: Whether the type conforms (and the value was written).
    package func writeIfConforming<T>(_ value: T) throws -> Bool {
        guard let type = T.self as? any JSONModelValue.Type else { return false }
        try write(value, as: type)
        return true
    }

    private func write<T, Value: JSONModelValue>(_ value: T, as type: Value.Type) throws {
        try _identityCast(value, to: Value.self).writeJSONModelValue(to: self)
    }

    /// Writes a node the general path recorded, sorting members if the settings say so.
    package func write(_ node: EncodedNode) throws {
        switch node {
        case .null: null()
        case .bool(let value): bool(value)
        case .number(let text): number(validatedText: text)
        case .double(let value): try double(value)
        case .string(let text): string(text)
        case .slot(let slot): try write(slot.node ?? .object(EncodedObject()))
        case .tagged(_, let node): try write(node)
        case .array(let array):
            try beginArray()
            for element in array.elements { try write(element) }
            endArray()
        case .object(let object):
            try beginObject()
            if sortsKeys {
                for index in object.keys.indices.sorted(by: { object.keys[$0] < object.keys[$1] }) {
                    key(object.keys[index])
                    try write(object.values[index])
                }
            } else {
                for index in object.keys.indices {
                    key(object.keys[index])
                    try write(object.values[index])
                }
            }
            endObject()
        }
    }

    /// Writes bytes that are already one JSON value (a resource written earlier by a writer with
    /// the same settings).
    package func raw(_ bytes: UnsafeRawBufferPointer) {
        state.pointee.separate()
        if let base = bytes.baseAddress { state.pointee.append(base, count: bytes.count) }
        state.pointee.needsComma = true
    }

    /// A mark an encoder of a higher layer sets while it writes one part of its format, for the
    /// writers of the values there to read (see `WriterState.scope`).
    package var scope: Int {
        get { state.pointee.scope }
        nonmutating set { state.pointee.scope = newValue }
    }

    /// Member keys written so far.
    package var keysWritten: Int { state.pointee.keysWritten }

    /// The coding key of member `field` of the model being written.
    package func codingKey(field: Int) -> (any CodingKey)? { state.pointee.keys.codingKey(field) }

    /// Starts a new top-level value in a writer that collects several (a document's included
    /// resources, written ahead and copied in later): no comma before it.
    package func startValue() { state.pointee.needsComma = false }

    /// The bytes written so far by a collecting writer.
    package var collected: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: state.pointee.bytes, count: state.pointee.count)
    }

    // MARK: Capturing

    /// Starts keeping the next string written, for an encoder that needs a member's value as
    /// well as its text (a resource's `id`).
    package func startCapturing() {
        state.pointee.captures = true
        state.pointee.captureDepth = state.pointee.depth
        state.pointee.captured = nil
    }

    /// The string written since ``startCapturing()``, if one was.
    package func stopCapturing() -> String? {
        state.pointee.captures = false
        defer { state.pointee.captured = nil }
        return state.pointee.captured
    }
}
