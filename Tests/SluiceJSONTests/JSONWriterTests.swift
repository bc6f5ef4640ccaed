import Foundation
import SluiceJSON
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    static func text(_ options: JSONWriter.Options = .init(), _ body: (JSONWriter) throws -> Void) throws -> String {
        String(decoding: try JSONWriter.bytes(options: options, body), as: UTF8.self)
    }

    static func sample(_ writer: JSONWriter) throws {
        try writer.beginObject()
        try writer.key("name")
        try writer.string("Ada \"the\" / first\n\u{1}é😀")
        try writer.key("numbers")
        try writer.beginArray()
        try writer.number(42)
        try writer.number(-0.1)
        try writer.number(1e300)
        try writer.number(text: "1.50e-3")
        try writer.number(UInt64.max)
        try writer.endArray()
        try writer.key("flags")
        try writer.beginArray()
        try writer.bool(true)
        try writer.null()
        try writer.endArray()
        try writer.key("")
        try writer.string("")
        try writer.endObject()
    }

    @Test("compact output: escapes, shortest doubles, raw number text kept, empty strings")
    func compact() throws {
        let text = try Self.text { try Self.sample($0) }
        #expect(
            text
                == #"{"name":"Ada \"the\" / first\n\u0001é😀","numbers":[42,-0.1,1e+300,1.50e-3,18446744073709551615],"flags":[true,null],"":""}"#
        )
        // What it writes reads back as the same values.
        let tape = try JSONParser.parse(Array(text.utf8))
        let root = try tape.value(at: tape.startIndex)
        #expect(try root["name"]?.string() == "Ada \"the\" / first\n\u{1}é😀")
        #expect(try root["numbers"]?[1]?.double() == -0.1)
    }

    @Test("pretty output with the indentation asked for; slashes escaped when asked")
    func pretty() throws {
        let text = try Self.text(.init(prettyPrinted: true, indent: "  ", escapesSlashes: true)) { writer in
            try writer.beginObject()
            try writer.key("a/b")
            try writer.beginArray()
            try writer.number(1)
            try writer.endArray()
            try writer.endObject()
        }
        #expect(text == "{\n  \"a\\/b\": [\n    1\n  ]\n}\n")
    }

    @Test("chunked output joined equals one-shot output, every chunk but the last full")
    func chunks() throws {
        let whole = try Self.text { try Self.sample($0) }
        for size in [1, 7, 64] {
            var chunks: [[UInt8]] = []
            let writer = JSONWriter(options: .init(chunkSize: size)) { chunks.append(Array($0)) }
            try Self.sample(writer)
            try writer.finish()
            #expect(String(decoding: chunks.joined(), as: UTF8.self) == whole)
            #expect(chunks.dropLast().allSatisfy { $0.count == size })
        }
    }

    @Test(
        "calls out of order, bad numbers and bad bytes are refused with a sentence",
        arguments: [
            (
                "a value where a key is due",
                "Cannot write a number where an object's member name is due; write a key first."
            ),
            (
                "a second top-level value",
                "Cannot write null: the document's single top-level value is already complete."
            ),
            ("a bad number", #""01" is not a JSON number."#),
            ("infinity", "inf cannot be written as a JSON number."),
            ("invalid UTF-8", "The bytes handed in as a string are not valid UTF-8 at offset 1."),
        ]
    )
    func refusals(name: String, message: String) throws {
        let writer = JSONWriter { _ in }
        do {
            switch name {
            case "a value where a key is due":
                try writer.beginObject()
                try writer.number(1)
            case "a second top-level value":
                try writer.null()
                try writer.null()
            case "a bad number":
                try writer.number(text: "01")
            case "infinity":
                try writer.number(Double.infinity)
            default:
                try [UInt8(ascii: "a"), 0xC0, 0x80].withUnsafeBytes { try writer.string(utf8: $0) }
            }
            Issue.record("no error for \(name)")
        } catch let failure as JSONWriter.Failure {
            #expect(failure.message == message)
        }
    }

    @Test("finish refuses an incomplete or empty document; a failing sink stops the writing")
    func finishAndSink() throws {
        let open = JSONWriter { _ in }
        try open.beginArray()
        do {
            try open.finish()
            Issue.record("no error")
        } catch let failure as JSONWriter.Failure {
            #expect(failure.message == "The document is incomplete: 1 container(s) are still open.")
        }
        struct DiskFull: Error {}
        let failing = JSONWriter(options: .init(chunkSize: 4)) { _ in throw DiskFull() }
        try failing.beginArray()
        #expect(throws: DiskFull.self) {
            for _ in 0..<10 { try failing.number(12345) }
        }
    }

    @Test(
        "structure is checked before yajl sees it",
        arguments: [
            ("key in an array", "Cannot write a key: a member name belongs in an object, before each value."),
            ("close the wrong kind", "Cannot close an object: the innermost open container is not an object."),
            ("dangling key", "Cannot close an object: its last member name has no value."),
            ("close on a fresh writer", "Cannot close an array: the innermost open container is not an array."),
            ("too deep", "Cannot open an array: the writer nests at most 127 levels."),
        ]
    )
    func structure(name: String, message: String) throws {
        let writer = JSONWriter { _ in }
        do {
            switch name {
            case "key in an array":
                try writer.beginArray()
                try writer.key("x")
            case "close the wrong kind":
                try writer.beginArray()
                try writer.endObject()
            case "dangling key":
                try writer.beginObject()
                try writer.key("a")
                try writer.endObject()
            case "close on a fresh writer":
                try writer.endArray()
            default:
                for _ in 0...JSONWriter.maxDepth { try writer.beginArray() }
            }
            Issue.record("no error for \(name)")
        } catch let failure as JSONWriter.Failure {
            #expect(failure.message == message)
        }
        // The writer stays failed: the next call throws the same error instead of writing.
        #expect(throws: JSONWriter.Failure.self) { try writer.null() }
    }

    @Test("a sink that fails mid-way never gets a chunk twice, and the writer stays failed")
    func sinkFailure() throws {
        struct Flaky: Error {}
        var received: [[UInt8]] = []
        let writer = JSONWriter(options: .init(chunkSize: 4)) { chunk in
            if received.count == 1 { throw Flaky() }
            received.append(Array(chunk))
        }
        try writer.beginArray()
        #expect(throws: Flaky.self) { try writer.string("abcdefgh") }
        #expect(throws: Flaky.self) { try writer.endArray() }
        #expect(throws: Flaky.self) { try writer.finish() }
        #expect(received == [Array(#"["ab"#.utf8)])
        // A non-whitespace indent does not crash the generator.
        let pretty = try Self.text(.init(prettyPrinted: true, indent: "--")) { writer in
            try writer.beginObject()
            try writer.key("a")
            try writer.number(1)
            try writer.endObject()
        }
        #expect(pretty == "{\n    \"a\": 1\n}\n")
    }

    @Test("a large array streams through a small buffer")
    func constantMemory() throws {
        var total = 0
        var largest = 0
        let writer = JSONWriter(options: .init(chunkSize: 4096)) { chunk in
            total += chunk.count
            largest = max(largest, chunk.count)
        }
        try writer.beginArray()
        for index in 0..<100_000 {
            try writer.beginObject()
            try writer.key("id")
            try writer.number(index)
            try writer.endObject()
        }
        try writer.endArray()
        try writer.finish()
        #expect(total > 1_000_000)
        #expect(largest == 4096)
    }
}
