import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// The repair after the login password changed without the login keychain (tracker issue 25, docs/PAM.md):
/// `keychain-pam-helper` kept the new login password in the kernel keyring beside the marker, and the next
/// `security unlock-keychain` with the old password asks once whether to re-key to it.
@Suite("The login keychain's repair in security unlock-keychain")
struct LoginRepairTests {
    /// A sandbox whose kept password lives in a keyring of its own (other suites keep theirs in the run's),
    /// with a login keychain whose password is `old` holding one item, locked, and the helper's marker and
    /// kept login password `new` in place, as after a failed login unlock.
    final class Setup {
        let sandbox: Sandbox
        let keyring: String

        init() throws {
            sandbox = try Sandbox()
            keyring = ClassKeyStore.keyringName + "-repair-\(UUID().uuidString.prefix(8))"
            sandbox.environment["KEYCHAIN_KEYRING"] = keyring
            let store = try Keystore.create(location: sandbox.location, password: secret("old"), parameters: .testing)
            _ = try store.add(.genericPassword, attributes: ["svce": .string("mail")], secret: secret("mail-secret"))
            try store.lock()
            try "the login password did not open the login keychain\n".write(
                toFile: marker, atomically: true, encoding: .utf8)
            #expect(KeptLoginPassword.keep(secret("new"), keyring: keyring))
        }

        var marker: String { FileSystem.directory(of: sandbox.location.databasePath) + "/" + LoginPasswordMarker.name }

        var kept: String? {
            KeptLoginPassword.read(keyring: keyring).map {
                String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self)
            }
        }

        func opens(with password: String) throws -> Bool {
            let store = try Keystore(location: sandbox.location, create: false)
            try store.lock()
            guard (try? store.unlock(password: secret(password))) != nil else { return false }
            let records = try store.search(
                ItemQuery(itemClass: .genericPassword, filters: ["svce": .string("mail")], scope: .all),
                projection: [.secret])
            let found = records.first?.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
            #expect(found == "mail-secret", "every item intact")
            return true
        }

        deinit {
            if let serial = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
        }
    }

    static func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

    static let question = LoginPasswordMarker.repairQuestion + " [y/N] "

    /// The password prompt while the marker is there: the provider's text on a line of its own, then macOS's.
    static func passwordPrompt(rekeyOffered: Bool) -> String {
        LoginPasswordMarker.unlockPrompt(rekeyOffered: rekeyOffered) + "\npassword to unlock default: "
    }

    @Test(
        "Answering y re-keys the login keychain to the kept login password and withdraws the entry and the marker",
        arguments: ["y", "yes", "Y"])
    func yesRekeys(answer: String) throws {
        let setup = try Setup()
        let serial = try #require(KeptLoginPassword.serial(keyring: setup.keyring))
        #expect(KernelKeyring.isReadableByUser(serial))
        let prompter = ScriptedPrompter(["old", answer])
        let outcome = setup.sandbox.security("unlock-keychain", terminal: true, prompter: prompter)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.hasSuffix("security: the login keychain's password is now your login password\n"))
        #expect(prompter.prompts == [Self.passwordPrompt(rekeyOffered: true), Self.question])
        #expect(prompter.echoedPrompts == [Self.question], "the answer is read with echo, the password without")
        #expect(setup.kept == nil)
        #expect(!FileManager.default.fileExists(atPath: setup.marker))
        #expect(try setup.opens(with: "new"))
        #expect(try !setup.opens(with: "old"))
    }

    @Test("Answering n (or nothing) changes nothing and leaves the kept password and the marker until expiry")
    func noKeepsOld() throws {
        for answer in ["n", ""] as [String?] + [nil] {
            let setup = try Setup()
            let prompter = ScriptedPrompter(["old", answer])
            #expect(setup.sandbox.security("unlock-keychain", terminal: true, prompter: prompter).status == 0)
            #expect(prompter.prompts == [Self.passwordPrompt(rekeyOffered: true), Self.question])
            #expect(prompter.echoedPrompts == [Self.question])
            #expect(setup.kept == "new")
            #expect(FileManager.default.fileExists(atPath: setup.marker))
            #expect(try setup.opens(with: "old"))
            #expect(try !setup.opens(with: "new"))
        }
    }

    @Test("Without a terminal unlock-keychain unlocks, changes nothing and says how to repair")
    func noTerminalSaysHow() throws {
        let setup = try Setup()
        let outcome = setup.sandbox.security("unlock-keychain", stdin: "old\n")
        #expect(outcome.status == 0)
        #expect(outcome.stderr.hasSuffix(UnlockKeychain.repairWithoutTerminal + "\n"), "\(outcome)")
        #expect(!outcome.stderr.contains("new"))
        #expect(setup.kept == "new")
        #expect(try setup.opens(with: "old"))
    }

    @Test("A wrong password asks nothing; with no kept password the unlock asks nothing either")
    func noQuestionOtherwise() throws {
        let setup = try Setup()
        let wrong = ScriptedPrompter(["wrong"])
        #expect(setup.sandbox.security("unlock-keychain", terminal: true, prompter: wrong).status == 51)
        #expect(wrong.prompts == [Self.passwordPrompt(rekeyOffered: true)])
        KeptLoginPassword.withdraw(keyring: setup.keyring)
        let right = ScriptedPrompter(["old"])
        #expect(setup.sandbox.security("unlock-keychain", terminal: true, prompter: right).status == 0)
        #expect(right.prompts == [Self.passwordPrompt(rekeyOffered: false)], "no re-key to offer: the way by hand")
        #expect(FileManager.default.fileExists(atPath: setup.marker))
    }

    @Test("Without the marker the password prompt is macOS's alone, and the login password text is absent")
    func plainPromptWithoutMarker() throws {
        let setup = try Setup()
        try FileManager.default.removeItem(atPath: setup.marker)
        let prompter = ScriptedPrompter(["old"])
        #expect(setup.sandbox.security("unlock-keychain", terminal: true, prompter: prompter).status == 0)
        #expect(prompter.prompts == ["password to unlock default: "])
        #expect(setup.kept == "new", "nothing asked, nothing changed")
    }

    @Test("The unlock prompt's text says the passwords differ and whether a re-key will be offered")
    func unlockPromptText() {
        #expect(
            LoginPasswordMarker.unlockPrompt(rekeyOffered: true)
                == "The password you use to log in no longer matches the password of your login keychain. Type the "
                + "keychain's old password to unlock it; you will then be offered to change it to your login password.")
        #expect(
            LoginPasswordMarker.unlockPrompt(rekeyOffered: false)
                == "The password you use to log in no longer matches the password of your login keychain. Type the "
                + "keychain's old password to unlock it, then run security set-keychain-password (old password, "
                + "then your login password) so that logging in unlocks it again.")
    }
}

extension LoginRepairTests.Setup {
    fileprivate func secret(_ text: String) -> SecureBytes { LoginRepairTests.secret(text) }
}
