import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// `security import`, `find-certificate`, `find-identity`, `delete-certificate` and `delete-identity`
/// (tracker issue 18), with files made by the openssl tool and hashes checked against its own.
@Suite(
    "security certificate and identity commands",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is not installed"))
struct CertificateCommandsTests {
    /// Runs openssl in `folder` and returns its standard output.
    @discardableResult
    static func openssl(_ folder: String, _ arguments: String..., stdin: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let input = Pipe()
        if stdin != nil { process.standardInput = input }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
        return String(decoding: data, as: UTF8.self)
    }

    /// A P-256 key, a self-signed certificate (PEM and DER) and a PKCS #12 file (passphrase "pass").
    static func makeFiles(_ folder: String) throws {
        try openssl(folder, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem")
        try openssl(
            folder, "req", "-new", "-x509", "-key", "key.pem", "-days", "30", "-set_serial", "4660", "-subj",
            "/O=Example/CN=CLI Leaf/emailAddress=cli@example.com", "-out", "cert.pem")
        try openssl(folder, "x509", "-in", "cert.pem", "-outform", "DER", "-out", "cert.der")
        try openssl(
            folder, "pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-name", "CLI Identity", "-passout",
            "pass:pass", "-out", "id.p12")
    }

    /// openssl's `-fingerprint` of the certificate, as upper-case hex without colons.
    static func fingerprint(_ folder: String, _ digest: String) throws -> String {
        let line = try openssl(folder, "x509", "-in", "cert.pem", "-noout", "-fingerprint", "-\(digest)")
        return String(line.split(separator: "=").last ?? "").replacingOccurrences(of: ":", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "import a PEM certificate; find-certificate by name and email with openssl's SHA-1 and SHA-256; -p is the PEM; delete-certificate"
    )
    func certificates() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory
        try Self.makeFiles(folder)
        #expect(
            sandbox.security("import", folder + "/cert.pem")
                == Outcome(status: 0, stdout: "1 certificate imported.\n", stderr: ""))
        // The same certificate as DER is the same item (primary key: type, issuer, serial number).
        let duplicate = sandbox.security("import", folder + "/cert.der")
        #expect(duplicate.status == 45)  // errSecDuplicateItem (-25299) & 0xFF
        #expect(
            duplicate.stderr == "security: SecKeychainItemImport: The specified item already exists in the keychain.\n")
        let sha1 = try Self.fingerprint(folder, "sha1")
        let sha256 = try Self.fingerprint(folder, "sha256")
        #expect(sha1.count == 40)
        let found = sandbox.security("find-certificate", "-c", "CLI Leaf", "-Z")
        #expect(found.status == 0)
        #expect(
            found.stdout.hasPrefix(
                "SHA-256 hash: \(sha256)\nSHA-1 hash: \(sha1)\nkeychain: \"\(sandbox.location.databasePath)\"\n"))
        #expect(found.stdout.contains("    \"snbr\"<blob>=0x1234\n"))
        #expect(found.stdout.contains("    \"alis\"<blob>=\"cli@example.com\"\n"))
        let pem = try String(contentsOfFile: folder + "/cert.pem", encoding: .utf8)
        #expect(
            sandbox.security("find-certificate", "-e", "cli@example.com", "-p")
                == Outcome(status: 0, stdout: pem, stderr: ""))
        let missing = sandbox.security("find-certificate", "-c", "Nobody")
        #expect(
            missing
                == Outcome(
                    status: 44, stdout: "",
                    stderr:
                        "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
        )
        #expect(sandbox.security("delete-certificate").status == 2)  // -c or -Z is required
        #expect(sandbox.security("delete-certificate", "-Z", sha1.lowercased()).status == 0)
        #expect(sandbox.security("find-certificate", "-a").status == 44)
        // The DER file imports now that the item is gone.
        #expect(sandbox.security("import", folder + "/cert.der").stdout == "1 certificate imported.\n")
        #expect(sandbox.security("delete-certificate", "-c", "CLI Leaf").status == 0)
    }

    @Test(
        "import a PKCS #12 file with -P; find-identity lists it by openssl's SHA-1; delete-identity removes key and certificate"
    )
    func identities() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory
        try Self.makeFiles(folder)
        let wrong = sandbox.security("import", folder + "/id.p12", "-P", "wrong")
        #expect(
            wrong.stderr == "security: SecKeychainItemImport: The user name or passphrase you entered is not correct.\n"
        )
        #expect(wrong.status == 51)  // errSecAuthFailed (-25293) & 0xFF
        // Without -P nothing was asked: the tool says the file needs its passphrase (fresh-eyes review).
        #expect(
            sandbox.security("import", folder + "/id.p12")
                == Outcome(
                    status: 51, stdout: "",
                    stderr: "security: SecKeychainItemImport: The user name or passphrase you entered is not correct.\n"
                        + "security: this PKCS #12 file is protected by a passphrase: give it with -P\n"))
        #expect(
            sandbox.security("find-identity", "-v").stdout == "  Valid identities only\n     0 valid identities found\n"
        )
        #expect(
            sandbox.security("import", folder + "/id.p12", "-P", "pass", "-k", sandbox.location.databasePath)
                == Outcome(status: 0, stdout: "1 identity imported.\n", stderr: ""))
        let sha1 = try Self.fingerprint(folder, "sha1")
        #expect(
            sandbox.security("find-identity").stdout == """
                  Matching identities
                  1) \(sha1) "CLI Leaf"
                     1 identities found

                  Valid identities only
                  1) \(sha1) "CLI Leaf"
                     1 valid identities found

                """)
        // The identity's certificate is a certificate item, labelled by the file's friendly name.
        #expect(
            sandbox.security("find-certificate", "-c", "CLI Identity").stdout.contains(
                "\"labl\"<blob>=\"CLI Identity\""))
        #expect(sandbox.security("delete-identity", "-c", "CLI Leaf").status == 0)
        #expect(sandbox.security("find-identity", "-v").stdout.hasSuffix("0 valid identities found\n"))
        #expect(sandbox.security("find-certificate", "-a").status == 44)
        let keystore = try Keystore(location: sandbox.location)
        #expect(
            try keystore.search(ItemQuery(itemClass: .key, scope: .all, synchronizable: .any), projection: []).isEmpty)
        let unknown = folder + "/unknown.bin"
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: unknown))
        #expect(
            sandbox.security("import", unknown).stderr == "security: SecKeychainItemImport: Unknown format in import.\n"
        )
        #expect(
            sandbox.security("import", folder + "/missing.pem")
                == Outcome(
                    status: 1, stdout: "",
                    stderr: "security: Error reading infile \(folder)/missing.pem: No such file or directory\n"))
    }

    @Test(
        "export: certificates as the PEM openssl wrote; an identity as PKCS #12 that openssl pkcs12 opens with the passphrase only"
    )
    func export() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory
        try Self.makeFiles(folder)
        #expect(sandbox.security("export", "-t", "certs", "-p").status == 44)
        #expect(sandbox.security("import", folder + "/id.p12", "-P", "pass").status == 0)
        let pem = try String(contentsOfFile: folder + "/cert.pem", encoding: .utf8)
        #expect(sandbox.security("export", "-t", "certs", "-p") == Outcome(status: 0, stdout: pem, stderr: ""))
        #expect(sandbox.security("export", "-t", "certs", "-f", "x509", "-o", folder + "/out.der").status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/out.der"))
                == Data(contentsOf: URL(fileURLWithPath: folder + "/cert.der")))
        // Private keys leave only in PKCS #12 with a passphrase.
        #expect(sandbox.security("export", "-t", "identities", "-o", folder + "/out.p12").status == 2)
        #expect(sandbox.security("export", "-t", "privKeys", "-o", folder + "/out.pem").status == 2)
        #expect(sandbox.security("export", "-t", "pubKeys").status == 44)  // the identity's key is private
        #expect(
            sandbox.security("export", "-t", "identities", "-P", "new pass", "-o", folder + "/out.p12")
                == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileSystem.permissions(folder + "/out.p12") == 0o600)
        #expect(sandbox.security("export", "-t", "identities", "-P", "new pass", "-o", folder + "/out.p12").status == 1)
        let certificate = try Self.openssl(
            folder, "pkcs12", "-in", "out.p12", "-passin", "pass:new pass", "-nokeys", "-clcerts")
        #expect(certificate.contains(pem.trimmingCharacters(in: .whitespacesAndNewlines)))
        let key = try Self.openssl(folder, "pkcs12", "-in", "out.p12", "-passin", "pass:new pass", "-nocerts", "-nodes")
        let original = try Self.openssl(folder, "pkey", "-in", "key.pem")
        let exported = try Self.openssl(folder, "pkey", "-in", "/dev/stdin", stdin: key)
        #expect(!original.isEmpty && exported == original)
        // The imported file can be imported again elsewhere: the round trip gives the same identity.
        let other = try Sandbox()
        #expect(
            other.security("import", folder + "/out.p12", "-P", "new pass")
                == Outcome(status: 0, stdout: "1 identity imported.\n", stderr: ""))
        #expect(other.security("find-identity", "-v").stdout == sandbox.security("find-identity", "-v").stdout)
    }

    @Test("an identity survives backup-keychain and restore-keychain: its certificate and private key come back")
    func backupRestore() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory
        try Self.makeFiles(folder)
        #expect(sandbox.security("import", folder + "/id.p12", "-P", "pass").status == 0)
        let listed = sandbox.security("find-identity", "-v").stdout
        #expect(listed.hasSuffix("     1 valid identities found\n"))
        let path = folder + "/id.swkcbackup"
        #expect(sandbox.security("backup-keychain", "-o", path, stdin: "backup passphrase\n").status == 0)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(sandbox.security("delete-identity", "-c", "CLI Leaf").status == 0)
        #expect(sandbox.security("find-identity", "-v").stdout.hasSuffix("     0 valid identities found\n"))
        let restored = sandbox.security("restore-keychain", "-i", path, stdin: "backup passphrase\n")
        #expect(restored.status == 0, "\(restored)")
        #expect(sandbox.security("find-identity", "-v").stdout == listed)
        // The backup is encrypted: not even the certificate's common name is in it.
        #expect(bytes.range(of: Data("CLI Leaf".utf8)) == nil)
    }
}
