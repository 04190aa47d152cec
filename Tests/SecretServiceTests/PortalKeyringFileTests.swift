import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// The libsecret keyring file that `portal-migrate` writes (libsecret's own reading of it is tested in
/// PortalEndToEndTests): its header, round trip, replacement by attributes, and damaged or foreign files.
@Suite("libsecret keyring files for the Secret portal")
struct PortalKeyringFileTests {
    static let secret = SecureBytes(copying: [UInt8](repeating: 7, count: 64))

    static func oneItemFile() throws -> [UInt8] {
        let file = try PortalKeyringFile(masterSecret: secret)
        try file.replace(
            attributes: ["user": "alice", "xdg:schema": "org.example.Notes"], label: "Notes",
            secret: SecureBytes(copying: Array("pw".utf8)), created: 1, modified: 2)
        return file.serialized(modified: 3)
    }

    @Test("A written file starts with libsecret's header and version 1.0 and parses again under the same secret")
    func roundTrip() throws {
        let bytes = try Self.oneItemFile()
        #expect(Array(bytes.prefix(18)) == Array("GnomeKeyring\n\r".utf8) + [0, 10, 1, 0])
        let again = try PortalKeyringFile(contents: bytes, masterSecret: Self.secret)
        #expect(again.items.count == 1)
        #expect(again.iterationCount == 100_000)
        #expect(again.salt.count == 32)
        #expect(!bytes.contains(Array("alice".utf8)))
    }

    @Test("An item with exactly the same attributes replaces the old one; others are kept")
    func replaceByAttributes() throws {
        let file = try PortalKeyringFile(contents: try Self.oneItemFile(), masterSecret: Self.secret)
        let pw = SecureBytes(copying: Array("new".utf8))
        try file.replace(
            attributes: ["user": "alice", "xdg:schema": "org.example.Notes"], label: "Notes", secret: pw, created: 1,
            modified: 5)
        #expect(file.items.count == 1)
        try file.replace(attributes: ["user": "bob"], label: "Bob", secret: pw, created: 1, modified: 5)
        #expect(file.items.count == 2)
    }

    @Test("Another master secret is refused as wrongSecret")
    func otherSecret() throws {
        let other = SecureBytes(copying: [UInt8](repeating: 8, count: 64))
        #expect(throws: PortalKeyringFile.Failure.wrongSecret) {
            try PortalKeyringFile(contents: try Self.oneItemFile(), masterSecret: other)
        }
    }

    @Test("Damaged files are refused as invalidFormat", arguments: [0, 5, 17, 18, 40])
    func damaged(_ length: Int) throws {
        var bytes = try Self.oneItemFile()
        if length == 17 {
            bytes[16] = 2  // version 2.0
        } else {
            bytes = Array(bytes.prefix(length))
        }
        #expect {
            try PortalKeyringFile(contents: bytes, masterSecret: Self.secret)
        } throws: { error in
            if case PortalKeyringFile.Failure.invalidFormat = error { return true }
            return false
        }
    }
}
