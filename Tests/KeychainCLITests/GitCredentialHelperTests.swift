import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

@Suite("git-credential-keychain")
struct GitCredentialHelperTests {
    let credential = "protocol=https\nhost=example.com:8443\nusername=alice\npassword=s3cr3t\n\n"

    @Test("store then get returns the password, and the username when git did not send one")
    func roundTrip() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.git("store", credential) == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            sandbox.git("get", "protocol=https\nhost=example.com:8443\n\n")
                == Outcome(status: 0, stdout: "username=alice\npassword=s3cr3t\n", stderr: ""))
        #expect(
            sandbox.git("get", "protocol=https\nhost=example.com:8443\nusername=alice\n")
                == Outcome(status: 0, stdout: "password=s3cr3t\n", stderr: ""))
    }

    @Test("the item is an internet password mapped as git-credential-osxkeychain maps it")
    func mapping() throws {
        let sandbox = try Sandbox()
        sandbox.git("store", "protocol=https\nhost=example.com:8443\npath=org/repo.git\nusername=alice\npassword=p\n")
        let found = sandbox.security(
            "find-internet-password", "-s", "example.com", "-P", "8443", "-r", "htps", "-t", "dflt", "-a", "alice",
            "-p", "org/repo.git", "-w")
        #expect(found == Outcome(status: 0, stdout: "p\n", stderr: ""))
    }

    @Test(
        "values keep every '=' after the first and round-trip spaces and non-ASCII",
        arguments: [
            "a=b=c", "with spaces", "pässwörd ✓", "ends with =",
        ])
    func values(_ password: String) throws {
        let sandbox = try Sandbox()
        sandbox.git("store", "protocol=https\nhost=h\nusername=u\npassword=\(password)\n")
        #expect(sandbox.git("get", "protocol=https\nhost=h\n").stdout == "username=u\npassword=\(password)\n")
    }

    @Test("password_expiry_utc and oauth_refresh_token are kept with the secret and returned")
    func metadata() throws {
        let sandbox = try Sandbox()
        sandbox.git(
            "store",
            "protocol=https\nhost=h\nusername=u\npassword=p\npassword_expiry_utc=1700000000\noauth_refresh_token=r=t\n")
        #expect(
            sandbox.git("get", "protocol=https\nhost=h\n").stdout
                == "username=u\npassword=p\npassword_expiry_utc=1700000000\noauth_refresh_token=r=t\n")
        let secret = sandbox.security("find-internet-password", "-s", "h", "-g").stderr
        #expect(
            secret == "password: 0x"
                + Array("p\npassword_expiry_utc=1700000000\noauth_refresh_token=r=t".utf8)
                .map { String(format: "%02X", $0) }.joined()
                + "  \"p\\012password_expiry_utc=1700000000\\012oauth_refresh_token=r=t\"\n")
    }

    @Test("store updates an existing credential instead of failing")
    func update() throws {
        let sandbox = try Sandbox()
        sandbox.git("store", credential)
        #expect(
            sandbox.git("store", "protocol=https\nhost=example.com:8443\nusername=alice\npassword=new\n").status == 0)
        #expect(
            sandbox.git("get", "protocol=https\nhost=example.com:8443\n").stdout == "username=alice\npassword=new\n")
        #expect(sandbox.security("dump-keychain").stdout.components(separatedBy: "class: \"inet\"").count == 2)
    }

    @Test("get without a host prints nothing and exits 0")
    func noHost() throws {
        let sandbox = try Sandbox()
        sandbox.git("store", credential)
        #expect(sandbox.git("get", "protocol=https\n\n") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(sandbox.git("get", "") == Outcome(status: 0, stdout: "", stderr: ""))
    }

    @Test("protocols osxkeychain does not handle are ignored silently")
    func otherProtocols() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.git("store", "protocol=cert\nhost=h\nusername=u\npassword=p\n")
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(sandbox.security("dump-keychain").stdout == "")
    }

    @Test("erase with a password removes only a matching one")
    func erase() throws {
        let sandbox = try Sandbox()
        sandbox.git("store", credential)
        #expect(
            sandbox.git("erase", "protocol=https\nhost=example.com:8443\nusername=alice\npassword=wrong\n").status == 0)
        #expect(sandbox.git("get", "protocol=https\nhost=example.com:8443\n").stdout.contains("password=s3cr3t"))
        #expect(
            sandbox.git("erase", "protocol=https\nhost=example.com:8443\nusername=alice\npassword=s3cr3t\n").status == 0
        )
        #expect(
            sandbox.git("get", "protocol=https\nhost=example.com:8443\n") == Outcome(status: 0, stdout: "", stderr: ""))
        sandbox.git("store", credential)
        #expect(sandbox.git("erase", "protocol=https\nhost=example.com:8443\n").status == 0)
        #expect(sandbox.git("get", "protocol=https\nhost=example.com:8443\n").stdout == "")
    }

    @Test("malformed input is rejected on stderr, never read as another field, and never echoes the value")
    func malformed() throws {
        let sandbox = try Sandbox()
        let noEquals = sandbox.git("store", "protocol=https\nhost=h\nusername=u\nhunter2\npassword=p\n")
        #expect(
            noEquals
                == Outcome(status: 1, stdout: "", stderr: "git-credential-keychain: bad input: line 4 has no '='\n"))
        let nul = sandbox.git("store", Array("protocol=https\nhost=h\nusername=u\npassword=a\u{0}host=evil\n".utf8))
        #expect(
            nul
                == Outcome(
                    status: 1, stdout: "", stderr: "git-credential-keychain: bad input: line 4 contains a NUL byte\n"))
        let long = sandbox.git(
            "store", "protocol=https\nhost=h\nusername=u\npassword=" + String(repeating: "x", count: 1 << 20) + "\n")
        #expect(
            long
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "git-credential-keychain: bad input: line 4 is longer than 1048576 bytes, the keychain's limit for a secret\n"
                ))
        #expect(sandbox.security("dump-keychain").stdout == "")
    }

    @Test(
        "a host whose port is digits outside 1-65535 is malformed input: exit 1, nothing stored (new-user trial)",
        arguments: [
            "p.example:99999", "p.example:65536", "p.example:0", "[::1]:70000", "p.example:99999999999999999999",
        ])
    func portOutOfRange(_ host: String) throws {
        let sandbox = try Sandbox()
        let message = "git-credential-keychain: bad input: the port in host on line 2 is not a number from 1 to 65535\n"
        for action in ["store", "get", "erase"] {
            #expect(
                sandbox.git(action, "protocol=https\nhost=\(host)\nusername=u\npassword=pw\n")
                    == Outcome(status: 1, stdout: "", stderr: message))
        }
        #expect(sandbox.security("dump-keychain").stdout == "")
    }

    @Test("ports 1 and 65535 are kept apart from the host, with or without brackets")
    func portBounds() throws {
        let sandbox = try Sandbox()
        for host in ["p.example:1", "p.example:65535", "[::1]:65535"] {
            #expect(sandbox.git("store", "protocol=https\nhost=\(host)\nusername=u\npassword=\(host)\n").status == 0)
            #expect(sandbox.git("get", "protocol=https\nhost=\(host)\n").stdout == "username=u\npassword=\(host)\n")
        }
        #expect(
            sandbox.security("find-internet-password", "-s", "p.example", "-P", "65535", "-w").stdout
                == "p.example:65535\n")
        #expect(
            sandbox.security("find-internet-password", "-s", "[::1]", "-P", "65535", "-w").stdout == "[::1]:65535\n")
    }

    @Test("a CR before the newline is removed, as git's strbuf_getline does")
    func crlf() throws {
        let sandbox = try Sandbox()
        sandbox.git("store", "protocol=https\r\nhost=h\r\nusername=u\r\npassword=p\r\n\r\n")
        #expect(sandbox.git("get", "protocol=https\nhost=h\n").stdout == "username=u\npassword=p\n")
    }

    @Test("with capability[]=state, get marks the credential seen and store skips a seen one")
    func state() throws {
        let sandbox = try Sandbox()
        sandbox.git("store", credential)
        #expect(
            sandbox.git("get", "capability[]=state\nprotocol=https\nhost=example.com:8443\n").stdout
                == "username=alice\npassword=s3cr3t\ncapability[]=state\nstate[]=keychain:seen=1\n")
        sandbox.git(
            "store", "protocol=https\nhost=example.com:8443\nusername=alice\npassword=other\nstate[]=keychain:seen=1\n")
        #expect(sandbox.git("get", "protocol=https\nhost=example.com:8443\n").stdout.contains("password=s3cr3t"))
    }

    @Test("no action prints git's usage line and exits 1; unknown actions are ignored")
    func usage() throws {
        let sandbox = try Sandbox()
        let io = CommandIO(input: MemoryInput(""), environment: sandbox.environment, terminal: ScriptedPrompter([]))
        #expect(GitCredentialHelper.run([], io: io, location: sandbox.location) == 1)
        #expect(io.error.text == "usage: git credential-keychain <get|store|erase>\n")
        #expect(sandbox.git("frob", credential) == Outcome(status: 0, stdout: "", stderr: ""))
    }

    @Test("--help and -h print the usage on stdout and exit 0 without reading input", arguments: ["--help", "-h"])
    func help(_ flag: String) throws {
        let sandbox = try Sandbox()
        // Input that would be rejected as malformed if it were read.
        let outcome = sandbox.git(flag, "not a credential line\n")
        #expect(outcome == Outcome(status: 0, stdout: GitCredentialHelper.help, stderr: ""))
        #expect(outcome.stdout.hasPrefix("usage: git credential-keychain <get|store|erase>\n"))
        #expect(outcome.stdout.contains("git config --global credential.helper keychain"))
    }

    @Test("an unknown action is still ignored silently, even one that looks like an option (git's rule)")
    func unknownOption() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.git("--frob", credential) == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(sandbox.git("capability", credential) == Outcome(status: 0, stdout: "", stderr: ""))
    }
}
