import SluiceImport
import Testing

@testable import SluicePostgres

/// COPY text and the staging of rows by column set, without a server.
@Suite("COPY text")
struct CopyTextTests {
    static func text(_ copy: CopyText) -> String { String(decoding: copy.bytes, as: UTF8.self) }

    @Test("integers are written as their decimal digits, signed, fields apart by tabs, rows ended by line feeds")
    func integers() {
        var copy = CopyText()
        for value in [0, 9, 10, 1234, Int.max] { copy.integer(value) }
        copy.endRow()
        copy.integer(7)
        copy.integer(-42)
        copy.integer(Int.min)
        copy.endRow()
        #expect(Self.text(copy) == "0\t9\t10\t1234\t\(Int.max)\n7\t-42\t\(Int.min)\n")
        #expect(copy.rows == 2)
    }

    @Test("text is escaped, and rows that set the same columns share a group whatever came between")
    func groupsByColumns() {
        let table = PostgresTable(type: "articles", name: "articles")
        for name in ["title", "views"] {
            _ = table.catalog.addColumn(name, name: name, type: .text)
        }
        func stage(_ key: String, _ values: [(Int, String)]) {
            let texts = values.map { ($0.0, Array($0.1.utf8)) }
            Array(key.utf8).withUnsafeBytes { key in
                var row: [(ordinal: Int, value: ImportRecord.Value)] = []
                for (ordinal, bytes) in texts {
                    let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
                    bytes.withUnsafeBytes { pointer.copyMemory(from: $0) }
                    row.append((ordinal, .string(UnsafeRawBufferPointer(pointer))))
                }
                table.stageRow(key: key, row)
                for (_, value) in row {
                    if case .string(let text) = value { UnsafeMutableRawBufferPointer(mutating: text).deallocate() }
                }
            }
        }
        stage("1", [(0, "a\tb")])
        stage("2", [(0, "c"), (1, "5")])
        stage("3", [(0, "back\\slash")])
        stage("4", [(0, "d"), (1, "6")])
        #expect(table.groups.map(\.ordinals) == [[0], [0, 1]])
        #expect(table.groups.map { Self.text($0.rows) } == ["1\ta\\tb\n3\tback\\\\slash\n", "2\tc\t5\n4\td\t6\n"])
        table.removeGroups()
        #expect(table.groups.isEmpty)
        stage("5", [(1, "7")])
        #expect(table.groups.map(\.ordinals) == [[1]], "a new batch starts its groups afresh")
    }
}
