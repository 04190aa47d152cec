import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// Regressions from a new user's trial of the README (non-root; issue 23).
@Suite("new-user trial: install script, helper diagnostics, read failures")
struct NewUserTrialTests {
    /// The checkout's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A sandbox whose `KEYCHAIN_ENTITLEMENTS` names `path`.
    static func entitled(_ path: String) throws -> Sandbox {
        let sandbox = try Sandbox()
        sandbox.environment["KEYCHAIN_ENTITLEMENTS"] = path
        return sandbox
    }

    static let gitCredential = "protocol=https\nhost=example.com\nusername=alice\npassword=pw\n"
    static let dockerCredential = #"{"ServerURL":"https://r.example","Username":"alice","Secret":"pw"}"#

    @Test(
        "tool-sizes: every folder the Makefile's install target writes to is under the prefix, and one trap removes TMPDIR too"
    )
    func toolSizesInstallsOnlyIntoItsPrefix() throws {
        let makefile = try String(contentsOfFile: Self.root + "/Makefile", encoding: .utf8)
        let lines = makefile.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("install:") })
        let recipe = lines[(start + 1)...].prefix { $0.hasPrefix("\t") }
        // The variables whose folders the recipe writes into: "$(VAR)/…" or "$(VAR)" as a destination.
        var destinations = Set<String>()
        for line in recipe {
            var rest = Substring(line)
            while let open = rest.range(of: "\"$(") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let name = rest[..<close]
                // A destination folder's variable, not a function such as `$(abspath …)`.
                if name.allSatisfy({ $0.isUppercase || $0 == "_" }) { destinations.insert(String(name)) }
            }
        }
        #expect(
            destinations == [
                "BINDIR", "DBUS_SERVICES", "SYSTEMD_USER_UNITS", "LIBEXECDIR", "PAMDIR", "PORTALS", "PREFIX",
            ])
        let script = try String(contentsOfFile: Self.root + "/scripts/tool-sizes", encoding: .utf8)
        for variable in destinations {
            #expect(script.contains(" \(variable)=\"$prefix"), "tool-sizes does not put \(variable) under its prefix")
        }
        let traps = script.components(separatedBy: "\n").filter {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("trap ")
        }
        #expect(traps == ["    trap 'rm -rf \"$prefix\" \"$TMPDIR\"' EXIT"])
    }

    @Test("git and docker helpers: a missing entitlements file prints the engine's reason under the status")
    func helpersExplainMissingEntitlementsFile() throws {
        let probe = try Sandbox()
        let missing = probe.directory + "/missing.plist"
        let sandbox = try Self.entitled(missing)
        let reason =
            "cannot read the entitlements file named by KEYCHAIN_ENTITLEMENTS, \(missing): No such file or directory"
        #expect(
            sandbox.git("store", Self.gitCredential)
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "git-credential-keychain: failed to store: A required entitlement isn't present. (-34018)\n"
                        + "git-credential-keychain: \(reason)\n"))
        #expect(
            sandbox.git("get", "protocol=https\nhost=example.com\n")
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "git-credential-keychain: failed to get: A required entitlement isn't present. (-34018)\n"
                        + "git-credential-keychain: \(reason)\n"))
        #expect(
            sandbox.docker("store", stdin: Self.dockerCredential)
                == Outcome(
                    status: 1, stdout: "A required entitlement isn't present. (-34018)\n\(reason)\n", stderr: ""))
    }

    @Test(
        "git and docker helpers: a malformed or wrongly typed entitlements file says it is not a valid entitlements list"
    )
    func helpersExplainInvalidEntitlementsFile() throws {
        let probe = try Sandbox()
        let malformed = probe.directory + "/malformed.plist"
        try Data("<?xml version=\"1.0\"?><plist><dict><key>".utf8).write(to: URL(fileURLWithPath: malformed))
        let wrongType = probe.directory + "/wrong-type.plist"
        try Data(
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                + "<key>keychain-access-groups</key><string>not.an.array</string></dict></plist>\n").utf8
        ).write(to: URL(fileURLWithPath: wrongType))
        let reason = "the entitlements file is not a valid entitlements property list"
        for path in [malformed, wrongType] {
            let sandbox = try Self.entitled(path)
            #expect(
                sandbox.git("store", Self.gitCredential)
                    == Outcome(
                        status: 1, stdout: "",
                        stderr:
                            "git-credential-keychain: failed to store: A required entitlement isn't present. (-34018)\n"
                            + "git-credential-keychain: \(reason)\n"))
            #expect(
                sandbox.docker("get", stdin: "https://r.example")
                    == Outcome(
                        status: 1, stdout: "A required entitlement isn't present. (-34018)\n\(reason)\n", stderr: ""))
        }
    }

    @Test(
        "git and docker helpers: libplist missing is named; not found stays docker's one line; an item's name never printed"
    )
    func helpersReportLibplistMissing() {
        let failure = KeychainFailure(
            .missingEntitlement,
            "cannot read the entitlements file: libplist (Debian libplist3) is not installed: libplist-2.0.so.4: cannot open"
        )
        func report(_ tool: CommandFailure.Tool) -> (Int32, String, String) {
            let io = CommandIO(input: MemoryInput(""), environment: [:], terminal: ScriptedPrompter([]))
            let status = CommandFailure.keychain("get", failure).report(to: tool, io: io)
            return (status, io.output.text, io.error.text)
        }
        #expect(
            report(.gitCredential) == (
                1, "",
                "git-credential-keychain: failed to get: A required entitlement isn't present. (-34018)\n"
                    + "git-credential-keychain: \(failure.detail!)\n"
            ))
        #expect(
            report(.dockerCredential) == (1, "A required entitlement isn't present. (-34018)\n\(failure.detail!)\n", "")
        )
        // Not found: docker compares the whole output with its text, so nothing follows it.
        let io = CommandIO(input: MemoryInput(""), environment: [:], terminal: ScriptedPrompter([]))
        let notFound = CommandFailure.keychain("get", KeychainFailure(.itemNotFound, "no item")).report(
            to: .dockerCredential, io: io)
        #expect((notFound, io.output.text) == (1, "credentials not found in native keychain\n"))
        // A duplicate's detail may name the item: the helpers keep to the status alone.
        #expect(CommandFailure.printedDetail(KeychainFailure(.duplicateItem, "alice at example.com")) == nil)
    }

    @Test("import-passwords and restore-keychain of a folder: `Cannot read d2: Is a directory.`, exit 220")
    func importPasswordsOfFolder() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory + "/d2"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(
            sandbox.security("import-passwords", folder)
                == Outcome(
                    status: 220, stdout: "",
                    stderr: "security: import-passwords \(folder): I/O error. Cannot read \(folder): Is a directory.\n")
        )
        // restore-keychain -i of a folder: the same status and wording for the same failure.
        #expect(
            sandbox.security("restore-keychain", "-i", folder, stdin: "passphrase\n")
                == Outcome(
                    status: 220, stdout: "",
                    stderr: "security: restore-keychain \(folder): I/O error. Cannot read \(folder): Is a directory.\n")
        )
    }

    @Test(
        "transfer reports: a detail starting with a path or a name keeps its case; the engine's words are capitalised")
    func transferDetailCase() {
        func line(_ operation: String, _ failure: KeychainFailure) -> String {
            let io = CommandIO(input: MemoryInput(""), environment: [:], terminal: ScriptedPrompter([]))
            _ = CommandFailure.transfer(operation, failure).report(to: .security(usage: nil), io: io)
            return io.error.text
        }
        #expect(
            line("import-passwords d2", KeychainFailure(.decode, "d2 is shorter than 4096 bytes"))
                == "security: import-passwords d2: Unable to decode the provided data. d2 is shorter than 4096 bytes.\n"
        )
        #expect(
            line("import-passwords passwords", KeychainFailure(.dataTooLarge, "passwords is larger than 64 MiB"))
                .hasSuffix(" passwords is larger than 64 MiB.\n"))
        #expect(
            line("import-passwords my file.csv", KeychainFailure(.decode, "my file.csv is shorter than 9 bytes"))
                .hasSuffix(" my file.csv is shorter than 9 bytes.\n"))
        #expect(
            line("restore-keychain b", KeychainFailure(.duplicateKeychain, "login.keychain-db already exists"))
                .hasSuffix(" login.keychain-db already exists.\n"))
        #expect(
            line("restore-keychain c", KeychainFailure(.io, "cannot read c: Is a directory"))
                == "security: restore-keychain c: I/O error. Cannot read c: Is a directory.\n")
        #expect(
            line("restore-keychain f", KeychainFailure(.decode, "the backup is damaged"))
                == "security: restore-keychain f: Unable to decode the provided data. The backup is damaged.\n")
    }

    @Test("security import: the read failure's own strerror, as macOS prints it")
    func importReportsReadError() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory + "/certs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(
            sandbox.security("import", folder)
                == Outcome(status: 1, stdout: "", stderr: "security: Error reading infile \(folder): Is a directory\n"))
        let missing = sandbox.directory + "/missing.pem"
        #expect(
            sandbox.security("import", missing)
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "security: Error reading infile \(missing): No such file or directory\n"))
        // Root reads a mode-000 file: the permission case only applies to other users.
        guard geteuid() != 0 else { return }
        let unreadable = sandbox.directory + "/unreadable.pem"
        try Data("x".utf8).write(to: URL(fileURLWithPath: unreadable))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: unreadable)
        #expect(
            sandbox.security("import", unreadable)
                == Outcome(
                    status: 1, stdout: "", stderr: "security: Error reading infile \(unreadable): Permission denied\n"))
    }

    @Test("docker store: the last ServerURL/Username/Secret member in any case counts, as Go's encoding/json")
    func dockerLastMemberWins() throws {
        let sandbox = try Sandbox()
        let json = #"{"ServerURL":"https://a.example","serverurl":"https://b.example","Username":"u","Secret":"s"}"#
        #expect(sandbox.docker("store", stdin: json).status == 0)
        #expect(sandbox.docker("list").stdout == #"{"https://b.example":"u"}"# + "\n")
    }
}
