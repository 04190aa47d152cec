import Foundation
import KeychainCore
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

/// Files that are not a usable keychain are refused with a status and never rewritten or replaced
/// (design brief, "Files on disk"; Schema.swift). Statuses: errSecInvalidKeychain (-25295) for a file that
/// is not a keychain, is corrupt or belongs to another application; errSecWrongSecVersion (-25310) for a
/// newer schema.
@Suite("Corrupt, foreign and newer keychain files")
struct DatabaseFileTests {
    /// The kinds of bad file.
    enum BadFile: String, CaseIterable, Sendable {
        case randomBytes = "random bytes"
        case text = "a text file"
        case empty = "an empty file"
        case truncated = "a keychain cut in half"
        case foreignDatabase = "another application's SQLite database"
        case newerSchema = "a keychain with a newer schema version"
        case corruptHeader = "a keychain with a damaged header"

        var expectedStatus: OSStatus { self == .newerSchema ? errSecWrongSecVersion : errSecInvalidKeychain }
    }

    /// A valid keychain holding one item, made in a folder of its own and closed (so fully checkpointed:
    /// no -wal file is left), with its device key.
    static func validKeychain() throws -> (database: Data, deviceKey: Data) {
        let source = try TemporaryKeychain()
        try source.run {
            #expect(add(genericPassword(service: "svc", account: "acct"), secret: "secret") == errSecSuccess)
        }
        #expect(!FileManager.default.fileExists(atPath: source.location.databasePath + "-wal"))
        return (
            try Data(contentsOf: URL(fileURLWithPath: source.location.databasePath)),
            try Data(contentsOf: URL(fileURLWithPath: source.location.deviceKeyPath))
        )
    }

    /// Installs `database` (and optionally a device key) as the login keychain of `keychain`.
    static func install(_ database: Data, deviceKey: Data?, in keychain: TemporaryKeychain) throws {
        try FileManager.default.createDirectory(atPath: keychain.keychainDirectory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: keychain.location.databasePath, contents: database, attributes: [.posixPermissions: 0o600])
        if let deviceKey {
            try FileManager.default.createDirectory(
                atPath: keychain.deviceKeyDirectory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(
                atPath: keychain.location.deviceKeyPath, contents: deviceKey, attributes: [.posixPermissions: 0o600])
        }
    }

    /// SQLite header fields: user_version at offset 60, application_id at 68 (big-endian 32-bit).
    static func patched(_ bytes: Data, offset: Int, value: UInt32) -> Data {
        var bytes = bytes
        withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
        return bytes
    }

    static func contents(_ kind: BadFile, valid: Data) -> Data {
        switch kind {
        case .randomBytes: return Data((0..<8192).map { _ in UInt8.random(in: 0...255) })
        case .text: return Data("user=alice\npassword=hunter2\n".utf8)
        case .empty: return Data()
        case .truncated: return valid.prefix(valid.count / 2)
        case .foreignDatabase: return patched(valid, offset: 68, value: 0x4142_4344)
        case .newerSchema: return patched(valid, offset: 60, value: UInt32(Schema.version + 1))
        case .corruptHeader:
            var bytes = valid
            bytes.replaceSubrange(0..<16, with: Data(repeating: 0x5A, count: 16))
            return bytes
        }
    }

    @Test(
        "A bad keychain file is refused with a status by every call, here and in another process, and never rewritten",
        arguments: BadFile.allCases)
    func refused(kind: BadFile) throws {
        let keychain = try TemporaryKeychain()
        let path = keychain.location.databasePath
        let valid = try Self.validKeychain()
        let bytes = Self.contents(kind, valid: valid.database)
        try Self.install(bytes, deviceKey: valid.deviceKey, in: keychain)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64

        // In this process: opening the keystore fails with the status.
        do throws(KeychainFailure) {
            _ = try Keystore(location: keychain.location)
            Issue.record("a bad file was opened")
        } catch {
            #expect(error.status.rawValue == kind.expectedStatus, "\(error)")
        }
        // In another process, through the SecItem calls of an app.
        let env = keychain.environment
        let status = "\(kind.expectedStatus)"
        #expect(try HelperProcess.run(["add", "new", "item", "x"], environment: env) == status)
        #expect(try HelperProcess.run(["get", "svc", "acct"], environment: env) == status)
        #expect(try HelperProcess.run(["update", "svc", "acct", "y"], environment: env) == status)
        #expect(try HelperProcess.run(["delete", "svc", "acct"], environment: env) == status)

        // Never overwritten, never replaced.
        #expect(FileManager.default.contents(atPath: path) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
    }

    @Test("A keychain copied to another installation (another device key) is refused with errSecDecode and left intact")
    func otherDeviceKey() throws {
        let keychain = try TemporaryKeychain()
        let bytes = try Self.validKeychain().database
        try Self.install(bytes, deviceKey: Data((0..<32).map { _ in UInt8.random(in: 0...255) }), in: keychain)
        #expect(try HelperProcess.run(["get", "svc", "acct"], environment: keychain.environment) == "\(errSecDecode)")
        #expect(
            try HelperProcess.run(["add", "new", "item", "x"], environment: keychain.environment) == "\(errSecDecode)")
        #expect(FileManager.default.contents(atPath: keychain.location.databasePath) == bytes)
    }

    @Test("A valid keychain is reopened by later processes with its items (the control for the cases above)")
    func validKeychainReopens() throws {
        let keychain = try TemporaryKeychain()
        let valid = try Self.validKeychain()
        try Self.install(valid.database, deviceKey: valid.deviceKey, in: keychain)
        #expect(try HelperProcess.run(["get", "svc", "acct"], environment: keychain.environment) == "0 secret")
        try keychain.run { #expect(secret(genericPassword(service: "svc", account: "acct")) == "secret") }
    }
}
