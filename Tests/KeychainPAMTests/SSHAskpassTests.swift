import Foundation
import KeychainCore
import KeychainSSHAskpass
import KeychainTesting
import Testing

/// keychain-ssh-askpass with the real ssh-keygen, ssh-agent and ssh-add and an encrypted ed25519 key.
@Suite("keychain-ssh-askpass with ssh-add and ssh-agent", .serialized)
struct SSHAskpassTests {
    static let tools = ["/usr/bin/ssh-keygen", "/usr/bin/ssh-agent", "/usr/bin/ssh-add"]

    /// A keychain with a password (unlocked), an encrypted key, a running agent and a scripted pinentry.
    final class Setup {
        let keychain: TemporaryKeychain
        let store: Keystore
        let key: String
        let agent: Process
        let socket: String
        let pinentry: String

        init(pin: String) throws {
            keychain = try TemporaryKeychain()
            store = try Keystore.create(location: keychain.location, password: secret("kc-pw"), parameters: .testing)
            key = keychain.directory + "/id_ed25519"
            let made = PAMStack.run(
                [
                    "/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "key-passphrase", "-C", "askpass-test", "-f",
                    key,
                ],
                environment: ProcessInfo.processInfo.environment)
            try #require(made.status == 0, "\(made.output)")
            socket = keychain.directory + "/agent.sock"
            agent = Process()
            agent.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
            agent.arguments = ["-D", "-a", socket]
            agent.standardOutput = FileHandle.nullDevice
            agent.standardError = FileHandle.nullDevice
            try agent.run()
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
            pinentry = keychain.directory + "/pinentry"
            let script = """
                #!/bin/sh
                echo 'OK Pleased to meet you'
                while IFS= read -r line; do
                  case "$line" in
                    GETPIN*) echo x >> '\(keychain.directory)/prompts'; printf 'D %s\\nOK\\n' '\(pin)' ;;
                    BYE*) echo OK; exit 0 ;;
                    *) echo OK ;;
                  esac
                done
                """
            try Data(script.utf8).write(to: URL(fileURLWithPath: pinentry))
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: pinentry)
        }

        deinit {
            // SIGKILL: ssh-agent -D does not always end on SIGTERM here (its mask is inherited).
            kill(agent.processIdentifier, SIGKILL)
            agent.waitUntilExit()
            try? store.withdrawAllClassKeys()
        }

        var prompts: Int {
            (try? String(contentsOfFile: keychain.directory + "/prompts", encoding: .utf8))?.split(separator: "\n")
                .count ?? 0
        }

        func save(_ passphrase: String) throws {
            _ = try store.createSecretItem(
                label: "Unlock password for: \(key)",
                attributes: ["xdg:schema": SSHAskpass.schema, "unique": SSHAskpass.unique(key)],
                secret: SecretItemSecret(value: secret(passphrase), contentType: "text/plain"), replace: true)
        }

        func saved() throws -> String? {
            guard let item = try store.secretItems(matching: ["unique": SSHAskpass.unique(key)]).first else {
                return nil
            }
            return try store.secretItemSecret(item.number).value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }

        func sshAdd(_ arguments: [String], directory: String? = nil) -> (status: Int32, output: String) {
            var environment = ProcessInfo.processInfo.environment
            environment["SSH_AUTH_SOCK"] = socket
            environment["SSH_ASKPASS"] = PAMStack.binDirectory + "/keychain-ssh-askpass"
            environment["SSH_ASKPASS_REQUIRE"] = "force"
            environment["KEYCHAIN_PINENTRY"] = pinentry
            environment["XDG_DATA_HOME"] = keychain.dataHome
            environment["XDG_STATE_HOME"] = keychain.stateHome
            return PAMStack.run(["/usr/bin/ssh-add"] + arguments, environment: environment, directory: directory)
        }
    }

    init() throws {
        try #require(Self.tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }, "needs openssh-client")
    }

    @Test("ssh-add takes a saved passphrase from the keychain (gcr-ssh-agent's item) without asking")
    func savedPassphrase() throws {
        let setup = try Setup(pin: "unused")
        try setup.save("key-passphrase")
        let added = setup.sshAdd([setup.key])
        #expect(added.status == 0, "\(added.output)")
        #expect(setup.prompts == 0)
        #expect(setup.sshAdd(["-l"]).output.contains("askpass-test"))
    }

    @Test("Without a saved passphrase pinentry asks, and the answer is saved for the next ssh-add")
    func asksAndSaves() throws {
        let setup = try Setup(pin: "key-passphrase")
        #expect(setup.sshAdd([setup.key]).status == 0)
        #expect(setup.prompts == 1)
        #expect(try setup.saved() == "key-passphrase")
        #expect(setup.sshAdd(["-D"]).status == 0)
        #expect(setup.sshAdd([setup.key]).status == 0)
        #expect(setup.prompts == 1, "the second ssh-add did not ask")
    }

    @Test("A wrong saved passphrase is replaced by the one pinentry gets after ssh-add's retry")
    func wrongSavedPassphrase() throws {
        let setup = try Setup(pin: "key-passphrase")
        try setup.save("stale")
        #expect(setup.sshAdd([setup.key]).status == 0)
        #expect(setup.prompts == 1)
        #expect(try setup.saved() == "key-passphrase")
    }

    @Test("--help and -h print the usage and exit 0; ssh's questions are never taken for them")
    func help() {
        let tool = PAMStack.binDirectory + "/keychain-ssh-askpass"
        for flag in ["--help", "-h"] {
            let run = PAMStack.run([tool, flag], environment: [:])
            #expect(run.status == 0)
            #expect(run.output == SSHAskpass.usage)
        }
        let question = PAMStack.run([tool, "--help me"], environment: [:])
        #expect(question.status == 1)
        #expect(question.output.contains("not a passphrase question"))
    }

    @Test(
        "ssh-add ../sshkey from a subfolder takes the passphrase saved under the key's absolute path",
        .timeLimit(.minutes(1)))
    func relativeKeyPathFindsSavedPassphrase() throws {
        let setup = try Setup(pin: "unused")
        try setup.save("key-passphrase")
        let sub = setup.keychain.directory + "/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        let added = setup.sshAdd(["../id_ed25519"], directory: sub)
        #expect(added.status == 0, "\(added.output)")
        #expect(setup.prompts == 0)
        #expect(setup.sshAdd(["-l"]).output.contains("askpass-test"))
    }

    @Test(
        "ssh-add ./sshkey saves the passphrase pinentry gets under the key's absolute path, found by ../sshkey",
        .timeLimit(.minutes(1)))
    func relativeKeyPathSavesUnderAbsolutePath() throws {
        let setup = try Setup(pin: "key-passphrase")
        #expect(setup.sshAdd(["./id_ed25519"], directory: setup.keychain.directory).status == 0)
        #expect(setup.prompts == 1)
        #expect(try setup.saved() == "key-passphrase")
        #expect(try setup.store.secretItems(matching: ["xdg:schema": SSHAskpass.schema]).count == 1)
        #expect(setup.sshAdd(["-D"]).status == 0)
        let sub = setup.keychain.directory + "/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        #expect(setup.sshAdd(["../id_ed25519"], directory: sub).status == 0)
        #expect(setup.prompts == 1, "the second ssh-add did not ask")
    }

    @Test("Relative and unnormalised key paths in prompts are read as the key's absolute path")
    func relativeKeyPathPrompts() {
        #expect(
            SSHAskpass.keyPath(inPrompt: "Enter passphrase for ./sshkey: ", currentDirectory: "/home/u/t")!
                == ("/home/u/t/sshkey", false))
        #expect(
            SSHAskpass.keyPath(inPrompt: "Enter passphrase for ../sshkey: ", currentDirectory: "/home/u/t/sub")!
                == ("/home/u/t/sshkey", false))
        #expect(
            SSHAskpass.keyPath(
                inPrompt: "Bad passphrase, try again for /home/u/t/sub/..//./sshkey: ", currentDirectory: "/")!
                == ("/home/u/t/sshkey", true))
        #expect(
            SSHAskpass.keyPath(inPrompt: "Enter passphrase for key '../sshkey': ", currentDirectory: "/home/u/t/sub")!
                == ("/home/u/t/sshkey", false))
    }

    @Test("Prompts are read as ssh-add writes them; other questions get no answer")
    func prompts() {
        #expect(SSHAskpass.keyPath(inPrompt: "Enter passphrase for id: ", currentDirectory: "/h")! == ("/h/id", false))
        #expect(
            SSHAskpass.keyPath(
                inPrompt: "Bad passphrase, try again for /k/id (will confirm each use): ", currentDirectory: "/")!
                == ("/k/id", true))
        #expect(SSHAskpass.keyPath(inPrompt: "Allow use of key /k/id?", currentDirectory: "/") == nil)
    }
}
