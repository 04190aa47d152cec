import Foundation
import Testing

@testable import KeychainCore

/// `git credential approve` while the keychain is locked (tracker issue 24, item 5): git ignores a
/// store helper's exit status, so the helper's message on stderr is all the user sees; it must say
/// the keychain is locked and how to unlock it, and nothing may be stored.
@Suite("git credential approve with a locked keychain")
struct GitApproveWhileLockedTests {
    static let git = "/usr/bin/git"

    @Test(
        "git credential approve while locked prints the locked message and how to unlock on stderr; nothing is stored",
        .enabled(if: FileManager.default.isExecutableFile(atPath: git), "needs git"))
    func approveWhileLocked() throws {
        let sandbox = try Sandbox()
        let security = try EndToEndTests.tool("security")
        let helper = try EndToEndTests.tool("git-credential-keychain")
        var environment = sandbox.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        #expect(
            try EndToEndTests.run(security, ["create-keychain", "-p", "pw", "work"], environment: environment).status
                == 0)
        #expect(
            try EndToEndTests.run(security, ["default-keychain", "-s", "work"], environment: environment).status == 0)
        #expect(try EndToEndTests.run(security, ["lock-keychain", "work"], environment: environment).status == 0)
        let approve = try EndToEndTests.run(
            Self.git, ["-c", "credential.helper=", "-c", "credential.helper=\(helper)", "credential", "approve"],
            stdin: "protocol=https\nhost=example.com\nusername=me\npassword=pw\n\n", environment: environment,
            directory: sandbox.directory)
        #expect(
            approve.stderr.contains(
                "git-credential-keychain: failed to store: User interaction is not allowed. (-25308) The keychain is locked: unlock it with `security unlock-keychain`."
            ), "\(approve)")
        #expect(
            try EndToEndTests.run(security, ["unlock-keychain", "-p", "pw", "work"], environment: environment).status
                == 0)
        let find = try EndToEndTests.run(
            security, ["find-internet-password", "-s", "example.com"], environment: environment)
        #expect(find.status == 44, "nothing was stored: \(find)")
        try Keystore(
            location: KeychainLocation(
                databasePath: sandbox.directory + "/data/keychains/work.keychain-db",
                deviceKeyPath: sandbox.location.deviceKeyPath), create: false
        ).withdrawAllClassKeys()
    }
}
