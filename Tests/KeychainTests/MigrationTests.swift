import Foundation
import KeychainTesting
import Testing

@testable import Keychain
@testable import KeychainCore

@Suite("Migration")
struct MigrationTests {
    @Test("migration keeps every internet-password attribute and the secret")
    func keepsInternetPasswordAttributes() throws {
        let temp = try TemporaryKeychain(opening: true)
        let context = temp.context(teamIdentity)
        // An item with attributes the high-level API does not set itself: port, path, security domain.
        _ = try temp.keystore.add(
            .internetPassword,
            attributes: [
                "srvr": .string("example.com"), "ptcl": .string("htps"), "atyp": .string("dflt"),
                "acct": .string("alice"), "port": .integer(8443), "path": .string("/api"),
                "sdmn": .string("realm"), "labl": .string("Example"), "icmt": .string("note"),
                "agrp": .string("TEAM.shared"), "pdmn": .string("ak"), "sync": .bool(false),
            ],
            secret: SecureBytes(copying: Array("pw".utf8)))
        let source = Keychain(server: "example.com").context(context)
        let before = try temp.keystore.search(
            ItemQuery(itemClass: .internetPassword, filters: ["acct": .string("alice")], scope: .all),
            projection: .attributes)[0]

        let report = try source.migrate(
            to: source.accessGroup("TEAM.other").accessibility(.afterFirstUnlockThisDeviceOnly))

        #expect(report.movedKeys == ["alice"])
        #expect(report.movedItems[0].accessGroup == "TEAM.other")
        let after = try temp.keystore.search(
            ItemQuery(itemClass: .internetPassword, filters: ["acct": .string("alice")], scope: .all),
            projection: [.attributes, .secret])
        #expect(after.count == 1)
        var expected = before.attributes
        expected["agrp"] = .string("TEAM.other")
        expected["pdmn"] = .string("cku")
        #expect(after[0].attributes == expected)
        #expect(after[0].persistentRef == before.persistentRef)
        #expect(after[0].secret?.constantTimeEquals(Array("pw".utf8)) == true)
    }

    @Test("a migration that fails midway moves nothing")
    func allOrNothing() throws {
        let temp = try TemporaryKeychain(opening: true)
        let context = temp.context(teamIdentity)
        let source = Keychain(service: "svc").accessGroup("TEAM.shared").context(context)
        let target = source.accessGroup("TEAM.other")
        try source.set("a", forKey: "first")
        try source.set("b", forKey: "second")
        try source.set("c", forKey: "third")
        // "second" already exists in the target group: moving it collides after "first" has moved.
        try target.set("occupied", forKey: "second")

        #expect(throws: KeychainError.duplicateItem) { try source.migrate(to: target.accessibility(.always)) }

        #expect(try source.allKeys() == ["first", "second", "third"])
        #expect(try source.allItems().allSatisfy { $0.accessibility == .whenUnlocked })
        #expect(try target.allKeys() == ["second"])
        #expect(try target.string(forKey: "second") == "occupied")
        #expect(try source.string(forKey: "first") == "a")
    }

    @Test("a migration across item classes is refused with param")
    func refusesClassChange() throws {
        let temp = try TemporaryKeychain(opening: true)
        let generic = Keychain(service: "svc").context(temp.context())
        try generic.set("v", forKey: "k")
        #expect(throws: KeychainError.param) { try generic.migrate(to: Keychain(server: "svc")) }
        #expect(try generic.string(forKey: "k") == "v")
    }

    @Test("migrating to synchronizable moves the items into the synchronizable state; keys can narrow it")
    func synchronizableAndKeys() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try keychain.set("1", forKey: "a")
        try keychain.set("2", forKey: "b")
        let report = try keychain.migrate(keys: ["b"], to: keychain.synchronizable())
        #expect(report.count == 1)
        #expect(try keychain.allKeys() == ["a"])
        #expect(try keychain.synchronizable().string(forKey: "b") == "2")
        #expect(throws: KeychainError.param) {
            try keychain.migrate(to: keychain.synchronizable().accessibility(.alwaysThisDeviceOnly))
        }
    }

    @Test("a migration that matches nothing reports nothing")
    func emptyMigration() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "empty").context(temp.context())
        #expect(try keychain.migrate(to: keychain.accessibility(.always)).count == 0)
    }
}

@Suite("Migration and the lock")
struct MigrationLockTests {
    /// Accessibility is a write setting: it is not part of an item's primary key and not a search
    /// filter (as with SecItemCopyMatching, which ignores accessibility unless `kSecAttrAccessible`
    /// is given, and the high-level API never gives it). So a keychain configured with the old
    /// accessibility and one configured with the new accessibility both read the moved items; what
    /// changed is when they can be read. The access group and the synchronizable state, by contrast,
    /// are filters: a keychain confined to the old group, or of the other synchronizable state, no
    /// longer sees moved items (see "migration keeps every internet-password attribute" and
    /// "migrating to synchronizable").
    @Test("moved items do not disappear: keychains with the old and the new accessibility both read them")
    func movedItemsStayVisible() throws {
        let temp = try TemporaryKeychain(password: true)
        let old = Keychain(service: "tokens").context(temp.context())  // .whenUnlocked
        let new = old.accessibility(.afterFirstUnlockThisDeviceOnly)
        try old.set("a", forKey: "access")
        try old.set("r", forKey: "refresh")
        try Keychain(service: "untouched").context(temp.context()).set("u", forKey: "x")

        let report = try old.migrate(keys: ["access", "refresh"], to: new)
        #expect(report.movedKeys.sorted() == ["access", "refresh"])
        #expect(report.movedItems.allSatisfy { $0.accessibility == .afterFirstUnlockThisDeviceOnly })

        for keychain in [old, new] {
            #expect(try keychain.allKeys().sorted() == ["access", "refresh"])
            #expect(try keychain.string(forKey: "access") == "a")
            #expect(try keychain.string(forKey: "refresh") == "r")
        }

        // The new class is in effect: after lock() the moved items stay readable through both, while
        // an item left WhenUnlocked is locked.
        try temp.file.lock()
        for keychain in [old, new] {
            #expect(try keychain.string(forKey: "access") == "a")
            #expect(try keychain.string(forKey: "refresh") == "r")
        }
        #expect(throws: KeychainError.interactionNotAllowed) {
            try Keychain(service: "untouched").context(temp.context()).string(forKey: "x")
        }
        // Writing through the old configuration moves an item back to WhenUnlocked, on update too.
        try temp.file.unlock(password: TemporaryKeychain.password)
        try old.set("a2", forKey: "access")
        #expect(try old.allItems().first { $0.key == "access" }?.accessibility == .whenUnlocked)
    }

    @Test("a migration while the source class is locked throws and moves nothing")
    func lockedMigration() throws {
        let temp = try TemporaryKeychain(password: true)
        let old = Keychain(service: "tokens").context(temp.context())
        try old.set("a", forKey: "access")
        try temp.file.lock()
        #expect(throws: KeychainError.interactionNotAllowed) {
            try old.migrate(to: old.accessibility(.afterFirstUnlock))
        }
        try temp.file.unlock(password: TemporaryKeychain.password)
        #expect(try old.allItems().map(\.accessibility) == [.whenUnlocked])
    }
}
