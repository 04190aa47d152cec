import Foundation
import KeychainServices
import KeychainTesting
import Testing

// Seed 001 (Use of Keychain): Wqkeychain save/load/delete and WQUserDataManager, ported to Swift call
// for call: delete-then-add, NSKeyedArchiver payload, kSecAttrAccessibleAfterFirstUnlock, statuses ignored.

/// The seed's `Wqkeychain`.
enum Wqkeychain {
    static func getKeychainQuery(_ service: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: service,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
    }

    static func save(_ service: String, data: Any) {
        // Get search dictionary; delete old item before adding the new one.
        var keychainQuery = getKeychainQuery(service)
        SecItemDelete(keychainQuery as CFDictionary)
        keychainQuery[kSecValueData as String] = try? NSKeyedArchiver.archivedData(
            withRootObject: data, requiringSecureCoding: false)
        SecItemAdd(keychainQuery as CFDictionary, nil)
    }

    static func load(_ service: String) -> Any? {
        var keychainQuery = getKeychainQuery(service)
        keychainQuery[kSecReturnData as String] = kCFBooleanTrue!
        keychainQuery[kSecMatchLimit as String] = kSecMatchLimitOne
        var keyData: CFTypeRef?
        guard SecItemCopyMatching(keychainQuery as CFDictionary, &keyData) == noErr, let data = keyData as? Data else {
            return nil
        }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSString.self], from: data)
    }

    static func delete(_ service: String) {
        SecItemDelete(getKeychainQuery(service) as CFDictionary)
    }
}

/// The seed's `WQUserDataManager`.
enum WQUserDataManager {
    static let keyInKeychain = "Com.wuqian.app.allinfo"
    static let keyPassword = "Com.wuqian.app.password"

    static func savePassword(_ password: String) {
        let usernamepasswordKVPairs: NSDictionary = [keyPassword: password]
        Wqkeychain.save(keyInKeychain, data: usernamepasswordKVPairs)
    }

    static func readPassword() -> String? {
        (Wqkeychain.load(keyInKeychain) as? NSDictionary)?[keyPassword] as? String
    }

    static func deletePassword() {
        Wqkeychain.delete(keyInKeychain)
    }
}

@Suite("Seed 001: Wqkeychain + WQUserDataManager")
struct Seed001Tests {
    @Test("The button action: save the password, then read it straight back")
    func saveThenRead() throws {
        try withKeychain {
            WQUserDataManager.savePassword("hunter2")
            #expect(WQUserDataManager.readPassword() == "hunter2")
        }
    }

    @Test("Saving again overwrites the password")
    func overwrite() throws {
        try withKeychain {
            WQUserDataManager.savePassword("old")
            WQUserDataManager.savePassword("new")
            #expect(WQUserDataManager.readPassword() == "new")
            #expect(count(genericPassword(service: WQUserDataManager.keyInKeychain, account: nil)) == 1)
        }
    }

    @Test("Delete, then reading returns nil")
    func deleteThenRead() throws {
        try withKeychain {
            WQUserDataManager.savePassword("gone soon")
            WQUserDataManager.deletePassword()
            #expect(WQUserDataManager.readPassword() == nil)
        }
    }

    @Test("Reading before any save returns nil; an empty password round-trips")
    func emptyAndMissing() throws {
        try withKeychain {
            #expect(WQUserDataManager.readPassword() == nil)
            WQUserDataManager.savePassword("")
            #expect(WQUserDataManager.readPassword() == "")
        }
    }

    @Test("The stored item is a generic password keyed by the service for both service and account")
    func storedShape() throws {
        try withKeychain {
            WQUserDataManager.savePassword("x")
            let key = WQUserDataManager.keyInKeychain
            let found = try #require(attributes(genericPassword(service: key, account: key)))
            #expect(found[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(found[kSecClass as String] as? String == kSecClassGenericPassword as String)
        }
    }
}
