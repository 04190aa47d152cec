import Foundation
import KeychainCore
import KeychainTesting
import Testing

@testable import Keychain

@Suite("Credentials (seeds 000, 001)")
struct CredentialsTests {
    @Test("the login name and password are saved together, read back, and deleted")
    func roundTrip() throws {
        let temp = try TemporaryKeychain(opening: true)
        let credentials = Credentials(service: "com.companyName.app.allinfo").context(temp.context())
        #expect(try credentials.userName() == nil)
        try credentials.save(userName: "alice", password: "hunter2")
        #expect(try credentials.userName() == "alice")
        #expect(try credentials.password() == "hunter2")
        try credentials.save(userName: "bob", password: "pa55")
        #expect(try credentials.load() == Credentials.Login(userName: "bob", password: "pa55"))
        let items = try Keychain(service: "com.companyName.app.allinfo").context(temp.context()).allItems()
        #expect(items.count == 1)
        #expect(items[0].key == "com.companyName.app.allinfo")
        #expect(items[0].accessibility == .afterFirstUnlock)
        try credentials.delete()
        #expect(try credentials.password() == nil)
        try credentials.delete()
    }

    @Test("a login's description shows neither part")
    func redacted() {
        let login = Credentials.Login(userName: "alice", password: "hunter2")
        #expect(!"\(login)".contains("alice"))
        #expect(!"\(login)".contains("hunter2"))
    }
}

@Suite("DeviceIdentifier (seed 002)")
struct DeviceIdentifierTests {
    @Test("the identifier is created once and survives a new instance; reset makes a new one")
    func stable() throws {
        let temp = try TemporaryKeychain(opening: true)
        let first = try DeviceIdentifier().context(temp.context()).value()
        #expect(try DeviceIdentifier().context(temp.context()).value() == first)
        try DeviceIdentifier().context(temp.context()).reset()
        #expect(try DeviceIdentifier().context(temp.context()).value() != first)
    }

    @Test("a shared access group gives every app of the team the same identifier")
    func sharedGroup() throws {
        let temp = try TemporaryKeychain(opening: true)
        let appA = ApplicationIdentity(accessGroups: ["TEAM.a", "TEAM.shared"])
        let appB = ApplicationIdentity(accessGroups: ["TEAM.b", "TEAM.shared"])
        let a = try DeviceIdentifier(accessGroup: "TEAM.shared").context(temp.context(appA)).value()
        let b = try DeviceIdentifier(accessGroup: "TEAM.shared").context(temp.context(appB)).value()
        #expect(a == b)
        // Without a group, lookups cover every group the app holds, so app B finds the shared one…
        #expect(try DeviceIdentifier().context(temp.context(appB)).value() == a)
        // …while an app outside the group gets its own.
        let appC = ApplicationIdentity(accessGroups: ["TEAM.c"])
        #expect(try DeviceIdentifier().context(temp.context(appC)).value() != a)
    }

    @Test("a stored value that is not a UUID throws decode")
    func notAUUID() throws {
        let temp = try TemporaryKeychain(opening: true)
        try Keychain(service: DeviceIdentifier.defaultService).context(temp.context()).set("nope", forKey: "uuid")
        #expect(throws: KeychainError.decode) { try DeviceIdentifier().context(temp.context()).value() }
    }
}

@Suite("PasswordManager (seed 004)")
struct PasswordManagerTests {
    @Test("register, read, validate, and delete a key")
    func basics() throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context())
        #expect(try manager.key(for: "alice") == nil)
        #expect(try !manager.isValid(key: nil, for: "alice"))
        try manager.register(key: "hunter2", for: "alice")
        #expect(try manager.key(for: "alice") == "hunter2")
        #expect(try manager.isValid(key: "hunter2", for: "alice"))
        #expect(try !manager.isValid(key: "hunter3", for: "alice"))
        #expect(try !manager.isValid(key: "hunter", for: "alice"))
        #expect(try manager.isValid(key: nil, for: "alice"))
        try manager.register(key: "changed", for: "alice")
        #expect(try manager.key(for: "alice") == "changed")
        try manager.deleteKey(for: "alice")
        #expect(try manager.key(for: "alice") == nil)
        try manager.deleteKey(for: "alice")
    }

    @Test(
        "accessMode and migrate set the accessibility on add and on update",
        arguments: [
            (PasswordManager.AccessMode.whenUnlocked, true, Accessibility.whenUnlocked),
            (.afterFirstUnlock, true, .afterFirstUnlock),
            (.always, false, .alwaysThisDeviceOnly),
            (.whenUnlocked, false, .whenUnlockedThisDeviceOnly),
        ])
    func accessibility(mode: PasswordManager.AccessMode, migrate: Bool, expected: Accessibility) throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context())
        let keychain = Keychain(service: manager.service).context(temp.context())
        try manager.register(key: "k", for: "added")
        try manager.register(key: "k", for: "updated")
        manager.accessMode = mode
        manager.migrate = migrate
        try manager.register(key: "k2", for: "updated")
        try manager.register(key: "k", for: "new")
        let items = Dictionary(uniqueKeysWithValues: try keychain.allItems().map { ($0.key, $0.accessibility) })
        #expect(items["added"] == .whenUnlocked)
        #expect(items["updated"] == expected)
        #expect(items["new"] == expected)
    }

    @Test("the cache is invalidated by another connection's change or deletion")
    func cacheInvalidatedByOtherConnection() throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "v1", for: "alice")
        #expect(try manager.key(for: "alice") == "v1")
        #expect(manager.cachedKeyCount == 1)
        #expect(try manager.key(for: "alice") == "v1")

        // Another connection (another process, in effect) changes the item.
        let other = Keychain(service: manager.service).context(try temp.otherConnection())
        try other.set("v2", forKey: "alice")
        #expect(try manager.key(for: "alice") == "v2")
        #expect(try manager.isValid(key: "v2", for: "alice"))

        try other.remove(forKey: "alice")
        #expect(try manager.key(for: "alice") == nil)
        #expect(try !manager.isValid(key: "v2", for: "alice"))
    }

    @Test("the cache is invalidated by a change on the same connection through another API")
    func cacheInvalidatedBySameConnection() throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "v1", for: "alice")
        #expect(try manager.key(for: "alice") == "v1")
        try Keychain(service: manager.service).context(temp.context()).set("v2", forKey: "alice")
        #expect(try manager.key(for: "alice") == "v2")
    }

    @Test("purge empties the cache")
    func purge() throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "v1", for: "alice")
        _ = try manager.key(for: "alice")
        #expect(manager.cachedKeyCount == 1)
        manager.purge()
        #expect(manager.cachedKeyCount == 0)
        #expect(try manager.key(for: "alice") == "v1")
    }

    @Test("a call without a group does not reuse the group of an earlier call")
    func groupNotSticky() throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context(teamIdentity))
        try manager.register(key: "a", for: "in-other", in: "TEAM.other")
        try manager.register(key: "b", for: "default")
        let keychain = Keychain(service: manager.service).context(temp.context(teamIdentity))
        #expect(try keychain.accessGroup("TEAM.shared").allKeys() == ["default"])
        #expect(try keychain.accessGroup("TEAM.other").allKeys() == ["in-other"])
        #expect(try manager.key(for: "default", in: "TEAM.other") == nil)
        #expect(try manager.key(for: "in-other") == "a")
        #expect(throws: KeychainError.missingEntitlement) { try manager.register(key: "x", for: "y", in: "TEAM.nope") }
    }

    @Test("shared is one instance until dropShared")
    func sharedInstance() {
        let first = PasswordManager.shared
        #expect(first === PasswordManager.shared)
        PasswordManager.dropShared()
        #expect(first !== PasswordManager.shared)
    }
}
