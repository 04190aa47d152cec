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

    @Test("Answering y re-keys the login keychain to the kept login password and withdraws the entry and the marker")
    func yesRekeys() throws {
        let setup = try Setup()
        let serial = try #require(KeptLoginPassword.serial(keyring: setup.keyring))
        #expect(KernelKeyring.isReadableByUser(serial))
        let prompter = ScriptedPrompter(["old", "y"])
        let outcome = setup.sandbox.security("unlock-keychain", terminal: true, prompter: prompter)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.hasSuffix("security: the login keychain's password is now your login password\n"))
        #expect(prompter.prompts == ["password to unlock default: ", Self.question])
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
            #expect(prompter.prompts == ["password to unlock default: ", Self.question])
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
        #expect(wrong.prompts == ["password to unlock default: "])
        KeptLoginPassword.withdraw(keyring: setup.keyring)
        let right = ScriptedPrompter(["old"])
        #expect(setup.sandbox.security("unlock-keychain", terminal: true, prompter: right).status == 0)
        #expect(right.prompts == ["password to unlock default: "])
        #expect(FileManager.default.fileExists(atPath: setup.marker))
    }
}

extension LoginRepairTests.Setup {
    fileprivate func secret(_ text: String) -> SecureBytes { LoginRepairTests.secret(text) }
}
