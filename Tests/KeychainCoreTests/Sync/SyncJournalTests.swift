import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The change journal (issue 26; issue 23's change serial and tombstones): which writes it records, with which
/// clocks, and that its rows are covered by the file's integrity and never show up as items.
@Suite("Sync change journal")
struct SyncJournalTests {
    func sql(_ path: String, _ statement: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw KeychainFailure(.io) }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, statement, nil, nil, nil) == SQLITE_OK else {
            throw KeychainFailure(.io, String(cString: sqlite3_errmsg(db)))
        }
    }

    @Test("add, update and delete of a synchronizable item stamp increasing clocks, each over the last")
    func stamps() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "alice"), secret: secret("one"))
        let (added, first) = try keystore.syncChanges(after: 0)
        #expect(added.count == 1)
        #expect(added[0].base == nil)
        #expect(added[0].payload != nil)
        #expect(added[0].clock.device == (try keystore.syncDeviceID()))

        var sync = query("svc", "alice")
        sync.synchronizable = .yes
        #expect(try keystore.update(sync, changes: [:], secret: secret("two")) == 1)
        let (updated, second) = try keystore.syncChanges(after: first)
        #expect(updated.count == 1)
        #expect(updated[0].item == added[0].item)
        #expect(updated[0].clock > added[0].clock)
        #expect(updated[0].base == added[0].clock)
        #expect(second > first)

        #expect(try keystore.delete(sync) == 1)
        let (deleted, third) = try keystore.syncChanges(after: second)
        #expect(deleted.count == 1)
        #expect(deleted[0].item == added[0].item)
        #expect(deleted[0].isTombstone)
        #expect(deleted[0].clock > updated[0].clock)
        #expect(deleted[0].base == updated[0].clock)
        #expect(third > second)
        // Each item once, in its current state: from the start, only the tombstone.
        let (all, _) = try keystore.syncChanges(after: 0)
        #expect(all.map(\.isTombstone) == [true])
    }

    @Test("after one change, syncChanges reports that change alone and moves the cursor")
    func oneChangeSinceCursor() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        for index in 0..<20 {
            _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "a\(index)"), secret: secret("s"))
        }
        let (_, cursor) = try keystore.syncChanges(after: 0)
        _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "new"), secret: secret("n"))
        let (changes, through) = try keystore.syncChanges(after: cursor)
        #expect(changes.count == 1)
        #expect(through == cursor + 1)
        #expect(try keystore.syncChanges(after: through).changes.isEmpty)
    }

    @Test("non-synchronizable and ThisDeviceOnly items never appear in syncChanges")
    func onlySynchronizable() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "local", .whenUnlocked), secret: secret("l"))
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "device", .whenUnlockedThisDeviceOnly), secret: secret("d")
        )
        #expect(throws: KeychainFailure.self) {
            _ = try keystore.add(
                .genericPassword, attributes: syncItem("svc", "both", .afterFirstUnlockThisDeviceOnly),
                secret: secret("b"))
        }
        #expect(try keystore.syncChanges(after: 0).changes.isEmpty)
        #expect(try keystore.delete(query("svc")) == 2)
        #expect(try keystore.syncChanges(after: 0).changes.isEmpty)
    }

    @Test("a synchronizable …ThisDeviceOnly item is refused with errSecParam by add and update, and nothing changes")
    func thisDeviceOnlyRefused() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let failure = #expect(throws: KeychainFailure.self) {
            _ = try keystore.add(
                .genericPassword, attributes: syncItem("svc", "a", .alwaysThisDeviceOnly), secret: secret("x"))
        }
        #expect(failure?.status == .param)
        _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        var sync = query("svc", "a")
        sync.synchronizable = .yes
        let update = #expect(throws: KeychainFailure.self) {
            _ = try keystore.update(sync, changes: ["pdmn": .string("dku")], secret: nil)
        }
        #expect(update?.status == .param)
        #expect(try syncSecret(keystore, "svc", "a") == "x")
        #expect(try keystore.syncChanges(after: 0).changes.count == 1)
    }

    @Test("an item that stops being synchronizable leaves a tombstone; one that starts gets a new id")
    func syncFlagChanges() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        let (first, cursor) = try keystore.syncChanges(after: 0)
        var sync = query("svc", "a")
        sync.synchronizable = .yes
        #expect(try keystore.update(sync, changes: ["sync": .bool(false)], secret: nil) == 1)
        let (second, next) = try keystore.syncChanges(after: cursor)
        #expect(second.map(\.item) == first.map(\.item))
        #expect(second.map(\.isTombstone) == [true])
        #expect(try keystore.update(query("svc", "a"), changes: ["sync": .bool(true)], secret: nil) == 1)
        let (third, _) = try keystore.syncChanges(after: next)
        #expect(third.count == 1)
        #expect(third[0].item != first[0].item)
        #expect(third[0].payload != nil)
    }

    @Test("a tombstone is never returned by a search, an integrity count or a backup")
    func tombstonesInvisible() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "gone"), secret: secret("x"))
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "kept", .whenUnlocked), secret: secret("k"))
        var gone = query("svc", "gone")
        gone.synchronizable = .yes
        #expect(try keystore.delete(gone) == 1)
        #expect(try keystore.syncChanges(after: 0).changes.map(\.isTombstone) == [true])
        #expect(
            try keystore.search(
                ItemQuery(itemClass: .genericPassword, scope: .all, synchronizable: .any), projection: []
            ).count == 1
        )
        #expect(try keystore.verifyIntegrity() == 1)
        let path = temp.directory + "/journal.swkcbackup"
        let backup = try keystore.backup(to: path, passphrase: secret("backup-pass"), parameters: .testing)
        #expect(backup.items == 1)
        let restoredHome = try TemporaryKeychain()
        let restored = try restoredHome.open()
        let report = try restored.restore(from: path, passphrase: secret("backup-pass"), policy: .fail)
        #expect(report.restored == 1)
        #expect(
            try restored.search(
                ItemQuery(itemClass: .genericPassword, scope: .all, synchronizable: .any), projection: []
            ).count == 1
        )
    }

    @Test("editing a journal row's clock or id, or removing one, is found by the integrity check")
    func tampering() throws {
        for edit in [
            "UPDATE sync_items SET clock = zeroblob(28)", "UPDATE sync_items SET item = randomblob(16)",
            "UPDATE sync_items SET local = 0", "DELETE FROM sync_items",
        ] {
            let temp = try TemporaryKeychain()
            let keystore = try temp.open()
            _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
            #expect(try keystore.verifyIntegrity() == 1)
            try sql(temp.location.databasePath, edit)
            let failure = #expect(throws: KeychainFailure.self, "\(edit)") { _ = try keystore.verifyIntegrity() }
            #expect(failure?.status == .decode)
        }
    }

    @Test("a keychain from before the journal opens, and its synchronizable items are journaled at the first sync")
    func olderFiles() throws {
        let temp = try TemporaryKeychain()
        do {
            let keystore = try temp.open()
            _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "old"), secret: secret("o"))
            _ = try keystore.add(
                .genericPassword, attributes: genericItem("svc", "local", .whenUnlocked), secret: secret("l"))
        }
        // The file as a build without the journal left it: no sync tables, no sync meta entries.
        try sql(
            temp.location.databasePath,
            "DROP TABLE sync_items; DROP TABLE sync_conflicts; DROP TABLE sync_state; DELETE FROM meta WHERE name LIKE 'sync_%'"
        )
        let keystore = try temp.open()
        #expect(try keystore.verifyIntegrity() == 2)
        let (changes, _) = try keystore.syncChanges(after: 0)
        #expect(changes.count == 1)
        #expect(changes[0].payload != nil)
        #expect(try keystore.verifyIntegrity() == 2)
        // The journal adds tables only: the schema version older builds check is unchanged.
        var db: OpaquePointer?
        #expect(sqlite3_open(temp.location.databasePath, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(sqlite3_column_int64(statement, 0) == Schema.version)
    }

    @Test("an item deleted behind the journal (by a build without it) is sent as a delete with a new clock")
    func deletedBehindJournal() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        let (first, cursor) = try devices[0].syncChanges(after: 0)
        _ = try devices[1].applySyncChanges(first)
        try sql(devices.homes[0].location.databasePath, "DELETE FROM items")
        let (changes, through) = try devices[0].syncChanges(after: 0)
        #expect(changes.map(\.isTombstone) == [true])
        #expect(changes[0].clock > first[0].clock)
        #expect(through > cursor)
        #expect(try devices[1].applySyncChanges(changes) == SyncApplyReport(applied: 1))
        #expect(try syncContents(devices[1]).isEmpty)
    }

    @Test("syncChanges and applySyncChanges answer interactionNotAllowed while locked, and apply nothing")
    func locked() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        let (changes, _) = try devices[0].syncChanges(after: 0)
        try devices[1].setPassword(secret("pin"), current: nil, parameters: .testing)
        try devices[1].lock()
        let apply = #expect(throws: KeychainFailure.self) { _ = try devices[1].applySyncChanges(changes) }
        #expect(apply?.status == .interactionNotAllowed)
        let read = #expect(throws: KeychainFailure.self) { _ = try devices[1].syncChanges(after: 0) }
        #expect(read?.status == .interactionNotAllowed)
        try devices[1].unlock(password: secret("pin"))
        #expect(try syncContents(devices[1]).isEmpty)
        #expect(try devices[1].applySyncChanges(changes) == SyncApplyReport(applied: 1))
        #expect(try syncContents(devices[1]) == ["svc/a=x"])
    }
}
