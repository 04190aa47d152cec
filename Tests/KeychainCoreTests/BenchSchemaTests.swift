import CSQLite
import Testing

@testable import KeychainCore
@testable import keychain_bench

/// keychain-bench's C floor keeps its own copy of the `items` table, so that it measures SQLite and
/// libsodium without the engine; this suite keeps that copy equal to the engine's (issue 23, item 6):
/// the same columns (name, type, NOT NULL, key) and the same indexes over the same columns, except
/// the engine's integrity tag (`tag`, folded into `meta.accumulator`), which the floor does not compute.
@Suite("keychain-bench's floor schema is the engine's items table")
struct BenchSchemaTests {
    /// The `items` table's columns and indexes after running `schema` in a fresh in-memory database.
    static func shape(of schema: String) throws -> [String] {
        var handle: OpaquePointer?
        try #require(sqlite3_open(":memory:", &handle) == SQLITE_OK)
        let db = try #require(handle)
        defer { sqlite3_close(db) }
        try #require(sqlite3_exec(db, schema, nil, nil, nil) == SQLITE_OK)
        func rows(_ sql: String) throws -> [[String]] {
            var statement: OpaquePointer?
            try #require(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK)
            defer { sqlite3_finalize(statement) }
            var result: [[String]] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                result.append(
                    (0..<sqlite3_column_count(statement)).map { column in
                        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL"
                    })
            }
            return result
        }
        var shape = try rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info('items') ORDER BY cid")
            .map { "column " + $0.joined(separator: " ") }
        for index in try rows("SELECT name, \"unique\" FROM pragma_index_list('items') ORDER BY name") {
            let columns = try rows("SELECT name FROM pragma_index_info('\(index[0])') ORDER BY seqno").map(\.[0])
            // SQLite names the indexes behind UNIQUE constraints itself; compare them by their columns.
            let name = index[0].hasPrefix("sqlite_autoindex_") ? "(unique constraint)" : index[0]
            shape.append("index \(name) unique=\(index[1]) on \(columns.joined(separator: ","))")
        }
        return shape.sorted()
    }

    @Test("the floor's items table has the engine's columns and indexes")
    func floorSchemaEqualsEngine() throws {
        let engine = try Self.shape(of: Schema.create)
        #expect(engine.contains { $0.hasPrefix("column persistref") }, "the engine's schema has an items table")
        #expect(engine.contains("column tag BLOB 1 0"), "the one column the floor leaves out")
        #expect(try Self.shape(of: FloorStore.schema) == engine.filter { $0 != "column tag BLOB 1 0" })
    }
}
