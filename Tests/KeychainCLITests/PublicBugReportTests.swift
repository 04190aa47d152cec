import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// Tracker issue 14: faults that public bug reports against other credential helpers exposed.
/// Each test is named after the case it reproduces and checks the value the issue, git's
/// credential protocol or docker's helpers document.
@Suite("issue 14: credential helpers and security, cases from public bug reports")
struct PublicBugReportTests {
    func git(_ sandbox: Sandbox, _ action: String, _ fields: String...) -> Outcome {
        sandbox.git(action, fields.map { $0 + "\n" }.joined() + "\n")
    }

    func dockerStore(_ sandbox: Sandbox, _ url: String, _ user: String, _ secret: String) -> Outcome {
        sandbox.docker(
            "store", stdin: "{\"ServerURL\":\(GoJSON.string(url)),\"Username\":\"\(user)\",\"Secret\":\"\(secret)\"}")
    }

    func dockerFound(_ url: String, _ user: String, _ secret: String) -> Outcome {
        Outcome(
            status: 0,
            stdout: "{\"ServerURL\":\(GoJSON.string(url)),\"Username\":\"\(user)\",\"Secret\":\"\(secret)\"}\n",
            stderr: "")
    }

    let notFound = Outcome(status: 1, stdout: "credentials not found in native keychain\n", stderr: "")
    let nothing = Outcome(status: 0, stdout: "", stderr: "")

    // MARK: - 1. A port is not a wildcard in git's helper

    @Test("fault 1: a request without a port finds only credentials stored without one, and the reverse")
    func gitPortIsNotAWildcard() throws {
        let sandbox = try Sandbox()
        #expect(
            git(sandbox, "store", "protocol=https", "host=example.com:8443", "username=u8443", "password=P8443")
                == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=example.com") == nothing)
        #expect(
            git(sandbox, "store", "protocol=https", "host=example.com", "username=plain", "password=Pplain") == nothing)
        #expect(
            git(sandbox, "get", "protocol=https", "host=example.com")
                == Outcome(status: 0, stdout: "username=plain\npassword=Pplain\n", stderr: ""))
        #expect(
            git(sandbox, "get", "protocol=https", "host=example.com:8443")
                == Outcome(status: 0, stdout: "username=u8443\npassword=P8443\n", stderr: ""))
        #expect(git(sandbox, "get", "protocol=https", "host=example.com:9999") == nothing)
        // erase follows the same rule: erasing the port-less credential keeps the :8443 one.
        #expect(git(sandbox, "erase", "protocol=https", "host=example.com") == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=example.com") == nothing)
        #expect(
            git(sandbox, "get", "protocol=https", "host=example.com:8443").stdout == "username=u8443\npassword=P8443\n")
    }

    // MARK: - 2. Check-then-delete across transactions

    @Test("fault 2: erase with password=old racing store of password=new never removes the new credential")
    func gitEraseRacingStoreKeepsNewCredential() async throws {
        // Each command opens its own connection, as two processes would; the sandbox only holds paths.
        nonisolated(unsafe) let sandbox = try Sandbox()
        let old = "protocol=https\nhost=race.example\nusername=u\npassword=old\n\n"
        let new = "protocol=https\nhost=race.example\nusername=u\npassword=new\n\n"
        for _ in 0..<4 {
            #expect(sandbox.git("store", old) == nothing)
            async let erased = Task.detached { sandbox.git("erase", old) }.value
            async let stored = Task.detached { sandbox.git("store", new) }.value
            #expect(await erased == nothing)
            #expect(await stored == nothing)
            // Whichever ran first, the credential left is the new one.
            #expect(git(sandbox, "get", "protocol=https", "host=race.example").stdout == "username=u\npassword=new\n")
        }
    }

    @Test("fault 2: a conditional delete compares inside its own write transaction and keeps a non-matching item")
    func conditionalDeleteIsOneTransaction() throws {
        let sandbox = try Sandbox()
        #expect(git(sandbox, "store", "protocol=https", "host=c.example", "username=u", "password=new") == nothing)
        let store = try Keystore(location: sandbox.location)
        let scope = CredentialScope(
            protocolCode: "htps", server: "C.Example", port: .exactly(0), path: nil, account: nil,
            ownership: .notLabelled([DockerCredentialHelper.label]))
        let wanted = SecureBytes(copying: Array("old".utf8))
        #expect(
            try store.deleteCredentials(in: scope, groups: .all) { $0.secret?.constantTimeEquals(wanted) == true } == 0)
        #expect(try store.credentials(in: scope, groups: .all, withSecret: false).count == 1)
        #expect(try store.deleteCredentials(in: scope, groups: .all) { _ in true } == 1)
    }

    @Test("fault 2: add -U adds or updates in one transaction and keeps the secret when none is given")
    func addUpdateIsOneTransaction() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("add-generic-password", "-U", "-a", "a", "-s", "s", "-w", "one") == nothing)
        #expect(sandbox.security("add-generic-password", "-U", "-a", "a", "-s", "s", "-w", "two") == nothing)
        #expect(sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w").stdout == "two\n")
        #expect(sandbox.security("add-generic-password", "-U", "-a", "a", "-s", "s", "-j", "note") == nothing)
        #expect(sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w").stdout == "two\n")
        #expect(sandbox.security("dump-keychain").stdout.components(separatedBy: "class: \"genp\"").count == 2)
    }

    // MARK: - 3. The docker helper acts only on its own items

    @Test("fault 3: docker never reads, replaces or deletes git's, security's or imported items")
    func dockerScopedToDockerCredentials() throws {
        let sandbox = try Sandbox()
        #expect(git(sandbox, "store", "protocol=https", "host=reg.example", "username=u", "password=gitpw") == nothing)
        let csv = sandbox.directory + "/Chrome Passwords.csv"
        _ = FileManager.default.createFile(
            atPath: csv,
            contents: Data("name,url,username,password,note\nReg,https://reg.example/,browser,webpw,\n".utf8))
        #expect(sandbox.security("import-passwords", csv).status == 0)
        #expect(
            sandbox.security(
                "add-internet-password", "-a", "manual", "-s", "reg.example", "-r", "htps", "-w", "manualpw") == nothing
        )

        #expect(sandbox.docker("get", stdin: "https://reg.example") == notFound)
        #expect(sandbox.docker("list") == Outcome(status: 0, stdout: "{}\n", stderr: ""))
        #expect(sandbox.docker("erase", stdin: "https://reg.example") == notFound)
        #expect(dockerStore(sandbox, "https://reg.example", "u", "dockerpw") == nothing)
        #expect(
            sandbox.docker("get", stdin: "https://reg.example") == dockerFound("https://reg.example", "u", "dockerpw"))
        #expect(sandbox.docker("erase", stdin: "https://reg.example") == nothing)

        #expect(git(sandbox, "get", "protocol=https", "host=reg.example", "username=u").stdout == "password=gitpw\n")
        #expect(
            sandbox.security("find-internet-password", "-s", "reg.example", "-a", "browser", "-w").stdout == "webpw\n")
        #expect(
            sandbox.security("find-internet-password", "-s", "reg.example", "-a", "manual", "-w").stdout == "manualpw\n"
        )
    }

    @Test("fault 3: git's helper never returns docker's credential")
    func gitIgnoresDockerCredentials() throws {
        let sandbox = try Sandbox()
        #expect(dockerStore(sandbox, "https://d.example", "u", "dockerpw") == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=d.example") == nothing)
        #expect(git(sandbox, "erase", "protocol=https", "host=d.example") == nothing)
        #expect(sandbox.docker("get", stdin: "https://d.example") == dockerFound("https://d.example", "u", "dockerpw"))
    }

    @Test("fault 3: storing a registry replaces only exactly that registry key")
    func dockerStoreReplacesOnlyItsKey() throws {
        let sandbox = try Sandbox()
        for (url, user) in [
            ("https://multi.example.test:5000", "u5000"), ("https://multi.example.test:5001", "u5001"),
            ("https://multi.example.test/v2", "uv2"),
        ] {
            #expect(dockerStore(sandbox, url, user, "s") == nothing)
        }
        #expect(dockerStore(sandbox, "https://multi.example.test", "root", "s") == nothing)
        #expect(dockerStore(sandbox, "https://multi.example.test", "root2", "s2") == nothing)
        #expect(
            sandbox.docker("list").stdout
                == "{\"https://multi.example.test\":\"root2\",\"https://multi.example.test/v2\":\"uv2\","
                + "\"https://multi.example.test:5000\":\"u5000\",\"https://multi.example.test:5001\":\"u5001\"}\n")
        #expect(
            sandbox.docker("get", stdin: "https://multi.example.test:5001")
                == dockerFound("https://multi.example.test:5001", "u5001", "s"))
    }

    @Test("fault 3: an item made by hand with -l \"Docker Credentials\" counts as docker's")
    func handMadeDockerItemIsDockers() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security(
                "add-internet-password", "-l", "Docker Credentials", "-a", "me", "-s", "hand.example", "-r", "htps",
                "-w", "pw") == nothing)
        #expect(sandbox.docker("get", stdin: "https://hand.example") == dockerFound("https://hand.example", "me", "pw"))
        #expect(sandbox.docker("list").stdout == "{\"https://hand.example\":\"me\"}\n")
        #expect(dockerStore(sandbox, "https://hand.example", "me2", "pw2") == nothing)
        #expect(sandbox.docker("list").stdout == "{\"https://hand.example\":\"me2\"}\n")
        #expect(
            sandbox.docker("get", stdin: "https://hand.example") == dockerFound("https://hand.example", "me2", "pw2"))
    }

    @Test(
        "fault 4: a hand-made Docker Credentials item for an IPv6 host without brackets lists as [host] and round-trips"
    )
    func handMadeIPv6ItemRoundTrips() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security(
                "add-internet-password", "-l", "Docker Credentials", "-a", "h6", "-s", "fe80::3", "-r", "htps", "-w",
                "H6") == nothing)
        #expect(sandbox.docker("list").stdout == "{\"https://[fe80::3]\":\"h6\"}\n")
        #expect(sandbox.docker("get", stdin: "https://[fe80::3]") == dockerFound("https://[fe80::3]", "h6", "H6"))
        #expect(sandbox.docker("erase", stdin: "https://[fe80::3]").status == 0)
        #expect(sandbox.docker("list").stdout == "{}\n")
    }

    @Test("fault 3: git's store never overwrites docker's item with the same key; docker's own store migrates it")
    func gitStoreKeepsDockersItem() throws {
        let sandbox = try Sandbox()
        sandbox.security(
            "add-internet-password", "-l", "Docker Credentials", "-a", "u", "-s", "coll.example", "-r", "htps", "-w",
            "dockerpw")
        #expect(
            git(sandbox, "store", "protocol=https", "host=coll.example", "username=u", "password=gitpw")
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "git-credential-keychain: failed to store: The specified item already exists in the keychain. (-25299)\n"
                ))
        #expect(
            sandbox.docker("get", stdin: "https://coll.example") == dockerFound("https://coll.example", "u", "dockerpw")
        )
        // Once docker stores it again (security domain "docker"), both credentials live side by side.
        #expect(dockerStore(sandbox, "https://coll.example", "u", "dockerpw2") == nothing)
        #expect(git(sandbox, "store", "protocol=https", "host=coll.example", "username=u", "password=gitpw") == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=coll.example").stdout == "username=u\npassword=gitpw\n")
        #expect(
            sandbox.docker("get", stdin: "https://coll.example")
                == dockerFound("https://coll.example", "u", "dockerpw2"))
    }

    // MARK: - 4. Registry keys round-trip

    @Test(
        "fault 4: every key list prints is found by get and removed by erase",
        arguments: [
            ("https://[fe80::1]/v2", "https://[fe80::1]/v2"),
            ("https://[FE80::1]:5000/v2/", "https://[fe80::1]:5000/v2/"),
            ("https://reg.example:5000", "https://reg.example:5000"),
            ("https://reg.example/a b/c", "https://reg.example/a%20b/c"),
            ("https://reg.example/a%20b", "https://reg.example/a%20b"),
            ("https://reg.example/100%25/x", "https://reg.example/100%25/x"),
            ("https://reg.example/50%/x", "https://reg.example/50%25/x"),
            ("https://reg.example/v2/", "https://reg.example/v2/"),
            ("https://reg.example/", "https://reg.example"),
            ("https://Upper.Example.TEST/Path", "https://upper.example.test/Path"),
            ("http://reg.example:8080/v1", "http://reg.example:8080/v1"),
            ("reg.example", "https://reg.example"),
            ("https://reg.example/caf%C3%A9", "https://reg.example/caf%C3%A9"),
        ])
    func dockerRegistryKeyRoundTrip(_ stored: String, _ listed: String) throws {
        let sandbox = try Sandbox()
        #expect(dockerStore(sandbox, stored, "u", "s") == nothing)
        #expect(sandbox.docker("list") == Outcome(status: 0, stdout: "{\(GoJSON.string(listed)):\"u\"}\n", stderr: ""))
        #expect(sandbox.docker("get", stdin: listed) == dockerFound(listed, "u", "s"))
        #expect(sandbox.docker("get", stdin: stored) == dockerFound(stored, "u", "s"))
        #expect(sandbox.docker("erase", stdin: listed) == nothing)
        #expect(sandbox.docker("list") == Outcome(status: 0, stdout: "{}\n", stderr: ""))
    }

    @Test("fault 4: IPv6 literals keep their brackets for docker, git and security alike")
    func ipv6OneCanonicalForm() throws {
        let sandbox = try Sandbox()
        #expect(dockerStore(sandbox, "https://[fe80::1]/v2", "u", "s") == nothing)
        #expect(sandbox.security("find-internet-password", "-s", "[fe80::1]", "-p", "/v2", "-w").stdout == "s\n")
        #expect(git(sandbox, "store", "protocol=https", "host=[FE80::2]:8443", "username=g", "password=p") == nothing)
        #expect(sandbox.security("find-internet-password", "-s", "[fe80::2]", "-P", "8443", "-w").stdout == "p\n")
        #expect(git(sandbox, "get", "protocol=https", "host=[fe80::2]:8443").stdout == "username=g\npassword=p\n")
    }

    // MARK: - 5. Host names compare without regard to case

    @Test("fault 5: hosts are stored in lower case and found in any case, by both helpers")
    func hostsAreCaseInsensitive() throws {
        let sandbox = try Sandbox()
        #expect(dockerStore(sandbox, "https://Case.Example.Test", "u", "s") == nothing)
        #expect(
            sandbox.docker("get", stdin: "https://case.example.test")
                == dockerFound("https://case.example.test", "u", "s"))
        #expect(sandbox.security("find-internet-password", "-s", "case.example.test", "-w").stdout == "s\n")
        #expect(git(sandbox, "store", "protocol=https", "host=Git.Example.Test", "username=g", "password=p") == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=git.EXAMPLE.test").stdout == "username=g\npassword=p\n")
        #expect(sandbox.security("find-internet-password", "-s", "git.example.test", "-w").stdout == "p\n")
    }

    @Test("fault 5: items stored earlier in another case are still found, replaced and erased")
    func existingMixedCaseItemsAreFound() throws {
        let sandbox = try Sandbox()
        sandbox.security(
            "add-internet-password", "-l", "Docker Credentials", "-a", "me", "-s", "Legacy.Example.Test", "-r", "htps",
            "-w", "old")
        sandbox.security("add-internet-password", "-a", "g", "-s", "GitHost.Example", "-r", "htps", "-w", "gitpw")
        #expect(
            sandbox.docker("get", stdin: "https://legacy.example.test")
                == dockerFound("https://legacy.example.test", "me", "old"))
        #expect(git(sandbox, "get", "protocol=https", "host=githost.example").stdout == "username=g\npassword=gitpw\n")
        // A store in canonical form replaces the old-case item instead of adding a second one.
        #expect(dockerStore(sandbox, "https://legacy.example.test", "me", "new") == nothing)
        #expect(sandbox.docker("list").stdout == "{\"https://legacy.example.test\":\"me\"}\n")
        #expect(
            git(sandbox, "store", "protocol=https", "host=githost.example", "username=g", "password=new") == nothing)
        #expect(sandbox.security("find-internet-password", "-s", "GitHost.Example").status == 44)
        #expect(
            git(sandbox, "erase", "protocol=https", "host=GITHOST.example", "username=g", "password=new") == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=githost.example") == nothing)
    }

    // MARK: - 6. A stored value git's protocol cannot carry is never written into it

    @Test(
        "fault 6: secrets that would break git's protocol are skipped with a message on stderr",
        arguments: [
            ("first\nsecond", "password", "a line feed"),
            ("real\noauth_refresh_token=X", "password", "a line feed"),
            ("trailing\r", "password", "a trailing carriage return"),
        ])
    func gitSkipsUnsendableSecret(_ secret: String, _ field: String, _ reason: String) throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("add-internet-password", "-a", "u", "-s", "lf.example", "-r", "htps", "-w", secret)
                == nothing)
        #expect(
            git(sandbox, "get", "protocol=https", "host=lf.example")
                == Outcome(
                    status: 0, stdout: "",
                    stderr:
                        "git-credential-keychain: skipped the credential for https://lf.example: its \(field) contains \(reason), "
                        + "which git's credential protocol cannot carry\n"))
    }

    @Test("fault 6: a NUL in the secret and a line feed in the user name are refused the same way")
    func gitSkipsUnsendableFields() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-internet-password", "-a", "u", "-s", "nul.example", "-r", "htps", "-X", "61006200")
        #expect(
            git(sandbox, "get", "protocol=https", "host=nul.example").stderr
                == "git-credential-keychain: skipped the credential for https://nul.example: its password contains a NUL byte, "
                + "which git's credential protocol cannot carry\n")
        sandbox.security(
            "add-internet-password", "-a", "u\nv", "-s", "user.example", "-P", "8443", "-r", "htps", "-w", "p")
        #expect(
            git(sandbox, "get", "protocol=https", "host=user.example:8443")
                == Outcome(
                    status: 0, stdout: "",
                    stderr:
                        "git-credential-keychain: skipped the credential for https://user.example:8443: its username contains "
                        + "a line feed, which git's credential protocol cannot carry\n"))
    }

    @Test("fault 6: the rule covers git's own metadata fields: a refresh token ending in CR is never sent")
    func gitSkipsUnsendableRefreshToken() throws {
        let sandbox = try Sandbox()
        // git's reader drops one CR before the newline; the second one is part of the value.
        #expect(
            sandbox.git(
                "store", "protocol=https\nhost=cr.example\nusername=u\npassword=p\noauth_refresh_token=tok\r\r\n\n")
                == nothing)
        #expect(
            git(sandbox, "get", "protocol=https", "host=cr.example")
                == Outcome(
                    status: 0, stdout: "",
                    stderr:
                        "git-credential-keychain: skipped the credential for https://cr.example: its oauth_refresh_token contains "
                        + "a trailing carriage return, which git's credential protocol cannot carry\n"))
    }

    @Test("fault 6: after a skipped credential the next one that git can carry is returned")
    func gitReturnsNextSendableCredential() throws {
        let sandbox = try Sandbox()
        sandbox.security("add-internet-password", "-a", "bad", "-s", "two.example", "-r", "htps", "-w", "a\nb")
        sandbox.security("add-internet-password", "-a", "good", "-s", "two.example", "-r", "htps", "-w", "fine")
        let outcome = git(sandbox, "get", "protocol=https", "host=two.example")
        #expect(outcome.stdout == "username=good\npassword=fine\n")
        #expect(
            outcome.stderr.hasPrefix(
                "git-credential-keychain: skipped the credential for https://two.example: its password"))
        // git's own metadata lines are still returned for the helper's own items.
        #expect(
            git(
                sandbox, "store", "protocol=https", "host=meta.example", "username=u", "password=p",
                "oauth_refresh_token=r") == nothing)
        #expect(
            git(sandbox, "get", "protocol=https", "host=meta.example").stdout
                == "username=u\npassword=p\noauth_refresh_token=r\n")
    }

    // MARK: - 7. set-keychain-password from a pipe

    @Test(
        "fault 7: every pipe form of set-keychain-password on a keychain without a password",
        arguments: [
            (
                "first\nsecond\n", Int32(1),
                "security: set-keychain-password: standard input ended before the confirmation line "
                    + "(expected one line each: old password, empty when there is none; new password; new password again); nothing was changed\n"
            ),
            (
                "\nnew\n", Int32(1),
                "security: set-keychain-password: standard input ended before the confirmation line "
                    + "(expected one line each: old password, empty when there is none; new password; new password again); nothing was changed\n"
            ),
            (
                "", Int32(1),
                "security: set-keychain-password: standard input ended before the old password line "
                    + "(expected one line each: old password, empty when there is none; new password; new password again); nothing was changed\n"
            ),
            (
                "\nnew\nother\n", Int32(1),
                "security: set-keychain-password: the new password and its confirmation differ; nothing was changed\n"
            ),
            ("\n\n\n", Int32(1), "security: set-keychain-password: the new password is empty; nothing was changed\n"),
            (
                "\n" + String(repeating: "n", count: 70_000) + "\n", Int32(1),
                "security: set-keychain-password: the new password line is longer than 65536 bytes; nothing was changed\n"
            ),
            (
                "old\nnew\nnew\n", Int32(51),
                "security: error changing password for \"<NULL>\": The user name or passphrase you entered is not correct.\n"
            ),
        ])
    func setKeychainPasswordRefusedForms(_ stdin: String, _ status: Int32, _ message: String) throws {
        let sandbox = try Sandbox()
        // Leave no class keys in the kernel keyring behind.
        defer { try? Keystore(location: sandbox.location, create: false).withdrawAllClassKeys() }
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "x")
        let before = FileManager.default.contents(atPath: sandbox.location.databasePath)
        #expect(
            sandbox.security("set-keychain-password", stdin: stdin)
                == Outcome(status: status, stdout: "", stderr: message))
        #expect(FileManager.default.contents(atPath: sandbox.location.databasePath) == before)
        #expect(try !Keystore(location: sandbox.location).hasPassword())
    }

    @Test("fault 7: the documented form (old, new, confirmation) sets the password, whatever the state")
    func setKeychainPasswordDocumentedForm() throws {
        let sandbox = try Sandbox()
        // Leave no class keys in the kernel keyring behind.
        defer { try? Keystore(location: sandbox.location, create: false).withdrawAllClassKeys() }
        sandbox.security("add-generic-password", "-a", "a", "-s", "s", "-w", "x")
        #expect(sandbox.security("set-keychain-password", stdin: "\nnew\nnew\n") == nothing)
        sandbox.security("lock-keychain")
        #expect(sandbox.security("unlock-keychain", stdin: "new\n") == nothing)
        // With a password: the same three lines; a missing confirmation changes nothing.
        #expect(sandbox.security("set-keychain-password", stdin: "new\nnewer\n").status == 1)
        #expect(sandbox.security("set-keychain-password", stdin: "new\n\n\n").status == 1)
        #expect(sandbox.security("set-keychain-password", stdin: "new\nnewer\nnewer\n") == nothing)
        // -o and -p take their lines' places.
        #expect(sandbox.security("set-keychain-password", "-o", "newer", stdin: "third\nthird\n") == nothing)
        #expect(sandbox.security("set-keychain-password", "-p", "fourth", stdin: "third\n") == nothing)
        sandbox.security("lock-keychain")
        #expect(sandbox.security("unlock-keychain", stdin: "third\n").status == 51)
        #expect(sandbox.security("unlock-keychain", stdin: "fourth\n") == nothing)
        #expect(sandbox.security("find-generic-password", "-a", "a", "-s", "s", "-w").stdout == "x\n")
    }

    // MARK: - 8. The git helper accepts what git passes

    @Test("fault 8: a 70 KB password and a user name that is not UTF-8 are stored and returned whole")
    func gitAcceptsLongAndNonUTF8Values() throws {
        let sandbox = try Sandbox()
        let long = String(repeating: "t", count: 70_000)
        #expect(
            git(sandbox, "store", "protocol=https", "host=long.example", "username=u", "password=" + long) == nothing)
        #expect(git(sandbox, "get", "protocol=https", "host=long.example").stdout == "username=u\npassword=\(long)\n")
        let user: [UInt8] = [0x75, 0xFF, 0xFE]
        let store = Array("protocol=https\nhost=latin.example\nusername=".utf8) + user + Array("\npassword=p\n\n".utf8)
        #expect(sandbox.git("store", store) == nothing)
        let io = CommandIO(
            input: MemoryInput(Array("protocol=https\nhost=latin.example\n\n".utf8)), environment: sandbox.environment,
            terminal: ScriptedPrompter([]))
        #expect(GitCredentialHelper.run(["get"], io: io, location: sandbox.location) == 0)
        #expect(io.output.bytes == Array("username=".utf8) + user + Array("\npassword=p\n".utf8))
        let withUser = Array("protocol=https\nhost=latin.example\nusername=".utf8) + user + Array("\n\n".utf8)
        #expect(sandbox.git("get", withUser) == Outcome(status: 0, stdout: "password=p\n", stderr: ""))
    }

    @Test("fault 8: a line over the documented 1 MiB limit is refused with a message and nothing is stored")
    func gitRefusesOverLimitLine() throws {
        let sandbox = try Sandbox()
        let password = String(repeating: "x", count: GitCredentialHelper.maximumLineBytes)
        #expect(
            git(sandbox, "store", "protocol=https", "host=big.example", "username=u", "password=" + password)
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "git-credential-keychain: bad input: line 4 is longer than 1048576 bytes, the keychain's limit for a secret\n"
                ))
        #expect(git(sandbox, "get", "protocol=https", "host=big.example") == nothing)
    }
}
