import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// The one mapping from a command's failure to its message and exit status, for each tool.
@Suite("CommandFailure: one report for security, git-credential-keychain and docker-credential-keychain")
struct CommandFailureTests {
    func report(_ failure: CommandFailure, _ tool: CommandFailure.Tool) -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let io = CommandIO(input: MemoryInput(""), environment: [:], terminal: ScriptedPrompter([]))
        let status = failure.report(to: tool, io: io)
        return (status, io.output.text, io.error.text)
    }

    @Test("security: Apple's message on stderr, the status's low 8 bits as exit status (-25300 → 44)")
    func securityKeychain() {
        let result = report(.keychain("SecKeychainSearchCopyNext", .itemNotFound), .security(usage: nil))
        #expect(result.status == 44)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
    }

    @Test("security: a refused keychain file adds the engine's reason; `exit` overrides the status")
    func securityAdviceAndExit() {
        let advice = report(
            .keychain("SecKeychainLock", KeychainFailure(.invalidKeychain, "the file is not a keychain")),
            .security(usage: nil))
        #expect(advice.stderr.hasSuffix("\nsecurity: the file is not a keychain\n"))
        #expect(report(.keychain("x", .noSuchKeychain, exit: 1), .security(usage: nil)).status == 1)
    }

    @Test(
        "security: a damaged keychain file's reason is followed by how to restore it, naming the file (security restore-keychain)"
    )
    func securityDamagedKeychainAdvice() {
        let damaged = report(
            .keychain(
                "SecKeychainUnlock",
                KeychainFailure(.invalidKeychain, "/k/login.keychain-db cannot be read as a keychain: SQLite error 26")),
            .security(usage: nil))
        #expect(
            damaged.stderr.hasSuffix(
                "\nsecurity: /k/login.keychain-db cannot be read as a keychain: SQLite error 26\n"
                    + "security: the file is left untouched; restore it from a backup with "
                    + "`security restore-keychain -i BACKUP /k/login.keychain-db`, or move it away to start a new keychain\n"
            ))
    }

    @Test("security: the restore advice quotes a keychain path with spaces or quotes so a shell reads it back")
    func securityDamagedKeychainAdviceQuotesPath() {
        let damaged = report(
            .keychain(
                "SecKeychainUnlock",
                KeychainFailure(.invalidKeychain, "/k/Bob's keys.keychain-db is not a swift-keychain database")),
            .security(usage: nil))
        #expect(
            damaged.stderr.hasSuffix(
                "`security restore-keychain -i BACKUP '/k/Bob'\\''s keys.keychain-db'`, "
                    + "or move it away to start a new keychain\n"))
    }

    @Test("security: a usage error prints its line, then the usage, and exits 2")
    func securityUsage() {
        let result = report(.usage("security: illegal option -- z"), .security(usage: "Usage: x\n"))
        #expect(result == (2, "", "security: illegal option -- z\nUsage: x\n"))
    }

    @Test("transfer failures give the reason as a second sentence, except for a wrong passphrase")
    func transfer() {
        let failure = KeychainFailure(.decode, "the backup is damaged")
        #expect(
            report(.transfer("restore-keychain f", failure), .security(usage: nil)).stderr
                == "security: restore-keychain f: Unable to decode the provided data. The backup is damaged.\n")
        let wrong = KeychainFailure(.authFailed, "wrong passphrase")
        #expect(!report(.transfer("restore-keychain f", wrong), .security(usage: nil)).stderr.contains("Wrong"))
    }

    @Test("git: `failed to <action>: <message> (<status>)` on stderr, exit 1")
    func git() {
        let result = report(.keychain("store", .interactionNotAllowed), .gitCredential)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("git-credential-keychain: failed to store: "))
        #expect(
            result.stderr.hasSuffix(
                " (-25308) The keychain is locked: unlock it with `security unlock-keychain`.\n"))
    }

    @Test("docker: messages on stdout, not found as docker's text, exit 1")
    func docker() {
        #expect(
            report(.keychain("", .itemNotFound), .dockerCredential) == (
                1, "credentials not found in native keychain\n", ""
            ))
        let other = report(.keychain("", .interactionNotAllowed), .dockerCredential)
        #expect(
            other.status == 1 && other.stderr.isEmpty
                && other.stdout.hasSuffix(
                    " (-25308) The keychain is locked: unlock it with `security unlock-keychain`.\n")
        )
        #expect(
            report(.message("no credentials username", status: 1), .dockerCredential) == (
                1, "no credentials username\n", ""
            ))
    }
}
