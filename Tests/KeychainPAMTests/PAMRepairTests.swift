import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The repair re-key end to end, through the built pam_keychain.so under pam_wrapper and the built
/// `security` on a terminal (tracker issue 25, docs/PAM.md "When the passwords disagree"): a login with
/// password A creates the login keychain; the login password then changes outside PAM (nothing tells the
/// keychain); the next login, with B, cannot unlock it, so the helper writes the marker and keeps B; then
/// `security unlock-keychain`, typed A on a terminal, asks whether to change the keychain's password to
/// the login password.
@Suite("The repair re-key through pam_keychain.so and security unlock-keychain on a terminal", .serialized)
struct PAMRepairTests {
    init() throws {
        try #require(PAMStack.missing == nil, "missing \(PAMStack.missing ?? ""): run scripts/setup")
        try #require(PAMStack.modules != nil, "scripts/build-pam-module failed")
        try #require(FileManager.default.isExecutableFile(atPath: Self.security), "build security first")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid"))
    }

    static var security: String { PAMStack.binDirectory + "/security" }

    /// A stack whose kernel entries (the helper's unlock, the kept login password) live in a keyring of
    /// the test's own, removed afterwards, so that no other suite sees a kept password; the test process
    /// checks passwords by unlocking in its own keyring, and locks again.
    final class Setup {
        let stack: PAMStack
        let keyring = ClassKeyStore.keyringName + "-pam-repair-\(UUID().uuidString.prefix(8))"
        var environment: [String: String] {
            ["KEYCHAIN_KEYRING": keyring, "KEYCHAIN_LOGIND_USERS": stack.directory + "/no-logind"]
        }

        init() throws {
            stack = try PAMStack()
            try stack.service()
        }

        /// The login with A, the password changed outside PAM, the login with B: marker and kept B.
        func loginThenChangeOutsidePAM() throws {
            let first = stack.pamtester(["authenticate", "open_session"], authtok: "login-A", environment: environment)
            #expect(first.output.contains("created the login keychain"), "\(first.output)")
            let store = try stack.open()
            try store.unlock(password: secret("login-A"))
            _ = try store.add(.genericPassword, attributes: ["svce": .string("mail")], secret: secret("mail-secret"))
            try store.lock()
            dropKeyring()  // a reboot: the unlock of the first login is gone with the kernel keyring
            let second = stack.pamtester(
                ["authenticate", "open_session"], authtok: "login-B", environment: environment)
            #expect(second.status == 0, "the login itself never fails")
            #expect(second.output.contains("the login password does not open the login keychain"), "\(second.output)")
            #expect(FileManager.default.fileExists(atPath: stack.changeMarker))
            #expect(kept == "login-B")
        }

        var kept: String? {
            KeptLoginPassword.read(keyring: keyring).map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        }

        /// Whether `password` opens the login keychain with its item intact (checked in this process).
        func opens(with password: String) throws -> Bool {
            let store = try stack.open()
            defer { try? store.lock() }
            guard (try? store.unlock(password: secret(password))) != nil else { return false }
            #expect(try readSecret(store, "mail") == "mail-secret", "every item intact")
            return true
        }

        /// `security unlock-keychain` on a terminal: waits for the password prompt and for echo to go off,
        /// types `password`, waits for the repair question and answers `answer`.
        /// - Returns: the exit status and what the terminal showed.
        func unlockOnTerminal(password: String, answer: String) throws -> (status: Int32?, shown: String) {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = stack.keychain.dataHome
            environment["XDG_STATE_HOME"] = stack.keychain.stateHome
            environment["XDG_CONFIG_HOME"] = stack.directory + "/config"
            environment["KEYCHAIN_KDF"] = "testing"
            for (key, value) in self.environment { environment[key] = value }
            let terminal = try PseudoTerminal(
                [PAMStack.binDirectory + "/security", "unlock-keychain"], environment: environment)
            defer { terminal.close() }
            #expect(terminal.waitFor("password to unlock default: "), "\(terminal.transcript)")
            // Typed only once echo is off: the prompt discards what was typed before (TCSAFLUSH).
            #expect(terminal.waitForEchoOff(), "\(terminal.transcript)")
            terminal.type(password + "\n")
            let afterPassword = terminal.shownBytes
            #expect(terminal.waitFor("[y/N] ", after: afterPassword), "\(terminal.transcript)")
            #expect(terminal.echoes, "the y/N answer is read with echo")
            terminal.type(answer + "\n")
            let status = terminal.finish()
            return (status, terminal.transcript)
        }

        func dropKeyring() {
            if let serial = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
        }

        deinit { dropKeyring() }
    }

    static let question = LoginPasswordMarker.repairQuestion + " [y/N] "

    @Test("y on the terminal re-keys the login keychain to the new login password; the next login unlocks it")
    func yesRekeys() throws {
        let setup = try Setup()
        try setup.loginThenChangeOutsidePAM()
        let run = try setup.unlockOnTerminal(password: "login-A", answer: "y")
        #expect(run.status == 0, "\(run.shown)")
        // The prompt says that the re-key will be offered; the password is not shown, the answer is.
        #expect(run.shown.contains(LoginPasswordMarker.unlockPrompt(rekeyOffered: true) + "\n"), "\(run.shown)")
        #expect(!run.shown.contains("login-A"), "the password was echoed: \(run.shown)")
        #expect(run.shown.contains(Self.question + "y\n"), "the answer was not echoed: \(run.shown)")
        #expect(run.shown.contains("security: the login keychain's password is now your login password"))
        #expect(setup.kept == nil)
        #expect(!FileManager.default.fileExists(atPath: setup.stack.changeMarker))
        #expect(try setup.opens(with: "login-B"))
        #expect(try !setup.opens(with: "login-A"))
        // The module agrees: the next login with B unlocks the keychain again.
        setup.dropKeyring()
        let next = setup.stack.pamtester(
            ["authenticate", "open_session"], authtok: "login-B", environment: setup.environment)
        #expect(next.output.contains("unlocked the login keychain"), "\(next.output)")
    }

    @Test("n on the terminal changes nothing: A still opens the keychain, B does not, the marker and B stay")
    func noKeeps() throws {
        let setup = try Setup()
        try setup.loginThenChangeOutsidePAM()
        let run = try setup.unlockOnTerminal(password: "login-A", answer: "n")
        #expect(run.status == 0, "\(run.shown)")
        #expect(run.shown.contains(Self.question + "n\n"), "\(run.shown)")
        #expect(!run.shown.contains("now your login password"))
        #expect(setup.kept == "login-B")
        #expect(FileManager.default.fileExists(atPath: setup.stack.changeMarker))
        #expect(try setup.opens(with: "login-A"))
        #expect(try !setup.opens(with: "login-B"))
    }
}
