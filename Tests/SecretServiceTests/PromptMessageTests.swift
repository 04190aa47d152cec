import Foundation
import KeychainCore
import Synchronization
import Testing

@testable import SecretService

/// What the unlock prompt's error line says (tracker issue 24, item 4): how many tries are left after a
/// wrong password, and how long the unlock throttle makes the next try wait, and why.
@Suite("Unlock prompts say what happened")
struct PromptMessageTests {
    /// Answers each question with the next of `answers` (cancels when none is left) and records each
    /// prompt's error line ("" for none).
    final class Recorder: Prompter {
        let state: Mutex<(answers: [String], errors: [String], descriptions: [String])>

        init(_ answers: [String]) { state = Mutex((answers, [], [])) }

        var errors: [String] { state.withLock { $0.errors } }
        var descriptions: [String] { state.withLock { $0.descriptions } }

        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            let answer = state.withLock { state -> String? in
                state.errors.append(prompt.error ?? "")
                state.descriptions.append(prompt.description)
                return state.answers.isEmpty ? nil : state.answers.removeFirst()
            }
            guard let answer else { throw KeychainFailure(.userCanceled, "cancelled") }
            return SecureBytes(copying: Array(answer.utf8))
        }
    }

    @Test(
        "Regression: after a wrong password pinentry shows the unlock throttle's count: '2 tries left before each try waits', then '1 try left'"
    )
    func triesLeft() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: "pw")
        let recorder = Recorder(["wrong", "wrong", "wrong"])
        let unlocked = try Prompters.withOverride(recorder) {
            try KeychainSecretStore.askPassword(keystore, for: .unlock, label: "login")
        }
        #expect(!unlocked)
        #expect(
            recorder.errors == [
                "", "Wrong password: 2 tries left before each try waits (the unlock throttle).",
                "Wrong password: 1 try left before each try waits (the unlock throttle).",
            ])
        #expect(try keystore.lockState() == .locked)
    }

    @Test(
        "Regression: the tries left count the unlock throttle's failures in a row across dialogs, not the dialog's own 3 tries"
    )
    func triesLeftAcrossDialogs() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: "pw")
        // One wrong password, then the user cancels: the throttle counts 1 failure.
        let first = Recorder(["wrong"])
        let firstUnlocked = try Prompters.withOverride(first) {
            try KeychainSecretStore.askPassword(keystore, for: .unlock, label: "login")
        }
        #expect(!firstUnlocked)
        #expect(first.errors == ["", "Wrong password: 2 tries left before each try waits (the unlock throttle)."])
        #expect(try keystore.unlockWait() == (failures: 1, seconds: 0))
        // A new dialog: its first wrong password is the 2nd in a row (1 free try left), its second the 3rd,
        // after which each try waits (UnlockThrottle.delay(afterFailures: 3) == 1 s).
        let second = Recorder(["wrong", "wrong", "wrong"])
        let secondUnlocked = try Prompters.withOverride(second) {
            try KeychainSecretStore.askPassword(keystore, for: .unlock, label: "login")
        }
        #expect(!secondUnlocked)
        #expect(
            second.errors == [
                "", "Wrong password: 1 try left before each try waits (the unlock throttle).",
                "Wrong password: the next try waits 1 s (the unlock throttle).",
            ])
        #expect(try keystore.unlockWait() == (failures: 4, seconds: 2))
        #expect(try keystore.lockState() == .locked)
    }

    @Test("Regression: once the unlock throttle applies, the prompt says how long the try waits and why")
    func throttleSaysWhy() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: "pw")
        let first = Recorder(["wrong", "wrong", "wrong"])
        _ = try Prompters.withOverride(first) {
            try KeychainSecretStore.askPassword(keystore, for: .unlock, label: "login")
        }
        // Three failures in a row: the fourth try waits up to 1 s (UnlockThrottle.delay(afterFailures: 3)).
        #expect(try keystore.unlockWait() == (failures: 3, seconds: 1))
        let second = Recorder(["pw"])
        let unlocked = try Prompters.withOverride(second) {
            try KeychainSecretStore.askPassword(keystore, for: .unlock, label: "login")
        }
        #expect(unlocked)
        #expect(second.errors == ["3 wrong passwords in a row: each try waits up to 1 s (the unlock throttle)."])
        #expect(try keystore.unlockWait() == (failures: 0, seconds: 0))
        try keystore.lock()
    }

    @Test(
        "Regression: after login-password-changed the login keychain's unlock prompt says the passwords differ and how to repair it"
    )
    func loginMismatchPrompt() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let login = try home.createKeychain("login", password: "pw")
        let other = try home.createKeychain("other", password: "pw")
        try "the login password was changed without the old one\n".write(
            toFile: home.directory + "/" + LoginPasswordMarker.name, atomically: true, encoding: .utf8)
        let recorder = Recorder(["pw", "pw"])
        let unlocked = try Prompters.withOverride(recorder) {
            [
                try KeychainSecretStore.askPassword(login, for: .unlock, label: "login"),
                try KeychainSecretStore.askPassword(other, for: .unlock, label: "other"),
            ]
        }
        #expect(unlocked == [true, true])
        #expect(
            recorder.descriptions == [
                "The password you use to log in no longer matches the password of your login keychain. Type the "
                    + "keychain's old password to unlock it, then run security set-keychain-password (old password, "
                    + "then your login password) so that logging in unlocks it again.",
                "An application wants access to the keychain “other”, but it is locked.",
            ])
        for store in [login, other] { try store.lock() }
    }
}
