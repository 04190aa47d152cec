import Foundation
import KeychainCore
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

// Seed 003 (通過KeyChain實現相同簽名下發布的應用之間的數據共享): KeyChain save/load/delete shared between
// apps of one team through keychain-access-groups. App A stores under its default group (the first
// keychain-access-groups entry); app B of the same team, sharing the group, reads it; app C of another
// team cannot read it and gets errSecMissingEntitlement when it names the group.

enum Seed003 {
    /// The seed's `KeyChain`.
    enum KeyChain {
        static func getKeychainQuery(_ service: String) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: service,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ]
        }

        /// Saves a dictionary whose keys are the shared sub-keys.
        static func save(_ service: String, data: Any) {
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
            var ret: Any?
            if SecItemCopyMatching(keychainQuery as CFDictionary, &keyData) == noErr, let data = keyData as? Data {
                ret = try? NSKeyedUnarchiver.unarchivedObject(
                    ofClasses: [NSDictionary.self, NSString.self], from: data)
            }
            return ret
        }

        /// Deletes the main key, so every shared sub-key with it.
        static func delete(_ service: String) {
            SecItemDelete(getKeychainQuery(service) as CFDictionary)
        }
    }

    static let service = "com.team.shared.login"
    static let sharedGroup = "TEAMAAAAAA.com.team.shared"

    static func entitlements(_ app: String) -> [String: Any] {
        switch app {
        case "A": ["application-identifier": "TEAMAAAAAA.com.team.appA", "keychain-access-groups": [sharedGroup]]
        case "B": ["application-identifier": "TEAMAAAAAA.com.team.appB", "keychain-access-groups": [sharedGroup]]
        default:
            [
                "application-identifier": "TEAMCCCCCC.com.other.appC",
                "keychain-access-groups": ["TEAMCCCCCC.com.other.shared"],
            ]
        }
    }
}

@Suite("Seed 003: KeyChain sharing between apps of one team")
struct Seed003Tests {
    func identity(_ keychain: TemporaryKeychain, _ app: String) throws -> (path: String, identity: ApplicationIdentity)
    {
        let path = try keychain.entitlements("app\(app)", Seed003.entitlements(app))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (path, try ApplicationIdentity(entitlementsPlist: data))
    }

    @Test("App A: save, overwrite, load, delete and load-after-delete")
    func flowsInAppA() throws {
        let keychain = try TemporaryKeychain()
        try keychain.run(as: try identity(keychain, "A").identity) {
            Seed003.KeyChain.save(Seed003.service, data: ["token": "one"] as NSDictionary)
            #expect((Seed003.KeyChain.load(Seed003.service) as? NSDictionary)?["token"] as? String == "one")
            Seed003.KeyChain.save(Seed003.service, data: ["token": "two", "user": "ann"] as NSDictionary)
            let loaded = Seed003.KeyChain.load(Seed003.service) as? NSDictionary
            #expect(loaded?["token"] as? String == "two")
            #expect(loaded?["user"] as? String == "ann")
            Seed003.KeyChain.delete(Seed003.service)
            #expect(Seed003.KeyChain.load(Seed003.service) == nil)
        }
    }

    @Test("App A stores under its default group; app B of the same team reads it; app C of another team cannot")
    func sharing() throws {
        let keychain = try TemporaryKeychain()
        let (_, appA) = try identity(keychain, "A")
        let (pathB, _) = try identity(keychain, "B")
        let (pathC, _) = try identity(keychain, "C")
        try keychain.run(as: appA) {
            Seed003.KeyChain.save(Seed003.service, data: ["token": "shared-token"] as NSDictionary)
            // The default group is the first keychain-access-groups entry, not A's application identifier.
            let stored = attributes(genericPassword(service: Seed003.service, account: Seed003.service))
            #expect(stored?[kSecAttrAccessGroup as String] as? String == Seed003.sharedGroup)
        }
        var environmentB = keychain.environment
        environmentB["KEYCHAIN_ENTITLEMENTS"] = pathB
        #expect(
            try HelperProcess.run(["seed-load", Seed003.service, "token"], environment: environmentB)
                == "0 shared-token")
        #expect(
            try HelperProcess.run(
                ["seed-load", Seed003.service, "token", Seed003.sharedGroup], environment: environmentB)
                == "0 shared-token")

        var environmentC = keychain.environment
        environmentC["KEYCHAIN_ENTITLEMENTS"] = pathC
        #expect(
            try HelperProcess.run(["seed-load", Seed003.service, "token"], environment: environmentC)
                == "\(errSecItemNotFound)")
        #expect(
            try HelperProcess.run(
                ["seed-load", Seed003.service, "token", Seed003.sharedGroup], environment: environmentC)
                == "\(errSecMissingEntitlement)")
        // C's own save goes to C's group and leaves A's item alone.
        #expect(
            try HelperProcess.run(["seed-save", Seed003.service, "token", "c-token"], environment: environmentC) == "0")
        try keychain.run(as: appA) {
            #expect((Seed003.KeyChain.load(Seed003.service) as? NSDictionary)?["token"] as? String == "shared-token")
        }
    }

    @Test("App B overwrites the shared item (delete-then-add) and app A reads B's value")
    func overwriteByB() throws {
        let keychain = try TemporaryKeychain()
        let (_, appA) = try identity(keychain, "A")
        let (pathB, _) = try identity(keychain, "B")
        try keychain.run(as: appA) { Seed003.KeyChain.save(Seed003.service, data: ["token": "from A"] as NSDictionary) }
        var environmentB = keychain.environment
        environmentB["KEYCHAIN_ENTITLEMENTS"] = pathB
        #expect(
            try HelperProcess.run(["seed-save", Seed003.service, "token", "from B"], environment: environmentB) == "0")
        try keychain.run(as: appA) {
            #expect((Seed003.KeyChain.load(Seed003.service) as? NSDictionary)?["token"] as? String == "from B")
            #expect(count(genericPassword(service: Seed003.service, account: nil)) == 1)
        }
    }
}
