import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// One unlock state for every process of the user (tracker issue 24, item 3): an unlock made through
/// the provider is kept in the kernel keyring, where every process reads it and `security
/// lock-keychain` withdraws it, even when the provider's session keyring was revoked (a provider
/// started from a `su -` shell that then ended).
@Suite("one unlock state: the provider and the kernel keyring", .serialized)
struct ProviderUnlockStateTests: SecretServiceSuite {
    typealias Provider = KeychainProviderTests
    static let keyctl = "/usr/bin/keyctl"
    static let available = ClassKeyStore.scope == .userSession && FileManager.default.isExecutableFile(atPath: keyctl)

    /// A script that runs its arguments in a new session keyring it has revoked first.
    static func revokedSessionWrapper(_ home: KeychainHome) throws -> String {
        let path = home.root + "/revoked-session.sh"
        let script = """
            #!/bin/sh
            exec \(keyctl) session - /bin/sh -c '\(keyctl) revoke @s && exec "$0" "$@"' "$@" >/dev/null
            """
        try KeychainHome.installScript(script + "\n", at: path)
        return path
    }

    @Test(
        "An unlock through the prompt of a provider whose session keyring was revoked is seen by every process, and security lock-keychain takes it away on the provider's next call",
        .enabled(if: available, "needs the kernel keyring and keyctl (keyutils)"))
    func revokedSessionKeyring() throws {
        try Provider.with { bus, home in
            let keystore = try home.createKeychain("login", password: "pw")
            let stderr = Pipe()
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: "pw")],
                stderr: stderr, wrapper: try Self.revokedSessionWrapper(home))
            #expect(try Provider.locked(bus, Self.login))
            let completion = try Provider.unlockThroughPrompt(bus)
            #expect(completion?.dismissed == false)
            // Seen from this process (another one than the provider), in the kernel keyring.
            #expect(try keystore.lockState() == .unlocked)
            #expect(try keystore.unlockPlacement() == .userSession)
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "x", attributes: ["t": "split"], secret: "s", session: session)
            #expect(try Provider.secret(bus, item, session) == "s")
            // A lock from `security` takes effect in the provider on its next call.
            try #require(try home.security(["lock-keychain", home.location("login").databasePath]).status == 0)
            #expect(try Provider.locked(bus, Self.login))
            #expect(try Provider.search(bus, ["t": "split"]).locked == [item])
            let refused = bus.call(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
            guard case .failure(let error) = refused else {
                Issue.record("GetSecret answered after the lock")
                return
            }
            #expect(error.name == "org.freedesktop.Secret.Error.IsLocked")
            bus.stopProvider()
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(!log.contains("the password is right, but"), "no refusal was logged: \(log)")
            try keystore.withdrawAllClassKeys()
        }
    }
}
