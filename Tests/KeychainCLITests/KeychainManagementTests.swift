import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// `security`'s keychain-management commands (tracker issues 3 §5 and 4). Messages are Apple's
/// (`keychain_create.c`, `keychain_unlock.c`, `keychain_lock.c`, `keychain_set_settings.c`,
/// `keychain_show_info.c`, `keychain_delete.c`, `keychain_list.c`) with SecBase.h's texts.
@Suite("security keychain management")
struct KeychainManagementTests {
    let authFailed = "The user name or passphrase you entered is not correct."

    func path(_ sandbox: Sandbox, _ name: String) -> String {
        sandbox.directory + "/data/keychains/\(name).keychain-db"
    }

    /// Creates keychain `name` with `password` read from standard input (not argv).
    func create(_ sandbox: Sandbox, _ name: String, password: String = "correct horse") {
        #expect(
            sandbox.security("create-keychain", name, stdin: password + "\n")
                == Outcome(status: 0, stdout: "", stderr: ""))
    }

    func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("create-keychain reads the password from standard input; the new keychain is unlocked and in the search list")
    func createFromStandardInput() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        #expect(FileSystem.permissions(path(sandbox, "work")) == 0o600)
        #expect(
            sandbox.security("show-keychain-info", "work")
                == Outcome(
                    status: 0, stdout: "",
                    stderr: "Keychain \"work\" no-timeout access-policy=confirm unlocked\n" + Self.unlockKept))
        #expect(
            sandbox.security("list-keychains")
                == Outcome(
                    status: 0, stdout: "    \"\(sandbox.location.databasePath)\"\n    \"\(path(sandbox, "work"))\"\n",
                    stderr: ""))
    }

    @Test("create-keychain on a terminal asks twice; three mismatches exit 1 and create nothing")
    func createMismatch() throws {
        let sandbox = try Sandbox()
        let prompter = ScriptedPrompter(["a", "b", "c", "d", "e", "f"])
        let outcome = sandbox.security("create-keychain", "work", terminal: true, prompter: prompter)
        #expect(
            outcome == Outcome(status: 1, stdout: "", stderr: String(repeating: "passwords don't match\n", count: 3)))
        #expect(
            prompter.prompts
                == Array(repeating: ["password for new keychain: ", "retype password for new keychain: "], count: 3)
                .flatMap { $0 })
        #expect(!FileSystem.exists(path(sandbox, "work")))
    }

    @Test("create-keychain on a terminal with matching passwords creates the keychain")
    func createOnTerminal() throws {
        let sandbox = try Sandbox()
        let prompter = ScriptedPrompter(["pw", "pw"])
        #expect(
            sandbox.security("create-keychain", "work", terminal: true, prompter: prompter)
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileSystem.exists(path(sandbox, "work")))
    }

    @Test("create-keychain -p takes the password from argv (compatibility) and its help warns about the process list")
    func createWithArgument() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("create-keychain", "-p", "pw", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        sandbox.security("lock-keychain", "work")
        #expect(sandbox.security("unlock-keychain", "-p", "pw", "work").status == 0)
        #expect(
            sandbox.security("help", "create-keychain").stdout == """
                Usage: create-keychain [-P] [-p password] [keychains...]
                    -p  Use "password" as the password for the keychains being created (insecure: other users of this machine can read it in the process list)
                    -P  Prompt the user for a password (on the terminal; Linux has no SecurityAgent)
                Without -p the password is prompted for without echo, or read from standard input (one line)
                when standard input is not a terminal.

                """)
    }

    @Test("create-keychain never replaces an existing keychain (exit 48)")
    func createDuplicate() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        let before = fileBytes(path(sandbox, "work"))
        #expect(
            sandbox.security("create-keychain", "work", stdin: "other\n")
                == Outcome(
                    status: 48, stdout: "",
                    stderr: "security: SecKeychainCreate work: A keychain with the same name already exists.\n"))
        #expect(fileBytes(path(sandbox, "work")) == before)
    }

    @Test("create-keychain with no password on standard input is cancelled (exit 128) and creates nothing")
    func createCancelled() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("create-keychain", "work", stdin: "")
                == Outcome(
                    status: 128, stdout: "", stderr: "security: SecKeychainCreate work: User canceled the operation.\n")
        )
        #expect(!FileSystem.exists(path(sandbox, "work")))
    }

    @Test("unlock-keychain with a wrong password exits 51 with macOS's message and leaves the file untouched")
    func unlockWrongPassword() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("lock-keychain", "work")
        let before = fileBytes(path(sandbox, "work"))
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "wrong\n")
                == Outcome(
                    status: 51, stdout: "",
                    stderr: "security: SecKeychainUnlock work: \(authFailed)\n"
                        + "security: 2 tries left before each try waits (the unlock throttle)\n"))
        #expect(fileBytes(path(sandbox, "work")) == before)
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" no-timeout access-policy=confirm locked\n")
    }

    @Test(
        "Regression: a wrong password says how many tries are left before the unlock throttle waits, then how long it waits and why"
    )
    func unlockThrottleNotice() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("lock-keychain", "work")
        let after = [
            "2 tries left before each try waits", "1 try left before each try waits",
            "3 wrong passwords in a row: the next try waits 1 s",
        ]
        for line in after {
            #expect(
                sandbox.security("unlock-keychain", "work", stdin: "wrong\n").stderr
                    == "security: SecKeychainUnlock work: \(authFailed)\nsecurity: \(line) (the unlock throttle)\n")
        }
        // The fourth try in a row waits up to 1 s (UnlockThrottle), and says so before it waits.
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "wrong\n")
                == Outcome(
                    status: 51, stdout: "",
                    stderr: "security: 3 wrong passwords in a row: each try waits up to 1 s (the unlock throttle)\n"
                        + "security: SecKeychainUnlock work: \(authFailed)\n"
                        + "security: 4 wrong passwords in a row: the next try waits 2 s (the unlock throttle)\n"))
        // The right password resets the count.
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "correct horse\n").stderr
                == "security: 4 wrong passwords in a row: each try waits up to 2 s (the unlock throttle)\n"
                + (ClassKeyStore.scope == .thisProcess ? UnlockKeychain.thisProcessNotice + "\n" : ""))
        sandbox.security("lock-keychain", "work")
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "wrong\n").stderr
                == "security: SecKeychainUnlock work: \(authFailed)\n"
                + "security: 2 tries left before each try waits (the unlock throttle)\n")
    }

    @Test("unlock-keychain reads standard input when it is not a terminal, and prompts on a terminal")
    func unlockSources() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("lock-keychain", "work")
        let notice = ClassKeyStore.scope == .thisProcess ? UnlockKeychain.thisProcessNotice + "\n" : ""
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "correct horse\n")
                == Outcome(status: 0, stdout: "", stderr: notice))
        sandbox.security("lock-keychain", "work")
        let prompter = ScriptedPrompter(["correct horse"])
        #expect(
            sandbox.security("unlock-keychain", "work", terminal: true, prompter: prompter)
                == Outcome(status: 0, stdout: "", stderr: notice))
        #expect(prompter.prompts == ["password to unlock work: "])
    }

    /// show-keychain-info's second line for an unlocked keychain: where the unlock is kept (issue 12).
    static var unlockKept: String {
        ClassKeyStore.scope == .userSession
            ? "security: the unlock is kept in the kernel keyring \"\(ClassKeyStore.keyringName)\" and reaches every process of yours\n"
            : "security: the unlock is kept by this process only\n"
    }

    @Test("a cancelled unlock exits 128 and a missing keychain exits 50; neither creates a file")
    func unlockCancelledOrMissing() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("unlock-keychain", "nope", stdin: "pw\n")
                == Outcome(
                    status: 50, stdout: "",
                    stderr: "security: SecKeychainUnlock nope: The specified keychain could not be found.\n"))
        #expect(
            sandbox.security("unlock-keychain", stdin: "pw\n")
                == Outcome(
                    status: 50, stdout: "",
                    stderr: "security: SecKeychainUnlock <NULL>: The specified keychain could not be found.\n"))
        #expect(!FileSystem.exists(path(sandbox, "nope")))
        #expect(!FileSystem.exists(sandbox.location.databasePath))
        create(sandbox, "work")
        sandbox.security("lock-keychain", "work")
        let before = fileBytes(path(sandbox, "work"))
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "")
                == Outcome(
                    status: 128, stdout: "", stderr: "security: SecKeychainUnlock work: User canceled the operation.\n")
        )
        #expect(
            sandbox.security("unlock-keychain", "-u", "work", stdin: "correct horse\n")
                == Outcome(
                    status: 36, stdout: "",
                    stderr: "security: SecKeychainUnlock work: User interaction is not allowed.\n"))
        #expect(fileBytes(path(sandbox, "work")) == before)
    }

    @Test("item commands on a locked keychain exit 36 with macOS's message and never prompt")
    func lockedItemCommands() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2", "work")
        sandbox.security("add-internet-password", "-a", "alice", "-s", "example.com", "-w", "hunter2", "work")
        #expect(sandbox.security("lock-keychain", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        let search = "security: SecKeychainSearchCopyNext: User interaction is not allowed.\n"
        let runs: [([String], Outcome)] = [
            (
                ["find-generic-password", "-a", "alice", "-s", "mail", "-w", "work"],
                Outcome(status: 36, stdout: "", stderr: search)
            ),
            (["find-internet-password", "-s", "example.com", "work"], Outcome(status: 36, stdout: "", stderr: search)),
            (["delete-generic-password", "-s", "mail", "work"], Outcome(status: 36, stdout: "", stderr: search)),
            (
                ["delete-internet-password", "-s", "example.com", "work"],
                Outcome(status: 36, stdout: "", stderr: search)
            ),
            (
                ["add-generic-password", "-a", "bob", "-s", "mail", "-w", "x", "work"],
                Outcome(
                    status: 36, stdout: "",
                    stderr: "security: SecKeychainItemCreateFromContent (work): User interaction is not allowed.\n")
            ),
            (
                ["add-internet-password", "-a", "bob", "-s", "example.com", "-w", "x", "work"],
                Outcome(
                    status: 36, stdout: "",
                    stderr: "security: SecKeychainAddInternetPassword work: User interaction is not allowed.\n")
            ),
        ]
        for (arguments, expected) in runs {
            let prompter = ScriptedPrompter(["correct horse"])
            let io = CommandIO(
                input: MemoryInput("correct horse\n"), environment: sandbox.environment, terminal: prompter)
            let status = SecurityTool.run(arguments, context: SecurityContext(io: io))
            #expect(Outcome(status: status, stdout: io.output.text, stderr: io.error.text) == expected, "\(arguments)")
            #expect(prompter.prompts.isEmpty, "\(arguments)")
        }
        // Still locked, items intact.
        sandbox.security("unlock-keychain", "work", stdin: "correct horse\n")
        #expect(
            sandbox.security("find-generic-password", "-a", "alice", "-s", "mail", "-w", "work").stdout == "hunter2\n")
    }

    /// What README.md says of a locked keychain (issue 29's new-user trial found it said 36 for every
    /// item command): a service, server or account that matches no item is found absent by its keyed
    /// digest, which the index key gives without the password.
    @Test("on a locked keychain, a find or delete whose service or account matches no item exits 44, not 36")
    func lockedKeychainAbsentItemIsNotFound() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2", "work")
        sandbox.security("add-internet-password", "-a", "alice", "-s", "example.com", "-w", "hunter2", "work")
        #expect(sandbox.security("lock-keychain", "work").status == 0)
        let missing = Outcome(
            status: 44, stdout: "",
            stderr: "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
        #expect(sandbox.security("find-generic-password", "-s", "absent", "-w", "work") == missing)
        #expect(sandbox.security("find-generic-password", "-a", "nobody", "work") == missing)
        #expect(sandbox.security("find-generic-password", "-a", "nobody", "-s", "mail", "work") == missing)
        #expect(sandbox.security("find-internet-password", "-s", "absent.example", "work") == missing)
        #expect(sandbox.security("delete-generic-password", "-s", "absent", "work") == missing)
        // One that reaches an item, even to find that its label differs, is 36.
        #expect(sandbox.security("find-generic-password", "-l", "other", "work").status == 36)
        #expect(sandbox.security("find-generic-password", "-a", "alice", "work").status == 36)
    }

    @Test(
        "a keychain whose device key is lost reads as locked (36); unlock-keychain adopts it; ThisDeviceOnly items exit 93"
    )
    func lostDeviceKey() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2", "work")
        let work = KeychainLocation(databasePath: path(sandbox, "work"), deviceKeyPath: sandbox.location.deviceKeyPath)
        _ = try Keystore(location: work, create: false).add(
            .genericPassword,
            attributes: [
                "svce": .string("vpn"), "acct": .string("alice"), "pdmn": .string("cku"), "agrp": .string("unsigned"),
            ],
            secret: SecureBytes(copying: Array("bound".utf8)))
        _ = try Keystore(location: work, create: false).add(
            .internetPassword,
            attributes: [
                "srvr": .string("vpn.example.com"), "acct": .string("alice"), "pdmn": .string("aku"),
                "agrp": .string("unsigned"),
            ],
            secret: SecureBytes(copying: Array("bound".utf8)))
        sandbox.security("lock-keychain", "work")
        try FileManager.default.removeItem(atPath: sandbox.location.deviceKeyPath)

        let foreign = "security: \(SessionKeys.foreignMessage(keychainPath: path(sandbox, "work")))\n"
        #expect(
            sandbox.security("find-generic-password", "-a", "alice", "-s", "mail", "-w", "work")
                == Outcome(
                    status: 36, stdout: "",
                    stderr: "security: SecKeychainSearchCopyNext: User interaction is not allowed.\n" + foreign))
        #expect(
            sandbox.security("show-keychain-info", "work").stderr == "Keychain \"work\" no-timeout locked\n" + foreign)
        let before = fileBytes(path(sandbox, "work"))
        #expect(sandbox.security("unlock-keychain", "work", stdin: "wrong\n").status == 51)
        #expect(fileBytes(path(sandbox, "work")) == before)
        #expect(!FileSystem.exists(sandbox.location.deviceKeyPath))

        let scope = ClassKeyStore.scope == .thisProcess ? UnlockKeychain.thisProcessNotice + "\n" : ""
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "correct horse\n")
                == Outcome(
                    status: 0, stdout: "", stderr: scope + UnlockKeychain.adoptedNotice + "\n"))
        #expect(
            sandbox.security("find-generic-password", "-a", "alice", "-s", "mail", "-w", "work").stdout == "hunter2\n")
        #expect(
            sandbox.security("find-generic-password", "-a", "alice", "-s", "vpn", "-w", "work")
                == Outcome(
                    status: 93, stdout: "",
                    stderr:
                        "security: SecKeychainSearchCopyNext: Unable to decode the provided data.\nsecurity: \(StoreSession.orphanedMessage)\n"
                ))
        // Listings and backups go on past what cannot be read here (every internet password, here).
        let dump = sandbox.security("dump-keychain", "work")
        #expect(dump.status == 0)
        #expect(dump.stdout.contains("\"svce\"<blob>=\"mail\""))
        #expect(!dump.stdout.contains("vpn"))
        let backup = sandbox.security(
            "backup-keychain", "-o", sandbox.directory + "/b.swkcbackup", "work", stdin: "backup words\n")
        #expect(backup.status == 0)
        #expect(backup.stdout.contains("ThisDeviceOnly of another installation, unreadable here, left out: 2"))
        #expect(
            sandbox.security("delete-generic-password", "-a", "alice", "-s", "vpn", "work")
                == Outcome(
                    status: 0, stdout: "", stderr: "password has been deleted.\n"))
        #expect(sandbox.security("find-generic-password", "-a", "alice", "-s", "vpn", "work").status == 44)
        #expect(
            sandbox.security("unlock-keychain", "work", stdin: "correct horse\n").stderr == scope, "adopted once only")
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" no-timeout access-policy=confirm unlocked\n" + Self.unlockKept)
    }

    @Test("a keychain without a password whose device key is lost exits 93, says why, and is left untouched")
    func lostDeviceKeyWithoutPassword() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2")
        try FileManager.default.removeItem(atPath: sandbox.location.deviceKeyPath)
        let before = fileBytes(sandbox.location.databasePath)
        let outcome = sandbox.security("find-generic-password", "-a", "alice", "-s", "mail", "-w")
        #expect(outcome.status == 93)
        #expect(outcome.stderr.contains("device key \(sandbox.location.deviceKeyPath) is missing"))
        #expect(outcome.stderr.contains("no password"))
        #expect(fileBytes(sandbox.location.databasePath) == before)
        #expect(!FileSystem.exists(sandbox.location.deviceKeyPath))
    }

    @Test("set-keychain-password reads the old, new and confirmation lines; a wrong old password exits 51")
    func changePassword() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        #expect(
            sandbox.security("set-keychain-password", "work", stdin: "wrong\nnew\nnew\n")
                == Outcome(
                    status: 51, stdout: "", stderr: "security: error changing password for \"work\": \(authFailed)\n"))
        #expect(
            sandbox.security("set-keychain-password", "work", stdin: "correct horse\nnew\nnew\n")
                == Outcome(status: 0, stdout: "", stderr: ""))
        sandbox.security("lock-keychain", "work")
        #expect(sandbox.security("unlock-keychain", "work", stdin: "correct horse\n").status == 51)
        #expect(sandbox.security("unlock-keychain", "work", stdin: "new\n").status == 0)
    }

    @Test("set-keychain-password on a terminal uses macOS's prompts; a mismatch prints 'try again' and exits 1")
    func changePasswordMismatch() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        let prompter = ScriptedPrompter(["correct horse", "new", "other"])
        #expect(
            sandbox.security("set-keychain-password", "work", terminal: true, prompter: prompter)
                == Outcome(status: 1, stdout: "", stderr: "security: try again\n"))
        #expect(prompter.prompts == ["Old Password: ", "New Password: ", "Retype New Password: "])
        sandbox.security("lock-keychain", "work")
        #expect(sandbox.security("unlock-keychain", "work", stdin: "correct horse\n").status == 0)
    }

    /// Keychain `work` with a password, one WhenPasscodeSetThisDeviceOnly item and one WhenUnlocked item.
    func passcodeKeychain(_ sandbox: Sandbox) throws -> Keystore {
        create(sandbox, "work")
        let work = try Keystore(
            location: KeychainLocation.named("work", environment: sandbox.environment), create: false)
        _ = try work.add(
            .genericPassword,
            attributes: [
                "agrp": .string(ApplicationIdentity.unsignedAccessGroup), "svce": .string("passcode"),
                "acct": .string("me"), "pdmn": .string(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue),
            ],
            secret: SecureBytes(copying: Array("needs a passcode".utf8)))
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "plain", "-w", "kept", "work").status == 0)
        return work
    }

    @Test(
        "regression: set-keychain-password with an empty new password says what removal deletes and removes only on a fourth line yes"
    )
    func removePasswordFromPipe() throws {
        let sandbox = try Sandbox()
        let work = try passcodeKeychain(sandbox)
        #expect(try work.passcodeSetItemCount() == 1)
        let warning =
            "security: an empty new password removes the password of \"work\": anyone who can read your files "
            + "can then open it, and its 1 WhenPasscodeSetThisDeviceOnly items (those that need a password) are deleted.\n"
        let refused =
            "security: set-keychain-password: the password of \"work\" was not removed (the answer was not "
            + "\"yes\"); nothing was changed\n"
        let before = fileBytes(path(sandbox, "work"))
        for stdin in ["correct horse\n\n\n", "correct horse\n\n\nno\n", "correct horse\n\n\nYES please\n"] {
            #expect(
                sandbox.security("set-keychain-password", "work", stdin: stdin)
                    == Outcome(status: 1, stdout: "", stderr: warning + refused))
        }
        #expect(fileBytes(path(sandbox, "work")) == before)
        #expect(try work.hasPassword())
        // A wrong old password is refused as for a change, after the answer.
        #expect(
            sandbox.security("set-keychain-password", "work", stdin: "wrong\n\n\nyes\n")
                == Outcome(
                    status: 51, stdout: "",
                    stderr: warning + "security: error changing password for \"work\": \(authFailed)\n"))
        #expect(try work.hasPassword())

        #expect(
            sandbox.security("set-keychain-password", "work", stdin: "correct horse\n\n\nyes\n")
                == Outcome(
                    status: 0, stdout: "",
                    stderr: warning
                        + "security: removed the password of \"work\"; deleted 1 WhenPasscodeSetThisDeviceOnly items\n")
        )
        #expect(try !work.hasPassword())
        #expect(try work.passcodeSetItemCount() == 0)
        #expect(sandbox.security("find-generic-password", "-s", "passcode", "work").status == 44)
        // Without a password the keychain is always open: lock-keychain does not hide the other item.
        sandbox.security("lock-keychain", "work")
        #expect(sandbox.security("find-generic-password", "-s", "plain", "-w", "work").stdout == "kept\n")
        // And an empty new password on a keychain without one is still refused.
        #expect(
            sandbox.security("set-keychain-password", "work", stdin: "\n\n\n")
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "security: set-keychain-password: the new password is empty; nothing was changed\n"))
    }

    @Test("regression: set-keychain-password on a terminal asks again before removing the password")
    func removePasswordOnTerminal() throws {
        let sandbox = try Sandbox()
        let work = try passcodeKeychain(sandbox)
        let declined = ScriptedPrompter(["correct horse", "", "", "no"])
        #expect(sandbox.security("set-keychain-password", "work", terminal: true, prompter: declined).status == 1)
        #expect(
            declined.prompts
                == ["Old Password: ", "New Password: ", "Retype New Password: ", SetKeychainPassword.removalPrompt])
        #expect(try work.hasPassword())
        let cancelled = ScriptedPrompter(["correct horse", "", "", nil])
        #expect(sandbox.security("set-keychain-password", "work", terminal: true, prompter: cancelled).status == 1)
        #expect(try work.hasPassword())
        let confirmed = ScriptedPrompter(["correct horse", "", "", "yes"])
        let outcome = sandbox.security("set-keychain-password", "work", terminal: true, prompter: confirmed)
        #expect(outcome.status == 0)
        #expect(outcome.stderr.hasPrefix(SetKeychainPassword.removalWarning("work", deleting: 1) + "\n"))
        #expect(try !work.hasPassword())
        #expect(try work.passcodeSetItemCount() == 0)
    }

    @Test(
        "regression: a Secret Service item survives set-keychain-password's change and removal; dump-keychain -d shows its secret after each (issue 23)"
    )
    func secretServiceItemSurvivesPasswordChanges() throws {
        let sandbox = try Sandbox()
        let work = try passcodeKeychain(sandbox)
        _ = try work.createSecretItem(
            label: "Chromium Safe Storage", attributes: ["application": "chrome"],
            secret: SecretItemSecret(value: SecureBytes(copying: Array("browser key".utf8)), contentType: "text/plain"),
            replace: false, now: 1_700_000_000)
        // The block `security dump-keychain -d` prints for it (class "ssvc"; its item number is 1).
        let block =
            "keychain: \"\(path(sandbox, "work"))\"\nclass: \"ssvc\"\nattributes:\n"
            + "    \"labl\"<blob>=\"Chromium Safe Storage\"\n    \"item\"<uint32>=1\n    \"attr\"<name>=\"application\"\n"
            + "content type: \"text/plain\"\ndata:\n\"browser key\"\n"
        func dump() -> String {
            let outcome = sandbox.security("dump-keychain", "-d", "work")
            #expect(outcome.status == 0)
            return outcome.stdout
        }
        #expect(dump().hasSuffix(block), "the Secret Service section follows the passwords")
        // Removal counts only the WhenPasscodeSetThisDeviceOnly SecItem item: Secret Service items are WhenUnlocked.
        #expect(try work.passcodeSetItemCount() == 1)

        #expect(sandbox.security("set-keychain-password", "work", stdin: "correct horse\nnew\nnew\n").status == 0)
        sandbox.security("lock-keychain", "work")
        #expect(sandbox.security("unlock-keychain", "work", stdin: "new\n").status == 0)
        #expect(dump().hasSuffix(block), "after a change and an unlock with the new password")

        let removal = sandbox.security("set-keychain-password", "work", stdin: "new\n\n\nyes\n")
        #expect(removal.status == 0)
        #expect(
            removal.stderr.hasSuffix(
                "security: removed the password of \"work\"; deleted 1 WhenPasscodeSetThisDeviceOnly items\n"))
        sandbox.security("lock-keychain", "work")
        #expect(dump().hasSuffix(block), "after the removal, with lock-keychain doing nothing")
        #expect(try work.secretItems(matching: ["application": "chrome"]).map(\.label) == ["Chromium Safe Storage"])
        #expect(try work.verifyIntegrity() == 2, "the plain password and the Secret Service item")
    }

    @Test("regression: delete-keychain of a keychain holding only Secret Service items withdraws its class keys")
    func deleteKeychainWithSecretServiceItems() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        let location = KeychainLocation.named("work", environment: sandbox.environment)
        let work = try Keystore(location: location, create: false)
        _ = try work.createSecretItem(
            label: "s", attributes: [:],
            secret: SecretItemSecret(value: SecureBytes(copying: Array("1".utf8)), contentType: "text/plain"),
            replace: false, now: 1)
        let keyringID = try work.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.keys.keyringID }
        #expect(ClassKeyStore.load(keyringID: keyringID, protection: SecretItemSchema.protection) != nil)
        #expect(sandbox.security("delete-keychain", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(!FileSystem.exists(path(sandbox, "work")))
        for protection in Keybag.passcodeClasses {
            #expect(ClassKeyStore.load(keyringID: keyringID, protection: protection) == nil)
        }
    }

    @Test(
        "set-keychain-settings -t sets the auto-lock timeout; without -t there is none; -l sets lock-on-sleep, without -l it is off"
    )
    func settings() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        #expect(
            sandbox.security("set-keychain-settings", "-t", "300", "work") == Outcome(status: 0, stdout: "", stderr: "")
        )
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" use-lock-interval timeout=300s access-policy=confirm unlocked\n" + Self.unlockKept
        )
        #expect(sandbox.security("set-keychain-settings", "-u", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" no-timeout access-policy=confirm unlocked\n" + Self.unlockKept)
        #expect(sandbox.security("set-keychain-settings", "-l", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" lock-on-sleep no-timeout access-policy=confirm unlocked\n" + Self.unlockKept)
        #expect(sandbox.security("set-keychain-settings", "-l", "-t", "60", "work").status == 0)
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" lock-on-sleep use-lock-interval timeout=60s access-policy=confirm unlocked\n"
                + Self.unlockKept)
        // As on macOS, the settings are replaced as a whole: omitting -l turns lock-on-sleep off.
        #expect(sandbox.security("set-keychain-settings", "-t", "60", "work").status == 0)
        #expect(
            sandbox.security("show-keychain-info", "work").stderr
                == "Keychain \"work\" use-lock-interval timeout=60s access-policy=confirm unlocked\n" + Self.unlockKept)
        #expect(
            sandbox.security("set-keychain-settings", "-t", "300", "nope")
                == Outcome(
                    status: 50, stdout: "",
                    stderr: "security: SecKeychainSetSettings nope: The specified keychain could not be found.\n"))
    }

    @Test("default-keychain shows and sets the default; adds without a keychain go there")
    func defaultKeychain() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("default-keychain")
                == Outcome(status: 0, stdout: "    \"\(sandbox.location.databasePath)\"\n", stderr: ""))
        create(sandbox, "work")
        #expect(sandbox.security("default-keychain", "-s", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            sandbox.security("default-keychain", "-d", "user")
                == Outcome(status: 0, stdout: "    \"\(path(sandbox, "work"))\"\n", stderr: ""))
        #expect(sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "pw").status == 0)
        #expect(sandbox.security("find-generic-password", "-s", "mail", "-w", "work").stdout == "pw\n")
        #expect(!FileSystem.exists(sandbox.location.databasePath))
        #expect(
            sandbox.security("default-keychain", "-s", "nope")
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "security: SecKeychainSetDefault: The specified keychain could not be found.\n"))
        #expect(
            sandbox.security("default-keychain", "-d", "system")
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "security: SecKeychainCopyDomainDefault system: A default keychain could not be found.\n"))
        #expect(sandbox.security("default-keychain", "-s") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(sandbox.security("default-keychain").stdout == "    \"\(sandbox.location.databasePath)\"\n")
        let config = try String(
            contentsOfFile: sandbox.directory + "/.config/swift-keychain/keychains.conf", encoding: .utf8)
        #expect(!config.contains("default="))
    }

    @Test(
        "Regression: list-keychains lists the implicit login keychain while it exists, and not after delete-keychain"
    )
    func listKeychainsAfterLoginDeleted() throws {
        let sandbox = try Sandbox()
        let login = sandbox.location.databasePath
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "mail", "-w", "pw").status == 0)
        #expect(FileSystem.exists(login))
        #expect(sandbox.security("list-keychains") == Outcome(status: 0, stdout: "    \"\(login)\"\n", stderr: ""))
        #expect(sandbox.security("delete-keychain", login) == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(sandbox.security("list-keychains") == Outcome(status: 0, stdout: "", stderr: ""))
        // Used again, the login keychain is made again and listed again.
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "mail", "-w", "pw").status == 0)
        #expect(sandbox.security("list-keychains").stdout == "    \"\(login)\"\n")
        #expect(sandbox.security("find-generic-password", "-s", "mail", "-w").stdout == "pw\n")
    }

    @Test("list-keychains -s sets the search list; an unknown domain is a usage error")
    func searchList() throws {
        let sandbox = try Sandbox()
        create(sandbox, "a")
        create(sandbox, "b")
        #expect(sandbox.security("list-keychains", "-s", "b") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            sandbox.security("list-keychains")
                == Outcome(status: 0, stdout: "    \"\(path(sandbox, "b"))\"\n", stderr: ""))
        sandbox.security("add-generic-password", "-a", "x", "-s", "only-in-a", "-w", "pw", "a")
        #expect(sandbox.security("find-generic-password", "-s", "only-in-a").status == 44)
        #expect(sandbox.security("list-keychains", "-d", "system") == Outcome(status: 0, stdout: "", stderr: ""))
        let bogus = sandbox.security("list-keychains", "-d", "bogus")
        #expect(bogus.status == 2)
        #expect(
            bogus.stderr.hasPrefix(
                "security: Invalid domain: bogus\nUsage: list-keychains [-d user|system|common|dynamic] [-s [keychain...]]\n"
            ))
    }

    @Test("delete-keychain withdraws the class keys, removes the -wal and -shm files, and forgets the keychain")
    func deleteKeychain() throws {
        let sandbox = try Sandbox()
        create(sandbox, "work")
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "pw", "work")
        sandbox.security("default-keychain", "-s", "work")
        let location = KeychainLocation.named("work", environment: sandbox.environment)
        let keyringID = try Keystore(location: location, create: false).read {
            (s: borrowing StoreSession) throws(KeychainFailure) in s.keys.keyringID
        }
        #expect(ClassKeyStore.load(keyringID: keyringID, protection: .whenUnlocked) != nil)
        let base = path(sandbox, "work")
        _ = FileManager.default.createFile(atPath: base + "-wal", contents: Data())
        _ = FileManager.default.createFile(atPath: base + "-shm", contents: Data())
        #expect(sandbox.security("delete-keychain", "work") == Outcome(status: 0, stdout: "", stderr: ""))
        for file in [base, base + "-wal", base + "-shm"] { #expect(!FileSystem.exists(file), "\(file)") }
        for protection in Keybag.passcodeClasses {
            #expect(ClassKeyStore.load(keyringID: keyringID, protection: protection) == nil)
        }
        #expect(sandbox.security("default-keychain").stdout == "    \"\(sandbox.location.databasePath)\"\n")
        #expect(sandbox.security("list-keychains").stdout == "    \"\(sandbox.location.databasePath)\"\n")
        #expect(
            sandbox.security("delete-keychain", "work")
                == Outcome(
                    status: 50, stdout: "",
                    stderr: "security: SecKeychainDelete: The specified keychain could not be found.\n"))
    }

    @Test("a search list entry whose file was removed is skipped: a miss is 44, a hit is found (fresh-eyes review)")
    func missingSearchListEntrySkipped() throws {
        let sandbox = try Sandbox()
        create(sandbox, "gone")
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "kept", "-w", "pw").status == 0)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path(sandbox, "gone") + suffix)
        }
        #expect(sandbox.security("find-generic-password", "-s", "nosuch").status == 44)
        #expect(sandbox.security("delete-generic-password", "-s", "nosuch").status == 44)
        #expect(sandbox.security("find-generic-password", "-s", "kept", "-w").stdout == "pw\n")
        // Named explicitly, a missing keychain is still "could not be found" (50), as on macOS.
        #expect(sandbox.security("find-generic-password", "-s", "kept", "gone").status == 50)
    }

    @Test("lock-keychain -a locks every keychain; lock-keychain on a missing keychain exits 50")
    func lockAll() throws {
        // `-a` locks every keychain of the user's keyring: run as processes with a keyring of the test's
        // own, so that the suites running beside it keep their unlocks.
        let keyring = try KeyringFootprintTests.IsolatedKeyring("lock-all")
        let sandbox = keyring.sandbox
        for name in ["a", "b"] {
            #expect(try keyring.security("create-keychain", "-p", "correct horse", name).status == 0)
        }
        #expect(try keyring.security("lock-keychain", "-a") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            try keyring.security("show-keychain-info", "a").stderr
                == "Keychain \"a\" no-timeout access-policy=confirm locked\n")
        #expect(
            try keyring.security("show-keychain-info", "b").stderr
                == "Keychain \"b\" no-timeout access-policy=confirm locked\n")
        #expect(
            sandbox.security("lock-keychain", "nope")
                == Outcome(
                    status: 50, stdout: "",
                    stderr: "security: SecKeychainLock nope: The specified keychain could not be found.\n"))
        #expect(sandbox.security("lock-keychain", "-a", "a").status == 2)
    }

    @Test("create-keychain ~/home.keychain leaves the home folder's mode as it is (0755)")
    func createInHomeKeepsHomeMode() throws {
        let sandbox = try Sandbox()
        #expect(chmod(sandbox.directory, 0o755) == 0)
        #expect(
            sandbox.security("create-keychain", sandbox.directory + "/home.keychain", stdin: "pw\n")
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileManager.default.fileExists(atPath: sandbox.directory + "/home.keychain-db"))
        #expect(FileSystem.permissions(sandbox.directory) == 0o755)
        #expect(FileSystem.permissions(sandbox.directory + "/home.keychain-db") == 0o600)
    }

    @Test("create-keychain in a folder that does not exist yet creates it and its missing parents 0700")
    func createInNewFoldersMakesThemPrivate() throws {
        let sandbox = try Sandbox()
        #expect(chmod(sandbox.directory, 0o755) == 0)
        let old = umask(0o022)
        defer { umask(old) }
        #expect(
            sandbox.security("create-keychain", sandbox.directory + "/new/deeper/k.keychain", stdin: "pw\n")
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileSystem.permissions(sandbox.directory + "/new") == 0o700)
        #expect(FileSystem.permissions(sandbox.directory + "/new/deeper") == 0o700)
        #expect(FileSystem.permissions(sandbox.directory) == 0o755)
    }
}
