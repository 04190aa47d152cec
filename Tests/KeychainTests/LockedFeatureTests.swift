import Foundation
import KeychainCore
import KeychainTestProcess
import KeychainTesting
import Testing

@testable import Keychain

@Suite("DeviceIdentifier and the lock")
struct DeviceIdentifierLockTests {
    @Test("the identifier (AfterFirstUnlockThisDeviceOnly) is readable after lock()")
    func readableAfterLock() throws {
        let temp = try TemporaryKeychain(password: true)
        let identifier = DeviceIdentifier().context(temp.context())
        let id = try identifier.value()
        try temp.file.lock()
        #expect(try temp.file.lockState == .locked)
        #expect(try identifier.value() == id)
        #expect(try DeviceIdentifier().context(try temp.otherConnection()).value() == id)
    }

    @Test("before the first unlock of the session, reading it throws interactionNotAllowed, never a new UUID")
    func notBeforeFirstUnlock() throws {
        let temp = try TemporaryKeychain(password: true)
        let identifier = DeviceIdentifier().context(temp.context())
        let id = try identifier.value()
        // The session ends (logout, restart): every class key leaves the user keyring.
        try temp.keystore.withdrawAllClassKeys()
        #expect(throws: KeychainError.interactionNotAllowed) { try identifier.value() }
        try temp.file.unlock(password: TemporaryKeychain.password)
        try temp.file.lock()
        #expect(try identifier.value() == id)
    }

    @Test("with no identifier stored yet, none can be created before the first unlock")
    func noCreationBeforeFirstUnlock() throws {
        let temp = try TemporaryKeychain(password: true)
        try temp.keystore.withdrawAllClassKeys()
        let identifier = DeviceIdentifier().context(temp.context())
        #expect(throws: KeychainError.interactionNotAllowed) { try identifier.value() }
        try temp.file.unlock(password: TemporaryKeychain.password)
        let id = try identifier.value()
        #expect(try identifier.value() == id)
        #expect(try Keychain(service: DeviceIdentifier.defaultService).context(temp.context()).allKeys() == ["uuid"])
    }
}

@Suite("PasswordManager and the lock")
struct PasswordManagerLockTests {
    @Test("the cache never serves a key after the keychain locks; the lookup throws and the cache is wiped")
    func cacheWipedOnLock() throws {
        let temp = try TemporaryKeychain(password: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "hunter2", for: "alice")
        #expect(try manager.key(for: "alice") == "hunter2")
        #expect(manager.cachedKeyCount == 1)

        try temp.file.lock()
        #expect(throws: KeychainError.interactionNotAllowed) { try manager.key(for: "alice") }
        #expect(manager.cachedKeyCount == 0)
        #expect(throws: KeychainError.interactionNotAllowed) { try manager.isValid(key: "hunter2", for: "alice") }

        try temp.file.unlock(password: TemporaryKeychain.password)
        #expect(try manager.key(for: "alice") == "hunter2")
        #expect(manager.cachedKeyCount == 1)
    }

    @Test("a lock from another connection (another process, in effect) also stops the cache")
    func cacheWipedOnLockElsewhere() throws {
        let temp = try TemporaryKeychain(password: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "hunter2", for: "alice")
        #expect(try manager.isValid(key: "hunter2", for: "alice"))
        #expect(manager.cachedKeyCount == 1)
        try KeychainFile(keystore: try Keystore(location: temp.location)).lock()
        #expect(throws: KeychainError.interactionNotAllowed) { try manager.isValid(key: "hunter2", for: "alice") }
        #expect(manager.cachedKeyCount == 0)
    }

    @Test("a lock followed by an unlock between two lookups still empties the cache")
    func lockAndUnlockBetweenLookups() throws {
        let temp = try TemporaryKeychain(password: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "a", for: "alice")
        try manager.register(key: "b", for: "bob")
        _ = try manager.key(for: "alice")
        _ = try manager.key(for: "bob")
        #expect(manager.cachedKeyCount == 2)
        try temp.file.lock()
        try temp.file.unlock(password: TemporaryKeychain.password)
        // The class key came back under a new epoch: the first lookup wipes the whole cache and
        // reads alice again, so bob's key from before the lock is gone too.
        #expect(try manager.key(for: "alice") == "a")
        #expect(manager.cachedKeyCount == 1)
    }

    @Test("AfterFirstUnlock keys stay readable, and cached, across lock()")
    func afterFirstUnlockSurvivesLock() throws {
        let temp = try TemporaryKeychain(password: true)
        let manager = PasswordManager(context: temp.context())
        manager.accessMode = .afterFirstUnlock
        try manager.register(key: "background", for: "worker")
        #expect(try manager.key(for: "worker") == "background")
        try temp.file.lock()
        #expect(manager.cachedKeyCount == 1)
        #expect(try manager.key(for: "worker") == "background")
        #expect(manager.cachedKeyCount == 1)
    }

    @Test("purge empties the cache while unlocked and while locked")
    func purge() throws {
        let temp = try TemporaryKeychain(password: true)
        let manager = PasswordManager(context: temp.context())
        manager.accessMode = .afterFirstUnlock
        try manager.register(key: "k", for: "id")
        _ = try manager.key(for: "id")
        try temp.file.lock()
        #expect(manager.cachedKeyCount == 1)
        manager.purge()
        #expect(manager.cachedKeyCount == 0)
        #expect(try manager.key(for: "id") == "k")
    }
}

@Suite("Process configuration and keychain files")
struct ProcessConfigurationTests {
    @Test("entitlements built in code follow Apple's order and expansion")
    func entitlementsOrder() throws {
        let entitlements = Entitlements(
            applicationIdentifier: "ABCDE12345.com.example.app",
            keychainAccessGroups: ["$(AppIdentifierPrefix)com.example.shared", "ABCDE12345.com.example.app"],
            applicationGroups: ["group.com.example"])
        #expect(
            entitlements.accessGroups == [
                "ABCDE12345.com.example.shared", "ABCDE12345.com.example.app", "group.com.example",
            ])
        #expect(Entitlements().accessGroups == [])
        #expect(Entitlements.unsigned.accessGroups == ["unsigned"])
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["application-identifier": "T.app"], format: .xml, options: 0)
        #expect(try Entitlements(propertyList: plist).accessGroups == ["T.app"])
        #expect(throws: KeychainError.missingEntitlement) { try Entitlements(propertyList: Data("nope".utf8)) }
        #expect(throws: KeychainError.missingEntitlement) { try Entitlements(contentsOfFile: "/nonexistent/x.plist") }
    }

    @Test("the current entitlements come from the task's context")
    func currentEntitlements() throws {
        let temp = try TemporaryKeychain(opening: true)
        let entitlements = try KeychainContext.withOverride(temp.context(teamIdentity)) { try Entitlements.current() }
        #expect(entitlements.accessGroups == teamIdentity.accessGroups)
    }

    @Test("keychainFile(_:) stores items in that file with the current identity, not in the default keychain")
    func boundFile() throws {
        let defaultKeychain = try TemporaryKeychain(opening: true)
        let other = try TemporaryKeychain(password: true)
        try KeychainContext.withOverride(defaultKeychain.context(teamIdentity)) {
            let keychain = Keychain(service: "svc").keychainFile(other.file)
            #expect(keychain.file?.path == other.location.databasePath)
            try keychain.set("v", forKey: "k")
            #expect(try Keychain(service: "svc").string(forKey: "k") == nil)
            #expect(try keychain.string(forKey: "k") == "v")
            #expect(try keychain.allItems().map(\.accessGroup) == ["TEAM.shared"])
            #expect(try keychain.keychainFile(nil).string(forKey: "k") == nil)
            // The file's own lock applies.
            try other.file.lock()
            #expect(throws: KeychainError.interactionNotAllowed) { try keychain.string(forKey: "k") }
        }
        #expect(
            try KeychainContext.withOverride(defaultKeychain.context(teamIdentity)) {
                try KeychainFile.processDefault()
            }
            .path == defaultKeychain.location.databasePath)
    }

    @Test("a process sets its keychain and entitlements through the API before first use (helper process)")
    func processConfiguration() throws {
        let temp = try TemporaryKeychain(opening: true)
        let path = temp.directory + "/data/keychains/configured.keychain-db"
        let output = try HelperProcess.run(
            ["kc-configured", path, "TEAM.configured", "svc", "k", "v"], environment: temp.environment)
        #expect(output == "0 TEAM.configured")
        // The item is in the configured file, in the configured group, and not in the login keychain.
        let file = try KeychainFile(
            location: KeychainLocation(databasePath: path, deviceKeyPath: temp.location.deviceKeyPath))
        let context = KeychainContext(
            keystore: file.keystore, identity: ApplicationIdentity(accessGroups: ["TEAM.configured"]))
        #expect(try Keychain(service: "svc").context(context).string(forKey: "k") == "v")
        #expect(try Keychain(service: "svc").context(temp.context(.manager)).allItems().isEmpty)
        try? file.keystore.withdrawAllClassKeys()
    }
}
