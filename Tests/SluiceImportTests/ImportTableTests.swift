import SluiceImport
import Testing

/// The table catalog both destinations keep: names, ordinals, to-one link columns.
@Suite("Import table catalog")
struct ImportTableTests {
    @Test("columns are found by member name wherever the member stands, and a new name is not")
    func lookups() {
        let table = ImportTable(type: "events", name: "events")
        let title = table.addColumn("title", name: "title", type: .text)
        let views = table.addColumn("views", name: "views", type: .integer)
        #expect((title, views) == (0, 1))
        func ordinal(_ name: String, at position: Int) -> Int? {
            Array(name.utf8).withUnsafeBytes { table.ordinal(named: $0, at: position) }
        }
        // Met at one position, then at another (a record that orders its members otherwise).
        #expect(ordinal("title", at: 0) == 0)
        #expect(ordinal("views", at: 1) == 1)
        #expect(ordinal("views", at: 0) == 1)
        #expect(ordinal("title", at: 1) == 0)
        #expect(ordinal("score", at: 0) == nil)
        #expect(table.takenColumns == ["id", "title", "views"])
        #expect(table.columns.map(\.quoted) == ["\"title\"", "\"views\""])
    }

    @Test("a to-one link's columns are registered by their keys, and widening keeps the declared kind")
    func toOneColumnsAndRetyping() {
        let table = ImportTable(type: "articles", name: "articles")
        let type = table.addColumn(ImportNames.toOneKey("author", .type), name: "author_type", type: .text)
        let id = table.addColumn(ImportNames.toOneKey("author", .id), name: "author_id", type: .integer)
        let author = Array("author".utf8).withUnsafeBytes { table.toOneOrdinals(named: $0, at: 0) }
        #expect(author.type == type && author.id == id && author.meta == nil)
        #expect(table.toOneIDOrdinals == [id])
        table.retype(id, to: .text)
        #expect(table.columns[id].type == .text && table.columns[id].declared == .integer)
        table.renameColumn(id, to: "author_id_2")
        #expect(table.columns[id].quoted == "\"author_id_2\"" && table.takenColumns.contains("author_id_2"))
    }
}
