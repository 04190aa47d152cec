import Foundation
import KeychainCore
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

// Seed 004: UYLPasswordManager (Keith Harrison, useyourloaf.com), ported to Swift call for call from its
// UYLPasswordManager.m: items are generic passwords with service "UYLPasswordManager" and the identifier
// (as UTF-8 Data) in both kSecAttrGeneric and kSecAttrAccount; register = search, then add or update
// (updating kSecValueData and kSecAttrAccessible); the value read is cached within one call.
// Note: the seed's prose says `migrate` defaults to NO, its code sets YES; this port follows the code.

/// `UYLPMAccessMode`.
enum UYLPMAccessMode: Sendable {
    case accessibleWhenUnlocked, accessibleAfterFirstUnlock, accessibleAlways
}

/// The seed's `UYLPasswordManager` (an instance per test instead of the process-wide shared one).
final class UYLPasswordManager {
    static let keychainService = "UYLPasswordManager"

    var migrate = true
    var accessMode = UYLPMAccessMode.accessibleWhenUnlocked

    private var keychainValue: String?
    private var keychainAccessGroup: String?
    private var keychainIdentifier: String?

    /// `-setKeychainIdentifier:`: any identifier drops the cached value.
    private func setKeychainIdentifier(_ newValue: String?) {
        if keychainIdentifier == nil && newValue == nil { return }
        keychainIdentifier = nil
        keychainValue = nil
        if let newValue { keychainIdentifier = newValue }
    }

    /// `-setKeychainAccessGroup:`: as in the seed, nil never clears a group set before.
    private func setKeychainAccessGroup(_ newValue: String?) {
        if keychainAccessGroup == nil && newValue == nil { return }
        keychainValue = nil
        if let newValue { keychainAccessGroup = newValue }
    }

    // MARK: Public methods

    /// Removes any cached keychain data.
    func purge() {
        setKeychainAccessGroup(nil)
        setKeychainIdentifier(nil)
        keychainValue = nil
    }

    /// Adds the item, or updates it when it exists.
    func registerKey(_ key: String, forIdentifier identifier: String, inGroup group: String? = nil) {
        setKeychainAccessGroup(group)
        setKeychainIdentifier(identifier)
        searchKeychain()
        if keychainValue == nil {
            _ = createKeychainValue(key)
        } else {
            _ = updateKeychainValue(key)
        }
        searchKeychain()
    }

    /// Whether an item exists for the identifier and, when `key` is not nil, holds that key.
    func validKey(_ key: String?, forIdentifier identifier: String?, inGroup group: String? = nil) -> Bool {
        guard let identifier else { return false }
        setKeychainAccessGroup(group)
        setKeychainIdentifier(identifier)
        searchKeychain()
        guard let value = keychainValue else { return false }
        return key == nil || value == key
    }

    /// The key stored for the identifier, or nil.
    func keyForIdentifier(_ identifier: String?, inGroup group: String? = nil) -> String? {
        guard let identifier else { return nil }
        setKeychainAccessGroup(group)
        setKeychainIdentifier(identifier)
        searchKeychain()
        return keychainValue
    }

    func deleteKeyForIdentifier(_ identifier: String, inGroup group: String? = nil) {
        setKeychainAccessGroup(group)
        setKeychainIdentifier(identifier)
        deleteKeychainValue()
    }

    // MARK: Private methods

    private func searchKeychain() {
        guard keychainValue == nil, var searchDictionary = newSearchDictionary() else { return }
        searchDictionary[kSecMatchLimit as String] = kSecMatchLimitOne
        searchDictionary[kSecReturnData as String] = kCFBooleanTrue!
        var cfResult: CFTypeRef?
        SecItemCopyMatching(searchDictionary as CFDictionary, &cfResult)
        if let result = cfResult as? Data {
            keychainValue = String(data: result, encoding: .utf8)
        }
    }

    private func createKeychainValue(_ password: String) -> Bool {
        guard var dictionary = newSearchDictionary() else { return false }
        dictionary[kSecValueData as String] = password.data(using: .utf8)
        dictionary[kSecAttrAccessible as String] = attributeAccess()
        return SecItemAdd(dictionary as CFDictionary, nil) == errSecSuccess
    }

    private func updateKeychainValue(_ password: String) -> Bool {
        guard let searchDictionary = newSearchDictionary() else { return false }
        let updateDictionary: [String: Any] = [
            kSecValueData as String: password.data(using: .utf8)!,
            kSecAttrAccessible as String: attributeAccess(),
        ]
        return SecItemUpdate(searchDictionary as CFDictionary, updateDictionary as CFDictionary) == errSecSuccess
    }

    private func deleteKeychainValue() {
        if let searchDictionary = newSearchDictionary() {
            SecItemDelete(searchDictionary as CFDictionary)
        }
        keychainValue = nil
    }

    private func newSearchDictionary() -> [String: Any]? {
        guard let keychainIdentifier else { return nil }
        let encodedIdentifier = Data(keychainIdentifier.utf8)
        var searchDictionary: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrGeneric as String: encodedIdentifier,
            kSecAttrAccount as String: encodedIdentifier,
            kSecAttrService as String: Self.keychainService,
        ]
        if let keychainAccessGroup { searchDictionary[kSecAttrAccessGroup as String] = keychainAccessGroup }
        return searchDictionary
    }

    private func attributeAccess() -> String {
        switch accessMode {
        case .accessibleWhenUnlocked:
            migrate ? kSecAttrAccessibleWhenUnlocked as String : kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String
        case .accessibleAfterFirstUnlock:
            migrate
                ? kSecAttrAccessibleAfterFirstUnlock as String
                : kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String
        case .accessibleAlways:
            migrate ? kSecAttrAccessibleAlways as String : kSecAttrAccessibleAlwaysThisDeviceOnly as String
        }
    }
}

@Suite("Seed 004: UYLPasswordManager")
struct Seed004Tests {
    func storedItem(_ identifier: String) -> [String: Any]? {
        attributes(genericPassword(service: UYLPasswordManager.keychainService, account: identifier))
    }

    @Test("Register a key, then read it back for its identifier")
    func register() throws {
        try withKeychain {
            let manager = UYLPasswordManager()
            manager.registerKey("s3cret", forIdentifier: "alice")
            #expect(manager.keyForIdentifier("alice") == "s3cret")
            manager.purge()
            #expect(manager.keyForIdentifier("alice") == "s3cret")
            // Stored as the seed does it: Data account and generic attribute, default WhenUnlocked.
            let stored = try #require(storedItem("alice"))
            #expect(stored[kSecAttrAccount as String] as? Data == Data("alice".utf8))
            #expect(stored[kSecAttrGeneric as String] as? Data == Data("alice".utf8))
            #expect(stored[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
        }
    }

    @Test("Registering again updates the key in place (SecItemUpdate), also its accessibility")
    func update() throws {
        try withKeychain {
            let manager = UYLPasswordManager()
            manager.registerKey("v1", forIdentifier: "bob")
            let created = try #require(storedItem("bob")?[kSecAttrCreationDate as String] as? Date)
            manager.accessMode = .accessibleAfterFirstUnlock
            manager.migrate = false
            manager.registerKey("v2", forIdentifier: "bob")
            manager.purge()
            #expect(manager.keyForIdentifier("bob") == "v2")
            let stored = try #require(storedItem("bob"))
            #expect(
                stored[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                    as String)
            #expect(stored[kSecAttrCreationDate as String] as? Date == created)
            #expect(count(genericPassword(service: UYLPasswordManager.keychainService, account: nil)) == 1)
        }
    }

    @Test("validKey: true for the stored key or nil, false for another key or an unknown identifier")
    func validate() throws {
        try withKeychain {
            let manager = UYLPasswordManager()
            manager.registerKey("right", forIdentifier: "carol")
            #expect(manager.validKey("right", forIdentifier: "carol"))
            #expect(manager.validKey(nil, forIdentifier: "carol"))
            #expect(!manager.validKey("wrong", forIdentifier: "carol"))
            #expect(!manager.validKey(nil, forIdentifier: "nobody"))
            #expect(!manager.validKey("right", forIdentifier: nil))
        }
    }

    @Test("Delete a key: it is gone, validKey is false, and registering it again works")
    func deleteKey() throws {
        try withKeychain {
            let manager = UYLPasswordManager()
            manager.registerKey("temp", forIdentifier: "dave")
            manager.deleteKeyForIdentifier("dave")
            #expect(manager.keyForIdentifier("dave") == nil)
            #expect(!manager.validKey(nil, forIdentifier: "dave"))
            #expect(
                copy(genericPassword(service: UYLPasswordManager.keychainService, account: "dave")).status
                    == errSecItemNotFound)
            manager.registerKey("again", forIdentifier: "dave")
            #expect(manager.keyForIdentifier("dave") == "again")
        }
    }

    @Test("Keys in an access group: a held group works, a group not held stores nothing (-34018 underneath)")
    func groups() throws {
        let keychain = try TemporaryKeychain()
        try keychain.run(as: ApplicationIdentity(accessGroups: ["TEAM.app", "TEAM.shared"])) {
            let manager = UYLPasswordManager()
            manager.registerKey("grouped", forIdentifier: "erin", inGroup: "TEAM.shared")
            manager.purge()
            #expect(manager.keyForIdentifier("erin", inGroup: "TEAM.shared") == "grouped")
            #expect(manager.validKey("grouped", forIdentifier: "erin"))
            #expect(storedItem("erin")?[kSecAttrAccessGroup as String] as? String == "TEAM.shared")
            manager.registerKey("nope", forIdentifier: "frank", inGroup: "OTHER.group")
            #expect(manager.keyForIdentifier("frank") == nil)
        }
        // Seen by an app that does hold OTHER.group: nothing was stored there, nor anywhere else.
        try keychain.run(as: ApplicationIdentity(accessGroups: ["OTHER.group", "TEAM.app", "TEAM.shared"])) {
            #expect(count(genericPassword(service: UYLPasswordManager.keychainService, account: "frank")) == 0)
        }
    }

    @Test("Each lookup searches the keychain again, so a change by another process is visible at once")
    func seesOtherProcess() throws {
        let keychain = try TemporaryKeychain()
        let manager = UYLPasswordManager()
        try keychain.run { manager.registerKey("mine", forIdentifier: "gina") }
        // Another process updates the item with a String account: it matches the seed's Data account.
        #expect(
            try HelperProcess.run(
                ["update", UYLPasswordManager.keychainService, "gina", "theirs"], environment: keychain.environment)
                == "0")
        try keychain.run {
            #expect(manager.keyForIdentifier("gina") == "theirs")
            manager.purge()
            #expect(manager.validKey("theirs", forIdentifier: "gina"))
        }
    }
}
