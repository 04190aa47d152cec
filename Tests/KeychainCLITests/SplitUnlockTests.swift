import Foundation
import Testing

@testable import KeychainCore

/// An unlock from a process whose session keyring was revoked (tracker issue 24, item 3): before the
/// fix, the kernel kept the entries with its default permissions (possessor only) while `security`
/// said other programs saw the keychain locked; the user's other processes read them anyway.
@Suite("an unlock with a revoked session keyring")
struct SplitUnlockTests {
    static let keyctl = "/usr/bin/keyctl"
    static let available =
        ClassKeyStore.scope == .userSession && FileManager.default.isExecutableFile(atPath: keyctl)

    @Test(
        "security unlock-keychain in a revoked session keyring is seen by every process (both entries readable by the user), and lock-keychain -a takes it away",
        .enabled(if: available, "needs the kernel keyring and keyctl (keyutils)"))
    func revokedSessionUnlock() throws {
        let keyring = try KeyringFootprintTests.IsolatedKeyring("revoked")
        #expect(try keyring.security("create-keychain", "-p", "pw", "k").status == 0)
        #expect(try keyring.security("lock-keychain", "-a").status == 0)
        let security = try EndToEndTests.tool("security")
        let unlock = try EndToEndTests.run(
            Self.keyctl,
            [
                "session", "-", "/bin/sh", "-c", "\(Self.keyctl) revoke @s && exec \"$0\" \"$@\"", security,
                "unlock-keychain", "-p", "pw", "k",
            ],
            environment: keyring.environment)
        #expect(unlock.status == 0)
        #expect(!unlock.stderr.contains("security:"), "no refusal notice: \(unlock.stderr)")
        let keyringSerial = try #require(KernelKeyring.findKeyring(named: keyring.name))
        let members = KernelKeyring.members(of: keyringSerial)
        let described = members.compactMap { KernelKeyring.describe($0)?.description }
        #expect(described.filter { $0.hasSuffix(":wu") }.count == 1)
        #expect(described.filter { $0.hasSuffix(":afu") }.count == 1)
        // Read back from the kernel: the user (every process of theirs) may view, read and search them.
        #expect(members.allSatisfy(KernelKeyring.isReadableByUser))
        let info = try keyring.security("show-keychain-info", "k")
        #expect(info.stderr.contains(" unlocked\n"))
        #expect(info.stderr.contains("reaches every process of yours"))
        #expect(try keyring.security("lock-keychain", "-a").status == 0)
        #expect(try keyring.security("show-keychain-info", "k").stderr.hasSuffix(" locked\n"))
    }
}
