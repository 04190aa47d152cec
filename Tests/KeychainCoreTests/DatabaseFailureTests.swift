import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// SQLite failures become engine failures once, where SQLite is called (`SQLite/SQLiteError.swift`):
/// the status follows the primary result code, and the SQLite error stays in the failure's reason.
@Suite("Database failures")
struct DatabaseFailureTests {
    func failure(_ code: Int32) -> KeychainFailure {
        KeychainFailure(SQLiteError(code: SQLiteResultCode(rawValue: code), message: "message"))
    }

    @Test("each primary result code maps to its status, extended codes included, and the reason keeps the SQLite error")
    func mapping() {
        // SQLITE_CONSTRAINT_UNIQUE is SQLITE_CONSTRAINT | (8 << 8) (https://sqlite.org/rescode.html).
        #expect(failure(SQLITE_CONSTRAINT | (8 << 8)).status == .duplicateItem)
        #expect(failure(SQLITE_FULL).status == .diskFull)
        #expect(failure(SQLITE_CORRUPT).status == .invalidKeychain)
        #expect(failure(SQLITE_NOTADB).status == .invalidKeychain)
        #expect(failure(SQLITE_BUSY).status == .notAvailable)
        #expect(failure(SQLITE_LOCKED).status == .notAvailable)
        #expect(failure(SQLITE_IOERR).status == .io)
        let unique = failure(SQLITE_CONSTRAINT | (8 << 8))
        #expect(unique.databaseError?.code.primary == .constraint)
        #expect(unique.databaseError?.code.rawValue == SQLITE_CONSTRAINT | (8 << 8))
        #expect(
            unique.reason
                == .database(
                    SQLiteError(code: SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8)), message: "message")))
        #expect(!unique.isAdvice)
    }

    @Test("a statement SQLite refuses throws the mapped failure from the database layer itself")
    func boundary() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let thrown = #expect(throws: KeychainFailure.self) {
            try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in
                try s.database.execute("INSERT INTO meta (name, value) VALUES ('keychain_id', x'00')")
            }
        }
        #expect(thrown?.status == .duplicateItem)
        #expect(thrown?.databaseError?.code.isConstraint == true)
    }
}
