import Foundation
import KeychainCore
import KeychainServices
import KeychainTesting
import Testing

/// The SecItem view of a keychain whose device key was lost (tracker issue 3, item 4): locked
/// (`errSecInteractionNotAllowed`) until unlocked with its password, then only the `…ThisDeviceOnly`
/// items fail, with `errSecDecode`; Apple: "Items with this attribute do not migrate to a new
/// device" (SecItem.h, `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
@Suite("ThisDeviceOnly items after the device key is lost")
struct ThisDeviceOnlyTests {
    @Test("SecItem calls answer -25308 until the unlock, then -26275 for ThisDeviceOnly items only")
    func lostDeviceKey() throws {
        let keychain = try TemporaryKeychain()
        let password = SecureBytes(copying: Array("pw".utf8))
        try Keystore(location: keychain.location).setPassword(password, current: nil, parameters: .testing)
        let migratable = genericPassword(service: "svc", account: "moves")
        let bound = genericPassword(service: "svc", account: "stays")
        try keychain.run {
            #expect(add(migratable, secret: "m") == errSecSuccess)
            #expect(
                add(
                    bound.merging([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) { $1 },
                    secret: "b") == errSecSuccess)
        }
        try Keystore(location: keychain.location).withdrawAllClassKeys()
        try FileManager.default.removeItem(atPath: keychain.location.deviceKeyPath)

        let data = [kSecReturnData as String: true]
        try keychain.run {
            #expect(copy(migratable.merging(data) { $1 }).status == errSecInteractionNotAllowed)
            #expect(
                copy(bound).status == errSecInteractionNotAllowed,
                "attribute-only queries too, never errSecItemNotFound")
            #expect(add(genericPassword(service: "svc", account: "new"), secret: "n") == errSecInteractionNotAllowed)
            #expect(SecItemDelete(migratable as CFDictionary) == errSecInteractionNotAllowed)
        }

        try Keystore(location: keychain.location).unlock(password: password)
        try keychain.run {
            let found = copy(migratable.merging(data) { $1 })
            #expect(found.status == errSecSuccess)
            #expect(found.result as? Data == Data("m".utf8))
            #expect(copy(bound.merging(data) { $1 }).status == errSecDecode)
            #expect(copy(bound).status == errSecDecode)
            #expect(SecItemDelete(bound as CFDictionary) == errSecSuccess)
            #expect(copy(bound).status == errSecItemNotFound)
            #expect(
                add(
                    bound.merging([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) { $1 },
                    secret: "b2") == errSecSuccess)
            #expect(copy(bound.merging(data) { $1 }).result as? Data == Data("b2".utf8))
        }
        try Keystore(location: keychain.location).withdrawAllClassKeys()
    }
}
