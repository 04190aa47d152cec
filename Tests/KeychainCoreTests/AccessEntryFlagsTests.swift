import CSQLite
import KeychainTesting
import Testing

@testable import KeychainCore

/// Item keys are wrapped with the access entries of their item's attributes (schema version 3, tracker
/// issue 29): a read of the secret opens the attributes only when the key says there is an access
/// control or a trusted-application list to check, and every write of the attributes writes the flags
/// again, so they never say less than the attributes hold.
@Suite("Access entries wrapped with the item key")
struct AccessEntryFlagsTests {
    static let accessControl = AttributeValue.data([0x61, 0x63, 0x63, 0x63])
    static let trusted = AttributeValue.data(TrustedApplications(["exe:/usr/bin/git"]).encoded)

    /// The item key of the one item for `account`, as unwrapped.
    func key(_ keystore: Keystore, _ account: String) throws -> ItemKey {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) -> ItemKey in
            guard let row = try s.candidateRows(query("svc", account), withSecret: false).first else {
                throw KeychainFailure(.itemNotFound)
            }
            return try s.itemKey(row)
        }
    }

    /// What a read of the secret returns: the secret, with the access entries among the attributes.
    func secretRead(_ keystore: Keystore, _ account: String) throws -> StoredItem {
        try #require(try keystore.search(query("svc", account), projection: [.secret, .accessControl]).first)
    }

    /// Wraps the item key of `account` again as builds before schema version 3 did: its 32 bytes alone.
    func wrapAlone(_ keystore: Keystore, _ account: String) throws {
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) in
            guard let row = try s.candidateRows(query("svc", account), withSecret: false).first else {
                throw KeychainFailure(.itemNotFound)
            }
            let key = try s.itemKey(row)
            let wrapped = Sodium.seal(
                key.bytes, key: try s.classKey(row.protection).bytes, associatedData: s.associatedData(.key, row))
            try s.database.prepare("UPDATE items SET wrapped_key = ? WHERE rowid = ?").run([
                .blob(wrapped), .integer(row.rowid),
            ])
        }
    }

    @Test("a new item's key is wrapped with which access entries its attributes hold")
    func newItems() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        var withAccess = genericItem("svc", "access", .whenUnlocked)
        withAccess[.accessControl] = Self.accessControl
        var withList = genericItem("svc", "list", .whenUnlocked)
        withList[.trustedApplications] = Self.trusted
        var withBoth = withAccess
        withBoth[.account] = .string("both")
        withBoth[.trustedApplications] = Self.trusted
        for attributes in [genericItem("svc", "plain", .whenUnlocked), withAccess, withList, withBoth] {
            _ = try keystore.add(.genericPassword, attributes: attributes, secret: secret("s"))
        }
        #expect(try key(keystore, "plain").accessEntries == [])
        #expect(try key(keystore, "access").accessEntries == [.accessControl])
        #expect(try key(keystore, "list").accessEntries == [.trustedApplications])
        #expect(try key(keystore, "both").accessEntries == [.accessControl, .trustedApplications])
        #expect(try key(keystore, "plain").bytes.count == Sodium.keyBytes)
    }

    @Test("a read of the secret returns an item's access entries when it has them, and opens none otherwise")
    func reads() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        var withBoth = genericItem("svc", "both", .whenUnlocked)
        withBoth[.accessControl] = Self.accessControl
        withBoth[.trustedApplications] = Self.trusted
        _ = try keystore.add(.genericPassword, attributes: withBoth, secret: secret("guarded"))
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "plain", .whenUnlocked), secret: secret("p"))
        let guarded = try secretRead(keystore, "both")
        #expect(guarded.attributes == ["accc": Self.accessControl, "tapp": Self.trusted])
        #expect(guarded.secret?.constantTimeEquals(Array("guarded".utf8)) == true)
        let plain = try secretRead(keystore, "plain")
        #expect(plain.attributes.isEmpty)
        #expect(plain.secret?.constantTimeEquals(Array("p".utf8)) == true)
    }

    @Test("an update that adds an access entry wraps the key again with it, and a read then returns it")
    func updateAddsEntry() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(.genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("s"))
        let before = try key(keystore, "me")
        #expect(try keystore.update(query("svc", "me"), changes: ["accc": Self.accessControl], secret: nil) == 1)
        let after = try key(keystore, "me")
        #expect(after.accessEntries == [.accessControl])
        #expect(after.bytes.constantTimeEquals(before.bytes))  // the same key, wrapped again
        #expect(try secretRead(keystore, "me").attributes == ["accc": Self.accessControl])
        #expect(try keystore.update(query("svc", "me"), changes: ["tapp": Self.trusted], secret: secret("t")) == 1)
        #expect(try key(keystore, "me").accessEntries == [.accessControl, .trustedApplications])
        let read = try secretRead(keystore, "me")
        #expect(read.attributes == ["accc": Self.accessControl, "tapp": Self.trusted])
        #expect(read.secret?.constantTimeEquals(Array("t".utf8)) == true)
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("a key wrapped before schema version 3 still opens; its item's entries are read from the attributes")
    func keyWrappedAlone() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        var attributes = genericItem("svc", "old", .whenUnlocked)
        attributes[.accessControl] = Self.accessControl
        _ = try keystore.add(.genericPassword, attributes: attributes, secret: secret("s"))
        try wrapAlone(keystore, "old")
        #expect(try key(keystore, "old").accessEntries == nil)
        let read = try secretRead(keystore, "old")
        #expect(read.attributes == ["accc": Self.accessControl])
        #expect(read.secret?.constantTimeEquals(Array("s".utf8)) == true)
        // An update in place wraps it again with its entries.
        #expect(try keystore.update(query("svc", "old"), changes: ["labl": .string("label")], secret: nil) == 1)
        #expect(try key(keystore, "old").accessEntries == [.accessControl])
        #expect(try secretRead(keystore, "old").attributes == ["accc": Self.accessControl])
    }

    @Test("an unwrapped key of another length than 32 or 33 bytes is refused")
    func lengths() {
        #expect(ItemKey(unwrapped: SecureBytes(copying: [UInt8](repeating: 7, count: 31))) == nil)
        #expect(ItemKey(unwrapped: SecureBytes(copying: [UInt8](repeating: 7, count: 34))) == nil)
        let flagged = ItemKey(unwrapped: SecureBytes(copying: [UInt8](repeating: 7, count: 32) + [0x80]))
        #expect(flagged?.accessEntries == AccessEntryFlags(rawValue: 0x80))  // unknown bits: not empty
        #expect(flagged?.bytes.constantTimeEquals([UInt8](repeating: 7, count: 32)) == true)
    }

    @Test("a version 2 keychain is marked version 3 when opened, and its items read as before")
    func versionTwoFile() throws {
        let temp = try TemporaryKeychain()
        do {
            let keystore = try temp.open()
            _ = try keystore.add(
                .genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("kept"))
            try wrapAlone(keystore, "me")
        }
        let path = temp.location.databasePath
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "PRAGMA user_version = 2", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        #expect(userVersion(path) == Schema.recordVersion)
        let keystore = try temp.open()
        #expect(userVersion(path) == Schema.version)
        let read = try secretRead(keystore, "me")
        #expect(read.secret?.constantTimeEquals(Array("kept".utf8)) == true)
        #expect(read.attributes.isEmpty)
    }
}
