import CGIO
import Foundation
import KeychainDBus
import Testing

@testable import KeychainCore
@testable import SecretService

/// The provider's unlock prompt offers the repair re-key that `security unlock-keychain` offers (tracker
/// issue 25, docs/PAM.md): after the login keychain's old password unlocked it while `keychain-pam-helper`
/// keeps a different login password beside the marker, it asks once through pinentry CONFIRM.
@Suite("The login keychain's repair in the provider's unlock prompt", .serialized)
struct ProviderLoginRepairTests: SecretServiceSuite {
    typealias Provider = KeychainProviderTests

    static func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

    /// A pinentry that answers GETPIN with `password` and CONFIRM with OK when `confirms`, else Cancel,
    /// appending each SETDESC, SETOK and SETCANCEL line and each CONFIRM to `log`.
    static func repairPinentry(_ home: KeychainHome, password: String, confirms: Bool, log: String) throws -> String {
        let path = home.root + "/pinentry-\(UUID().uuidString).sh"
        let script = """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while read -r line; do
              case "$line" in
                GETPIN*) printf 'D %s\\nOK\\n' '\(password)' ;;
                SETDESC*|SETOK*|SETCANCEL*) echo "$line" >> '\(log)'; echo OK ;;
                CONFIRM*) echo CONFIRM >> '\(log)'; \(confirms ? "echo OK" : "echo 'ERR 83886179 Operation cancelled'") ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """
        try KeychainHome.installScript(script, at: path)
        return path
    }

    /// Sets up a locked login keychain with password "old" holding one item, the marker, and the kept
    /// login password "new" in a keyring of the test's own; runs the provider's unlock prompt with a
    /// pinentry that types "old" and answers the repair question with `confirms`; then calls `check`
    /// with the home, the keychain and the pinentry's log. The keyring is removed afterwards.
    static func withRepair(confirms: Bool, _ check: (KeychainHome, Keystore, [String], String) throws -> Void) throws {
        let keyring = ClassKeyStore.keyringName + "-ssrepair-\(UUID().uuidString.prefix(8))"
        defer {
            if let serial = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
        }
        try Provider.with { bus, home in
            let keystore = try home.createKeychain("login", password: "old")
            _ = try keystore.unlock(password: secret("old"))
            _ = try keystore.add(.genericPassword, attributes: ["svce": .string("mail")], secret: secret("mail-secret"))
            try keystore.lock()
            let marker = home.directory + "/" + LoginPasswordMarker.name
            try "the login password did not open the login keychain\n".write(
                toFile: marker, atomically: true, encoding: .utf8)
            #expect(KeptLoginPassword.keep(secret("new"), keyring: keyring))
            let log = home.root + "/pinentry.log"
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: [
                    "KEYCHAIN_KEYRING": keyring,
                    "KEYCHAIN_PINENTRY": try repairPinentry(home, password: "old", confirms: confirms, log: log),
                ])
            try bus.recordingCompleted { recorder in
                let unlock = try bus.expectReply(
                    Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([Self.login])])
                let prompt = Variant.withChild(unlock, 1, Variant.readString)
                g_variant_unref(unlock)
                g_variant_unref(try bus.expectReply(prompt, Self.promptInterface, "Prompt", [Variant.string("")]))
                #expect(bus.awaitCompleted(recorder)?.dismissed == false)
            }
            bus.stopProvider()
            let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").map(String.init)
            try check(home, keystore, lines ?? [], keyring)
        }
    }

    /// Whether `password` opens the login keychain with its item intact.
    static func opens(_ keystore: Keystore, with password: String) -> Bool {
        try? keystore.lock()
        guard (try? keystore.unlock(password: secret(password))) != nil else { return false }
        defer { try? keystore.lock() }
        let records = try? keystore.search(
            ItemQuery(itemClass: .genericPassword, filters: ["svce": .string("mail")], scope: .all),
            projection: [.secret])
        let found = records?.first?.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        #expect(found == "mail-secret", "every item intact")
        return true
    }

    @Test(
        "Change in the repair question re-keys the login keychain to the login password; the items stay, the entry and the marker go"
    )
    func changeRekeys() throws {
        try Self.withRepair(confirms: true) { home, keystore, log, keyring in
            #expect(log.contains("CONFIRM"))
            // The password prompt before the question says that the re-key will be offered (the same text as
            // security unlock-keychain's), not the advice to change the password by hand.
            let passwordPrompt =
                "SETDESC " + AssuanConnection.percentEncode(LoginPasswordMarker.unlockPrompt(rekeyOffered: true))
            #expect(log.firstIndex(of: passwordPrompt) != nil, "\(log)")
            #expect(log.firstIndex(of: passwordPrompt) ?? .max < log.firstIndex(of: "CONFIRM") ?? -1)
            #expect(log.contains("SETDESC " + AssuanConnection.percentEncode(LoginPasswordMarker.repairQuestion)))
            #expect(log.contains("SETOK Change"))
            #expect(log.contains("SETCANCEL " + AssuanConnection.percentEncode("Not now")))
            #expect(Self.opens(keystore, with: "new"))
            #expect(!Self.opens(keystore, with: "old"))
            #expect(KeptLoginPassword.read(keyring: keyring) == nil)
            #expect(!FileManager.default.fileExists(atPath: home.directory + "/" + LoginPasswordMarker.name))
        }
    }

    @Test("Not now in the repair question changes nothing: the old password still opens it, entry and marker stay")
    func notNowKeeps() throws {
        try Self.withRepair(confirms: false) { home, keystore, log, keyring in
            #expect(log.filter { $0 == "CONFIRM" }.count == 1)
            #expect(Self.opens(keystore, with: "old"))
            #expect(!Self.opens(keystore, with: "new"))
            #expect(KeptLoginPassword.read(keyring: keyring) != nil)
            #expect(FileManager.default.fileExists(atPath: home.directory + "/" + LoginPasswordMarker.name))
        }
    }
}
