import Foundation
import KeychainCore
import Testing

@testable import KeychainSecurityTool

/// `security show-item-access`, `revoke-item-access` and `set-keychain-settings --access-policy`
/// (issue 27, item 2).
@Suite("security item access lists")
struct ItemAccessCommandTests {
    /// Creates keychain `work` (password from stdin) with two Secret Service items; returns its store.
    private func workKeychain(_ sandbox: Sandbox) throws -> Keystore {
        #expect(sandbox.security("create-keychain", "work", stdin: "pw\n").status == 0)
        let location = KeychainLocation(
            databasePath: sandbox.directory + "/data/keychains/work.keychain-db",
            deviceKeyPath: sandbox.location.deviceKeyPath)
        let store = try Keystore(location: location, create: false)
        try store.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        for (label, access) in [
            ("Mail", SecretItemAccess(owner: "exe:/usr/bin/mail", allowed: ["flatpak:org.example.Mail"])),
            ("Old", nil),
        ] as [(String, SecretItemAccess?)] {
            let created = try store.createSecretItem(
                label: label, attributes: ["label": label],
                secret: SecretItemSecret(value: SecureBytes(copying: [1]), contentType: ""), replace: false)
            if let access { try store.setSecretItemAccess(created.number, access) }
        }
        return store
    }

    @Test("show-item-access lists each item's owner and allowed applications, and the keychain's policy")
    func showsLists() throws {
        let sandbox = try Sandbox()
        _ = try workKeychain(sandbox)
        #expect(
            sandbox.security("show-item-access", "work").stdout == """
                "Mail" (item 1)
                    owner: exe:/usr/bin/mail
                    allowed: flatpak:org.example.Mail
                "Old" (item 2)
                    owner: (none yet)
                policy: confirm

                """)
        #expect(sandbox.security("show-item-access", "-l", "Old", "work").stdout.hasPrefix("\"Old\" (item 2)\n"))
    }

    @Test("revoke-item-access removes an application; one on no list is errSecItemNotFound; -T is required")
    func revokes() throws {
        let sandbox = try Sandbox()
        let store = try workKeychain(sandbox)
        #expect(
            sandbox.security("revoke-item-access", "-T", "flatpak:org.example.Mail", "work").stdout
                == "revoked flatpak:org.example.Mail from 1 item\n")
        #expect(try store.secretItem(1)?.access == SecretItemAccess(owner: "exe:/usr/bin/mail"))
        let again = sandbox.security("revoke-item-access", "-T", "flatpak:org.example.Mail", "work")
        #expect(again.status == 44)
        #expect(
            again.stderr
                == "security: SecKeychainItemSetAccess work: The specified item could not be found in the keychain.\n")
        #expect(sandbox.security("revoke-item-access", "work").status == 2)
    }

    @Test("set-keychain-settings --access-policy sets the policy and leaves the timeout; a bad value is a usage error")
    func setsPolicy() throws {
        let sandbox = try Sandbox()
        let store = try workKeychain(sandbox)
        #expect(sandbox.security("set-keychain-settings", "-t", "300", "work").status == 0)
        #expect(sandbox.security("set-keychain-settings", "--access-policy", "open", "work").status == 0)
        #expect(try store.secretAccessPolicy() == .open)
        #expect(try store.autoLockTimeout() == 300)
        #expect(sandbox.security("set-keychain-settings", "--access-policy", "maybe", "work").status == 2)
        #expect(try store.secretAccessPolicy() == .open)
    }

    @Test("show-keychain-info prints the access policy: confirm for a new keychain, open once set so")
    func showKeychainInfoPrintsPolicy() throws {
        let sandbox = try Sandbox()
        _ = try workKeychain(sandbox)
        #expect(
            sandbox.security("show-keychain-info", "work").stderr.hasPrefix(
                "Keychain \"work\" no-timeout access-policy=confirm "))
        #expect(sandbox.security("set-keychain-settings", "--access-policy", "open", "work").status == 0)
        #expect(
            sandbox.security("show-keychain-info", "work").stderr.hasPrefix(
                "Keychain \"work\" no-timeout access-policy=open "))
    }
}
