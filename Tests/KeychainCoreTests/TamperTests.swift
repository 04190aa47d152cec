import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Tampering with a keychain file is detected (tracker issues 2 and 8): every case is `errSecDecode`
/// for the item concerned or a refused database, never wrong data, and other items stay readable.
@Suite("Tamper detection")
struct TamperTests {
    /// Runs raw SQL on the keychain file behind the engine's back, as an attacker with the file would.
    func tamper(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw KeychainFailure(.io) }
        defer { sqlite3_close(db) }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            throw KeychainFailure(.io, text)
        }
    }

    /// Flips the lowest bit of the last byte of a blob column.
    func flipLastBit(_ path: String, column: String, rowid: Int64) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw KeychainFailure(.io) }
        defer { sqlite3_close(db) }
        var select: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT \(column) FROM items WHERE rowid = \(rowid)", -1, &select, nil)
        defer { sqlite3_finalize(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { throw KeychainFailure(.itemNotFound) }
        var bytes = [UInt8](
            UnsafeRawBufferPointer(
                start: sqlite3_column_blob(select, 0), count: Int(sqlite3_column_bytes(select, 0))))
        bytes[bytes.count - 1] ^= 1
        var update: OpaquePointer?
        sqlite3_prepare_v2(db, "UPDATE items SET \(column) = ? WHERE rowid = \(rowid)", -1, &update, nil)
        defer { sqlite3_finalize(update) }
        _ = bytes.withUnsafeBytes { sqlite3_bind_blob(update, 1, $0.baseAddress, Int32($0.count), nil) }
        guard sqlite3_step(update) == SQLITE_DONE else { throw KeychainFailure(.io) }
    }

    func prepared() throws -> (TemporaryKeychain, Keystore) {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "alice", .always), secret: secret("alice-secret"))
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "bob", .always), secret: secret("bob-secret"))
        return (temp, keystore)
    }

    func read(_ keystore: Keystore, _ account: String) -> Result<String, KeychainStatus> {
        do {
            let items = try keystore.search(query("svc", account), projection: [.secret, .attributes])
            guard let item = items.first, let value = item.secret else { return .failure(.itemNotFound) }
            return .success(value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        } catch {
            return .failure(error.status)
        }
    }

    static let columns = [
        "persistref", "class", "pdmn", "sync", "agrp", "pk", "acct", "name", "wrapped_key", "attributes", "secret",
    ]

    @Test("flipping a bit in any column of a row is detected for that row only", arguments: columns)
    func flipBit(column: String) throws {
        let (temp, keystore) = try prepared()
        let rowid = try #require(try firstRowid(temp, account: "alice", keystore: keystore))
        switch column {
        case "class", "pdmn", "sync":
            try tamper(temp.location.databasePath, "UPDATE items SET \(column) = \(column) + 1 WHERE rowid = \(rowid)")
        default:
            try flipLastBit(temp.location.databasePath, column: column, rowid: rowid)
        }
        let result = read(keystore, "alice")
        switch result {
        case .success(let value): Issue.record("a tampered row returned data (\(value.count) bytes)")
        case .failure(let status):
            // A damaged ciphertext is errSecDecode; only a damaged index column may make the row
            // invisible to the lookup (it is then not this item's row any more).
            let allowed: [KeychainStatus] =
                ["wrapped_key", "attributes", "secret"].contains(column) ? [.decode] : [.decode, .itemNotFound]
            #expect(allowed.contains(status), "status \(status)")
        }
        // Either way it must never be bob's (or any other) data, and bob stays readable.
        #expect(read(keystore, "bob") == .success("bob-secret"))
    }

    @Test("replaying an old version of a row is detected by the integrity check")
    func replayOldRow() throws {
        let (temp, keystore) = try prepared()
        let path = temp.location.databasePath
        try tamper(path, "CREATE TABLE old_items AS SELECT * FROM items")
        #expect(try keystore.update(query("svc", "alice"), changes: [:], secret: secret("alice-new")) == 1)
        #expect(try keystore.verifyIntegrity() == 2)
        // Put the old alice row back, as an attacker holding an older copy of the file would.
        try tamper(
            path,
            """
            DELETE FROM items WHERE rowid = (SELECT min(rowid) FROM items);
            INSERT INTO items SELECT * FROM old_items WHERE rowid = (SELECT min(rowid) FROM old_items);
            DROP TABLE old_items;
            """)
        // The replayed row is self-consistent, so a read of it cannot tell; the keychain check does.
        #expect(read(keystore, "bob") == .success("bob-secret"))
        do {
            _ = try keystore.verifyIntegrity()
            Issue.record("a replayed row went unnoticed")
        } catch {
            #expect(error.status == .decode)
        }
    }

    @Test("a row removed behind the engine's back is detected by the integrity check")
    func removedRow() throws {
        let (temp, keystore) = try prepared()
        try tamper(temp.location.databasePath, "DELETE FROM items WHERE rowid = (SELECT max(rowid) FROM items)")
        #expect(throws: KeychainFailure.self) { try keystore.verifyIntegrity() }
    }

    @Test(
        "every bit flip is also caught by the integrity check",
        arguments: ["wrapped_key", "attributes", "secret", "pk"])
    func flipCaughtByIntegrity(column: String) throws {
        let (temp, keystore) = try prepared()
        let rowid = try #require(try firstRowid(temp, account: "alice", keystore: keystore))
        try flipLastBit(temp.location.databasePath, column: column, rowid: rowid)
        #expect(throws: KeychainFailure.self) { try keystore.verifyIntegrity() }
    }

    @Test("swapping the ciphertexts of two rows is detected")
    func swapRows() throws {
        let (temp, keystore) = try prepared()
        try tamper(
            temp.location.databasePath,
            """
            CREATE TEMP TABLE t AS SELECT rowid AS r, wrapped_key, attributes, secret FROM items;
            UPDATE items SET wrapped_key = (SELECT wrapped_key FROM t WHERE r <> items.rowid),
              attributes = (SELECT attributes FROM t WHERE r <> items.rowid),
              secret = (SELECT secret FROM t WHERE r <> items.rowid);
            """)
        #expect(read(keystore, "alice") == .failure(.decode))
        #expect(read(keystore, "bob") == .failure(.decode))
    }

    @Test("swapping only the secrets of two rows is detected")
    func swapSecrets() throws {
        let (temp, keystore) = try prepared()
        try tamper(
            temp.location.databasePath,
            """
            CREATE TEMP TABLE t AS SELECT rowid AS r, secret FROM items;
            UPDATE items SET secret = (SELECT secret FROM t WHERE r <> items.rowid);
            """)
        #expect(read(keystore, "alice") == .failure(.decode))
    }

    @Test("a truncated keychain file is refused and not replaced")
    func truncated() throws {
        let (temp, keystore) = try prepared()
        _ = keystore
        let path = temp.location.databasePath
        // Fold the WAL into the main file first, so the truncation hits real content.
        try tamper(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        let before = FileManager.default.contents(atPath: path)
        #expect(throws: KeychainFailure.self) {
            let reopened = try Keystore(location: temp.location)
            _ = try reopened.search(query("svc"), projection: .secret)
        }
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    @Test("a file that is not a keychain is refused with errSecInvalidKeychain and left as it was")
    func garbage() throws {
        let temp = try TemporaryKeychain()
        try FileManager.default.createDirectory(
            atPath: (temp.location.databasePath as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        let junk = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = FileManager.default.createFile(
            atPath: temp.location.databasePath, contents: junk, attributes: [.posixPermissions: 0o600])
        do {
            _ = try temp.open()
            Issue.record("garbage opened as a keychain")
        } catch let failure as KeychainFailure {
            #expect(failure.status == .invalidKeychain)
        }
        #expect(FileManager.default.contents(atPath: temp.location.databasePath) == junk)
    }

    @Test("a keychain from a newer schema is refused with errSecWrongSecVersion")
    func newerSchema() throws {
        let (temp, _) = try prepared()
        try tamper(temp.location.databasePath, "PRAGMA user_version = 99")
        do {
            _ = try temp.open()
            Issue.record("a newer schema opened")
        } catch let failure as KeychainFailure {
            #expect(failure.status == .wrongSecVersion)
        }
    }

    @Test("an empty keychain file is refused, never silently initialised")
    func emptyFile() throws {
        let temp = try TemporaryKeychain()
        try FileManager.default.createDirectory(
            atPath: (temp.location.databasePath as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: temp.location.databasePath, contents: Data(), attributes: [.posixPermissions: 0o600])
        #expect(throws: KeychainFailure.self) { _ = try temp.open() }
        #expect(FileManager.default.contents(atPath: temp.location.databasePath) == Data())
    }

    @Test("a keychain writable by group or others is refused, as ssh refuses such keys")
    func looseMode() throws {
        let (temp, _) = try prepared()
        try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: temp.location.databasePath)
        do {
            _ = try temp.open()
            Issue.record("a group-writable keychain opened")
        } catch let failure as KeychainFailure {
            #expect(failure.status == .invalidKeychain)
            #expect(failure.detail?.contains("writable by group or others") == true)
        }
    }

    @Test("a keychain in a folder writable by group or others is refused, as ssh's StrictModes does")
    func looseFolder() throws {
        let (temp, _) = try prepared()
        let folder = (temp.location.databasePath as NSString).deletingLastPathComponent
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        do {
            _ = try temp.open()
            Issue.record("a keychain in a world-writable folder opened")
        } catch let failure as KeychainFailure {
            #expect(failure.status == .invalidKeychain)
            #expect(failure.detail?.contains("chmod 700") == true)
        }
    }

    @Test("new keychain files are 0600 in 0700 folders whatever the umask")
    func modes() throws {
        let old = umask(0)
        defer { umask(old) }
        let (temp, keystore) = try prepared()
        defer { withExtendedLifetime(keystore) {} }
        for path in [temp.location.databasePath, temp.location.databasePath + "-wal", temp.location.deviceKeyPath] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(path)")
        }
        for path in [temp.location.databasePath, temp.location.deviceKeyPath] {
            let folder = (path as NSString).deletingLastPathComponent
            let mode = try #require(FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int)
            #expect(mode == 0o700, "\(folder)")
        }
    }

    @Test("a full disk fails the write with errSecDiskFull and loses nothing")
    func fullDisk() throws {
        let (temp, keystore) = try prepared()
        _ = temp
        try keystore.limitPagesForTesting(extraPages: 2)
        var status: KeychainStatus?
        for index in 0..<200 {
            do {
                _ = try keystore.add(
                    .genericPassword, attributes: genericItem("svc", "filler-\(index)", .always),
                    secret: SecureBytes(copying: [UInt8](repeating: 7, count: 4000)))
            } catch {
                status = error.status
                break
            }
        }
        #expect(status == .diskFull)
        #expect(read(keystore, "alice") == .success("alice-secret"))
        #expect(read(keystore, "bob") == .success("bob-secret"))
    }

    func firstRowid(_ temp: TemporaryKeychain, account: String, keystore: Keystore) throws -> Int64? {
        // Rows are in insertion order: alice first.
        var db: OpaquePointer?
        guard sqlite3_open(temp.location.databasePath, &db) == SQLITE_OK else { return nil }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT min(rowid) FROM items", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : nil
    }
}

extension Keystore {
    /// Caps the file at its current size plus `extraPages` pages (`PRAGMA max_page_count`), to
    /// simulate a full disk. Test-only: it reaches into the connection, so it is not in the engine.
    func limitPagesForTesting(extraPages: Int) throws(KeychainFailure) {
        try session.withLock { (s: inout StoreSession) throws(KeychainFailure) in
            let pages = try s.database.scalar("PRAGMA page_count")
            try s.database.setMaxPageCount(Int(pages) + extraPages)
        }
    }
}
