import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Prepared statements stay in their connection's cache between uses (`Database.prepare`).
@Suite("Prepared statements")
struct StatementTests {
    /// The statement's SQL with the values bound to it now, as SQLite would run it.
    static func expanded(_ statement: Statement) -> String? {
        guard let text = sqlite3_expanded_sql(statement.handle) else { return nil }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }

    @Test("regression: a cached statement keeps no copy of the blob last bound to it after run and after finish")
    func bindingsReleased() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let seen = try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [String?] in
            try s.database.execute("CREATE TEMP TABLE blobs (value BLOB)")
            let insert = try s.database.prepare("INSERT INTO blobs (value) VALUES (?)")
            try insert.run([.blob([0xAB, 0xCD])])
            // A 4 MiB sealed secret bound here stayed allocated in SQLite until the statement's next use.
            var seen = [Self.expanded(insert)]
            let select = try s.database.prepare("SELECT count(*) FROM blobs WHERE value = ?")
            try select.bind([.blob([0xAB, 0xCD])])
            seen.append(Self.expanded(select))
            seen.append(try select.step() ? String(select.int64(0)) : nil)
            select.finish()
            seen.append(Self.expanded(select))
            return seen
        }
        #expect(
            seen == [
                "INSERT INTO blobs (value) VALUES (NULL)", "SELECT count(*) FROM blobs WHERE value = x'abcd'", "1",
                "SELECT count(*) FROM blobs WHERE value = NULL",
            ])
    }
}
