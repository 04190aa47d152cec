import Foundation
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// A full kernel key quota (tracker issue 12): the unlock falls back to the unlocking process, says
/// so once with the cause and the fix, and every other process sees the keychain locked (36), never
/// "not found" (44).
///
/// The quota is per user, so filling it would break every other test of the run. The scenario runs
/// as a throwaway user instead (`$KEYCHAIN_TEST_QUOTA_USER`, default `nobody`), which needs root to
/// switch to: CI runs the suite twice as an unprivileged user, then this suite alone as root
/// (`.ci/run`). Everything the throwaway user made is removed by the scenario's own trap.
@Suite("kernel key quota full")
struct KeyringQuotaTests {
    static let quotaUser = ProcessInfo.processInfo.environment["KEYCHAIN_TEST_QUOTA_USER"] ?? "nobody"
    static let canSwitchUser =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/keyctl") && getpwnam(quotaUser) != nil

    @Test(
        "with the quota full, unlock-keychain keeps the unlock in its process and says why; another process gets 36",
        .enabled(if: canSwitchUser, "needs root, setpriv, keyctl and a throwaway user to fill the quota of"))
    func quotaFull() throws {
        let user = try #require(getpwnam(Self.quotaUser)).pointee
        let directory = "/tmp/swkc-quota-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The tool is copied where the throwaway user can run it (the build folder may be private).
        let security = directory + "/security"
        try FileManager.default.copyItem(atPath: try EndToEndTests.tool("security"), toPath: security)
        chown(directory, user.pw_uid, user.pw_gid)
        chown(security, user.pw_uid, user.pw_gid)
        chmod(directory, 0o700)

        let keyring = "swift-keychain-test-\(getpid())-quota"
        let script = """
            set -u
            export HOME=\(directory) XDG_DATA_HOME=\(directory)/data XDG_STATE_HOME=\(directory)/state
            export XDG_CONFIG_HOME=\(directory)/config KEYCHAIN_KDF=testing KEYCHAIN_KEYRING=\(keyring)
            S=\(security)
            filler=""
            cleanup() {
                [ -n "$filler" ] && keyctl unlink "$filler" @u >/dev/null 2>&1
                k=$(keyctl search @u keyring \(keyring) 2>/dev/null) && keyctl unlink "$k" @u >/dev/null 2>&1
            }
            trap cleanup EXIT
            $S create-keychain -p pw q >/dev/null 2>&1 || { echo "create failed"; exit 1; }
            $S add-generic-password -a acct -s svc -w secret q 2>/dev/null || { echo "add failed"; exit 1; }
            $S lock-keychain -a
            $S create-keychain -p other held >/dev/null 2>&1 || { echo "create held failed"; exit 1; }
            filler=$(keyctl newring swkc-quota-filler @u) || { echo "no filler"; exit 1; }
            i=0
            while keyctl add user "fill$i" "$(printf '%0200d' 0)" "$filler" >/dev/null 2>&1; do i=$((i+1)); done
            echo "filled after $i keys"
            notice=$(echo pw | $S unlock-keychain q 2>&1)
            echo "unlock: exit=$? $notice"
            $S find-generic-password -a acct -s svc -w q >/dev/null 2>&1
            echo "second process: $?"
            created=$($S create-keychain -p pw2 q2 2>&1)
            echo "create: exit=$? $created"
            echo "info: $($S show-keychain-info q 2>&1)"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(user.pw_uid)", "--regid=\(user.pw_gid)", "--clear-groups", "--", "/bin/bash", "-c", script,
        ]
        process.environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")

        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("filled after ") }, "\(text)")
        let unlock = try #require(lines.first { $0.hasPrefix("unlock: ") }, "\(text)")
        #expect(unlock.hasPrefix("unlock: exit=0 security: "), "the unlock itself succeeds: \(unlock)")
        #expect(unlock.contains("your key quota is full"), "the cause: \(unlock)")
        #expect(unlock.contains("keys,") && unlock.contains("/proc/key-users"), "the figures: \(unlock)")
        #expect(unlock.contains("lasts only for this process"), "the scope: \(unlock)")
        #expect(unlock.contains("security lock-keychain -a") && unlock.contains("keyctl show @u"), "the fix: \(unlock)")
        #expect(
            unlock.contains("\(directory)/data/keychains/held.keychain-db"), "which keychains hold entries: \(unlock)")
        #expect(unlock.components(separatedBy: "key quota is full").count == 2, "said once: \(unlock)")
        #expect(lines.contains("second process: 36"), "locked, never 'not found' (44): \(text)")
        // A new keychain is left unlocked by create-keychain: the same notice, once.
        let create = try #require(lines.first { $0.hasPrefix("create: ") }, "\(text)")
        #expect(create.hasPrefix("create: exit=0 security: ") && create.contains("key quota is full"), "\(create)")
        #expect(lines.contains { $0.hasPrefix("info: ") && $0.hasSuffix(" locked") }, "\(text)")
    }
}
