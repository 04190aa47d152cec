import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// Regressions from a first-time user's review of the tools.
@Suite("security: first-use regressions")
struct FreshEyesRegressionTests {
    @Test("-w last with nothing at all on stdin is a cancel (exit 128), and an existing secret is kept")
    func emptyStdinCancels() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "kept")
        let outcome = sandbox.security("add-generic-password", "-U", "-a", "a", "-s", "s", "-w", stdin: "")
        #expect(outcome.status == 128)
        #expect(outcome.stderr.hasSuffix("User canceled the operation.\n"))
        #expect(sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w").stdout == "kept\n")
        // An explicit empty line is an explicit empty secret.
        #expect(sandbox.security("add-generic-password", "-U", "-a", "a", "-s", "s", "-w", stdin: "\n").status == 0)
        #expect(sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w").stdout == "\n")
    }

    @Test("locking a keychain without a password warns that nothing is protected")
    func lockWithoutPassword() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "x")
        let outcome = sandbox.security("lock-keychain")
        #expect(outcome.status == 0)
        #expect(outcome.stderr.contains("has no password, so it cannot be locked"))
    }

    @Test("a keychain refused for its mode says which file and what to run")
    func refusedModeExplains() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "x")
        try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: sandbox.location.databasePath)
        let outcome = sandbox.security("find-generic-password", "-a", "a", "-s", "s")
        #expect(outcome.status == 49)  // errSecInvalidKeychain -25295 & 0xff
        #expect(outcome.stderr.contains("The specified keychain is not a valid keychain file.\n"))
        #expect(outcome.stderr.contains("\(sandbox.location.databasePath) is writable by group or others"))
        #expect(outcome.stderr.contains("chmod 600"))
    }
}
