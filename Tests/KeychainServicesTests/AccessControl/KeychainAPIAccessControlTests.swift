import Foundation
import Keychain
import KeychainCore
import KeychainServices
import Testing

/// The high-level `Keychain` API on items that SecItem callers protected with `kSecAttrAccessControl`
/// (review of issue 17): their secrets are released only through the gateway's releasing search, with the
/// user's proof, as `SecItemCopyMatching` releases them with its UI allowed. This suite links both
/// `KeychainServices` (to add the item as iOS code does) and `Keychain`.
@Suite("Access-controlled items through the Keychain API")
struct KeychainAPIAccessControlTests {
    /// A `.userPresence` generic password `svc`/`k` holding `s`, added through `SecItemAdd`.
    func addProtectedItem() -> OSStatus {
        add(
            genericPassword(
                service: "svc", account: "k", [kSecAttrAccessControl as String: accessControl(.userPresence)]),
            secret: "s")
    }

    @Test(
        "A .userPresence item added through SecItem is not returned by Keychain.string(forKey:) when the user cancels")
    func notReleasedWithoutProof() throws {
        let fixture = try PasswordKeychain(cancel: true)
        try fixture.run {
            #expect(addProtectedItem() == errSecSuccess)
            var released: String?
            do throws(KeychainError) {
                released = try Keychain(service: "svc").string(forKey: "k")
                Issue.record("the secret was returned without the user's proof")
            } catch {
                #expect(error.status == errSecUserCanceled)
            }
            #expect(released == nil)
            #expect(fixture.pinentry.prompts == 1)
        }
    }

    @Test(
        "A .userPresence item added through SecItem is returned by Keychain.string(forKey:) after the keychain password"
    )
    func releasedWithProof() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(addProtectedItem() == errSecSuccess)
            let released = try Keychain(service: "svc").string(forKey: "k")
            #expect(released == "s")
            #expect(fixture.pinentry.prompts == 1)
        }
    }

    @Test("A wrong keychain password does not release a .userPresence item through the Keychain API")
    func notReleasedWithWrongPassword() throws {
        let fixture = try PasswordKeychain(pin: "wrong")
        try fixture.run {
            #expect(addProtectedItem() == errSecSuccess)
            #expect(throws: KeychainError.authFailed) { try Keychain(service: "svc").string(forKey: "k") }
            #expect(fixture.pinentry.prompts == DeviceOwnerAuthentication.attempts)
        }
    }
}
