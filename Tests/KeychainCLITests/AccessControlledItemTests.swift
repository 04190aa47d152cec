import Foundation
import KeychainServices
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// The `security` tool releases an access-controlled item's secret as `SecItemCopyMatching` does:
/// only after the user's proof (the keychain password through the prompter), never silently
/// (tracker issue 16; found by the fresh-eyes review of the merged issues).
@Suite("security and access-controlled items")
struct AccessControlledItemTests {
    /// A prompter that can show nothing, as on a machine without pinentry, terminal or display.
    struct NoPrompt: Prompter {
        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            throw KeychainFailure(.interactionNotAllowed, "no prompt in this test")
        }
    }

    /// A prompter that types `password`.
    struct Types: Prompter {
        let password: String
        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            SecureBytes(copying: Array(password.utf8))
        }
    }

    /// A login keychain with a password, holding a `.userPresence` item and an ordinary one.
    func sandboxWithProtectedItem() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.security("set-keychain-password", stdin: "\ncorrect horse\ncorrect horse\n").status == 0)
        let keystore = try Keystore(location: sandbox.location)
        try KeychainContext.withOverride(KeychainContext(keystore: keystore, identity: .unsigned)) {
            var error: Unmanaged<CFError>?
            let access = try #require(
                SecAccessControlCreateWithFlags(
                    kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error))
            let protected: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "ac",
                kSecAttrAccount as String: "me",
                kSecAttrAccessControl as String: access, kSecValueData as String: Data("s3cret".utf8),
            ]
            #expect(Prompters.withOverride(NoPrompt()) { SecItemAdd(protected as CFDictionary, nil) } == errSecSuccess)
            let protectedWeb: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "guarded.example",
                kSecAttrAccount as String: "me", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                kSecAttrAccessControl as String: access, kSecValueData as String: Data("w3bsecret".utf8),
            ]
            #expect(
                Prompters.withOverride(NoPrompt()) { SecItemAdd(protectedWeb as CFDictionary, nil) } == errSecSuccess)
        }
        #expect(sandbox.security("add-internet-password", "-s", "plain.example", "-a", "me", "-w", "open").status == 0)
        return sandbox
    }

    @Test("find-generic-password -w: no prompt possible → 36 and no secret; the right password → the secret")
    func findNeedsAuthentication() throws {
        let sandbox = try sandboxWithProtectedItem()
        let refused = Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "ac", "-w") }
        #expect(refused.status == 36)
        #expect(!refused.stdout.contains("s3cret") && !refused.stderr.contains("s3cret"))
        let wrong = Prompters.withOverride(Types(password: "wrong")) {
            sandbox.security("find-generic-password", "-s", "ac", "-w")
        }
        #expect(wrong.status == 51)
        #expect(!wrong.stdout.contains("s3cret"))
        let allowed = Prompters.withOverride(Types(password: "correct horse")) {
            sandbox.security("find-generic-password", "-s", "ac", "-w")
        }
        #expect(allowed == Outcome(status: 0, stdout: "s3cret\n", stderr: ""))
        // Attributes alone need no proof, as on iOS.
        #expect(
            Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "ac") }.status == 0)
    }

    @Test("git-credential-keychain get releases an access-controlled password only after the user's proof")
    func gitHelperNeedsAuthentication() throws {
        let sandbox = try sandboxWithProtectedItem()
        let request = "protocol=https\nhost=guarded.example\n\n"
        let refused = Prompters.withOverride(NoPrompt()) { sandbox.git("get", request) }
        #expect(!refused.stdout.contains("w3bsecret") && !refused.stderr.contains("w3bsecret"))
        let allowed = Prompters.withOverride(Types(password: "correct horse")) { sandbox.git("get", request) }
        #expect(allowed.status == 0)
        #expect(allowed.stdout.contains("password=w3bsecret\n"))
    }

    @Test("dump-keychain -d leaves the protected item's data out and says so; export-passwords leaves it out")
    func dumpAndExportLeaveItOut() throws {
        let sandbox = try sandboxWithProtectedItem()
        let dump = Prompters.withOverride(NoPrompt()) { sandbox.security("dump-keychain", "-d") }
        #expect(dump.status == 0)
        #expect(!dump.stdout.contains("s3cret"))
        #expect(dump.stdout.contains("open"), "the ordinary item's data is still shown")
        #expect(!dump.stdout.contains("w3bsecret"))
        #expect(dump.stderr.contains("the data of 2 access-controlled item(s) was left out"))
        let csv = sandbox.directory + "/out.csv"
        let export = Prompters.withOverride(NoPrompt()) { sandbox.security("export-passwords", "-o", csv) }
        #expect(export.status == 0)
        let written = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(
            written.contains("plain.example") && !written.contains("w3bsecret") && !written.contains("guarded.example"))
        #expect(export.stdout.contains("    left out, access-controlled (they need authentication): 1\n"))
    }
}
