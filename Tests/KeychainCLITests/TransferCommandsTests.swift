import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// `security backup-keychain`, `restore-keychain`, `import-passwords` and `export-passwords`
/// (tracker issue 6): exact output, exit statuses, file modes, and restores onto another installation.
@Suite("security backup, restore, import and export")
struct TransferCommandsTests {
    let passphrase = "backup passphrase\n"

    /// Two migratable items through the CLI and one ThisDeviceOnly item through the engine.
    func populate(_ sandbox: Sandbox) throws {
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret").status == 0)
        #expect(sandbox.security("add-internet-password", "-a", "me", "-s", "example.com", "-w", "hunter2").status == 0)
        let store = try Keystore(location: sandbox.location)
        _ = try store.add(
            .genericPassword,
            attributes: [
                "agrp": .string(ApplicationIdentity.unsignedAccessGroup), "svce": .string("local"),
                "acct": .string("me"), "pdmn": .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue),
            ],
            secret: SecureBytes(copying: Array("device-bound".utf8)))
    }

    func backupReport(_ path: String, items: Int, migratable: Int, deviceBound: Int, secretService: Int = 0) -> String {
        """
        backed up \(items) items to \(path) (\(FileSystem.size(path) ?? -1) bytes)
            restore onto any installation: \(migratable)
            ThisDeviceOnly, restore onto this installation only: \(deviceBound)
            WhenPasscodeSetThisDeviceOnly, never backed up: 0
            Secret Service items, restore onto any installation: \(secretService)

        """
    }

    func restoreReport(
        _ path: String, restored: Int, of items: Int, secretService: Int = 0, replaced: Int = 0, existing: Int = 0,
        thisDeviceOnly: Int = 0
    ) -> String {
        """
        restored \(restored) of \(items) items from \(path)
            of them Secret Service items: \(secretService)
            replaced existing items: \(replaced)
            skipped, already in the keychain: \(existing)
            skipped, ThisDeviceOnly from another installation: \(thisDeviceOnly)

        """
    }

    func makeBackup(_ sandbox: Sandbox) throws -> String {
        try populate(sandbox)
        let path = sandbox.directory + "/login.swkcbackup"
        let outcome = sandbox.security("backup-keychain", "-o", path, stdin: passphrase)
        #expect(
            outcome
                == Outcome(status: 0, stdout: backupReport(path, items: 3, migratable: 2, deviceBound: 1), stderr: ""))
        return path
    }

    // MARK: - backup-keychain

    @Test("backup-keychain reads the passphrase from standard input, writes a 0600 file and reports counts only")
    func backupFromStandardInput() throws {
        let sandbox = try Sandbox()
        let path = try makeBackup(sandbox)
        #expect(FileSystem.permissions(path) == 0o600)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.prefix(8) == Data("SWKCBKUP".utf8))
        for secret in ["s3cret", "hunter2", "device-bound", "backup passphrase"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil)
        }
    }

    @Test("backup-keychain on a terminal asks twice; three mismatches exit 1 and write nothing")
    func backupOnTerminal() throws {
        let sandbox = try Sandbox()
        try populate(sandbox)
        let path = sandbox.directory + "/b.swkcbackup"
        let mismatch = ScriptedPrompter(["a", "b", "c", "d", "e", "f"])
        #expect(
            sandbox.security("backup-keychain", "-o", path, terminal: true, prompter: mismatch)
                == Outcome(status: 1, stdout: "", stderr: String(repeating: "passphrases don't match\n", count: 3)))
        #expect(
            mismatch.prompts
                == Array(repeating: ["backup passphrase: ", "retype backup passphrase: "], count: 3).flatMap { $0 })
        #expect(!FileSystem.exists(path))
        let matching = ScriptedPrompter(["pw", "pw"])
        let outcome = sandbox.security("backup-keychain", "-o", path, terminal: true, prompter: matching)
        #expect(
            outcome
                == Outcome(status: 0, stdout: backupReport(path, items: 3, migratable: 2, deviceBound: 1), stderr: ""))
    }

    @Test("backup-keychain never replaces a file without -f (exit 45); no passphrase is cancelled (exit 128)")
    func backupExistingFileAndCancel() throws {
        let sandbox = try Sandbox()
        let path = try makeBackup(sandbox)
        let before = FileManager.default.contents(atPath: path)
        #expect(
            sandbox.security("backup-keychain", "-o", path, stdin: passphrase)
                == Outcome(
                    status: 45, stdout: "",
                    stderr: "security: backup-keychain \(path): The file already exists; -f replaces it.\n"))
        #expect(FileManager.default.contents(atPath: path) == before)
        #expect(
            sandbox.security("backup-keychain", "-f", "-o", path, stdin: passphrase)
                == Outcome(status: 0, stdout: backupReport(path, items: 3, migratable: 2, deviceBound: 1), stderr: ""))
        #expect(FileManager.default.contents(atPath: path) != before)
        let other = sandbox.directory + "/other.swkcbackup"
        #expect(
            sandbox.security("backup-keychain", "-o", other, stdin: "")
                == Outcome(
                    status: 128, stdout: "",
                    stderr: "security: backup-keychain \(other): User canceled the operation.\n"))
        #expect(
            sandbox.security("backup-keychain", "-o", other, stdin: "\n")
                == Outcome(
                    status: 206, stdout: "",
                    stderr:
                        "security: backup-keychain \(other): One or more parameters passed to a function were not valid. "
                        + "The backup passphrase is empty.\n"))
        #expect(!FileSystem.exists(other))
    }

    @Test("backup-keychain of a locked keychain exits 36 and writes nothing")
    func backupLocked() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("create-keychain", "work", stdin: "pw\n").status == 0)
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "api", "-w", "x", "work").status == 0)
        #expect(sandbox.security("lock-keychain", "work").status == 0)
        let path = sandbox.directory + "/work.swkcbackup"
        let outcome = sandbox.security("backup-keychain", "-o", path, "work", stdin: passphrase)
        #expect(outcome.status == 36)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.hasPrefix("security: backup-keychain \(path): User interaction is not allowed."))
        #expect(!FileSystem.exists(path))
        // Refused before the passphrase is asked for: with no input at all, the same refusal, not a
        // complaint about a missing passphrase.
        let unasked = sandbox.security("backup-keychain", "-o", path, "work", stdin: "")
        #expect(unasked == outcome)
    }

    // MARK: - restore-keychain

    @Test("restore-keychain follows --policy: skip keeps existing items, replace replaces them, fail changes nothing")
    func restorePolicies() throws {
        let sandbox = try Sandbox()
        let path = try makeBackup(sandbox)
        #expect(
            sandbox.security("restore-keychain", "-i", path, stdin: passphrase)
                == Outcome(status: 0, stdout: restoreReport(path, restored: 0, of: 3, existing: 3), stderr: ""))
        #expect(
            sandbox.security("restore-keychain", "-i", path, "--policy", "replace", stdin: passphrase)
                == Outcome(status: 0, stdout: restoreReport(path, restored: 3, of: 3, replaced: 3), stderr: ""))
        #expect(sandbox.security("delete-generic-password", "-s", "api").status == 0)
        #expect(
            sandbox.security("restore-keychain", "-i", path, "--policy=fail", stdin: passphrase)
                == Outcome(
                    status: 45, stdout: "",
                    stderr: "security: restore-keychain \(path): The specified item already exists in the keychain. "
                        + "An item with the same primary key is already in the keychain.\n"))
        #expect(sandbox.security("find-generic-password", "-s", "api").status == 44)
        #expect(
            sandbox.security("restore-keychain", "-i", path, stdin: passphrase)
                == Outcome(status: 0, stdout: restoreReport(path, restored: 1, of: 3, existing: 2), stderr: ""))
        #expect(sandbox.security("find-generic-password", "-s", "api", "-w").stdout == "s3cret\n")
        #expect(sandbox.security("find-generic-password", "-s", "local", "-w").stdout == "device-bound\n")
        let bad = sandbox.security("restore-keychain", "-i", path, "--policy", "merge")
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("security: unknown policy: merge\nUsage: restore-keychain "))
    }

    @Test(
        "restore-keychain onto another installation restores migratable items and counts the skipped ThisDeviceOnly ones"
    )
    func restoreOnAnotherInstallation() throws {
        let old = try Sandbox()
        let path = try makeBackup(old)
        let new = try Sandbox()  // another XDG_STATE_HOME: another device key; no login keychain yet
        #expect(new.environment["XDG_STATE_HOME"] != old.environment["XDG_STATE_HOME"])
        #expect(!FileSystem.exists(new.location.databasePath))
        #expect(
            new.security("restore-keychain", "-i", path, stdin: passphrase)
                == Outcome(status: 0, stdout: restoreReport(path, restored: 2, of: 3, thisDeviceOnly: 1), stderr: ""))
        #expect(new.security("find-generic-password", "-a", "me", "-s", "api", "-w").stdout == "s3cret\n")
        #expect(new.security("find-internet-password", "-s", "example.com", "-w").stdout == "hunter2\n")
        #expect(new.security("find-generic-password", "-s", "local").status == 44)
        // Restoring again: the two migratable items exist, the ThisDeviceOnly one is still skipped.
        #expect(
            new.security("restore-keychain", "-i", path, stdin: passphrase)
                == Outcome(
                    status: 0, stdout: restoreReport(path, restored: 0, of: 3, existing: 2, thisDeviceOnly: 1),
                    stderr: ""))
    }

    @Test(
        "restore-keychain on a terminal asks once; a wrong passphrase exits 51 with Apple's message and changes nothing"
    )
    func restoreWrongPassphrase() throws {
        let old = try Sandbox()
        let path = try makeBackup(old)
        let new = try Sandbox()
        let prompter = ScriptedPrompter(["wrong"])
        #expect(
            new.security("restore-keychain", "-i", path, terminal: true, prompter: prompter)
                == Outcome(
                    status: 51, stdout: "",
                    stderr:
                        "security: restore-keychain \(path): The user name or passphrase you entered is not correct.\n")
        )
        #expect(prompter.prompts == ["passphrase for \(path): "])
        #expect(new.security("find-generic-password", "-s", "api").status == 44)
        #expect(
            new.security("restore-keychain", "-i", path, stdin: "")
                == Outcome(
                    status: 128, stdout: "",
                    stderr: "security: restore-keychain \(path): User canceled the operation.\n"))
        let missing = new.directory + "/missing.swkcbackup"
        #expect(
            new.security("restore-keychain", "-i", missing, stdin: passphrase)
                == Outcome(
                    status: 220, stdout: "",
                    stderr: "security: restore-keychain \(missing): I/O error. The file does not exist.\n"))
    }

    @Test("a tampered, truncated or foreign file exits 93 (errSecDecode) with the reason and changes nothing")
    func restoreDamaged() throws {
        let old = try Sandbox()
        let path = try makeBackup(old)
        let original = try #require(FileManager.default.contents(atPath: path))
        let new = try Sandbox()
        let damaged = new.directory + "/damaged.swkcbackup"
        func restore(_ bytes: Data) -> Outcome {
            _ = FileManager.default.createFile(atPath: damaged, contents: bytes)
            return new.security("restore-keychain", "-i", damaged, stdin: passphrase)
        }
        func decode(_ reason: String) -> Outcome {
            Outcome(
                status: 93, stdout: "",
                stderr: "security: restore-keychain \(damaged): Unable to decode the provided data. \(reason)\n")
        }
        var flipped = original
        flipped[104 + 4 + 5] ^= 0x01
        #expect(restore(flipped) == decode("The backup does not authenticate at record 0: it was altered or damaged."))
        var lastFlipped = original
        lastFlipped[lastFlipped.count - 1] ^= 0x80
        #expect(
            restore(lastFlipped) == decode("The backup does not authenticate at record 4: it was altered or damaged."))
        #expect(restore(original.dropLast(10)) == decode("The backup is truncated inside record 4."))
        let firstFrame = original[104..<108].reduce(0) { $0 << 8 | Int($1) }
        #expect(
            restore(original.prefix(108 + firstFrame))
                == decode("The backup is truncated: it ends before its final record."))
        #expect(restore(original + Data([0])) == decode("The backup has unexpected bytes after its final record."))
        var header = original
        header[20] ^= 0x01
        #expect(restore(header) == decode("The backup's header is damaged."))
        #expect(
            restore(Data("name,url,username,password\n".utf8))
                == decode("The file is too short to be a keychain backup."))
        #expect(restore(Data(repeating: 7, count: 200)) == decode("The file is not a swift-keychain backup."))
        #expect(new.security("find-generic-password", "-s", "api").status == 44)
        #expect(new.security("find-internet-password", "-s", "example.com").status == 44)
    }

    // MARK: - import-passwords

    let chromeCSV = """
        name,url,username,password,note
        Example,https://example.com/login,me,hunter2,hi
        Note,,,,just a note
        No password,https://nopw.example/,me,,
        Android,android://x@com.example/,me,pw,

        """

    func writeCSV(_ sandbox: Sandbox, _ text: String, name: String = "Chrome Passwords.csv") -> String {
        let path = sandbox.directory + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test("import-passwords reports imported and skipped rows by number and why, never a secret")
    func importChrome() throws {
        let sandbox = try Sandbox()
        let csv = writeCSV(sandbox, chromeCSV)
        let note = ImportPasswords.plainTextNote(csv) + "\n"
        #expect(
            note == "Note: \(csv) holds your passwords in plain text. Delete it once you have checked the import.\n")
        #expect(
            sandbox.security("import-passwords", csv)
                == Outcome(
                    status: 0,
                    stdout: """
                        imported 1 of 4 rows from \(csv) (Chrome/Edge export)
                            replaced existing items: 0
                            skipped: 3
                                row 2 (line 3): no URL
                                row 3 (line 4): no password
                                row 4 (line 5): URL not supported

                        """,
                    stderr: note))
        #expect(sandbox.security("find-internet-password", "-s", "example.com", "-a", "me", "-w").stdout == "hunter2\n")
        #expect(
            sandbox.security("import-passwords", csv)
                == Outcome(
                    status: 0,
                    stdout: """
                        imported 0 of 4 rows from \(csv) (Chrome/Edge export)
                            replaced existing items: 0
                            skipped: 4
                                row 1 (line 2): already in the keychain
                                row 2 (line 3): no URL
                                row 3 (line 4): no password
                                row 4 (line 5): URL not supported

                        """,
                    stderr: note))
        #expect(
            sandbox.security("import-passwords", "--policy", "replace", csv).stdout.hasPrefix(
                "imported 1 of 4 rows from \(csv) (Chrome/Edge export)\n    replaced existing items: 1\n    skipped: 3\n"
            ))
        #expect(
            sandbox.security("import-passwords", "--policy", "fail", csv)
                == Outcome(
                    status: 45, stdout: "",
                    stderr: "security: import-passwords \(csv): The specified item already exists in the keychain. "
                        + "Row 1 (line 2) duplicates an item already in the keychain; nothing was imported.\n"))
    }

    @Test("import-passwords --access-group puts the items in that group; into a named keychain")
    func importAccessGroup() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("create-keychain", "work", stdin: "pw\n").status == 0)
        let csv = writeCSV(sandbox, chromeCSV)
        #expect(sandbox.security("import-passwords", "--access-group", "team.browser", csv, "work").status == 0)
        let work = try Keystore(
            location: KeychainLocation.named("work", environment: sandbox.environment), create: false)
        let items = try work.search(
            ItemQuery(itemClass: .internetPassword, scope: .groups(["team.browser"])), projection: [.attributes])
        #expect(items.count == 1)
        #expect(items.first?.attributes["srvr"] == .string("example.com"))
        #expect(sandbox.security("find-internet-password", "-s", "example.com", "work").status == 0)
        #expect(!FileSystem.exists(sandbox.location.databasePath))  // the login keychain was never touched
    }

    @Test("import-passwords: an unknown header exits 87, broken quoting 93, a missing file 220; nothing is imported")
    func importErrors() throws {
        let sandbox = try Sandbox()
        let unknown = writeCSV(sandbox, "a,b,c\n1,2,3\n", name: "unknown.csv")
        let outcome = sandbox.security("import-passwords", unknown)
        #expect(outcome.status == 87)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.hasPrefix("security: import-passwords \(unknown): Unknown format in import. "))
        let broken = writeCSV(
            sandbox, "name,url,username,password\nx,https://x.example,me,pw\n\"open,https://y.example,me,pw\n",
            name: "broken.csv")
        #expect(
            sandbox.security("import-passwords", broken)
                == Outcome(
                    status: 93, stdout: "",
                    stderr: "security: import-passwords \(broken): Unable to decode the provided data. "
                        + "A quoted field starting on line 3 never ends.\n"))
        #expect(sandbox.security("find-internet-password", "-s", "x.example").status == 44)
        let missing = sandbox.directory + "/missing.csv"
        #expect(
            sandbox.security("import-passwords", missing)
                == Outcome(
                    status: 220, stdout: "",
                    stderr: "security: import-passwords \(missing): I/O error. Cannot read \(missing).\n"))
        let usage = sandbox.security("import-passwords")
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("Usage: import-passwords "))
    }

    // MARK: - export-passwords

    @Test("export-passwords writes Chrome's CSV with mode 0600 and warns on stderr; never replaces a file without -f")
    func export() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security("add-internet-password", "-a", "me", "-s", "example.com", "-p", "/login", "-w", "hunter2")
                .status == 0)
        #expect(sandbox.security("add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret").status == 0)
        let path = sandbox.directory + "/passwords.csv"
        let warning = Keystore.plainTextExportWarning + "\n"
        #expect(warning.hasPrefix("Warning: the exported file holds your passwords in plain text."))
        #expect(
            sandbox.security("export-passwords", "-o", path)
                == Outcome(status: 0, stdout: "exported 1 internet passwords to \(path)\n", stderr: warning))
        #expect(FileSystem.permissions(path) == 0o600)
        #expect(
            String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self)
                == "name,url,username,password,note\nexample.com,https://example.com/login,me,hunter2,\n")
        #expect(
            sandbox.security("export-passwords", "-o", path)
                == Outcome(
                    status: 45, stdout: "",
                    stderr: "security: export-passwords \(path): The file already exists; -f replaces it.\n"))
        #expect(sandbox.security("export-passwords", "-f", "-o", path).status == 0)
        // Round trip: the export imports into another installation.
        let other = try Sandbox()
        #expect(
            other.security("import-passwords", path).stdout.hasPrefix(
                "imported 1 of 1 rows from \(path) (Chrome/Edge export)\n"))
        #expect(other.security("find-internet-password", "-s", "example.com", "-w").stdout == "hunter2\n")
        let usage = sandbox.security("export-passwords")
        #expect(usage.status == 2)
        #expect(
            usage.stderr == ExportPasswords.spec.usage + "        Export internet passwords to a plain-text CSV file.\n"
        )
    }

    @Test(
        "export-passwords then import-passwords keeps paths with ?, # and %; a host with a space is refused (new-user trial)"
    )
    func exportImportEscapes() throws {
        let sandbox = try Sandbox()
        let csv = writeCSV(
            sandbox,
            """
            name,url,username,password,note
            q,https://q.example/a%3Fb,u,p1,
            h,https://h.example/a%23b,u,p2,
            p,https://p.example/100%25,u,p3,
            sp,https://sp ace.example/,u,p4,

            """)
        #expect(
            sandbox.security("import-passwords", csv).stdout
                == """
                imported 3 of 4 rows from \(csv) (Chrome/Edge export)
                    replaced existing items: 0
                    skipped: 1
                        row 4 (line 5): URL not supported

                """)
        let path = sandbox.directory + "/passwords.csv"
        #expect(sandbox.security("export-passwords", "-o", path).stdout == "exported 3 internet passwords to \(path)\n")
        #expect(
            String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self)
                == """
                name,url,username,password,note
                q,https://q.example/a%3Fb,u,p1,
                h,https://h.example/a%23b,u,p2,
                p,https://p.example/100%25,u,p3,

                """)
        let other = try Sandbox()
        #expect(
            other.security("import-passwords", path).stdout.hasPrefix(
                "imported 3 of 3 rows from \(path) (Chrome/Edge export)\n    replaced existing items: 0\n    skipped: 0\n"
            ))
        for (server, path, password) in [
            ("q.example", "/a?b", "p1"), ("h.example", "/a#b", "p2"), ("p.example", "/100%", "p3"),
        ] {
            #expect(other.security("find-internet-password", "-s", server, "-p", path, "-w").stdout == password + "\n")
        }
    }

    @Test("export-passwords writes the internet passwords of every access group (the management identity's scope)")
    func exportEveryGroup() throws {
        let sandbox = try Sandbox()
        for (server, group) in [("a.example", "TEAM.one"), ("b.example", "TEAM.two")] {
            #expect(
                sandbox.security(
                    "add-internet-password", "-a", "me", "-s", server, "-w", "pw-" + group, "--access-group", group
                ).status == 0)
        }
        let path = sandbox.directory + "/passwords.csv"
        #expect(sandbox.security("export-passwords", "-o", path).stdout == "exported 2 internet passwords to \(path)\n")
        let text = String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self)
        #expect(text.contains("a.example,https://a.example/,me,pw-TEAM.one,\n"))
        #expect(text.contains("b.example,https://b.example/,me,pw-TEAM.two,\n"))
    }

    /// Values a spreadsheet would run as formulas (OWASP "CSV Injection"), and values that look like
    /// an already guarded cell, so the guard must be undone exactly.
    static let formulaValues = [
        "=1+1", "+SUM(A1)", "-2+3", "@SUM(A1)", "\tindented", "\rreturn", "=cmd|' /C calc'!A0", "'=quoted", "''@twice",
        "'plain", "a=b",
    ]

    @Test(
        "regression: export-passwords neutralises cells that start a formula, and import-passwords reads them back unchanged"
    )
    func exportNeutralisesFormulas() throws {
        let sandbox = try Sandbox()
        let store = try Keystore(location: sandbox.location)
        for (index, value) in Self.formulaValues.enumerated() {
            _ = try store.add(
                .internetPassword,
                attributes: [
                    "agrp": .string(ApplicationIdentity.unsignedAccessGroup), "srvr": .string("host\(index).example"),
                    "ptcl": .string("htps"), "acct": .string(value), "labl": .string(value), "icmt": .string(value),
                    "pdmn": .string(ProtectionClass.whenUnlocked.rawValue),
                ],
                secret: SecureBytes(copying: Array(value.utf8)))
        }
        let path = sandbox.directory + "/passwords.csv"
        #expect(sandbox.security("export-passwords", "-o", path).status == 0)
        let text = String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains(#""'=1+1",https://host0.example/,"'=1+1","'=1+1","'=1+1""#))
        #expect(lines.contains(#""'@SUM(A1)",https://host3.example/,"'@SUM(A1)","'@SUM(A1)","'@SUM(A1)""#))
        #expect(lines.contains(#""''=quoted",https://host7.example/,"''=quoted","''=quoted","''=quoted""#))
        #expect(lines.contains("'plain,https://host9.example/,'plain,'plain,'plain"))
        #expect(lines.contains("a=b,https://host10.example/,a=b,a=b,a=b"))
        // No cell of the file starts a formula, whether quoted or not.
        for line in lines.dropFirst() where !line.isEmpty {
            for cell in line.split(separator: ",", omittingEmptySubsequences: false) {
                let content = cell.hasPrefix("\"") ? cell.dropFirst() : cell
                #expect(!["=", "+", "-", "@", "\t", "\r"].contains(content.first.map(String.init) ?? ""), "\(line)")
            }
        }

        let other = try Sandbox()
        #expect(
            other.security("import-passwords", path).stdout.hasPrefix(
                "imported \(Self.formulaValues.count) of \(Self.formulaValues.count) rows from \(path) (Chrome/Edge export)\n"
            ))
        let items = try Keystore(location: other.location).search(
            ItemQuery(itemClass: .internetPassword, scope: .all), projection: [.attributes, .secret])
        #expect(items.count == Self.formulaValues.count)
        for (index, value) in Self.formulaValues.enumerated() {
            let item = try #require(items.first { $0.attributes["srvr"] == .string("host\(index).example") })
            #expect(item.attributes["acct"] == .string(value))
            // Titles are trimmed on import, as before: "\tindented" comes back as "indented".
            #expect(item.attributes["labl"] == .string(value.trimmingWhitespace()))
            #expect(item.attributes["icmt"] == .string(value))
            #expect(item.secret?.withUnsafeBytes { Array($0) } == Array(value.utf8))
        }
    }

    @Test("export-passwords of a locked keychain exits 36 and writes nothing")
    func exportLocked() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("create-keychain", "work", stdin: "pw\n").status == 0)
        #expect(
            sandbox.security("add-internet-password", "-a", "me", "-s", "example.com", "-w", "x", "work").status == 0)
        #expect(sandbox.security("lock-keychain", "work").status == 0)
        let path = sandbox.directory + "/passwords.csv"
        let outcome = sandbox.security("export-passwords", "-o", path, "work")
        #expect(outcome.status == 36)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.hasPrefix("security: export-passwords \(path): User interaction is not allowed."))
        #expect(!FileSystem.exists(path))
    }

    // MARK: - Names and help

    @Test("macOS's import and export (keys and certificates) never run the password commands")
    func namesDoNotClash() throws {
        let sandbox = try Sandbox()
        // `import` is macOS's certificate and identity import (tracker issue 18): `-o` is none of its
        // options, so each prefix is a usage error, never import-passwords.
        for name in ["import", "imp", "i"] {
            let outcome = sandbox.security(name, "-o", sandbox.directory + "/x.csv")
            #expect(outcome.status == 2)
            #expect(outcome.stderr.contains("Usage: import inputfile"))
        }
        // `export` is macOS's certificate and key export: an empty keychain has no certificate to write.
        for name in ["export", "exp"] {
            #expect(
                sandbox.security(name, "-o", sandbox.directory + "/x.csv")
                    == Outcome(
                        status: 44, stdout: "",
                        stderr:
                            "security: SecKeychainItemExport: The specified item could not be found in the keychain.\n")
            )
        }
        #expect(!FileSystem.exists(sandbox.directory + "/x.csv"))
        #expect(sandbox.security("export-", "-o", sandbox.directory + "/x.csv").status == 0)
        #expect(sandbox.security("e", "-25300").status == 1)  // still `error`, as before
        #expect(
            sandbox.security("help").stdout.contains(
                """
                    backup-keychain   Write an encrypted backup of a keychain's items.
                    restore-keychain  Restore a keychain's items from an encrypted backup.
                    import-passwords  Import passwords from a browser's CSV export.
                    export-passwords  Export internet passwords to a plain-text CSV file.

                """))
    }

    @Test("help for each command comes from its option table; -h and --help print the same")
    func help() throws {
        let sandbox = try Sandbox()
        let expected = [
            "backup-keychain": """
            Usage: backup-keychain [-f] [-o file] [keychain]
                -o  Write the backup to file (default: <keychain name>.swkcbackup in the current directory)
                -f  Replace file if it exists
            The passphrase is prompted for without echo, or read from standard input (one line) when standard
            input is not a terminal. It is never taken from the command line.
            ThisDeviceOnly items restore only onto this installation; WhenPasscodeSetThisDeviceOnly items are
            never backed up.

            """,
            "restore-keychain": """
            Usage: restore-keychain [-i file] [--policy skip|replace|fail] [keychain]
                -i  Read the backup from file (default: <keychain name>.swkcbackup in the current directory)
                --policy <skip|replace|fail>  What to do with an item already in the keychain: keep it (skip, the default), replace it, or stop and change nothing (fail)
            The passphrase is prompted for without echo, or read from standard input (one line) when standard
            input is not a terminal. It is never taken from the command line.
            ThisDeviceOnly items restore only onto the installation that made the backup; elsewhere they are
            skipped and counted. Any error leaves the keychain unchanged.

            """,
            "import-passwords": """
            Usage: import-passwords [--policy skip|replace|fail] [--access-group group] file.csv [keychain]
                --policy <skip|replace|fail>  What to do with an item already in the keychain: keep it (skip, the default), replace it, or stop and change nothing (fail)
                --access-group <group>  Add the items to this access group (default: the unsigned tools' group)
            Reads the CSV password exports of Chrome/Edge, Firefox, Apple Passwords/Safari and Bitwarden;
            each login becomes an internet password. Rows without a URL or a password are skipped and listed.
            Delete the CSV file afterwards: it holds your passwords in plain text.

            """,
            "export-passwords": """
            Usage: export-passwords -o file.csv [-f] [keychain]
                -o  Write the passwords to file.csv (required)
                -f  Replace file.csv if it exists
            Writes every internet password in Chrome's CSV format, which browsers and password managers import.
            The file holds your passwords in plain text (mode 0600): import it, then delete it.

            """,
        ]
        for (name, text) in expected {
            #expect(sandbox.security("help", name) == Outcome(status: 0, stdout: text, stderr: ""))
            #expect(sandbox.security(name, "-h") == Outcome(status: 0, stdout: text, stderr: ""))
            #expect(sandbox.security(name, "--help") == Outcome(status: 0, stdout: text, stderr: ""))
        }
    }
}
