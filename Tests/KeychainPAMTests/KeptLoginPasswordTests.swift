import Foundation
import KeychainCore
import KeychainPAM
import Testing

/// The helper keeps the login password for the repair when it does not open the login keychain
/// (tracker issue 25, docs/PAM.md), in a kernel keyring entry readable by the user only, that expires.
@Suite("keychain-pam-helper keeps the login password for the repair")
struct KeptLoginPasswordTests {
    /// A login keychain with password `old` in a temporary folder, and a keyring of the test's own.
    final class Setup {
        let directory = FileManager.default.temporaryDirectory.path + "/kcpam-kept-" + UUID().uuidString
        let keyring = ClassKeyStore.keyringName + "-kept-\(UUID().uuidString.prefix(8))"
        var environment: [String: String] {
            [
                "HOME": directory, "XDG_DATA_HOME": directory + "/data", "XDG_STATE_HOME": directory + "/state",
                "KEYCHAIN_KDF": "testing", "KEYCHAIN_KEYRING": keyring,
            ]
        }

        init() throws {
            let store = try Keystore.create(
                location: KeychainLocation.login(environment: environment), password: secret("old"),
                parameters: .testing)
            try store.lock()
        }

        var kept: String? {
            KeptLoginPassword.read(keyring: keyring).map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        }

        var markerExists: Bool {
            FileManager.default.fileExists(atPath: directory + "/data/keychains/" + LoginPasswordMarker.name)
        }

        deinit {
            if let serial = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test("A login unlock that fails keeps the login password, readable by the user only, beside the marker")
    func failedUnlockKeeps() throws {
        let setup = try Setup()
        let outcome = LoginHelper(environment: setup.environment).run(
            HelperMessage(operation: .unlock, tokens: [secret("new")]))
        #expect(outcome.status == 1, "\(outcome.line)")
        #expect(!outcome.line.contains("new"), "no secret in the line")
        #expect(setup.markerExists)
        #expect(setup.kept == "new")
        let serial = try #require(KeptLoginPassword.serial(keyring: setup.keyring))
        #expect(KernelKeyring.isReadableByUser(serial))
        // A later login with the right password withdraws it with the marker.
        let unlocked = LoginHelper(environment: setup.environment).run(
            HelperMessage(operation: .unlock, tokens: [secret("old")]))
        #expect(unlocked.status == 0, "\(unlocked.line)")
        #expect(setup.kept == nil)
        #expect(!setup.markerExists)
    }

    @Test("Regression: the kept login password is in no file of the keychain folders, nor in the helper's line")
    func keptNowhereElse() throws {
        let setup = try Setup()
        let password = "kept-login-password-\(UUID().uuidString.prefix(8))"
        let outcome = LoginHelper(environment: setup.environment).run(
            HelperMessage(operation: .unlock, tokens: [secret(password)]))
        #expect(outcome.status == 1)
        #expect(!outcome.line.contains(password))
        #expect(setup.kept == password)
        let needle = Data(password.utf8)
        let files = FileManager.default.enumerator(atPath: setup.directory)?.compactMap { $0 as? String } ?? []
        #expect(!files.isEmpty)
        for file in files {
            guard let data = FileManager.default.contents(atPath: setup.directory + "/" + file) else { continue }
            #expect(data.range(of: needle) == nil, "the password is in \(file)")
        }
    }

    @Test("chauthtok without the old password keeps the new login password beside the marker")
    func changeWithoutOldKeeps() throws {
        let setup = try Setup()
        let outcome = LoginHelper(environment: setup.environment).run(
            HelperMessage(operation: .changedWithoutOld, tokens: [secret("new")]))
        #expect(outcome.status == 0, "\(outcome.line)")
        #expect(setup.markerExists)
        #expect(setup.kept == "new")
    }

    @Test(
        "Regression: a password set before the first login (chpasswd for a new account) records nothing; the first login creates the keychain with neither marker nor kept password"
    )
    func changeBeforeFirstLoginRecordsNothing() throws {
        let setup = try Setup()
        try FileManager.default.removeItem(atPath: setup.directory + "/data/keychains/login.keychain-db")
        let helper = LoginHelper(environment: setup.environment)
        let changed = helper.run(HelperMessage(operation: .changedWithoutOld, tokens: [secret("first")]))
        #expect(changed.status == 0, "\(changed.line)")
        #expect(changed.line.contains("nothing was recorded"), "\(changed.line)")
        #expect(!setup.markerExists)
        #expect(setup.kept == nil)
        // A marker and a kept password left from before are cleared once the first login creates the keychain.
        try "stale\n".write(
            toFile: setup.directory + "/data/keychains/" + LoginPasswordMarker.name, atomically: true, encoding: .utf8)
        #expect(KeptLoginPassword.keep(secret("stale"), keyring: setup.keyring))
        let login = helper.run(HelperMessage(operation: .unlock, tokens: [secret("first")]))
        #expect(login.line.contains("created the login keychain"), "\(login.line)")
        #expect(!setup.markerExists)
        #expect(setup.kept == nil)
    }

    @Test("The kept login password expires after its timeout")
    func keptExpires() async throws {
        let setup = try Setup()
        var environment = setup.environment
        environment["KEYCHAIN_KEPT_PASSWORD_TIMEOUT"] = "1"
        _ = LoginHelper(environment: environment).run(HelperMessage(operation: .unlock, tokens: [secret("new")]))
        #expect(setup.kept == "new")
        try await Task.sleep(for: .milliseconds(2500))
        #expect(setup.kept == nil)
    }
}
