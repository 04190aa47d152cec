import Foundation
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

// Seed 002 (iOS UUID配合keychain的替换方案实现): CHKeychain and the device-UUID pattern, ported to Swift.
// The UUID is created once, saved in the keychain, and must stay the same for every later launch
// (here: every later process), since the keychain outlives the app.

enum Seed002 {
    static let uuidKey = "com.example.app.uuid"

    /// The seed's `CHKeychain`.
    enum CHKeychain {
        static func getKeychainQuery(_ service: String) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: service,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ]
        }

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

        static func delete(_ service: String) {
            SecItemDelete(getKeychainQuery(service) as CFDictionary)
        }
    }

    /// The seed's `-uuid`: the saved UUID, or a new one that is saved first.
    static func uuid() -> String {
        if let result = CHKeychain.load(uuidKey) as? String {
            return result
        }
        let result = UUID().uuidString
        CHKeychain.save(uuidKey, data: result as NSString)
        return result
    }
}

@Suite("Seed 002: CHKeychain and a device UUID that survives reinstalls")
struct Seed002Tests {
    @Test("save, load, overwrite, delete and load-after-delete through CHKeychain")
    func flows() throws {
        try withKeychain {
            Seed002.CHKeychain.save("svc", data: "first" as NSString)
            #expect(Seed002.CHKeychain.load("svc") as? String == "first")
            Seed002.CHKeychain.save("svc", data: "second" as NSString)
            #expect(Seed002.CHKeychain.load("svc") as? String == "second")
            #expect(count(genericPassword(service: "svc", account: nil)) == 1)
            Seed002.CHKeychain.delete("svc")
            #expect(Seed002.CHKeychain.load("svc") == nil)
        }
    }

    @Test("The UUID is created once and returned unchanged by later calls")
    func uuidIsStable() throws {
        try withKeychain {
            let first = Seed002.uuid()
            #expect(UUID(uuidString: first) != nil)
            #expect(Seed002.uuid() == first)
            #expect(Seed002.uuid() == first)
        }
    }

    @Test("The UUID stays the same across processes: one helper process creates it, the next and this one read it")
    func uuidAcrossProcesses() throws {
        let keychain = try TemporaryKeychain()
        let created = try HelperProcess.run(["seed002-uuid", Seed002.uuidKey], environment: keychain.environment)
        #expect(UUID(uuidString: created) != nil)
        let again = try HelperProcess.run(["seed002-uuid", Seed002.uuidKey], environment: keychain.environment)
        #expect(again == created)
        try keychain.run { #expect(Seed002.uuid() == created) }
    }

    @Test("A UUID created in this process is the one a later helper process reads")
    func uuidFromThisProcess() throws {
        let keychain = try TemporaryKeychain()
        let mine = try keychain.run { Seed002.uuid() }
        #expect(try HelperProcess.run(["seed002-uuid", Seed002.uuidKey], environment: keychain.environment) == mine)
    }

    @Test("After the UUID is deleted a new one is made, and it is then stable again")
    func uuidAfterDelete() throws {
        try withKeychain {
            let first = Seed002.uuid()
            Seed002.CHKeychain.delete(Seed002.uuidKey)
            let second = Seed002.uuid()
            #expect(second != first)
            #expect(Seed002.uuid() == second)
        }
    }
}
