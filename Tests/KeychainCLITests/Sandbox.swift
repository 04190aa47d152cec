import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// What one command printed and returned.
struct Outcome: Equatable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// A private temporary keychain and environment for one test; never the real home.
final class Sandbox {
    let directory: String
    let location: KeychainLocation
    var environment: [String: String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.path + "/kccli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        location = KeychainLocation(
            databasePath: directory + "/data/keychains/login.keychain-db",
            deviceKeyPath: directory + "/state/keychains/device.key")
        environment = [
            "HOME": directory, "XDG_DATA_HOME": directory + "/data", "XDG_STATE_HOME": directory + "/state",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            // Cheap Argon2id for keychain passwords (test-only switch; see SecurityContext.kdfParameters).
            "KEYCHAIN_KDF": "testing",
            // The test run's own kernel keyring (Tests/TestKeyring), for the tools started as processes.
            "KEYCHAIN_KEYRING": ClassKeyStore.keyringName,
        ]
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    private func io(_ stdin: [UInt8], terminal: Bool, prompter: any SecretPrompter) -> CommandIO {
        CommandIO(input: MemoryInput(stdin, isTerminal: terminal), environment: environment, terminal: prompter)
    }

    private func outcome(_ status: Int32, _ io: CommandIO) -> Outcome {
        Outcome(status: status, stdout: io.output.text, stderr: io.error.text)
    }

    /// Runs `security <arguments>` in-process.
    @discardableResult
    func security(
        _ arguments: String..., stdin: String = "", terminal: Bool = false,
        prompter: any SecretPrompter = ScriptedPrompter([])
    ) -> Outcome {
        let io = io(Array(stdin.utf8), terminal: terminal, prompter: prompter)
        // No explicit default: the context resolves the login keychain and the preferences from
        // `environment`, which point into this sandbox.
        return outcome(SecurityTool.run(arguments, context: SecurityContext(io: io)), io)
    }

    /// Runs `git-credential-keychain <action>` in-process.
    @discardableResult
    func git(_ action: String, _ stdin: [UInt8]) -> Outcome {
        let io = io(stdin, terminal: false, prompter: ScriptedPrompter([]))
        return outcome(GitCredentialHelper.run([action], io: io, location: location), io)
    }

    @discardableResult
    func git(_ action: String, _ stdin: String) -> Outcome { git(action, Array(stdin.utf8)) }

    /// Runs `docker-credential-keychain <arguments>` in-process.
    @discardableResult
    func docker(_ arguments: String..., stdin: String = "") -> Outcome {
        let io = io(Array(stdin.utf8), terminal: false, prompter: ScriptedPrompter([]))
        return outcome(DockerCredentialHelper.run(arguments, io: io, location: location), io)
    }
}

/// Replaces the two dates of an attribute block (`cdat`, `mdat`) with a marker, after checking
/// they have Apple's shape: 16 bytes `YYYYMMDDhhmmssZ\0` as hex, two spaces, then quoted.
func maskingDates(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
        for name in ["\"cdat\"", "\"mdat\""] where line.hasPrefix("    \(name)<timedate>=") {
            let value = line.dropFirst("    \(name)<timedate>=".count)
            let parts = value.components(separatedBy: "  ")
            guard parts.count == 2, parts[0].hasPrefix("0x"), parts[0].count == 34,
                parts[1].hasPrefix("\""), parts[1].hasSuffix("Z\\000\""), parts[1].count == 21
            else { return String(line) }
            return "    \(name)<timedate>=DATE"
        }
        return String(line)
    }.joined(separator: "\n")
}
