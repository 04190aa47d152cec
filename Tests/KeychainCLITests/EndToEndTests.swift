import Foundation
import KeychainCore
import Testing

@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// Runs the built executables as separate processes, as users and git run them.
@Suite("end-to-end: built binaries")
struct EndToEndTests {
    /// The folder of the built products: the test bundle's folder (`.build/<triple>/debug`).
    static let productsDirectory: String = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.path + "/security") { return url.path }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }()

    static func tool(_ name: String) throws -> String {
        let path = productsDirectory + "/" + name
        try #require(FileManager.default.isExecutableFile(atPath: path), "build \(name) first: \(path)")
        return path
    }

    static func run(
        _ executable: String, _ arguments: [String], stdin: String = "", environment: [String: String],
        directory: String? = nil
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.arguments = arguments
        process.environment = environment
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    @Test("security stores a piped secret, finds it, and reports a missing item with status 44")
    func security() throws {
        let sandbox = try Sandbox()
        let security = try Self.tool("security")
        let env = sandbox.environment
        #expect(
            try Self.run(
                security, ["add-generic-password", "-a", "me", "-s", "demo", "-w"], stdin: "correct horse\n",
                environment: env)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            try Self.run(security, ["find-generic-password", "-a", "me", "-s", "demo", "-w"], environment: env)
                == Outcome(status: 0, stdout: "correct horse\n", stderr: ""))
        #expect(
            try Self.run(security, ["find-generic-password", "-s", "missing"], environment: env)
                == Outcome(status: 44, stdout: "", stderr: notFoundLine))
        #expect(FileManager.default.fileExists(atPath: sandbox.directory + "/data/keychains/login.keychain-db"))
    }

    @Test(
        "moving a keychain: backup-keychain writes login.swkcbackup in the current directory; restore-keychain on another installation reads it"
    )
    func moveKeychain() throws {
        let old = try Sandbox(), new = try Sandbox()
        let security = try Self.tool("security")
        #expect(
            try Self.run(
                security, ["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"],
                environment: old.environment
            ).status == 0)
        // A Secret Service item, as libsecret programs keep them (issue 23: backups left these out).
        let chromium = ["application": "chrome", "xdg:schema": "chrome_libsecret_os_crypt_password_v2"]
        _ = try Keystore(location: old.location).createSecretItem(
            label: "Chromium Safe Storage", attributes: chromium,
            secret: SecretItemSecret(value: SecureBytes(copying: Array("browser key".utf8)), contentType: "text/plain"),
            replace: false, now: 1_700_000_000)
        #expect(
            try Self.run(
                security, ["backup-keychain"], stdin: "pass phrase\n", environment: old.environment,
                directory: old.directory)
                == Outcome(
                    status: 0,
                    stdout:
                        "backed up 2 items to login.swkcbackup (\(FileManager.default.contents(atPath: old.directory + "/login.swkcbackup")?.count ?? -1) bytes)\n"
                        + "    restore onto any installation: 1\n    ThisDeviceOnly, restore onto this installation only: 0\n"
                        + "    WhenPasscodeSetThisDeviceOnly, never backed up: 0\n"
                        + "    Secret Service items, restore onto any installation: 1\n",
                    stderr: ""))
        try FileManager.default.copyItem(
            atPath: old.directory + "/login.swkcbackup", toPath: new.directory + "/login.swkcbackup")
        #expect(
            try Self.run(
                security, ["restore-keychain"], stdin: "wrong\n", environment: new.environment, directory: new.directory
            )
                == Outcome(
                    status: 51, stdout: "",
                    stderr:
                        "security: restore-keychain login.swkcbackup: The user name or passphrase you entered is not correct.\n"
                ))
        // The passphrase is checked before the login keychain would be created on first use.
        #expect(!FileManager.default.fileExists(atPath: new.location.databasePath))
        #expect(
            try Self.run(
                security, ["restore-keychain"], stdin: "pass phrase\n", environment: new.environment,
                directory: new.directory)
                == Outcome(
                    status: 0,
                    stdout: "restored 2 of 2 items from login.swkcbackup\n    of them Secret Service items: 1\n"
                        + "    replaced existing items: 0\n"
                        + "    skipped, already in the keychain: 0\n    skipped, ThisDeviceOnly from another installation: 0\n",
                    stderr: ""))
        #expect(
            try Self.run(security, ["find-generic-password", "-s", "api", "-w"], environment: new.environment)
                == Outcome(status: 0, stdout: "s3cret\n", stderr: ""))
        let restored = try Keystore(location: new.location)
        let items = try restored.secretItems(matching: ["application": "chrome"])
        #expect(items.map(\.label) == ["Chromium Safe Storage"])
        #expect(items.first?.attributes == chromium)
        #expect(items.first?.created == 1_700_000_000)
        #expect(items.first?.modified == 1_700_000_000)
        let secret = try restored.secretItemSecret(try #require(items.first).number)
        #expect(secret.value.withUnsafeBytes { Array($0) } == Array("browser key".utf8))
        #expect(secret.contentType == "text/plain")
    }

    @Test("a locked keychain: security exits 36 without prompting, git's helper fails, unlock from a pipe works")
    func lockedKeychain() throws {
        let sandbox = try Sandbox()
        let security = try Self.tool("security")
        let helper = try Self.tool("git-credential-keychain")
        let env = sandbox.environment
        #expect(
            try Self.run(security, ["create-keychain", "work"], stdin: "correct horse\n", environment: env)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(try Self.run(security, ["default-keychain", "-s", "work"], environment: env).status == 0)
        #expect(
            try Self.run(
                helper, ["store"], stdin: "protocol=https\nhost=example.com\nusername=me\npassword=pw\n\n",
                environment: env)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            try Self.run(security, ["lock-keychain"], environment: env) == Outcome(status: 0, stdout: "", stderr: ""))
        // Standard input is a pipe: no prompt, macOS's message and the low 8 bits of -25308.
        #expect(
            try Self.run(
                security, ["find-internet-password", "-s", "example.com", "-w"], stdin: "correct horse\n",
                environment: env)
                == Outcome(
                    status: 36, stdout: "",
                    stderr: "security: SecKeychainSearchCopyNext: User interaction is not allowed.\n"))
        #expect(
            try Self.run(helper, ["get"], stdin: "protocol=https\nhost=example.com\n\n", environment: env)
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "git-credential-keychain: failed to get: User interaction is not allowed. (-25308) The keychain is locked: unlock it with `security unlock-keychain`.\n"
                ))
        #expect(
            try Self.run(security, ["unlock-keychain", "work"], stdin: "wrong\n", environment: env)
                == Outcome(
                    status: 51, stdout: "",
                    stderr:
                        "security: SecKeychainUnlock work: The user name or passphrase you entered is not correct.\n"
                        + "security: 2 tries left before each try waits (the unlock throttle)\n"))
        let unlocked = try Self.run(security, ["unlock-keychain"], stdin: "correct horse\n", environment: env)
        #expect(unlocked.status == 0)
        // With the kernel keyring the unlock outlives the unlocking process; without it, the tool says so.
        if ClassKeyStore.scope == .userSession {
            #expect(unlocked.stderr == "")
            #expect(
                try Self.run(helper, ["get"], stdin: "protocol=https\nhost=example.com\n\n", environment: env)
                    == Outcome(status: 0, stdout: "username=me\npassword=pw\n", stderr: ""))
        } else {
            #expect(unlocked.stderr.contains("lasts only for this process"))
        }
    }

    @Test("real git drives the helper through credential approve, fill and reject")
    func git() throws {
        let sandbox = try Sandbox()
        let helper = try Self.tool("git-credential-keychain")
        var env = sandbox.environment
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_ASKPASS"] = ""
        env["SSH_ASKPASS"] = ""
        let git = "/usr/bin/git"
        try #require(FileManager.default.isExecutableFile(atPath: git), "git is needed for this test")
        let config = ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"]
        let approved = try Self.run(
            git, config + ["credential", "approve"],
            stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=p a=ss\n\n", environment: env)
        #expect(approved == Outcome(status: 0, stdout: "", stderr: ""))
        let filled = try Self.run(
            git, config + ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n", environment: env)
        #expect(
            filled
                == Outcome(
                    status: 0, stdout: "protocol=https\nhost=git.example.com\nusername=alice\npassword=p a=ss\n",
                    stderr: ""))
        let rejected = try Self.run(
            git, config + ["credential", "reject"],
            stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=p a=ss\n\n", environment: env)
        #expect(rejected.status == 0)
        // Nothing stored any more: fill has no terminal to ask and fails.
        let after = try Self.run(
            git, config + ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n", environment: env)
        #expect(after.status != 0)
        #expect(after.stdout == "")
    }

    @Test("both credential helpers print their usage for --help on stdout and exit 0; git's without an action exits 1")
    func helpers() throws {
        let sandbox = try Sandbox()
        let git = try Self.tool("git-credential-keychain")
        let docker = try Self.tool("docker-credential-keychain")
        let env = sandbox.environment
        #expect(
            try Self.run(git, ["--help"], environment: env)
                == Outcome(status: 0, stdout: GitCredentialHelper.help, stderr: ""))
        #expect(
            try Self.run(docker, ["--help"], environment: env)
                == Outcome(status: 0, stdout: DockerCredentialHelper.help, stderr: ""))
        #expect(
            try Self.run(git, [], environment: env)
                == Outcome(status: 1, stdout: "", stderr: "usage: git credential-keychain <get|store|erase>\n"))
    }

    @Test("docker-credential-keychain answers docker's protocol as a separate process")
    func docker() throws {
        let sandbox = try Sandbox()
        let helper = try Self.tool("docker-credential-keychain")
        let env = sandbox.environment
        #expect(
            try Self.run(
                helper, ["store"], stdin: "{\"ServerURL\":\"https://r.example\",\"Username\":\"u\",\"Secret\":\"s\"}",
                environment: env)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            try Self.run(helper, ["get"], stdin: "https://r.example\n", environment: env)
                == Outcome(
                    status: 0, stdout: "{\"ServerURL\":\"https://r.example\",\"Username\":\"u\",\"Secret\":\"s\"}\n",
                    stderr: ""))
        #expect(
            try Self.run(helper, ["get"], stdin: "https://other.example\n", environment: env)
                == Outcome(status: 1, stdout: "credentials not found in native keychain\n", stderr: ""))
    }

    @Test("security create-keychain shared/k.keychain leaves the existing 0755 folder shared at 0755, as macOS does")
    func createKeychainKeepsSharedFolderMode() throws {
        let sandbox = try Sandbox()
        let security = try Self.tool("security")
        let shared = sandbox.directory + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o755) == 0)
        #expect(
            try Self.run(
                security, ["create-keychain", "shared/k.keychain"], stdin: "pw\n", environment: sandbox.environment,
                directory: sandbox.directory)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileManager.default.fileExists(atPath: shared + "/k.keychain-db"))
        #expect(FileSystem.permissions(shared) == 0o755)
    }

    @Test("security create-keychain NAME makes an existing looser keychain folder ($XDG_DATA_HOME/keychains) 0700")
    func createKeychainKeepsKeychainFolderPrivate() throws {
        let sandbox = try Sandbox()
        let security = try Self.tool("security")
        let folder = sandbox.directory + "/data/keychains"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(folder, 0o755) == 0)
        #expect(
            try Self.run(security, ["create-keychain", "work"], stdin: "pw\n", environment: sandbox.environment)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileManager.default.fileExists(atPath: folder + "/work.keychain-db"))
        #expect(FileSystem.permissions(folder) == 0o700)
    }
}
