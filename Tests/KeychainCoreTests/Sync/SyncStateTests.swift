import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The sync engine's own state: plain values and sealed secrets, covered by integrity, never in backups.
@Suite("Sync state and secrets")
struct SyncStateTests {
    @Test("sync state and secrets round trip, nil removes them, and names do not collide across the two")
    func roundTrip() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        #expect(try keystore.syncState(named: "sync.cursor") == nil)
        #expect(try keystore.syncSecret(named: "sync.key") == nil)
        try keystore.setSyncState([1, 2, 3], named: "sync.cursor")
        try keystore.setSyncSecret(secret("sealed-key"), named: "sync.cursor")
        #expect(try keystore.syncState(named: "sync.cursor") == [1, 2, 3])
        #expect(try keystore.syncSecret(named: "sync.cursor")?.unprotectedCopy == Array("sealed-key".utf8))
        try keystore.setSyncState([4], named: "sync.cursor")
        #expect(try keystore.syncState(named: "sync.cursor") == [4])
        try keystore.setSyncState(nil, named: "sync.cursor")
        #expect(try keystore.syncState(named: "sync.cursor") == nil)
        try keystore.setSyncSecret(nil, named: "sync.cursor")
        #expect(try keystore.syncSecret(named: "sync.cursor") == nil)
        #expect(try keystore.verifyIntegrity() == 0)
        // Another keystore on the same file sees the same values.
        try keystore.setSyncState([9], named: "sync.remote")
        #expect(try temp.open().syncState(named: "sync.remote") == [9])
    }

    @Test("a sync secret is sealed in the file, and neither it nor the state is in a backup")
    func sealedAndNotBackedUp() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        try keystore.setSyncSecret(secret("device-signing-key-0123456789"), named: "sync.device-sign-key")
        try keystore.setSyncState(Array("remote-url".utf8), named: "sync.remote")
        let file = try Data(contentsOf: URL(fileURLWithPath: temp.location.databasePath))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: temp.location.databasePath + "-wal"))) ?? Data()
        #expect((file + wal).range(of: Data("device-signing-key".utf8)) == nil)
        let path = temp.directory + "/state.swkcbackup"
        let report = try keystore.backup(to: path, passphrase: secret("pass"), parameters: .testing)
        #expect(report.items == 0)
        let target = try TemporaryKeychain()
        let restored = try target.open()
        _ = try restored.restore(from: path, passphrase: secret("pass"))
        #expect(try restored.syncSecret(named: "sync.device-sign-key") == nil)
        #expect(try restored.syncState(named: "sync.remote") == nil)
    }

    @Test("an edited sync state value is found by the integrity check and refused when read")
    func tampered() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        try keystore.setSyncState([1, 2, 3], named: "sync.cursor")
        var db: OpaquePointer?
        #expect(sqlite3_open(temp.location.databasePath, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "UPDATE sync_state SET value = x'010204'", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let check = #expect(throws: KeychainFailure.self) { _ = try keystore.verifyIntegrity() }
        #expect(check?.status == .decode)
        let read = #expect(throws: KeychainFailure.self) { _ = try keystore.syncState(named: "sync.cursor") }
        #expect(read?.status == .decode)
    }
}
