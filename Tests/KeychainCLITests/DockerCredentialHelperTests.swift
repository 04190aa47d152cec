import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

@Suite("docker-credential-keychain")
struct DockerCredentialHelperTests {
    func store(_ sandbox: Sandbox, _ url: String, _ user: String = "hello", _ secret: String = "world") {
        let outcome = sandbox.docker(
            "store", stdin: "{\"ServerURL\":\"\(url)\",\"Username\":\"\(user)\",\"Secret\":\"\(secret)\"}")
        #expect(outcome == Outcome(status: 0, stdout: "", stderr: ""))
    }

    @Test("store then get prints docker's JSON with a newline")
    func roundTrip() throws {
        let sandbox = try Sandbox()
        store(sandbox, "https://foobar.docker.io:2376/v1", "foobar", "foobarbaz")
        #expect(
            sandbox.docker("get", stdin: "https://foobar.docker.io:2376/v1\n")
                == Outcome(
                    status: 0,
                    stdout:
                        "{\"ServerURL\":\"https://foobar.docker.io:2376/v1\",\"Username\":\"foobar\",\"Secret\":\"foobarbaz\"}\n",
                    stderr: ""))
    }

    @Test("not found prints exactly docker's message to stdout and exits 1")
    func notFound() throws {
        let sandbox = try Sandbox()
        let expected = Outcome(status: 1, stdout: "credentials not found in native keychain\n", stderr: "")
        #expect(sandbox.docker("get", stdin: "https://adsfasdf.invalid/asdfsdddd") == expected)
        #expect(sandbox.docker("erase", stdin: "https://adsfasdf.invalid/asdfsdddd") == expected)
    }

    @Test("store without a server URL or username fails with docker's messages")
    func invalid() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.docker("store", stdin: "{\"Username\":\"u\",\"Secret\":\"s\"}")
                == Outcome(status: 1, stdout: "no credentials server URL\n", stderr: ""))
        #expect(
            sandbox.docker("store", stdin: "{\"ServerURL\":\"https://x.io\",\"Secret\":\"s\"}")
                == Outcome(status: 1, stdout: "no credentials username\n", stderr: ""))
        #expect(
            sandbox.docker("get", stdin: "  \n")
                == Outcome(status: 1, stdout: "no credentials server URL\n", stderr: ""))
    }

    @Test("JSON keys match case-insensitively, as Go's decoder matches them")
    func caseInsensitive() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.docker("store", stdin: "{\"serverurl\":\"x.io\",\"username\":\"u\",\"secret\":\"s\"}").status == 0)
        #expect(
            sandbox.docker("get", stdin: "x.io").stdout
                == "{\"ServerURL\":\"x.io\",\"Username\":\"u\",\"Secret\":\"s\"}\n")
    }

    @Test(
        "stored URLs are found through osxkeychain's aliases",
        arguments: [
            ("https://foobar.docker.io:2376", "https://foobar.docker.io"),
            ("https://foobar.docker.io:2376", "foobar.docker.io"),
            ("https://foobar.docker.io:1234/one/two", "https://foobar.docker.io:1234"),
        ])
    func aliases(_ stored: String, _ read: String) throws {
        let sandbox = try Sandbox()
        store(sandbox, stored)
        #expect(sandbox.docker("get", stdin: read).status == 0)
    }

    @Test(
        "matching is strict on protocol, port and path, as osxkeychain's tests require",
        arguments: [
            ("https://foobar.docker.io:2376", "http://foobar.docker.io:2376"),
            ("http://foobar.docker.io:2376", "https://foobar.docker.io:2376"),
            ("http://foobar.docker.io", "foobar.docker.io:5678"),
            ("https://foobar.docker.io:1234", "https://foobar.docker.io:5678"),
            ("https://foobar.docker.io:1234/one/two", "https://foobar.docker.io:1234/five/six"),
        ])
    func strict(_ stored: String, _ read: String) throws {
        let sandbox = try Sandbox()
        store(sandbox, stored)
        #expect(
            sandbox.docker("get", stdin: read)
                == Outcome(status: 1, stdout: "credentials not found in native keychain\n", stderr: ""))
    }

    @Test("each URL reads back its own credential after later stores (osxkeychain StoreRetrieve)")
    func storeRetrieve() throws {
        let sandbox = try Sandbox()
        let urls = [
            "foobar.docker.io", "foobar.docker.io:2376", "//foobar.docker.io:2376", "https://foobar.docker.io:2376",
            "http://foobar.docker.io:2376", "https://foobar.docker.io:2376/some/path",
            "https://foobar.docker.io:2376/some/other/path", "https://foobar.docker.io:2376/some/other/path?foo=bar",
        ]
        for (index, url) in urls.enumerated() {
            store(sandbox, url, "user-\(index)", "secret-\(index)")
            #expect(
                sandbox.docker("get", stdin: url).stdout
                    == "{\"ServerURL\":\"\(url)\",\"Username\":\"user-\(index)\",\"Secret\":\"secret-\(index)\"}\n")
        }
    }

    @Test("a new username for the same URL replaces the old credential")
    func replace() throws {
        let sandbox = try Sandbox()
        store(sandbox, "https://r.io", "old", "1")
        store(sandbox, "https://r.io", "new", "2")
        #expect(
            sandbox.docker("get", stdin: "https://r.io").stdout
                == "{\"ServerURL\":\"https://r.io\",\"Username\":\"new\",\"Secret\":\"2\"}\n")
        #expect(sandbox.docker("list").stdout == "{\"https://r.io\":\"new\"}\n")
    }

    @Test("list prints server URL to username for Docker Credentials items only; erase removes")
    func listAndErase() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.docker("list") == Outcome(status: 0, stdout: "{}\n", stderr: ""))
        store(sandbox, "https://foobar.docker.io:2376/v1", "foobar")
        store(sandbox, "https://b.io", "bee")
        sandbox.security("add-internet-password", "-a", "x", "-s", "other.io", "-r", "htps", "-w", "p")
        #expect(
            sandbox.docker("list").stdout
                == "{\"https://b.io\":\"bee\",\"https://foobar.docker.io:2376/v1\":\"foobar\"}\n")
        #expect(
            sandbox.security("find-internet-password", "-s", "b.io").stdout.contains(
                "0x00000007 <blob>=\"Docker Credentials\"\n"))
        #expect(sandbox.docker("erase", stdin: "https://b.io") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(sandbox.docker("list").stdout == "{\"https://foobar.docker.io:2376/v1\":\"foobar\"}\n")
    }

    @Test("secrets are escaped as Go's encoding/json escapes them")
    func escaping() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.docker(
                "store", stdin: "{\"ServerURL\":\"x.io\",\"Username\":\"u\",\"Secret\":\"a\\\"<&>\\n\\u00e9\"}"
            ).status == 0)
        #expect(
            sandbox.docker("get", stdin: "x.io").stdout
                == "{\"ServerURL\":\"x.io\",\"Username\":\"u\",\"Secret\":\"a\\\"\\u003c\\u0026\\u003e\\né\"}\n")
    }

    @Test("version, usage and unknown actions")
    func misc() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.docker("version")
                == Outcome(status: 0, stdout: "docker-credential-keychain (swift-keychain) 0.1.0\n", stderr: ""))
        #expect(
            sandbox.docker()
                == Outcome(
                    status: 1, stdout: "Usage: docker-credential-keychain <store|get|erase|list|version>\n", stderr: "")
        )
        #expect(sandbox.docker("frob") == Outcome(status: 1, stdout: "Unknown credential action `frob`\n", stderr: ""))
        for flag in ["--help", "-h"] {
            let help = sandbox.docker(flag, stdin: "not read")
            #expect(help == Outcome(status: 0, stdout: DockerCredentialHelper.help, stderr: ""))
            #expect(help.stdout.hasPrefix("Usage: docker-credential-keychain <store|get|erase|list|version>\n"))
        }
        #expect(
            sandbox.docker("store", stdin: "{\"ServerURL\":\"ftp://x.io\",\"Username\":\"u\"}")
                == Outcome(status: 1, stdout: "unsupported scheme: ftp\n", stderr: ""))
    }

    @Test(
        "a secret is escaped from its bytes exactly as the String encoder escapes it, invalid UTF-8 included",
        arguments: [
            Array("plain".utf8), Array("q\"b\\<>&\n\r\t\u{08}\u{0C}\u{01}\u{2028}é😀".utf8), [0xFF, 0x41, 0xC3],
            [0xE2, 0x82], [0xF0, 0x9F, 0x98], [],
        ] as [[UInt8]])
    func secretEscapedFromBytes(_ bytes: [UInt8]) {
        var output: [UInt8] = []
        bytes.withUnsafeBytes { GoJSON.append(utf8: $0, to: &output) }
        #expect(output == Array(GoJSON.string(String(decoding: bytes, as: UTF8.self)).utf8))
    }

    /// What `store` decodes from `json`: the credentials, or the message it fails with.
    func decoded(_ json: [UInt8]) -> Result<DockerCredentials, CommandFailure> {
        Result { () throws(CommandFailure) in try DockerCredentials.decode(json) }
    }

    func message(_ result: Result<DockerCredentials, CommandFailure>) -> String? {
        guard case .failure(.message(let text, status: 1)) = result else { return nil }
        return text
    }

    @Test(
        "the secret is decoded from the JSON bytes as JSONDecoder decodes a String, and refused where it refuses",
        arguments: [
            #""plain""#, #""a\"b\\c\/d\be\ff\ng\rh\ti""#, #""\u00e9\ud83d\ude00é😀""#, #""\u0000""#, #""""#,
            #""\ud800""#, #""\udc00""#, #""\ud800x""#, #""\x""#, #""\u12""#, "\"a\u{01}b\"", "12", "true", "[\"a\"]",
        ])
    func secretDecodedFromBytes(_ literal: String) throws {
        let expected = try? JSONDecoder().decode([String: String].self, from: Data("{\"Secret\":\(literal)}".utf8))[
            "Secret"]
        let json = Array("{\"ServerURL\":\"x.io\",\"Username\":\"u\",\"Secret\":\(literal)}".utf8)
        let secret = try? decoded(json).get().secret
        #expect(secret.map { $0.withUnsafeBytes { Array($0) } } == expected.map { Array($0.utf8) })
    }

    @Test("invalid UTF-8 in the secret is refused, as JSONDecoder refuses it")
    func secretInvalidUTF8() throws {
        let secret = Array("{\"Secret\":\"a".utf8) + [0xFF] + Array("\"}".utf8)
        #expect((try? JSONDecoder().decode([String: String].self, from: Data(secret))) == nil)
        let json = Array("{\"ServerURL\":\"x.io\",\"Username\":\"u\",\"Secret\":\"a".utf8) + [0xFF] + Array("\"}".utf8)
        #expect(message(decoded(json)) == "invalid character in the credentials JSON")
    }

    @Test("members: names decoded, nested values skipped, the later of two identical names kept as Go keeps it")
    func members() throws {
        let json = Array(
            #" { "a" : {"Secret":"no","x":[1,"}"]}, "Secr\u0065t":"yes" , "ServerURL": "x.io", "Secret":"later", "n": 12, "Username":"u" } "#
                .utf8)
        let credentials = try decoded(json).get()
        #expect(credentials.serverURL == "x.io")
        #expect(credentials.username == "u")
        #expect(credentials.secret.withUnsafeBytes { Array($0) } == Array("later".utf8))
    }

    @Test(
        "every member matching a field in any case is assigned in order, so the last counts, as Go's encoding/json does",
        arguments: [
            (#"{"secret":"low","Secret":"exact","ServerURL":"x.io","Username":"u"}"#, "exact"),
            (#"{"Secret":"exact","secret":"low","ServerURL":"x.io","Username":"u"}"#, "low"),
            (#"{"SECRET":"first","secret":"second","serverURL":"x.io","USERNAME":"u"}"#, "second"),
            (#"{"Secret":null,"secret":"set","ServerURL":"x.io","Username":"u"}"#, "set"),
            (#"{"Secret":"set","secret":null,"ServerURL":"x.io","Username":"u"}"#, "set"),
            (#"{"Secret":"a","ſecret":"long s","ServerURL":"x.io","Username":"u"}"#, "long s"),
            (#"{"Secret":"a","secreTß":"not a field","ServerURL":"x.io","Username":"u"}"#, "a"),
            (#"{"ServerURL":"x.io","Username":"u"}"#, ""),
        ])
    func memberCase(_ json: String, _ secret: String) throws {
        let credentials = try decoded(Array(json.utf8)).get()
        #expect(credentials.secret.withUnsafeBytes { Array($0) } == Array(secret.utf8))
    }

    @Test("ServerURL and Username: the last member in any case counts (trial: serverurl after ServerURL was dropped)")
    func lastServerURLAndUsernameWin() throws {
        let json =
            #"{"ServerURL":"https://a.example","serverurl":"https://b.example","USERNAME":"x","Username":"y","Secret":"s"}"#
        let credentials = try decoded(Array(json.utf8)).get()
        #expect(credentials.serverURL == "https://b.example")
        #expect(credentials.username == "y")
        #expect(DockerCredentials.goFold("ServerURL") == "SERVERURL")
        #expect(DockerCredentials.goFold("\u{17F}ecret\u{212A}\u{DF}") == "SECRETK\u{DF}")
    }

    @Test(
        "store's JSON errors keep their messages",
        arguments: [
            ("", "EOF"), (" ", "invalid character in the credentials JSON"),
            ("{", "invalid character in the credentials JSON"), ("[]", "invalid character in the credentials JSON"),
            ("\"x\"", "invalid character in the credentials JSON"),
            (#"{"ServerURL":"x.io","Username":"u"} {}"#, "invalid character in the credentials JSON"),
            (
                #"{"ServerURL":1,"Username":"u"}"#,
                "json: cannot unmarshal a non-string into Go struct field Credentials.ServerURL of type string"
            ),
            (
                #"{"ServerURL":"x.io","username":[]}"#,
                "json: cannot unmarshal a non-string into Go struct field Credentials.Username of type string"
            ),
            (#"{"ServerURL":"","Username":"u"}"#, "no credentials server URL"),
            (#"{"ServerURL":"x.io","Username":null}"#, "no credentials username"),
        ])
    func jsonErrors(_ json: String, _ expected: String) {
        #expect(message(decoded(Array(json.utf8))) == expected)
    }

    @Test(
        "registry URLs split as registryurl.Parse splits them, and their list key parses back to them",
        arguments: [
            ("https://[::1]:5000/v2", RegistryURL(scheme: "https", host: "[::1]", port: 5000, path: "/v2")),
            ("registry.example:5000", RegistryURL(scheme: "", host: "registry.example", port: 5000, path: "")),
            ("//registry.example:0", RegistryURL(scheme: "", host: "registry.example", port: 0, path: "")),
            (
                "HTTP://Reg.Example/%7Euser/",
                RegistryURL(scheme: "http", host: "reg.example", port: nil, path: "/~user/")
            ),
            ("https://u:p@r.example/?q#f", RegistryURL(scheme: "https", host: "r.example", port: nil, path: "")),
            ("r.example:65535/a%zz", RegistryURL(scheme: "", host: "r.example", port: 65535, path: "/a%zz")),
        ])
    func registryURLs(_ text: String, _ expected: RegistryURL) throws {
        #expect(try RegistryURL(text) == expected)
        var https = expected
        if https.scheme.isEmpty { https.scheme = "https" }
        #expect(try RegistryURL(expected.key) == https)
    }

    @Test(
        "registry URLs that do not parse fail with net/url's messages",
        arguments: [
            ("ftp://x.io", "unsupported scheme: ftp"), ("1a://x.io", "unsupported scheme: 1a"),
            ("https://", "no hostname in URL"), ("https://[]/", "no hostname in URL"), ("/path", "no hostname in URL"),
            ("https://r.example:65536", "invalid port \":65536\" after host"),
            ("r.example:80a", "invalid port \":80a\" after host"),
            ("https://[::1]x", "invalid port \"x\" after host"), ("https://[::1", "missing ']' in host"),
            ("fe80::1", "invalid port \"::1\" after host"),
        ])
    func registryURLErrors(_ text: String, _ expected: String) {
        do throws(CommandFailure) {
            _ = try RegistryURL(text)
            Issue.record("\(text) parsed")
        } catch {
            guard case .message(let message, status: 1) = error else { Issue.record("\(error)"); return }
            #expect(message == expected)
        }
    }

    @Test("a secret that is not a string is refused with Go's message")
    func secretNotAString() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.docker("store", stdin: #"{"ServerURL":"x.io","Username":"u","Secret":12}"#)
                == Outcome(
                    status: 1,
                    stdout:
                        "json: cannot unmarshal a non-string into Go struct field Credentials.Secret of type string\n",
                    stderr: ""))
    }
}
