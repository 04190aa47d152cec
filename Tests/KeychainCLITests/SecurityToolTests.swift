import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// The message macOS prints when a find or delete matches nothing (Apple's `keychain_find.c`
/// with SecBase.h's text for errSecItemNotFound).
let notFoundLine = "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n"

@Suite("security item commands")
struct SecurityToolTests {
    /// The attribute block macOS prints for a generic password (layout of `print_keychain_item_attributes`,
    /// as in published `security find-generic-password` output), dates masked.
    func genericBlock(_ sandbox: Sandbox, label: String, account: String, service: String) -> String {
        """
        keychain: "\(sandbox.location.databasePath)"
        version: 512
        class: "genp"
        attributes:
            0x00000007 <blob>="\(label)"
            0x00000008 <blob>=<NULL>
            "acct"<blob>="\(account)"
            "cdat"<timedate>=DATE
            "crtr"<uint32>=<NULL>
            "cusi"<sint32>=<NULL>
            "desc"<blob>=<NULL>
            "gena"<blob>=<NULL>
            "icmt"<blob>=<NULL>
            "invi"<sint32>=<NULL>
            "mdat"<timedate>=DATE
            "nega"<sint32>=<NULL>
            "prot"<blob>=<NULL>
            "scrp"<sint32>=<NULL>
            "svce"<blob>="\(service)"
            "type"<uint32>=<NULL>

        """
    }

    @Test("find-generic-password -w prints only the password and a newline")
    func findPasswordOnly() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2")
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            sandbox.security("find-generic-password", "-a", "alice", "-s", "mail", "-w")
                == Outcome(status: 0, stdout: "hunter2\n", stderr: ""))
    }

    @Test("find-generic-password prints macOS's attribute block, and -g the password on stderr")
    func findAttributes() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2")
        let found = sandbox.security("find-generic-password", "-s", "mail", "-g")
        #expect(found.status == 0)
        #expect(maskingDates(found.stdout) == genericBlock(sandbox, label: "mail", account: "alice", service: "mail"))
        #expect(found.stderr == "password: \"hunter2\"\n")
    }

    @Test("the label defaults to the service and -l sets it")
    func label() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-l", "My Mail", "-w", "x")
        let found = sandbox.security("find-generic-password", "-l", "My Mail")
        #expect(
            maskingDates(found.stdout) == genericBlock(sandbox, label: "My Mail", account: "alice", service: "mail"))
    }

    @Test("a missing item exits 44 with macOS's message on stderr")
    func notFound() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("find-generic-password", "-s", "nothing")
                == Outcome(status: 44, stdout: "", stderr: notFoundLine))
        #expect(
            sandbox.security("delete-generic-password", "-s", "nothing")
                == Outcome(status: 44, stdout: "", stderr: notFoundLine))
        #expect(
            sandbox.security("find-internet-password", "-s", "nothing")
                == Outcome(status: 44, stdout: "", stderr: notFoundLine))
        #expect(
            sandbox.security("delete-internet-password", "-s", "nothing")
                == Outcome(status: 44, stdout: "", stderr: notFoundLine))
    }

    @Test("a duplicate add exits 45 with macOS's message and no secret in it")
    func duplicate() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "first-secret")
        let again = sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "second-secret")
        #expect(
            again
                == Outcome(
                    status: 45, stdout: "",
                    stderr:
                        "security: SecKeychainItemCreateFromContent (<default>): The specified item already exists in the keychain.\n"
                ))
        #expect(!again.stderr.contains("secret"))
        sandbox.security("add-internet-password", "-a", "bob", "-s", "example.com", "-w", "x")
        #expect(
            sandbox.security("add-internet-password", "-a", "bob", "-s", "example.com", "-w", "y")
                == Outcome(
                    status: 45, stdout: "",
                    stderr:
                        "security: SecKeychainAddInternetPassword <NULL>: The specified item already exists in the keychain.\n"
                ))
    }

    @Test("-U updates the existing item in place instead of failing")
    func update() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "old")
        #expect(sandbox.security("add-generic-password", "-U", "-a", "alice", "-s", "mail", "-w", "new").status == 0)
        #expect(sandbox.security("find-generic-password", "-s", "mail", "-w").stdout == "new\n")
        let dump = sandbox.security("dump-keychain")
        #expect(dump.stdout.components(separatedBy: "class: \"genp\"").count == 2)
        // -U without -w keeps the password (SecKeychainItemModifyContent with no data).
        #expect(sandbox.security("add-generic-password", "-U", "-a", "alice", "-s", "mail", "-j", "note").status == 0)
        #expect(sandbox.security("find-generic-password", "-s", "mail", "-w").stdout == "new\n")
    }

    @Test(
        "-w as the last argument reads a piped secret, stripping one trailing newline",
        arguments: [
            "with spaces", "a=b=c", "pässwörd ✓", "cr\rin the middle", "two\nlines", "trailing newline kept\n",
        ])
    func pipedSecret(_ secret: String) throws {
        let sandbox = try Sandbox()
        let added = sandbox.security("add-generic-password", "-a", "alice", "-s", "svc", "-w", stdin: secret + "\n")
        #expect(added == Outcome(status: 0, stdout: "", stderr: ""))
        let stored = try #require(
            try Keystore(location: sandbox.location).search(
                ItemQuery(itemClass: .genericPassword, filters: ["svce": .string("svc")], scope: .all),
                projection: [.secret]
            ).first?.secret)
        #expect(stored.withUnsafeBytes { Array($0) } == Array(secret.utf8))
    }

    @Test("-w prints a secret that is not printable ASCII as lowercase hex, -g as macOS's print_buffer")
    func hexOutput() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", stdin: "é\\\n")
        #expect(sandbox.security("find-generic-password", "-s", "s", "-w").stdout == "c3a95c\n")
        #expect(sandbox.security("find-generic-password", "-s", "s", "-g").stderr == "password: 0xC3A95C \n")
        sandbox.security("add-generic-password", "-a", "b", "-s", "t", "-w", "é x")
        #expect(
            sandbox.security("find-generic-password", "-s", "t", "-g").stderr
                == "password: 0xC3A92078  \"\\303\\251 x\"\n")
    }

    @Test("-w last on a terminal prompts twice without echo and rejects a mismatch three times")
    func terminalPrompt() throws {
        let sandbox = try Sandbox()
        let prompter = ScriptedPrompter(["secret", "secret"])
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", terminal: true, prompter: prompter)
                .status == 0)
        #expect(prompter.prompts == ["password data for new item: ", "retype password for new item: "])
        #expect(sandbox.security("find-generic-password", "-s", "s", "-w").stdout == "secret\n")

        let mismatch = ScriptedPrompter(["a", "b", "c", "d", "e", "f"])
        let refused = sandbox.security(
            "add-generic-password", "-a", "x", "-s", "y", "-w", terminal: true, prompter: mismatch)
        #expect(
            refused == Outcome(status: 1, stdout: "", stderr: String(repeating: "passwords don't match\n", count: 3)))
    }

    @Test("internet passwords store protocol, port and authentication type as macOS prints them")
    func internetPassword() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security(
                "add-internet-password", "-a", "bob", "-s", "example.com", "-r", "htps", "-P", "443", "-p", "/api",
                "-w", "tok"
            ).status == 0)
        let found = sandbox.security("find-internet-password", "-s", "example.com", "-r", "htps")
        #expect(found.status == 0)
        #expect(
            maskingDates(found.stdout) == """
                keychain: "\(sandbox.location.databasePath)"
                version: 512
                class: "inet"
                attributes:
                    0x00000007 <blob>="example.com"
                    0x00000008 <blob>=<NULL>
                    "acct"<blob>="bob"
                    "atyp"<blob>="dflt"
                    "cdat"<timedate>=DATE
                    "crtr"<uint32>=<NULL>
                    "cusi"<sint32>=<NULL>
                    "desc"<blob>=<NULL>
                    "icmt"<blob>=<NULL>
                    "invi"<sint32>=<NULL>
                    "mdat"<timedate>=DATE
                    "nega"<sint32>=<NULL>
                    "path"<blob>="/api"
                    "port"<uint32>=0x000001BB 
                    "prot"<blob>=<NULL>
                    "ptcl"<uint32>="htps"
                    "scrp"<sint32>=<NULL>
                    "sdmn"<blob>=<NULL>
                    "srvr"<blob>="example.com"
                    "type"<uint32>=<NULL>

                """)
        #expect(sandbox.security("find-internet-password", "-s", "example.com", "-P", "8443").status == 44)
        #expect(sandbox.security("find-internet-password", "-s", "example.com", "-t", "form").status == 44)
        #expect(sandbox.security("find-internet-password", "-a", "bob", "-w").stdout == "tok\n")
    }

    @Test("delete prints the item, deletes it and says so on stderr")
    func delete() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "alice", "-s", "mail", "-w", "x")
        let deleted = sandbox.security("delete-generic-password", "-a", "alice", "-s", "mail")
        #expect(deleted.status == 0)
        #expect(maskingDates(deleted.stdout) == genericBlock(sandbox, label: "mail", account: "alice", service: "mail"))
        #expect(deleted.stderr == "password has been deleted.\n")
        #expect(sandbox.security("find-generic-password", "-s", "mail").status == 44)
    }

    @Test("four-character codes must be four bytes, as parse_fourcharcode requires")
    func fourCharCodes() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("find-internet-password", "-s", "x", "-r", "https")
                == Outcome(
                    status: 1, stdout: "", stderr: "Error: four-character types must be exactly 4 characters long.\n"))
        #expect(
            sandbox.security("add-internet-password", "-a", "a", "-s", "x", "-r", "ftp", "-w", "p")
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "Error: four-character types must be exactly 4 characters long.\n(Try \"ftp \" instead of \"ftp\")\n"
                ))
    }

    @Test("an unknown flag prints the usage on stderr and exits 2")
    func unknownFlag() throws {
        let sandbox = try Sandbox()
        let outcome = sandbox.security("find-generic-password", "-z")
        #expect(outcome.status == 2)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr == "security: illegal option -- z\n" + FindGenericPassword.spec.usage
                + "        Find a generic password item.\n")
        // The add commands' getopt string starts with ':' (silent), and -a and -s are required.
        let missing = sandbox.security("add-generic-password", "-s", "svc", "-w", "x")
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("Usage: add-generic-password [-h] [-a account] [-s service]"))
        #expect(
            sandbox.security("find-generic-password", "-a").stderr.hasPrefix(
                "security: option requires an argument -- a\n"))
    }

    /// The new-user trial of issue 29: `-w` after the keychain printed the usage alone, with no reason.
    @Test("the add commands say which argument is wrong before their usage, and still exit 2")
    func addCommandsSayWhyBeforeTheUsage() throws {
        let sandbox = try Sandbox()
        let generic = AddGenericPassword.spec.usage + "        Add a generic password item.\n"
        let internet = AddInternetPassword.spec.usage + "        Add an internet password item.\n"
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "KEYCHAIN", "-w")
                == Outcome(
                    status: 2, stdout: "",
                    stderr: "security: add-generic-password: option -w after the keychain name: options go before it\n"
                        + generic))
        // Only the option's name: never an attached value (a password) or what follows it.
        #expect(
            sandbox.security("add-internet-password", "-a", "a", "-s", "s", "k", "-whunter2", "--x=y")
                == Outcome(
                    status: 2, stdout: "",
                    stderr: "security: add-internet-password: option -w after the keychain name: options go before it\n"
                        + internet))
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "k1", "k2").stderr
                == "security: add-generic-password: 2 keychains given: at most one is allowed\n" + generic)
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "").stderr
                == "security: add-generic-password: the keychain name is empty\n" + generic)
        #expect(
            sandbox.security("add-internet-password", "-a", "a", "-s", "s", "-P")
                == Outcome(status: 2, stdout: "", stderr: "security: option requires an argument -- P\n" + internet))
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-z")
                == Outcome(status: 2, stdout: "", stderr: "security: illegal option -- z\n" + generic))
        // The commands that take one keychain say the same.
        #expect(
            sandbox.security("unlock-keychain", "login.keychain", "-p", "pw").stderr.hasPrefix(
                "security: unlock-keychain: option -p after the keychain name: options go before it\nUsage: unlock-keychain "
            ))
        #expect(
            sandbox.security("import-passwords", "passwords.csv", "--policy=skip").stderr.hasPrefix(
                "security: import-passwords: option --policy after the file name: options go before it\nUsage: "))
        // Nothing was added.
        #expect(sandbox.security("find-generic-password", "-a", "a").status == 44)
    }

    @Test("find, delete and dump refuse an option after a keychain name instead of ignoring it")
    func searchCommandsRefuseOptionsAfterKeychains() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "secret").status == 0)
        // `-w` after the keychain was ignored: the attribute block went to stdout, where a script reads
        // the password, and the status was 0.
        let find = sandbox.security("find-generic-password", "-a", "a", "-s", "s", "login.keychain", "-w")
        #expect(find.status == 2)
        #expect(find.stdout == "")
        #expect(
            find.stderr.hasPrefix(
                "security: find-generic-password: option -w after the keychain name: options go before it\nUsage: "))
        #expect(
            sandbox.security("find-internet-password", "-s", "example.com", "login.keychain", "-g").stderr.hasPrefix(
                "security: find-internet-password: option -g after the keychain name: options go before it\n"))
        #expect(
            sandbox.security("dump-keychain", "login.keychain", "-d").stderr.hasPrefix(
                "security: dump-keychain: option -d after the keychain name: options go before it\n"))
        #expect(
            sandbox.security("find-certificate", "login.keychain", "-a").stderr.hasPrefix(
                "security: find-certificate: option -a after the keychain name: options go before it\n"))
        let delete = sandbox.security("delete-generic-password", "-a", "a", "-s", "s", "login.keychain", "-v")
        #expect(delete.status == 2)
        #expect(delete.stderr.hasPrefix("security: delete-generic-password: option -v after the keychain name"))
        // Nothing was deleted; the keychains before the options still work, as a search list.
        #expect(
            sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w", "login.keychain", "login.keychain")
                == Outcome(status: 0, stdout: "secret\n", stderr: ""))
    }

    @Test("security -h and --help alone print bare security's Usage line and command list, and exit 0")
    func globalHelpMatchesBareUsage() throws {
        let sandbox = try Sandbox()
        let bare = sandbox.security()
        #expect(bare.status == 2)
        #expect(bare.stdout.hasPrefix("Usage: security [-h] [-q] [-v] [command] [opt ...]\n"))
        for flag in ["-h", "--help"] {
            #expect(sandbox.security(flag) == Outcome(status: 0, stdout: bare.stdout, stderr: ""))
        }
    }

    @Test("security --version prints the project's release and exits 0")
    func version() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("--version")
                == Outcome(status: 0, stdout: "security (swift-keychain) \(ProjectVersion.current)\n", stderr: ""))
    }

    @Test("help, -h and --help print the same usage to stdout, generated from the option table")
    func help() throws {
        let sandbox = try Sandbox()
        for name in [
            "add-generic-password", "find-generic-password", "delete-generic-password", "add-internet-password",
            "find-internet-password", "delete-internet-password", "dump-keychain", "error",
        ] {
            let viaHelp = sandbox.security("help", name)
            #expect(viaHelp.status == 0)
            #expect(viaHelp.stderr == "")
            #expect(viaHelp.stdout.hasPrefix("Usage: \(name) "))
            #expect(sandbox.security(name, "-h") == viaHelp)
            #expect(sandbox.security(name, "--help") == viaHelp)
        }
        let find = sandbox.security("help", "find-generic-password").stdout
        #expect(find.contains("\n    -w  Display only the password on stdout\n"))
        #expect(find.contains("\n    -g  Display the password for the item found\n"))
        #expect(
            sandbox.security("help", "bogus")
                == Outcome(status: 1, stdout: "", stderr: "security: help: no such command: bogus\n"))
        let all = sandbox.security("help")
        #expect(all.stdout.contains("    find-generic-password Find a generic password item.\n"))
        #expect(all.stdout.hasPrefix("    help              Show all commands, or show usage for a command.\n"))
    }

    @Test("no command prints the tool's usage to stdout and exits 2; an unknown command exits 1")
    func toolUsage() throws {
        let sandbox = try Sandbox()
        let usage = sandbox.security()
        #expect(usage.status == 2)
        #expect(usage.stdout.hasPrefix("Usage: security "))
        #expect(
            sandbox.security("frobnicate")
                == Outcome(status: 1, stdout: "", stderr: "security: unknown command \"frobnicate\"\n"))
    }

    @Test("commands are found by prefix, as security.c's match_command does")
    func prefix() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "p")
        #expect(sandbox.security("find-gen", "-s", "s", "-w").stdout == "p\n")
    }

    @Test("security error prints Apple's line for each code and exits 1 as display_error_code does")
    func errorCommand() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("error", "-25300", "-25299")
                == Outcome(
                    status: 1,
                    stdout: "Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain.\n"
                        + "Error: 0xFFFF9D2D -25299 The specified item already exists in the keychain.\n",
                    stderr: ""))
        #expect(
            sandbox.security("error", "0xFFFF9D2C").stdout
                == "Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain.\n")
    }

    @Test("a keychain named as the last operand is used instead of the default one")
    func namedKeychain() throws {
        let sandbox = try Sandbox()
        let path = sandbox.directory + "/work.keychain-db"
        _ = try Keystore(location: KeychainLocation(databasePath: path, deviceKeyPath: sandbox.location.deviceKeyPath))
        #expect(sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "p", path).status == 0)
        #expect(
            sandbox.security("find-generic-password", "-s", "s")
                == Outcome(status: 44, stdout: "", stderr: notFoundLine))
        let found = sandbox.security("find-generic-password", "-s", "s", path)
        #expect(found.stdout.hasPrefix("keychain: \"\(path)\"\n"))
        // A named keychain that does not exist is not created: errSecNoSuchKeychain (-25294 → 50).
        let missing = sandbox.security("find-generic-password", "-s", "s", sandbox.directory + "/none.keychain-db")
        #expect(
            missing
                == Outcome(
                    status: 50, stdout: "",
                    stderr: "security: SecKeychainSearchCopyNext: The specified keychain could not be found.\n"))
    }

    @Test("dump-keychain prints every item; -d adds the data")
    func dump() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "p1")
        sandbox.security("add-internet-password", "-a", "b", "-s", "host", "-w", "p2")
        let dump = sandbox.security("dump-keychain", "-d")
        #expect(dump.status == 0)
        #expect(dump.stdout.contains("class: \"genp\"\n"))
        #expect(dump.stdout.contains("class: \"inet\"\n"))
        #expect(dump.stdout.contains("data:\n\"p1\"\n"))
        #expect(dump.stdout.contains("data:\n\"p2\"\n"))
        #expect(!sandbox.security("dump-keychain").stdout.contains("data:"))
    }

    @Test("access groups: adds go to the unsigned group unless --access-group names one")
    func accessGroups() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "p")
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "q", "--access-group", "TEAM.app")
        #expect(
            sandbox.security("find-generic-password", "-s", "s", "--access-group", "TEAM.app", "-w").stdout == "q\n")
        #expect(
            sandbox.security("find-generic-password", "-s", "s", "--access-group", "unsigned", "-w").stdout == "p\n")
    }

    @Test("--synchronizable adds a synchronizable item, distinct from the local one; find and delete match both")
    func synchronizable() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "synced", "--synchronizable").status
                == 0)
        #expect(sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w").stdout == "synced\n")
        #expect(
            sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "again", "--synchronizable").status
                == 45)
        #expect(sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "local").status == 0)
        #expect(
            sandbox.security("add-generic-password", "-U", "-a", "a", "-s", "s", "-w", "updated", "--synchronizable")
                .status == 0)
        #expect(
            sandbox.security("add-internet-password", "-a", "a", "-s", "host", "-w", "net", "--synchronizable").status
                == 0)
        #expect(sandbox.security("find-internet-password", "-s", "host", "-w").stdout == "net\n")
        let dump = sandbox.security("dump-keychain", "-d").stdout
        #expect(dump.contains("data:\n\"updated\"\n"))
        #expect(dump.contains("data:\n\"local\"\n"))
        #expect(!dump.contains("data:\n\"synced\"\n"))
        #expect(sandbox.security("delete-generic-password", "-a", "a", "-s", "s").status == 0)
        #expect(sandbox.security("delete-generic-password", "-a", "a", "-s", "s").status == 0)
        #expect(sandbox.security("delete-generic-password", "-a", "a", "-s", "s").status == 44)
        #expect(sandbox.security("delete-internet-password", "-s", "host").status == 0)
    }

    @Test("exit statuses are the low 8 bits of the OSStatus")
    func exitStatuses() {
        #expect(SecurityContext.exitStatus(.itemNotFound) == 44)
        #expect(SecurityContext.exitStatus(.duplicateItem) == 45)
        #expect(SecurityContext.exitStatus(.authFailed) == 51)
        #expect(SecurityContext.exitStatus(KeychainStatus(-25600)) == 1)
    }

    @Test("print_buffer: plain text is quoted, other bytes add a hex dump and octal escapes")
    func printBuffer() {
        #expect(AppleFormat.buffer(Array("svc".utf8)) == "\"svc\"")
        #expect(AppleFormat.buffer([0, 0, 1, 0xBB]) == "0x000001BB ")
        #expect(AppleFormat.buffer(Array("a\\b".utf8)) == "0x615C62  \"a\\134b\"")
        #expect(AppleFormat.uint32(0x6874_7073) == "\"htps\"")
        #expect(AppleFormat.buffer([UInt8]()) == "")
    }
}
