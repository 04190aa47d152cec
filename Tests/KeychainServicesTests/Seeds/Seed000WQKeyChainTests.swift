import Foundation
import KeychainServices
import KeychainTesting
import Testing

// Seed 000 (iOS程序猿之keyChain保存登录名和密码): WQKeyChain and UserDataManager, ported to Swift
// call for call. Only the import differs from the iOS version. Like the original it deletes, then adds,
// archives the payload with NSKeyedArchiver, and ignores every status.

/// The seed's `WQKeyChain`.
enum WQKeyChain {
    /// `+saveWithServie:data:`: delete the old item, then add the archived data.
    static func save(service: String, data: Any) {
        var keyChainQuery = keychainQuery(service)
        SecItemDelete(keyChainQuery as CFDictionary)
        keyChainQuery[kSecValueData as String] = try? NSKeyedArchiver.archivedData(
            withRootObject: data, requiringSecureCoding: false)
        SecItemAdd(keyChainQuery as CFDictionary, nil)
    }

    /// `+loadDataWithService:`.
    static func loadData(service: String) -> Any? {
        var keyChainQuery = keychainQuery(service)
        keyChainQuery[kSecReturnData as String] = kCFBooleanTrue!
        keyChainQuery[kSecMatchLimit as String] = kSecMatchLimitOne
        var keyData: CFTypeRef?
        if SecItemCopyMatching(keyChainQuery as CFDictionary, &keyData) == noErr, let data = keyData as? Data {
            return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSString.self], from: data)
        }
        return nil
    }

    /// `+deleteDataWithService:`.
    static func deleteData(service: String) {
        SecItemDelete(keychainQuery(service) as CFDictionary)
    }

    /// `+getKeychainQuery:`: service as both service and account, accessible after first unlock.
    private static func keychainQuery(_ service: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: service,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
    }
}

/// The seed's `UserDataManager`.
enum UserDataManager {
    static let keyInKeychain = "com.companyName.app.allinfo"
    static let keyUserName = "com.companyName.app.userName"
    static let keyPassword = "com.companyName.app.password"

    static func saveUserInfo(userName: String, password: String) {
        let dic: NSDictionary = [keyUserName: userName, keyPassword: password]
        WQKeyChain.save(service: keyInKeychain, data: dic)
    }

    static func loadUserName() -> String? {
        (WQKeyChain.loadData(service: keyInKeychain) as? NSDictionary)?[keyUserName] as? String
    }

    static func loadPassword() -> String? {
        (WQKeyChain.loadData(service: keyInKeychain) as? NSDictionary)?[keyPassword] as? String
    }

    static func deleteUserInfo() {
        WQKeyChain.deleteData(service: keyInKeychain)
    }
}

@Suite("Seed 000: WQKeyChain + UserDataManager")
struct Seed000Tests {
    @Test("Save, then load the user name and the password")
    func saveAndLoad() throws {
        try withKeychain {
            UserDataManager.saveUserInfo(userName: "wuqian", password: "p@ss 密码")
            #expect(UserDataManager.loadUserName() == "wuqian")
            #expect(UserDataManager.loadPassword() == "p@ss 密码")
        }
    }

    @Test("Saving again overwrites: delete-then-add leaves exactly one item with the new values")
    func overwrite() throws {
        try withKeychain {
            UserDataManager.saveUserInfo(userName: "first", password: "one")
            UserDataManager.saveUserInfo(userName: "second", password: "two")
            #expect(UserDataManager.loadUserName() == "second")
            #expect(UserDataManager.loadPassword() == "two")
            #expect(count(genericPassword(service: UserDataManager.keyInKeychain, account: nil)) == 1)
            let stored = attributes(
                genericPassword(service: UserDataManager.keyInKeychain, account: UserDataManager.keyInKeychain))
            #expect(stored?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
        }
    }

    @Test("Delete, then loading returns nil; deleting again is harmless")
    func deleteThenLoad() throws {
        try withKeychain {
            UserDataManager.saveUserInfo(userName: "u", password: "p")
            UserDataManager.deleteUserInfo()
            #expect(UserDataManager.loadUserName() == nil)
            #expect(UserDataManager.loadPassword() == nil)
            #expect(
                copy(genericPassword(service: UserDataManager.keyInKeychain, account: nil)).status == errSecItemNotFound
            )
            UserDataManager.deleteUserInfo()
            #expect(UserDataManager.loadPassword() == nil)
        }
    }

    @Test("Loading before anything was saved returns nil, and a first save works after a failed delete")
    func loadBeforeSave() throws {
        try withKeychain {
            #expect(UserDataManager.loadUserName() == nil)
            UserDataManager.saveUserInfo(userName: "late", password: "comer")
            #expect(UserDataManager.loadPassword() == "comer")
        }
    }

    @Test("The data survives a reopen of the keychain, as it survives an app reinstall")
    func survivesReopen() throws {
        let keychain = try TemporaryKeychain()
        try keychain.run { UserDataManager.saveUserInfo(userName: "kept", password: "across launches") }
        try keychain.run { #expect(UserDataManager.loadPassword() == "across launches") }
    }
}
