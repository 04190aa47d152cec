import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Secret Service items in encrypted backups (tracker issue 23: `backup-keychain` left them out;
/// docs/BACKUP-FORMAT.md, version 3, kinds 5 and 6).
@Suite("Secret Service items in backup and restore")
struct SecretItemBackupTests {
    static let passphrase = "backup passphrase ✓"

    /// What a client sees of one Secret Service item: metadata, secret and content type.
    struct Snapshot: Hashable {
        var label: String
        var attributes: [String: String]
        var created: UInt64
        var modified: UInt64
        var secret: [UInt8]
        var contentType: String
    }

    func snapshot(_ keystore: Keystore) throws -> [Snapshot] {
        try keystore.secretItems(matching: [:]).map { item in
            let secret = try keystore.secretItemSecret(item.number)
            return Snapshot(
                label: item.label, attributes: item.attributes, created: item.created, modified: item.modified,
                secret: secret.value.withUnsafeBytes { Array($0) }, contentType: secret.contentType)
        }
    }

    func ssSecret(_ text: String, _ contentType: String = "text/plain") -> SecretItemSecret {
        SecretItemSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: contentType)
    }

    /// A keychain beside `temp`'s; `sameInstallation` picks the device key.
    func sibling(_ temp: TemporaryKeychain, _ name: String, sameInstallation: Bool) throws -> Keystore {
        let deviceKey = sameInstallation ? temp.location.deviceKeyPath : temp.directory + "/other-state/device.key"
        return try Keystore(
            location: KeychainLocation(databasePath: temp.directory + "/\(name)/keychain-db", deviceKeyPath: deviceKey))
    }

    /// One generic password, a collection label and three Secret Service items, two of them with the
    /// same attributes (the Secret Service allows that); backed up.
    func makeBackup(_ temp: TemporaryKeychain) throws -> (Keystore, String, BackupReport) {
        let source = try temp.open()
        _ = try source.add(
            .genericPassword, attributes: genericItem("api", "me", .whenUnlocked), secret: secret("pw-api"))
        try source.setSecretCollectionLabel("Anmeldung ✓")
        let chromium = ["application": "chrome", "xdg:schema": "chrome_libsecret_os_crypt_password_v2"]
        _ = try source.createSecretItem(
            label: "Chromium Safe Storage", attributes: chromium, secret: ssSecret("pw-chromium"), replace: false,
            now: 1_600_000_000)
        _ = try source.createSecretItem(
            label: "twin", attributes: ["twin": "1"], secret: ssSecret("pw-twin-a", "application/octet-stream"),
            replace: false, now: 1_650_000_000)
        _ = try source.createSecretItem(
            label: "", attributes: ["twin": "1"],
            secret: SecretItemSecret(value: SecureBytes(copying: []), contentType: ""),
            replace: false, now: 1_650_000_001)
        try source.updateSecretItem(1, label: "Chromium Safe Storage (renamed)", now: 1_700_000_000)
        let path = temp.directory + "/keychain.swkcbackup"
        let report = try source.backup(to: path, passphrase: secret(Self.passphrase), parameters: .testing)
        return (source, path, report)
    }

    func fileHashes(_ keystore: Keystore) -> [String: [UInt8]] {
        var hashes: [String: [UInt8]] = [:]
        for suffix in ["", "-wal"] {
            let path = keystore.location.databasePath + suffix
            if let data = FileManager.default.contents(atPath: path) { hashes[suffix] = Sodium.hash(Array(data)) }
        }
        return hashes
    }

    /// Byte ranges of each frame (its length field and ciphertext).
    func frames(_ bytes: [UInt8]) -> [Range<Int>] {
        var frames: [Range<Int>] = []
        var offset = BackupHeader.size
        while offset + 4 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            frames.append(offset..<(offset + 4 + length))
            offset += 4 + length
        }
        return frames
    }

    // MARK: - Round trip

    @Test(
        "Secret Service items come back in a fresh keychain elsewhere with label, attributes, dates, secret and content type"
    )
    func roundTripOntoAnotherInstallation() throws {
        let temp = try TemporaryKeychain()
        let (source, path, backup) = try makeBackup(temp)
        #expect(backup.items == 4)
        #expect(backup.migratable == 1)
        #expect(backup.secretServiceItems == 3)
        #expect(backup.description.contains("backed up 4 items"))

        let target = try sibling(temp, "fresh", sameInstallation: false)
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .fail)
        #expect(report.itemsInBackup == 4)
        #expect(report.secretServiceItems == 3)
        #expect(report.restored == 4)
        let expected = try snapshot(source)
        #expect(expected.count == 3)
        #expect(try snapshot(target) == expected)
        #expect(try target.secretItems(matching: [:]).map(\.number) == [1, 2, 3])
        #expect(try target.secretCollectionLabel() == "Anmeldung ✓")
        #expect(try target.verifyIntegrity() == 4)
        let found = try target.search(
            ItemQuery(itemClass: .genericPassword, scope: .all, synchronizable: .any), projection: .secret)
        #expect(found.first?.secret?.withUnsafeBytes { Array($0) } == Array("pw-api".utf8))
    }

    @Test("a keychain with only Secret Service items backs up and restores them, and no collection label is made up")
    func secretServiceOnly() throws {
        let temp = try TemporaryKeychain()
        let source = try temp.open()
        _ = try source.createSecretItem(
            label: "only", attributes: ["a": "b"], secret: ssSecret("pw-only"), replace: false, now: 5)
        let path = temp.directory + "/only"
        let backup = try source.backup(to: path, passphrase: secret("x"), parameters: .testing)
        #expect([backup.items, backup.migratable, backup.secretServiceItems] == [Int]([1, 0, 1]))
        let target = try sibling(temp, "t", sameInstallation: false)
        _ = try target.restore(from: path, passphrase: secret("x"))
        #expect(try snapshot(target) == snapshot(source))
        #expect(try target.secretCollectionLabel() == nil, "no label in the source: none made up")
    }

    // MARK: - Conflicts

    @Test("restoring Secret Service items into their own keychain skips each of them and changes nothing")
    func restoreIntoSource() throws {
        let temp = try TemporaryKeychain()
        let (source, path, _) = try makeBackup(temp)
        let before = try snapshot(source)
        let report = try source.restore(from: path, passphrase: secret(Self.passphrase), policy: .skip)
        #expect(report.skippedExisting == 4)
        #expect(report.restored == 0)
        #expect(try snapshot(source) == before)
    }

    @Test(
        "policy replace gives the existing item with the same attributes the backup's label, dates and secret, and keeps its number"
    )
    func conflictReplace() throws {
        let temp = try TemporaryKeychain()
        let (source, path, _) = try makeBackup(temp)
        let target = try sibling(temp, "t", sameInstallation: true)
        try target.setSecretCollectionLabel("mine")
        _ = try target.createSecretItem(
            label: "newer",
            attributes: ["application": "chrome", "xdg:schema": "chrome_libsecret_os_crypt_password_v2"],
            secret: ssSecret("newer"), replace: false, now: 9)
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .replace)
        #expect(report.replaced == 1)
        #expect(report.restored == 4)
        #expect(try target.secretItem(1)?.label == "Chromium Safe Storage (renamed)")
        #expect(try snapshot(target) == snapshot(source))
        #expect(try target.secretCollectionLabel() == "Anmeldung ✓")
        #expect(try target.verifyIntegrity() == 4)
    }

    @Test("policy skip keeps the existing item with the same attributes and the target's collection label")
    func conflictSkip() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let target = try sibling(temp, "t", sameInstallation: true)
        try target.setSecretCollectionLabel("mine")
        _ = try target.createSecretItem(
            label: "newer", attributes: ["twin": "1"], secret: ssSecret("newer"), replace: false, now: 9)
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .skip)
        #expect(report.skippedExisting == 2, "both twins match the existing item")
        #expect(report.restored == 2)
        #expect(try target.secretItems(matching: ["twin": "1"]).map(\.label) == ["newer"])
        #expect(try target.secretCollectionLabel() == "mine")
    }

    @Test("policy fail stops at a Secret Service item with the same attributes and rolls the whole restore back")
    func conflictFail() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let target = try sibling(temp, "t", sameInstallation: true)
        _ = try target.createSecretItem(
            label: "newer", attributes: ["twin": "1"], secret: ssSecret("newer"), replace: false, now: 9)
        let before = fileHashes(target)
        do {
            _ = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .fail)
            Issue.record("the conflict was not refused")
        } catch {
            #expect(error.status == .duplicateItem)
        }
        #expect(fileHashes(target) == before)
        #expect(try target.secretItems(matching: [:]).count == 1)
    }

    // MARK: - Refusals

    /// Restores `bytes` into a keychain holding one SecItem and one Secret Service item; expects
    /// `.decode` and that no byte of the keychain changed.
    func expectRefused(_ temp: TemporaryKeychain, _ bytes: [UInt8], _ what: String) throws {
        let path = temp.directory + "/damaged-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let target = try sibling(temp, "target", sameInstallation: true)
        if try target.secretItems(matching: [:]).isEmpty {
            _ = try target.createSecretItem(
                label: "kept", attributes: ["k": "v"], secret: ssSecret("keep"), replace: false, now: 1)
        }
        let before = fileHashes(target)
        do {
            _ = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .replace)
            Issue.record("\(what): the damaged backup was restored")
        } catch {
            #expect(error.status == .decode, "\(what): \(error)")
            #expect(!error.description.contains("pw-"), "no secret in the message")
        }
        #expect(fileHashes(target) == before, "\(what): the keychain's files changed")
        #expect(try target.secretItems(matching: [:]).map(\.label) == ["kept"])
    }

    @Test(
        "a flipped byte in a Secret Service record or the collection record is refused with errSecDecode, nothing written"
    )
    func flippedBytes() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let original = Array(FileManager.default.contents(atPath: path)!)
        let frames = frames(original)
        #expect(
            frames.count == 10, "begin, 1 item, collection, 3 Secret Service items each with its sync identity, end")
        for frame in frames[2..<6] {
            for offset in [
                frame.lowerBound + 3, frame.lowerBound + 4, (frame.lowerBound + frame.upperBound) / 2,
                frame.upperBound - 1,
            ] {
                var damaged = original
                damaged[offset] ^= 0x01
                try expectRefused(temp, damaged, "bit flipped at \(offset)")
            }
        }
    }

    @Test("a backup cut inside or after a Secret Service record is refused with errSecDecode, nothing written")
    func truncated() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let original = Array(FileManager.default.contents(atPath: path)!)
        let frames = frames(original)
        var cuts: [Int] = []
        for frame in frames[2..<6] {
            cuts += [frame.lowerBound + 2, (frame.lowerBound + frame.upperBound) / 2, frame.upperBound]
        }
        for cut in cuts { try expectRefused(temp, Array(original[..<cut]), "cut at \(cut)") }
        var dropped = Array(original[..<frames[3].lowerBound])
        dropped += original[frames[4].lowerBound...]
        try expectRefused(temp, dropped, "a Secret Service record dropped")
    }

    @Test(
        "a locked keychain with Secret Service items is not backed up partially: errSecInteractionNotAllowed and no file"
    )
    func lockedKeychain() throws {
        let temp = try TemporaryKeychain()
        let source = try temp.open()
        try source.setPassword(secret("pin"), current: nil, parameters: .testing)
        _ = try source.createSecretItem(label: "s", attributes: [:], secret: ssSecret("1"), replace: false, now: 1)
        try source.lock()
        let path = temp.directory + "/locked"
        do {
            _ = try source.backup(to: path, passphrase: secret("p"), parameters: .testing)
            Issue.record("a locked keychain was backed up")
        } catch {
            #expect(error.status == .interactionNotAllowed)
        }
        #expect(!FileSystem.exists(path))
    }

    // MARK: - Password changes

    @Test("Secret Service items keep their secret when a password is set, changed, used to unlock and removed")
    func passwordChanges() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let number = try keystore.createSecretItem(
            label: "s", attributes: ["a": "b"], secret: ssSecret("pw-kept"), replace: false, now: 1
        ).number
        func stored() throws -> [UInt8] { try keystore.secretItemSecret(number).value.withUnsafeBytes { Array($0) } }
        try keystore.setPassword(secret("one"), current: nil, parameters: .testing)
        #expect(try stored() == Array("pw-kept".utf8))
        try keystore.setPassword(secret("two"), current: secret("one"), parameters: .testing)
        try keystore.lock()
        do {
            _ = try stored()
            Issue.record("a locked keychain gave out a Secret Service secret")
        } catch {
            #expect((error as? KeychainFailure)?.status == .interactionNotAllowed)
        }
        _ = try keystore.unlock(password: secret("two"))
        #expect(try stored() == Array("pw-kept".utf8))
        try keystore.setPassword(nil, current: secret("two"), parameters: .testing)
        #expect(try stored() == Array("pw-kept".utf8), "removing the password deletes WhenPasscodeSet items only")
        #expect(try keystore.verifyIntegrity() == 1)
    }

    // MARK: - Versions and record parsing

    func secretItemRecord() -> SecureBytes {
        BackupMessage.secretItem(
            SecretItem(number: 7, label: "l", attributes: ["b": "2", "a": "1"], created: 3, modified: 4),
            ssSecret("s", "t"))
    }

    @Test("a Secret Service record parses back to the same item under version 3")
    func recordRoundTrip() throws {
        guard case .secretItem(let item, let secret) = try BackupMessage.parse(secretItemRecord(), version: 3) else {
            Issue.record("not a Secret Service item")
            return
        }
        #expect(item == SecretItem(number: 0, label: "l", attributes: ["a": "1", "b": "2"], created: 3, modified: 4))
        #expect(secret.value.withUnsafeBytes { Array($0) } == Array("s".utf8))
        #expect(secret.contentType == "t")
        guard
            case .collection(let label) = try BackupMessage.parse(
                SecureBytes(copying: BackupMessage.collection(label: "c")), version: 3)
        else {
            Issue.record("not a collection")
            return
        }
        #expect(label == "c")
    }

    @Test("version 2 backups have no Secret Service or collection records: those kinds are refused there as malformed")
    func newKindsRefusedInVersion2() {
        for record in [secretItemRecord(), SecureBytes(copying: BackupMessage.collection(label: "c"))] {
            #expect(throws: KeychainFailure.self) { _ = try BackupMessage.parse(record, version: 2) }
        }
        // A version 2 end record has four counts, a version 3 one five.
        let end = BackupMessage.end(BackupMessage.Counts(items: 1, migratable: 1))
        #expect(throws: KeychainFailure.self) { _ = try BackupMessage.parse(SecureBytes(copying: end), version: 2) }
        #expect(throws: Never.self) {
            _ = try BackupMessage.parse(SecureBytes(copying: Array(end.dropLast(8))), version: 2)
        }
    }

    @Test(
        "malformed Secret Service records are refused: names out of order or repeated, text not UTF-8, bytes short or extra"
    )
    func malformedRecords() {
        func record(_ pairs: [[UInt8]], contentType: [UInt8] = Array("t".utf8)) -> SecureBytes {
            var bytes: [UInt8] = [5] + BackupHeader.bigEndian(UInt64(1)) + BackupHeader.bigEndian(UInt64(2))
            bytes += BackupHeader.bigEndian(UInt32(1)) + Array("l".utf8)
            bytes += BackupHeader.bigEndian(UInt32(pairs.count / 2))
            for string in pairs { bytes += BackupHeader.bigEndian(UInt32(string.count)) + string }
            bytes += [UInt8(contentType.count)] + contentType
            bytes += BackupHeader.bigEndian(UInt32(1)) + [0x41]
            return SecureBytes(copying: bytes)
        }
        let a = Array("a".utf8), b = Array("b".utf8)
        #expect(throws: Never.self) { _ = try BackupMessage.parse(record([a, a, b, b]), version: 3) }
        let cases: [(String, SecureBytes)] = [
            ("names out of order", record([b, b, a, a])),
            ("a name repeated", record([a, a, a, b])),
            ("a name not UTF-8", record([[0xff, 0xfe], a])),
            ("a content type not UTF-8", record([a, a], contentType: [0xc3])),
            ("truncated", SecureBytes(copying: record([a, a]).withUnsafeBytes { Array($0.dropLast()) })),
            ("a byte appended", SecureBytes(copying: record([a, a]).withUnsafeBytes { Array($0) + [0] })),
        ]
        for (what, bytes) in cases {
            do {
                _ = try BackupMessage.parse(bytes, version: 3)
                Issue.record("\(what): parsed")
            } catch {
                #expect(error.status == .decode, "\(what)")
            }
        }
    }

    @Test("a backup of a format version after 4 is refused with errSecWrongSecVersion, versions 1 to 4 are read")
    func laterVersionRefused() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let header = Array(FileManager.default.contents(atPath: path)!.prefix(BackupHeader.size))
        #expect(try BackupHeader.decode(header).version == 4)
        func withVersion(_ version: UInt16) -> [UInt8] {
            var bytes = header
            bytes.replaceSubrange(8..<10, with: BackupHeader.bigEndian(version))
            bytes.replaceSubrange(88..<104, with: Sodium.hash(Array(bytes[0..<88]), length: 16))
            return bytes
        }
        for version: UInt16 in [1, 2, 3, 4] {
            #expect(try BackupHeader.decode(withVersion(version)).version == version)
        }
        for version: UInt16 in [0, 5, 0xffff] {
            do {
                _ = try BackupHeader.decode(withVersion(version))
                Issue.record("version \(version) was read")
            } catch {
                #expect(error.status == .wrongSecVersion, "version \(version)")
            }
        }
    }
}
