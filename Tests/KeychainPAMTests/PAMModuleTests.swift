import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// pam_keychain.so and keychain-pam-helper end to end, as an ordinary user (tracker issue 25's cases).
@Suite("pam_keychain.so under pam_wrapper", .serialized)
struct PAMModuleTests {
    init() throws {
        try #require(PAMStack.missing == nil, "missing \(PAMStack.missing ?? ""): run scripts/setup")
        try #require(PAMStack.modules != nil, "scripts/build-pam-module failed")
    }

    @Test("A first login creates the login keychain with the login password, unlocked for other processes")
    func firstLoginCreates() throws {
        let stack = try PAMStack()
        try stack.service()
        let run = stack.pamtester(["authenticate", "open_session"], authtok: "login-pw")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("created the login keychain"), "\(run.output)")
        let store = try stack.open()
        #expect(try store.lockState() == .unlocked)
        try store.lock()
        #expect(throws: KeychainFailure.self) { try store.unlock(password: secret("other")) }
        try store.unlock(password: secret("login-pw"))
    }

    @Test("authenticate and open_session unlock the login keychain, and another process reads a WhenUnlocked item")
    func loginUnlocks() throws {
        let stack = try PAMStack()
        try stack.service()
        let store = try Keystore.create(
            location: stack.keychain.location, password: secret("login-pw"), parameters: .testing)
        _ = try store.add(
            .genericPassword, attributes: ["svce": .string("mail"), "acct": .string("me"), "pdmn": .string("ak")],
            secret: secret("mail-secret"))
        try store.lock()
        #expect(throws: KeychainFailure.self) { try readSecret(store, "mail") }
        let run = stack.pamtester(["authenticate", "open_session"], authtok: "login-pw")
        #expect(run.status == 0)
        #expect(run.output.contains("unlocked the login keychain"), "\(run.output)")
        #expect(try readSecret(try stack.open(), "mail") == "mail-secret")
    }

    @Test("A wrong login password leaves the keychain locked and its file unchanged, and says why")
    func wrongPasswordLeavesLocked() throws {
        let stack = try PAMStack()
        try stack.service()
        do {  // closed before the attempts, so that no connection of this process holds the write-ahead log
            let created = try Keystore.create(
                location: stack.keychain.location, password: secret("keychain-pw"), parameters: .testing)
            _ = try created.add(.genericPassword, attributes: ["svce": .string("kept")], secret: secret("kept-secret"))
            try created.lock()
        }
        // A failed login keeps the login password for the repair: in a keyring of this test's own, since an
        // entry in the run's keyring changes what other suites' unlock prompts say (PromptMessageTests).
        let own = PAMStack.OwnKeyring()
        // A first attempt lets SQLite fold the write-ahead log into the file when the helper closes it;
        // the bytes of the second attempt's before and after are then comparable.
        _ = stack.pamtester(["authenticate", "open_session"], authtok: "login-pw", environment: own.environment)
        let before = try Data(contentsOf: URL(fileURLWithPath: stack.keychain.location.databasePath))
        let run = stack.pamtester(["authenticate", "open_session"], authtok: "login-pw", environment: own.environment)
        #expect(run.status == 0, "the login itself never fails")
        #expect(run.output.contains("the login password does not open the login keychain"), "\(run.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stack.keychain.location.databasePath)) == before)
        let store = try stack.open()
        #expect(try store.lockState() == .locked)
        #expect(FileManager.default.fileExists(atPath: stack.changeMarker))
        try store.unlock(password: secret("keychain-pw"))
        #expect(try readSecret(store, "kept") == "kept-secret")
    }

    @Test("chauthtok re-keys every keychain that opens with the old password; others keep theirs; no item is lost")
    func chauthtokRekeys() throws {
        let stack = try PAMStack()
        try stack.service()
        let login = try Keystore.create(
            location: stack.keychain.location, password: secret("old-pw"), parameters: .testing)
        let workLocation = KeychainLocation(
            databasePath: stack.keychain.keychainDirectory + "/work.keychain-db",
            deviceKeyPath: stack.keychain.location.deviceKeyPath)
        let work = try Keystore.create(location: workLocation, password: secret("old-pw"), parameters: .testing)
        let otherLocation = KeychainLocation(
            databasePath: stack.keychain.keychainDirectory + "/other.keychain-db",
            deviceKeyPath: stack.keychain.location.deviceKeyPath)
        let other = try Keystore.create(location: otherLocation, password: secret("own-pw"), parameters: .testing)
        for (store, name) in [(login, "login"), (work, "work"), (other, "other")] {
            _ = try store.add(.genericPassword, attributes: ["svce": .string(name)], secret: secret("\(name)-secret"))
            try store.withdrawAllClassKeys()
        }
        let run = stack.pamtester(["chauthtok"], authtok: "new-pw", oldAuthtok: "old-pw")
        #expect(run.status == 0)
        #expect(run.output.contains("re-keyed 2 keychain(s)"), "\(run.output)")
        for store in [login, work] {
            try store.withdrawAllClassKeys()
            #expect(throws: KeychainFailure.self) { try store.unlock(password: secret("old-pw")) }
            try store.unlock(password: secret("new-pw"))
        }
        try other.withdrawAllClassKeys()
        try other.unlock(password: secret("own-pw"))
        #expect(try readSecret(login, "login") == "login-secret")
        #expect(try readSecret(work, "work") == "work-secret")
        #expect(try readSecret(other, "other") == "other-secret")
        try work.withdrawAllClassKeys()
        try other.withdrawAllClassKeys()
    }

    @Test(
        "SIGKILL of the helper at each step of a re-key leaves the old or the new password working, every item intact",
        arguments: CrashPoint.passwordChange)
    func killDuringRekey(point: String) throws {
        let stack = try PAMStack()
        try stack.service()
        let store = try Keystore.create(
            location: stack.keychain.location, password: secret("old-pw"), parameters: .testing)
        _ = try store.add(.genericPassword, attributes: ["svce": .string("kept")], secret: secret("kept-secret"))
        try store.withdrawAllClassKeys()
        let run = stack.pamtester(
            ["chauthtok"], authtok: "new-pw", oldAuthtok: "old-pw", environment: ["KEYCHAIN_CRASH_POINT": point])
        #expect(run.output.contains("killed by signal 9"), "\(run.output)")
        let reopened = try stack.open()
        let opensWithOld = (try? reopened.unlock(password: secret("old-pw"))) != nil
        let opensWithNew = (try? reopened.unlock(password: secret("new-pw"))) != nil
        #expect(opensWithOld != opensWithNew, "exactly one of the two passwords works")
        #expect(opensWithNew == (point == "password.committed"))
        #expect(try readSecret(reopened, "kept") == "kept-secret")
    }

    @Test("A change without the old password (root ran passwd) records it and leaves the keychain as it was")
    func changeWithoutOldRecords() throws {
        let stack = try PAMStack()
        try stack.service()
        let store = try Keystore.create(
            location: stack.keychain.location, password: secret("old-pw"), parameters: .testing)
        try store.lock()
        // The change keeps the new login password for the repair, in a keyring of this test's own (as above).
        let own = PAMStack.OwnKeyring()
        let run = stack.pamtester(["chauthtok"], authtok: "new-pw", environment: own.environment)
        #expect(run.output.contains("no old password was entered"), "\(run.output)")
        #expect(run.output.contains("recorded that the login password changed"), "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: stack.changeMarker))
        #expect(try store.lockState() == .locked)
        try store.unlock(password: secret("old-pw"))
        // The next login with the new password fails to unlock and says so; the marker stays until they agree.
        try store.lock()
        let login = stack.pamtester(["authenticate", "open_session"], authtok: "new-pw", environment: own.environment)
        #expect(login.output.contains("does not open the login keychain"), "\(login.output)")
        try store.setPassword(secret("new-pw"), current: secret("old-pw"), parameters: .testing)
        try store.lock()
        let again = stack.pamtester(["authenticate", "open_session"], authtok: "new-pw", environment: own.environment)
        #expect(again.output.contains("unlocked the login keychain"), "\(again.output)")
        #expect(!FileManager.default.fileExists(atPath: stack.changeMarker))
    }

    @Test("only_if= skips services not listed and runs for listed ones")
    func onlyIf() throws {
        let stack = try PAMStack()
        try stack.service("sshd", options: "only_if=gdm-password,login")
        try stack.service("login", options: "only_if=gdm-password,login")
        _ = stack.pamtester(["authenticate", "open_session"], service: "sshd", authtok: "pw")
        #expect(!stack.loginExists)
        _ = stack.pamtester(["authenticate", "open_session"], service: "login", authtok: "pw")
        #expect(stack.loginExists)
    }

    @Test("With no authtok (fingerprint, FIDO2, autologin) nothing happens, the log says why, and the login succeeds")
    func noAuthtok() throws {
        let stack = try PAMStack()
        try stack.service()
        let run = stack.pamtester(["authenticate", "open_session"])
        #expect(run.status == 0)
        #expect(run.output.contains("no password from the modules before"), "\(run.output)")
        #expect(!stack.loginExists)
    }

    @Test("Unknown and invalid options are logged and ignored")
    func unknownOptions() throws {
        let stack = try PAMStack()
        try stack.service(options: "no_such_option timeout=forever")
        let run = stack.pamtester(["authenticate", "open_session"], authtok: "pw")
        #expect(run.status == 0)
        #expect(run.output.contains("unknown option no_such_option, ignored"), "\(run.output)")
        #expect(run.output.contains("invalid option timeout=forever"), "\(run.output)")
        #expect(stack.loginExists)
    }

    @Test(
        "A helper that hangs is stopped at the timeout and the login goes on; the password is never in its argv, environment or a file"
    )
    func hangingHelper() throws {
        let stack = try PAMStack()
        try stack.service(options: "timeout=2")
        let password = "hang-\(UUID().uuidString)"
        // Started in the background so that the helper can be looked at while it runs.
        let box = ResultBox()
        let thread = Thread {
            box.set(
                stack.pamtester(
                    ["authenticate", "open_session"], authtok: password, environment: ["KEYCHAIN_PAM_HANG": "1"]))
        }
        thread.start()
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(2)
        while seen.isEmpty && Date() < deadline {
            seen = helperProcesses(under: stack.directory)
            if seen.isEmpty { usleep(20_000) }
        }
        #expect(!seen.isEmpty, "the helper was seen running")
        for pid in seen {
            for file in ["cmdline", "environ"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(file)"))) ?? Data()
                #expect(bytes.range(of: Data(password.utf8)) == nil, "/proc/\(pid)/\(file) holds the password")
            }
        }
        while box.get() == nil { usleep(20_000) }
        let run = box.get()!
        #expect(run.status == 0)
        #expect(run.seconds < 4, "the login returned within the timeout (\(run.seconds) s)")
        #expect(run.output.contains("did not finish within 2 s"), "\(run.output)")
        for pid in seen { #expect(kill(pid_t(pid)!, 0) != 0, "helper \(pid) was stopped") }
        let files = FileManager.default.enumerator(atPath: stack.directory)?.compactMap { $0 as? String } ?? []
        for file in files {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: stack.directory + "/" + file))) ?? Data()
            #expect(bytes.range(of: Data(password.utf8)) == nil, "\(file) holds the password")
        }
    }

    @Test("lock_on_logout locks every keychain at the last session's close, and not while another session remains")
    func lockOnLogout() throws {
        let stack = try PAMStack()
        try stack.service(options: "lock_on_logout")
        // A keyring of its own: locking all clears the whole keyring, which other suites share.
        let keyring = ClassKeyStore.keyringName + "-pam-logout-\(UUID().uuidString.prefix(8))"
        let logind = stack.directory + "/logind"
        try FileManager.default.createDirectory(atPath: logind, withIntermediateDirectories: true)
        try "SESSIONS=7 8\n".write(toFile: logind + "/\(getuid())", atomically: true, encoding: .utf8)
        let environment = ["KEYCHAIN_KEYRING": keyring, "KEYCHAIN_LOGIND_USERS": logind, "XDG_SESSION_ID": "7"]
        defer {
            if let serial = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
        }
        _ = stack.pamtester(["authenticate", "open_session"], authtok: "pw", environment: environment)
        let serial = try #require(KernelKeyring.findKeyring(named: keyring))
        #expect(KernelKeyring.members(of: serial).count == 2)
        let remaining = stack.pamtester(["close_session"], environment: environment)
        #expect(remaining.output.contains("1 other session(s) remain"), "\(remaining.output)")
        #expect(KernelKeyring.members(of: serial).count == 2)
        try "SESSIONS=7\n".write(toFile: logind + "/\(getuid())", atomically: true, encoding: .utf8)
        let last = stack.pamtester(["close_session"], environment: environment)
        #expect(last.output.contains("locked every keychain"), "\(last.output)")
        #expect(KernelKeyring.members(of: serial).isEmpty)
    }

    @Test("The module runs clean under AddressSanitizer through login, password change and logout")
    func addressSanitizer() throws {
        let stack = try PAMStack()
        try stack.service(options: "debug lock_on_logout bogus only_if=login", asan: true)
        let keyring = ClassKeyStore.keyringName + "-pam-asan-\(UUID().uuidString.prefix(8))"
        defer {
            if let serial = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
        }
        let environment = ["KEYCHAIN_KEYRING": keyring, "KEYCHAIN_LOGIND_USERS": stack.directory + "/none"]
        let runs = [
            stack.pamtester(
                ["authenticate", "open_session", "close_session"], authtok: "pw", environment: environment, asan: true),
            stack.pamtester(["chauthtok"], authtok: "pw2", oldAuthtok: "pw", environment: environment, asan: true),
            stack.pamtester(["chauthtok"], authtok: "pw3", environment: environment, asan: true),
            stack.pamtester(["authenticate", "open_session"], environment: environment, asan: true),
        ]
        for run in runs {
            #expect(run.status == 0, "\(run.output)")
            #expect(!run.output.contains("AddressSanitizer"), "\(run.output)")
        }
        #expect(runs[1].output.contains("re-keyed 1 keychain(s)"), "\(runs[1].output)")
    }
}

/// The `keychain-pam-helper` processes whose environment names `directory` (this test's own).
private func helperProcesses(under directory: String) -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.filter { pid in
        guard Int(pid) != nil,
            let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
            exe.hasSuffix("/keychain-pam-helper"),
            let environ = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        else { return false }
        return environ.range(of: Data(directory.utf8)) != nil
    }
}

private final class ResultBox: @unchecked Sendable {  // guarded by its lock
    private let lock = NSLock()
    private var value: (status: Int32, output: String, seconds: Double)?
    func set(_ new: (status: Int32, output: String, seconds: Double)) { lock.withLock { value = new } }
    func get() -> (status: Int32, output: String, seconds: Double)? { lock.withLock { value } }
}
