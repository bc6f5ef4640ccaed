// Plain JSON records as the import's records: a record's members become a row of one table (the
// same record format, type inference and widening as a JSON:API resource's attributes), its key
// comes from the members `--pk` names or from where it stands, and its nested values become JSON
// text, flattened columns or child tables' rows. Written from the tape on the reading thread.

import SluiceJSON

/// Turns a plain record on the tape into the import's records: its own row, then the rows of
/// its child tables (``NestedValues/tables``).
struct PlainRecordBuilder {
    let table: String
    let nested: NestedValues
    /// The members that key a record, as UTF-8.
    private let keyMembers: [[UInt8]]
    /// The one key member named `id`, which is the key column and not repeated as a column.
    private let keyIsID: Bool
    /// What keys a record without ``keyMembers``: its source's name and `:`.
    private let sourcePrefix: String
    /// Whether the destination cannot store U+0000 (``ImportOptions/destinationStoresNUL``).
    private let refusesNUL: Bool

    init(options: PlainRecordOptions, source: String, refusesNUL: Bool = false) {
        self.refusesNUL = refusesNUL
        table = options.table(for: source)
        nested = options.nested
        keyMembers = options.primaryKey.map { Array($0.utf8) }
        keyIsID = options.primaryKey == ["id"]
        sourcePrefix = source + ":"
    }

    /// Appends the records of `value` to `records`; `place` keys it when no member does (a line
    /// number or an index), `pointer` names it in messages.
    ///
    /// The record is built in `writer`, the reading thread's buffer.
    ///
    /// - Throws: `JSONError` when a key member is missing or not a string or number, or when a
    ///   string holds U+0000 and the destination cannot store it.
    func records(
        of value: JSONTape.Value,
        place: Int,
        pointer: String,
        writer: ImportRecordWriter,
        into records: inout [ImportRecord]
    ) throws {
        if refusesNUL, let (holder, inner) = value.firstTextHoldingNUL() {
            throw ImportRecord.nulFault(at: holder, pointer: pointer + inner)
        }
        // A reference: `var` only so that the sink's mutating methods can be called on it.
        var record = writer
        record.appendText(table)
        record.append(ImportRecord.KeyKind.id.rawValue)
        let keyAt = record.beginText()
        try appendKey(of: value, place: place, pointer: pointer, into: &record)
        record.endText(keyAt)
        // Only child rows need the key again: copied for them alone.
        let key = nested == .tables ? record.bytes(from: keyAt + 4) : []
        var children: [ImportRecord] = []
        let countAt = record.byteCount
        record.append(UInt32(0))
        var count: UInt32 = 0
        if value.kind == .objectStart {
            var prefix: [UInt8] = []
            appendMembers(
                in: value.tape,
                object: value.index,
                end: value.endIndex,
                prefix: &prefix,
                table: table,
                key: key,
                topLevel: true,
                into: &record,
                count: &count,
                children: &children
            )
        } else {
            record.appendText("value")
            record.appendValue(value)
            count = 1
        }
        record.patch(count, at: countAt)
        // No relationships.
        record.append(UInt32(0))
        records.append(record.takeRecord())
        if !children.isEmpty { records.append(contentsOf: children) }
    }

    /// The key's text: the key member's value, a JSON array of several, or the source and place.
    private func appendKey(
        of value: JSONTape.Value,
        place: Int,
        pointer: String,
        into bytes: inout some ImportRecordSink
    ) throws {
        guard !keyMembers.isEmpty else {
            var text = sourcePrefix + String(place)
            text.withUTF8 { bytes.appendBytes(UnsafeRawBufferPointer($0)) }
            return
        }
        guard value.kind == .objectStart else {
            throw keyFault(
                "The record is \(value.kind.nounPhrase), not an object with the key's members.",
                value,
                pointer
            )
        }
        var parts: [JSONTape.Value] = []
        for name in keyMembers {
            let member = name.withUnsafeBytes { name in
                value.firstMember { $0.elementsEqual(name) }
            }
            guard let member, member.kind == .string || member.kind == .number else {
                let quoted = "\"\(String(decoding: name, as: UTF8.self))\""
                let what =
                    member.map { "its member \(quoted) is \($0.kind.nounPhrase), but a key is a string or a number" }
                    ?? "it has no member \(quoted), which the key names"
                throw keyFault("The record cannot be keyed: \(what).", member ?? value, pointer)
            }
            parts.append(member)
        }
        if parts.count == 1 {
            parts[0].tape.withUnsafeText(of: parts[0].token) { bytes.appendBytes($0) }
            return
        }
        bytes.append(UInt8(ascii: "["))
        for (index, part) in parts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.appendJSON(of: part)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private func keyFault(_ message: String, _ at: JSONTape.Value, _ pointer: String) -> JSONError {
        var error = JSONError(kind: .typeMismatch, message: message, position: at.position)
        error.pointer = pointer
        return error
    }

    /// Appends the members of the object at `object` on `tape` (its tokens end before `end`) as
    /// attributes named `prefix` + name: flattened objects and, with child tables, arrays as child
    /// records of `table` keyed under `key`.
    ///
    /// Walks token indices: no `String`, member or value is made per member (each held the tape,
    /// a retain and a release apiece, a tenth of the reading thread's samples), and `prefix` is
    /// one buffer that grows and shrinks with the nesting.
    private func appendMembers(
        in tape: JSONTape,
        object: Int,
        end objectEnd: Int,
        prefix: inout [UInt8],
        table: String,
        key: [UInt8],
        topLevel: Bool,
        into record: inout some ImportRecordSink,
        count: inout UInt32,
        children: inout [ImportRecord]
    ) {
        // The object's end token; members lie between.
        let end = objectEnd - 1
        var cursor = object + 1
        while cursor < end {
            let keyToken = tape[cursor]
            let valueIndex = cursor + 1
            let valueEnd = tape.endOfValue(at: valueIndex) ?? end
            cursor = valueEnd
            if topLevel && keyIsID && tape.withUnsafeText(of: keyToken, { $0.elementsEqual("id".utf8) }) { continue }
            switch (tape[valueIndex].kind, nested) {
            case (.objectStart, .flatten), (.objectStart, .tables):
                let mark = prefix.count
                tape.withUnsafeText(of: keyToken) { prefix.append(contentsOf: $0) }
                prefix.append(UInt8(ascii: "_"))
                appendMembers(
                    in: tape,
                    object: valueIndex,
                    end: valueEnd,
                    prefix: &prefix,
                    table: table,
                    key: key,
                    topLevel: false,
                    into: &record,
                    count: &count,
                    children: &children
                )
                prefix.removeLast(prefix.count - mark)
            case (.arrayStart, .tables):
                let name = String(decoding: prefix, as: UTF8.self) + tape.text(of: keyToken)
                guard let array = try? tape.value(at: valueIndex) else { continue }
                appendChildren(of: array, table: table + "_" + name, parentKey: key, into: &children)
            default:
                tape.withUnsafeText(of: keyToken) { name in
                    record.append(UInt32(prefix.count + name.count))
                    prefix.withUnsafeBytes { record.appendBytes($0) }
                    record.appendBytes(name)
                }
                record.appendValue(in: tape, at: valueIndex)
                count += 1
            }
        }
    }

    /// The rows of child table `table`: one per element of `array`.
    private func appendChildren(
        of array: JSONTape.Value,
        table: String,
        parentKey: [UInt8],
        into children: inout [ImportRecord]
    ) {
        guard let elements = try? array.elements() else { return }
        for (position, element) in elements.enumerated() {
            var record = ImportRecord()
            record.appendText(table)
            record.append(ImportRecord.KeyKind.id.rawValue)
            let keyAt = record.beginText()
            record.bytes.append(contentsOf: parentKey)
            record.bytes.append(UInt8(ascii: "/"))
            record.bytes.append(contentsOf: String(position).utf8)
            record.endText(keyAt)
            let key = Array(record.bytes[(keyAt + 4)...])  // Grandchildren's parent key.
            let countAt = record.bytes.count
            record.append(UInt32(0))
            record.appendText("_parent_id")
            parentKey.withUnsafeBytes { record.appendKeyValue($0) }
            record.appendText("_position")
            String(position).utf8.withContiguousStorageIfAvailable {
                record.appendNumber(UnsafeRawBufferPointer($0))
            }
            var count: UInt32 = 2
            var grandchildren: [ImportRecord] = []
            if element.kind == .objectStart {
                var prefix: [UInt8] = []
                appendMembers(
                    in: element.tape,
                    object: element.index,
                    end: element.endIndex,
                    prefix: &prefix,
                    table: table,
                    key: key,
                    topLevel: false,
                    into: &record,
                    count: &count,
                    children: &grandchildren
                )
            } else {
                record.appendText("value")
                record.appendValue(element)
                count += 1
            }
            record.patch(count, at: countAt)
            record.append(UInt32(0))
            children.append(record)
            children.append(contentsOf: grandchildren)
        }
    }
}

extension ImportRecord {
    /// A key's text as an attribute: an integer where it spells one (so `_parent_id` joins an
    /// integer `id`), else a string.
    mutating func appendKeyValue(_ key: UnsafeRawBufferPointer) {
        if Self.exactInteger(key) != nil {
            appendNumber(key)
        } else {
            append(ValueTag.string.rawValue)
            appendText(key)
        }
    }
}

/// Sets aside the records that fail (``ImportOptions/onFault`` `.skip`): a record that cannot
/// be keyed, with its JSON text; a value of a sequence that is not JSON, with its bytes.
struct FaultSink {
    let limit: Int
    let setAside: (ImportFault) throws -> Void

    func record(_ value: JSONTape.Value, _ fault: JSONError) throws {
        var text: [UInt8] = []
        value.writeJSON(into: &text)
        try setAside(
            ImportFault(
                position: fault.position,
                pointer: fault.pointer.flatMap { $0.isEmpty ? nil : $0 },
                message: fault.message,
                text: text,
                limit: limit
            )
        )
    }

    func malformed(_ fault: JSONError, _ text: UnsafeRawBufferPointer) throws {
        try setAside(
            ImportFault(position: fault.position, pointer: nil, message: fault.message, text: text, limit: limit)
        )
    }
}

extension PlainRecordBuilder {
    /// ``records(of:place:pointer:writer:into:)``, or, for a record that cannot be keyed, the
    /// fault handed to `faults` when there are any (it returns `false`, and `records` gets
    /// nothing), else thrown.
    func records(
        of value: JSONTape.Value,
        place: Int,
        pointer: String,
        writer: ImportRecordWriter,
        into records: inout [ImportRecord],
        settingAsideTo faults: FaultSink?
    ) throws -> Bool {
        do {
            try self.records(of: value, place: place, pointer: pointer, writer: writer, into: &records)
            return true
        } catch let fault as JSONError {
            guard let faults else { throw fault }
            // Half a record stays in the buffer: the next starts afresh.
            writer.discardRecord()
            try faults.record(value, fault)
            return false
        }
    }
}

/// Reads plain records from an input in one of the plain formats and hands over their import
/// records in order, in memory the size of one record.
enum PlainRecordReader {
    /// Reads `input` as `format` (``ImportFormat/json``, ``ImportFormat/lines`` or
    /// ``ImportFormat/textSequence``), calling `emit` with each import record.
    ///
    /// - Returns: the counts of the `documents` row: records, and child tables' rows.
    /// - Throws: `JSONError` at the first fault of the input (with the file's line and column),
    ///   or what `emit` throws.
    static func read(
        _ input: any ChunkSource,
        as format: ImportFormat,
        options: PlainRecordOptions,
        source: String,
        limits: JSONLimits,
        threads: Int = 1,
        faultRecordBytes: Int = 4_096,
        refusesNUL: Bool = false,
        emit: (ImportRecord) throws -> Void,
        setAside: ((ImportFault) throws -> Void)? = nil
    ) throws -> (records: Int, childRows: Int) {
        let builder = PlainRecordBuilder(options: options, source: source, refusesNUL: refusesNUL)
        let faults = setAside.map { FaultSink(limit: faultRecordBytes, setAside: $0) }
        let writer = ImportRecordWriter()
        var records: [ImportRecord] = []
        var counts = (records: 0, childRows: 0)
        func take(_ value: JSONTape.Value, place: Int, pointer: String) throws {
            records.removeAll(keepingCapacity: true)
            guard
                try builder.records(
                    of: value,
                    place: place,
                    pointer: pointer,
                    writer: writer,
                    into: &records,
                    settingAsideTo: faults
                )
            else { return }
            counts.records += 1
            counts.childRows += records.count - 1
            for record in records { try emit(record) }
        }
        switch format {
        case .lines where threads > 1:
            counts = try readLines(
                input,
                limits: limits,
                threads: threads,
                faults: faults,
                builder: builder,
                emit: emit
            )
        case .lines, .textSequence:
            let sequence = format == .lines ? JSONSequenceFormat.lines : .textSequence
            let reader = JSONSequenceReader(format: sequence, limits: limits)
            reader.valueFault = faults?.malformed
            // A JSON Lines record is keyed and named by its line, a sequence's by its index.
            func takeValue(_ value: JSONTape.Value, at: JSONSequenceIndex) throws {
                try take(value, place: sequence == .lines ? at.position.line : at.index, pointer: "")
            }
            try input.forEachChunk { chunk in try reader.feed(chunk, takeValue) }
            try reader.finish(takeValue)
        default:
            try readValue(input, at: options.recordsAt, limits: limits, take: take)
        }
        return counts
    }

    /// What a worker makes of a batch of lines: their records, and the counts.
    private struct LineBatch {
        var records: [ImportRecord] = []
        var values = 0
        var childRows = 0
    }

    /// JSON Lines on `threads` threads: batches of whole lines read by workers into records,
    /// handed over in order; a batch with a fault is read here, so that the records before the
    /// fault go out and the fault is the one a single thread meets.
    private static func readLines(
        _ input: any ChunkSource,
        limits: JSONLimits,
        threads: Int,
        faults: FaultSink?,
        builder: PlainRecordBuilder,
        emit: (ImportRecord) throws -> Void
    ) throws -> (records: Int, childRows: Int) {
        let driver = ParallelLinesDriver<LineBatch>(threads: threads) {
            { batch in
                let reader = JSONSequenceReader(
                    format: .lines,
                    limits: limits,
                    startingAt: batch.offset,
                    line: batch.line
                )
                var output = LineBatch()
                let writer = ImportRecordWriter()
                func take(_ value: JSONTape.Value, at: JSONSequenceIndex) throws {
                    let before = output.records.count
                    try builder.records(
                        of: value,
                        place: at.position.line,
                        pointer: "",
                        writer: writer,
                        into: &output.records
                    )
                    output.values += 1
                    output.childRows += output.records.count - before - 1
                }
                do {
                    try batch.bytes.withUnsafeBytes { try reader.feed($0, take) }
                    try reader.finish(take)
                } catch {
                    return nil
                }
                return output
            }
        }
        var counts = (records: 0, childRows: 0)
        // A batch with a fault is read here (the workers give such a batch up): here the fault
        // stops the import, or is set aside.
        let reader = JSONSequenceReader(format: .lines, limits: limits)
        reader.valueFault = faults?.malformed
        var records: [ImportRecord] = []
        let writer = ImportRecordWriter()
        func take(_ value: JSONTape.Value, at: JSONSequenceIndex) throws {
            records.removeAll(keepingCapacity: true)
            guard
                try builder.records(
                    of: value,
                    place: at.position.line,
                    pointer: "",
                    writer: writer,
                    into: &records,
                    settingAsideTo: faults
                )
            else { return }
            counts.records += 1
            counts.childRows += records.count - 1
            for record in records { try emit(record) }
        }
        guard let driver else {
            try input.forEachChunk { chunk in try reader.feed(chunk, take) }
            try reader.finish(take)
            return counts
        }
        func merged(_ batch: JSONBatch, _ output: LineBatch) throws {
            reader.skip(over: batch, values: output.values)
            counts.records += output.values
            counts.childRows += output.childRows
            for record in output.records { try emit(record) }
        }
        func sequential(_ batch: JSONBatch) throws {
            try batch.bytes.withUnsafeBytes { try reader.feed($0, take) }
        }
        try input.forEachChunk { chunk in try driver.feed(chunk, merged: merged, sequential: sequential) }
        try driver.finish(merged: merged, sequential: sequential)
        try reader.finish(take)
        return counts
    }

    /// One JSON value: the elements of the array at `path` (the top level by default), or, with no
    /// path, a top-level object as one record.
    private static func readValue(
        _ input: any ChunkSource,
        at path: JSONPath?,
        limits: JSONLimits,
        take: (JSONTape.Value, Int, String) throws -> Void
    ) throws {
        let parser = JSONParser(limits: limits)
        var elements = JSONElementReader(path: path ?? JSONPath(steps: []))
        let prefix = elements.path.description
        // Undecided until the first token: a top-level object (with no path) is kept whole.
        var wholeValue: Bool?
        try input.forEachChunk { chunk in
            try parser.parse(chunk)
            let tape = parser.tape
            if wholeValue == nil, tape.endIndex > tape.startIndex {
                wholeValue = path == nil && tape[tape.startIndex].kind != .arrayStart
            }
            guard wholeValue == false else { return }
            try elements.advance(over: tape) { value, index in try take(value, index, "\(prefix)/\(index)") }
            parser.removeTokens(before: elements.firstNeededIndex(on: parser.tape))
        }
        try parser.finish()
        let tape = parser.tape
        if wholeValue == true {
            try take(tape.value(at: tape.startIndex), 0, "")
            return
        }
        try elements.advance(over: tape) { value, index in try take(value, index, "\(prefix)/\(index)") }
        guard let kind = elements.targetKind else {
            throw JSONError(
                kind: .typeMismatch,
                message: "The input has no value at \(prefix), where the records were to be.",
                position: JSONPosition(byteOffset: 0, line: 1, column: 1)
            )
        }
        guard kind == .arrayStart else {
            throw JSONError(
                kind: .typeMismatch,
                message:
                    "Expected an array of records at \(prefix.isEmpty ? "the top level" : prefix), but found \(kind.nounPhrase).",
                position: elements.targetPosition ?? JSONPosition(byteOffset: 0, line: 1, column: 1)
            )
        }
    }
}
