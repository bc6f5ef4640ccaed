// Inputs of several top-level values: JSON Lines (NDJSON) and RFC 7464 JSON text sequences.
//
// Why split before parsing rather than teach the parser a multi-value mode: in both formats a
// byte that cannot occur inside a value ends it (a line feed outside a string in JSON Lines,
// where a raw line feed inside a string is not JSON anyway; the record separator 0x1E in a
// sequence), so one `memchr` finds every value's end. Each value is then parsed alone by the
// one strict parser, reset in place between values with the input's own position, so every
// token and every error carries the file's line, column and byte offset, and a bad value says
// exactly which line it is on. The same cut is what lets the parallel path hand whole lines to
// other threads.

import Foundation

/// How several JSON values follow one another in one input.
public enum JSONSequenceFormat: Sendable, Hashable, CustomStringConvertible {
    /// JSON Lines, also called NDJSON: one value per line. Lines end with a line feed or with a
    /// carriage return and a line feed; blank lines are skipped; the last line needs no line feed.
    case lines
    /// RFC 7464 JSON text sequences (`application/json-seq`): each value preceded by the record
    /// separator 0x1E, and usually followed by a line feed. A value may span several lines.
    case textSequence

    /// `JSON Lines` or `JSON text sequence`.
    public var description: String {
        switch self {
        case .lines: "JSON Lines"
        case .textSequence: "JSON text sequence"
        }
    }

    /// The format a file's name says, before any `.gz`: `.jsonl` and `.ndjson` for JSON Lines,
    /// `.json-seq` for a text sequence (in any case); `nil` for other names.
    public init?(fileName: String) {
        var name = fileName.lowercased()
        if name.hasSuffix(".gz") { name.removeLast(3) }
        if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") {
            self = .lines
        } else if name.hasSuffix(".json-seq") {
            self = .textSequence
        } else {
            return nil
        }
    }

    /// The byte that ends a value in this format.
    var separator: UInt8 { self == .lines ? 0x0A : 0x1E }
}

/// Where a value of a sequence stands: its index among the values, and where its first byte is.
package struct JSONSequenceIndex: Sendable, Hashable {
    /// The 0-based index of the value among the sequence's values (blank lines not counted).
    package var index: Int
    /// The position of the value's first byte in the input.
    package var position: JSONPosition
}

/// Cuts an input into the values of a ``JSONSequenceFormat`` as chunks arrive and parses each
/// one, handing over its tape value with where it stands. Memory is the largest single value's:
/// bytes of a value cut by a chunk's end are kept until its end arrives, at most
/// ``maxValueBytes`` of them.
package final class JSONSequenceReader {
    package let format: JSONSequenceFormat
    package let parser: JSONParser
    /// The most bytes one value may take: ``JSONLimits/maxHeldBytes`` where it is set, else
    /// ``JSONLimits/maxDocumentBytes``.
    package let maxValueBytes: Int
    /// The bytes of the value being gathered across chunks (and of the gap before it).
    private var pending: [UInt8] = []
    /// The absolute offset of `pending`'s first byte, or of the next chunk's when it is empty.
    private var pendingStart = 0
    /// The line `pendingStart` is on, and the offset of that line's first byte.
    private var line = 1
    private var lineStart = 0
    /// Where a value that is not valid JSON goes, when the caller wants the rest of the input read
    /// anyway (each value is delimited without parsing, so a bad one leaves the next intact),
    /// with the value's bytes (for a log of what was passed over); `nil` throws it. Faults of
    /// the sequence itself (a value over the limit, a text sequence without a separator) always
    /// throw.
    package var valueFault: ((JSONError, UnsafeRawBufferPointer) throws -> Void)?
    /// Values handed over so far.
    package private(set) var count = 0
    /// Whether the start of the input (where a byte order mark may stand) is still ahead.
    private var atInputStart = true
    /// Whether a text sequence's first record separator has been seen.
    private var sawSeparator = false

    package init(format: JSONSequenceFormat, limits: JSONLimits) {
        self.format = format
        // A value's offsets are the input's, so the document limit would count every value
        // before it: each value is held to `maxValueBytes` instead.
        var valueLimits = limits
        maxValueBytes = min(limits.maxHeldBytes, limits.maxDocumentBytes)
        valueLimits.maxDocumentBytes = .max
        parser = JSONParser(limits: valueLimits)
    }

    /// A reader for the part of an input that starts at `offset` on `line` (a batch of whole lines
    /// that another thread reads): its positions are the input's own.
    package convenience init(format: JSONSequenceFormat, limits: JSONLimits, startingAt offset: Int, line: Int) {
        self.init(format: format, limits: limits)
        pendingStart = offset
        lineStart = offset
        self.line = line
        atInputStart = offset == 0
    }

    /// Moves past a batch of whole lines another thread read, holding `values` values: the next
    /// bytes fed are those after it.
    ///
    /// - Precondition: no value is cut at the batch's start (the reader has been fed whole lines).
    package func skip(over batch: JSONBatch, values: Int) {
        precondition(pending.isEmpty && pendingStart == batch.offset, "JSONSequenceReader.skip(over:) out of place")
        pendingStart += batch.bytes.count
        line = batch.endLine
        lineStart = batch.bytes.last == 0x0A ? pendingStart : batch.offset
        atInputStart = false
        count += values
    }

    /// Reads a chunk, handing over every value it completes (`body` gets the value, valid only
    /// during the call, and where it stands).
    package func feed(
        _ chunk: UnsafeRawBufferPointer,
        _ body: (JSONTape.Value, JSONSequenceIndex) throws -> Void
    ) throws {
        guard let base = chunk.baseAddress, !chunk.isEmpty else { return }
        let separator = format.separator
        var from = 0
        while from < chunk.count {
            let rest = chunk.count - from
            guard let found = memchr(base + from, Int32(separator), rest) else {
                try hold(UnsafeRawBufferPointer(rebasing: chunk[from...]))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(found))
            let piece = UnsafeRawBufferPointer(rebasing: chunk[from..<end])
            if pending.isEmpty {
                try value(piece, body)
            } else {
                try hold(piece)
                let whole = pending
                pending.removeAll(keepingCapacity: true)
                try whole.withUnsafeBytes { try value($0, body) }
            }
            // Past the separator.
            pendingStart += 1
            if separator == 0x0A {
                line += 1
                lineStart = pendingStart
            } else {
                sawSeparator = true
            }
            from = end + 1
        }
    }

    /// Ends the input: the last value, when it has no separator after it.
    package func finish(_ body: (JSONTape.Value, JSONSequenceIndex) throws -> Void) throws {
        let whole = pending
        pending.removeAll()
        try whole.withUnsafeBytes { try value($0, body) }
    }

    /// Keeps the bytes of a value cut by a chunk's end.
    private func hold(_ bytes: UnsafeRawBufferPointer) throws {
        guard pending.count + bytes.count <= maxValueBytes else {
            throw JSONError(
                kind: .heldBytesLimitExceeded,
                message:
                    "A value of the \(format) is longer than the \(maxValueBytes)-byte limit (JSONLimits.maxHeldBytes).",
                position: JSONPosition(byteOffset: pendingStart, line: line, column: pendingStart - lineStart + 1)
            )
        }
        pending.append(contentsOf: bytes)
    }

    /// Parses the bytes between two separators (or the input's ends), which start at
    /// `pendingStart`, and moves the position past them.
    private func value(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (JSONTape.Value, JSONSequenceIndex) throws -> Void
    )
        throws
    {
        var text = bytes
        var start = pendingStart
        defer { advance(over: bytes) }
        if atInputStart {
            atInputStart = false
            if text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF {
                text = UnsafeRawBufferPointer(rebasing: text[3...])
                start += 3
                lineStart = 3
            }
        }
        if format == .lines, text.last == 0x0D { text = UnsafeRawBufferPointer(rebasing: text.dropLast()) }
        guard let first = text.firstIndex(where: { !Self.isWhitespace($0) }) else { return }
        if format == .textSequence && !sawSeparator {
            throw JSONError(
                kind: .syntax,
                message: "A JSON text sequence starts each value with the record separator 0x1E; this one has none.",
                position: position(of: start + first, in: bytes, from: pendingStart)
            )
        }
        let origin = position(of: start, in: bytes, from: pendingStart)
        parser.reset(startingAt: start, line: origin.line, column: origin.column)
        do {
            try parser.parse(text)
            try parser.finish()
        } catch {
            guard let valueFault else { throw error }
            try valueFault(error, text)
            return
        }
        let tape = parser.tape
        let index = JSONSequenceIndex(
            index: count,
            position: position(of: start + first, in: bytes, from: pendingStart)
        )
        count += 1
        try body(tape.value(at: tape.startIndex), index)
    }

    /// The position of the absolute offset `offset`, which falls in `bytes` (starting at `from`).
    private func position(of offset: Int, in bytes: UnsafeRawBufferPointer, from: Int) -> JSONPosition {
        var line = self.line
        var lineStart = self.lineStart
        var index = 0
        while from + index < offset, index < bytes.count {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = from + index + 1
            }
            index += 1
        }
        return JSONPosition(byteOffset: offset, line: line, column: offset - lineStart + 1)
    }

    /// Moves the position past `bytes`, counting the line feeds in them (a text sequence's
    /// values may span lines).
    private func advance(over bytes: UnsafeRawBufferPointer) {
        if format == .textSequence, let base = bytes.baseAddress {
            var index = 0
            while index < bytes.count, let found = memchr(base + index, 0x0A, bytes.count - index) {
                let at = base.distance(to: UnsafeRawPointer(found))
                line += 1
                lineStart = pendingStart + at + 1
                index = at + 1
            }
        }
        pendingStart += bytes.count
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
