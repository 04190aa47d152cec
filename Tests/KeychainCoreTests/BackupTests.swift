import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Encrypted backup and restore (tracker issue 6; docs/BACKUP-FORMAT.md).
@Suite("Encrypted backup and restore")
struct BackupTests {
    static let passphrase = "backup passphrase ✓"

    /// A second keychain in the same temporary folder; `sameInstallation` picks the device key.
    func sibling(_ temp: TemporaryKeychain, _ name: String, sameInstallation: Bool) throws -> Keystore {
        let deviceKey = sameInstallation ? temp.location.deviceKeyPath : temp.directory + "/other-state/device.key"
        return try Keystore(
            location: KeychainLocation(databasePath: temp.directory + "/\(name)/keychain-db", deviceKeyPath: deviceKey))
    }

    /// Items in every protection class and both classes, with every kind of attribute value.
    func populate(_ keystore: Keystore) throws {
        for protection in ProtectionClass.allCases where protection != .whenPasscodeSetThisDeviceOnly {
            var attributes = genericItem("svc-\(protection.rawValue)", "alice", protection)
            attributes["labl"] = .string("Label für \(protection.rawValue) 🔑")
            attributes["gena"] = .data([0, 1, 2, 255])
            attributes["icmt"] = .string("comment, with \"quotes\"\nand a newline")
            _ = try keystore.add(.genericPassword, attributes: attributes, secret: secret("pw-\(protection.rawValue)"))
        }
        _ = try keystore.add(
            .genericPassword,
            attributes: [
                "svce": .string("binary"), "acct": .data([0xde, 0xad]), "sync": .bool(true),
                "agrp": .string("group.other"),
                "crtr": .integer(0x6170_706c), "invi": .bool(true),
            ],
            secret: SecureBytes(copying: [UInt8](0...255)))
        _ = try keystore.add(
            .genericPassword, attributes: ["svce": .string("empty-secret"), "agrp": .string("test")], secret: nil)
        _ = try keystore.add(
            .internetPassword,
            attributes: [
                "srvr": .string("example.com"), "ptcl": .string("htps"), "port": .integer(8443),
                "path": .string("/login"),
                "acct": .string("bob"), "sdmn": .string("realm"), "atyp": .string("dflt"), "agrp": .string("test"),
                "pdmn": .string(ProtectionClass.afterFirstUnlockThisDeviceOnly.rawValue),
            ],
            secret: secret("inet-secret"))
        _ = try keystore.add(
            .internetPassword,
            attributes: [
                "srvr": .string("bücher.example"), "ptcl": .string("http"), "acct": .string("zoë"),
                "agrp": .string("test"),
            ],
            secret: secret("pässwörd"))
    }

    struct Snapshot: Equatable {
        var itemClass: ItemClass
        var attributes: [String: AttributeValue]
        var secret: [UInt8]
    }

    /// Every item with every attribute and its secret, keyed by persistent reference.
    func snapshot(_ keystore: Keystore) throws -> [[UInt8]: Snapshot] {
        var result: [[UInt8]: Snapshot] = [:]
        for itemClass in ItemClass.allCases {
            let records = try keystore.search(
                ItemQuery(itemClass: itemClass, scope: .all, synchronizable: .any), projection: [.attributes, .secret])
            for record in records {
                result[record.persistentRef] = Snapshot(
                    itemClass: itemClass, attributes: record.attributes,
                    secret: record.secret?.withUnsafeBytes { Array($0) } ?? [])
            }
        }
        return result
    }

    /// The bytes of a keychain's files (database and WAL), to prove a failed restore changed nothing.
    func fileHashes(_ keystore: Keystore) -> [String: [UInt8]] {
        var hashes: [String: [UInt8]] = [:]
        for suffix in ["", "-wal"] {
            let path = keystore.location.databasePath + suffix
            if let data = FileManager.default.contents(atPath: path) { hashes[suffix] = Sodium.hash(Array(data)) }
        }
        return hashes
    }

    func makeBackup(_ temp: TemporaryKeychain) throws -> (Keystore, String, BackupReport) {
        let source = try temp.open()
        try populate(source)
        let path = temp.directory + "/keychain.swkcbackup"
        let report = try source.backup(to: path, passphrase: secret(Self.passphrase), parameters: .testing)
        return (source, path, report)
    }

    func expectFailure(
        _ status: KeychainStatus, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try body()
            Issue.record("expected \(status), but it succeeded", sourceLocation: sourceLocation)
        } catch let failure as KeychainFailure {
            #expect(failure.status == status, "\(failure)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Round trips

    @Test("a backup restored into an empty keychain on the same installation brings back every attribute and secret")
    func roundTripSameInstallation() throws {
        let temp = try TemporaryKeychain()
        let (source, path, backup) = try makeBackup(temp)
        #expect(backup.items == 10)
        #expect(backup.migratable == 6)
        #expect(backup.deviceBound == 4)
        #expect(FileSystem.permissions(path) == 0o600)

        let target = try sibling(temp, "restored", sameInstallation: true)
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .fail)
        #expect(report.itemsInBackup == 10)
        #expect(report.restored == 10)
        #expect(report.skippedThisDeviceOnly == 0)
        #expect(report.reassignedReferences == 0)
        let expected = try snapshot(source)
        #expect(expected.count == 10)
        #expect(
            try snapshot(target) == expected,
            "attributes (cdat, mdat, agrp, sync, pdmn, …), secrets and persistent refs survive")
    }

    @Test("onto another installation only migratable items come back, and the ThisDeviceOnly ones are counted")
    func restoreOnAnotherInstallation() throws {
        let temp = try TemporaryKeychain()
        let (source, path, _) = try makeBackup(temp)
        let target = try sibling(temp, "elsewhere", sameInstallation: false)
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase))
        #expect(report.itemsInBackup == 10)
        #expect(report.restored == 6)
        #expect(report.skippedThisDeviceOnly == 4)
        #expect(report.description.contains("4 ThisDeviceOnly items skipped"))
        let expected = try snapshot(source).filter {
            guard case .string(let raw)? = $0.value.attributes["pdmn"] else { return false }
            return ProtectionClass(rawValue: raw)?.isMigratable == true
        }
        #expect(expected.count == 6)
        #expect(try snapshot(target) == expected)
    }

    @Test("WhenPasscodeSetThisDeviceOnly items are never backed up, as on Apple devices, and the report says so")
    func passcodeSetItemsExcluded() throws {
        let temp = try TemporaryKeychain()
        let source = try temp.open()
        try source.setPassword(secret("pin"), current: nil, parameters: .testing)
        _ = try source.add(.genericPassword, attributes: genericItem("kept", "a", .whenUnlocked), secret: secret("1"))
        _ = try source.add(
            .genericPassword, attributes: genericItem("excluded", "a", .whenPasscodeSetThisDeviceOnly),
            secret: secret("2"))
        let path = temp.directory + "/b"
        let backup = try source.backup(to: path, passphrase: secret(Self.passphrase), parameters: .testing)
        #expect(backup.items == 1)
        #expect(backup.excludedWhenPasscodeSet == 1)
        let target = try sibling(temp, "t", sameInstallation: true)
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase))
        #expect(report.restored == 1)
        #expect(report.excludedFromBackup == 1)
    }

    @Test("an empty keychain makes a valid backup with no item records")
    func emptyKeychain() throws {
        let temp = try TemporaryKeychain()
        let source = try temp.open()
        let path = temp.directory + "/empty"
        #expect(try source.backup(to: path, passphrase: secret("x"), parameters: .testing).items == 0)
        let report = try sibling(temp, "t", sameInstallation: false).restore(from: path, passphrase: secret("x"))
        #expect(report == RestoreReport())
    }

    // MARK: - Refusals

    @Test("a wrong passphrase is refused with errSecAuthFailed and the keychain is untouched")
    func wrongPassphrase() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let target = try sibling(temp, "t", sameInstallation: true)
        _ = try target.add(
            .genericPassword, attributes: genericItem("existing", "a", .whenUnlocked), secret: secret("keep"))
        let before = fileHashes(target)
        expectFailure(.authFailed) { _ = try target.restore(from: path, passphrase: secret("wrong")) }
        #expect(fileHashes(target) == before)
    }

    /// Byte offsets of each frame in a backup: (start of its length field, end of its ciphertext).
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

    /// Restores `bytes` (a damaged copy of a backup) into a keychain holding one item; expects `status`
    /// and checks that no byte of the keychain changed.
    func expectRefused(_ temp: TemporaryKeychain, _ bytes: [UInt8], _ status: KeychainStatus, _ what: String) throws {
        let path = temp.directory + "/damaged-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let target = try sibling(temp, "target", sameInstallation: true)
        let before = fileHashes(target)
        let items = try snapshot(target)
        do {
            _ = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .replace)
            Issue.record("\(what): the damaged backup was restored")
        } catch {
            #expect(error.status == status, "\(what): \(error)")
            #expect(!error.description.contains("pw-"), "no secret in the message")
        }
        #expect(fileHashes(target) == before, "\(what): the keychain's files changed")
        #expect(try snapshot(target) == items)
    }

    @Test("a flipped byte in the header, in every record and in the final record is refused with errSecDecode")
    func flippedBytes() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        _ = try sibling(temp, "target", sameInstallation: true).add(
            .genericPassword, attributes: genericItem("existing", "a", .whenUnlocked), secret: secret("keep"))
        let original = Array(FileManager.default.contents(atPath: path)!)
        let frames = frames(original)
        #expect(frames.count == 13, "begin, 10 items, the synchronizable one's sync identity, end")
        #expect(frames.last?.upperBound == original.count)
        var offsets = [0, 8, 10, 12, 16, 24, 32, 47, 48, 71, 72, 87, 88, 103]  // every header field
        for frame in frames {
            offsets += [
                frame.lowerBound, frame.lowerBound + 3, frame.lowerBound + 4, (frame.lowerBound + frame.upperBound) / 2,
                frame.upperBound - 1,
            ]
        }
        for offset in offsets {
            var damaged = original
            damaged[offset] ^= 0x01
            try expectRefused(temp, damaged, .decode, "bit flipped at \(offset)")
        }
    }

    @Test("a truncated backup is refused with errSecDecode wherever it is cut")
    func truncated() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let original = Array(FileManager.default.contents(atPath: path)!)
        let frames = frames(original)
        var cuts = [0, 1, 50, BackupHeader.size - 1, BackupHeader.size, BackupHeader.size + 2, original.count - 1]
        for frame in frames { cuts += [frame.lowerBound, frame.lowerBound + 2, frame.upperBound - 5] }
        cuts.append(frames[frames.count - 2].upperBound)  // exactly without the final record
        for cut in cuts {
            try expectRefused(temp, Array(original[..<cut]), .decode, "cut at \(cut)")
        }
    }

    @Test(
        "bytes appended to a backup are refused with errSecDecode",
        arguments: [[0x00], [0x01, 0x02], [UInt8](repeating: 0xAB, count: 40)])
    func extended(extra: [UInt8]) throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let original = Array(FileManager.default.contents(atPath: path)!)
        try expectRefused(temp, original + extra, .decode, "\(extra.count) bytes appended")
        // A copy of the final record appended: authenticates alone, but not after the final one.
        let last = frames(original).last!
        try expectRefused(temp, original + original[last], .decode, "final record repeated")
    }

    @Test("records swapped between positions are refused")
    func reordered() throws {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let original = Array(FileManager.default.contents(atPath: path)!)
        let frames = frames(original)
        var swapped = Array(original[..<frames[1].lowerBound])
        swapped += original[frames[2]] + original[frames[1]]
        swapped += original[frames[3].lowerBound...]
        try expectRefused(temp, swapped, .decode, "records 1 and 2 swapped")
        var dropped = Array(original[..<frames[3].lowerBound])
        dropped += original[frames[4].lowerBound...]
        try expectRefused(temp, dropped, .decode, "record 3 dropped")
    }

    @Test("a file that is not a backup is refused with errSecDecode")
    func notABackup() throws {
        let temp = try TemporaryKeychain()
        try expectRefused(temp, Array("name,url,username,password\n".utf8), .decode, "a CSV file")
        try expectRefused(temp, [], .decode, "an empty file")
    }

    // MARK: - Conflicts

    func conflictSetup() throws -> (TemporaryKeychain, String, Keystore) {
        let temp = try TemporaryKeychain()
        let (_, path, _) = try makeBackup(temp)
        let target = try sibling(temp, "target", sameInstallation: true)
        _ = try target.add(
            .genericPassword, attributes: genericItem("svc-ak", "alice", .whenUnlocked), secret: secret("newer"))
        return (temp, path, target)
    }

    func storedSecret(_ keystore: Keystore) throws -> String? {
        try keystore.search(query("svc-ak", "alice"), projection: .secret).first?.secret.map {
            $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test("policy skip keeps the existing item and counts the backup's one as skipped")
    func conflictSkip() throws {
        let (temp, path, target) = try conflictSetup()
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .skip)
        #expect(report.skippedExisting == 1)
        #expect(report.restored == 9)
        #expect(try storedSecret(target) == "newer")
        _ = temp
    }

    @Test("policy replace puts the backup's item in place of the existing one, with its dates")
    func conflictReplace() throws {
        let (temp, path, target) = try conflictSetup()
        let report = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .replace)
        #expect(report.replaced == 1)
        #expect(report.restored == 10)
        #expect(try target.verifyIntegrity() == 10, "replacing keeps the integrity record right")
        #expect(try storedSecret(target) == "pw-ak")
        #expect(try snapshot(target) == snapshot(try temp.open()))
    }

    @Test("policy fail stops with errSecDuplicateItem and rolls the whole restore back")
    func conflictFail() throws {
        let (temp, path, target) = try conflictSetup()
        let before = fileHashes(target)
        expectFailure(.duplicateItem) {
            _ = try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .fail)
        }
        #expect(fileHashes(target) == before)
        #expect(try snapshot(target).count == 1)
        _ = temp
    }

    @Test("restoring into the keychain the backup came from skips everything and changes nothing")
    func restoreIntoSource() throws {
        let temp = try TemporaryKeychain()
        let (source, path, _) = try makeBackup(temp)
        let before = try snapshot(source)
        let report = try source.restore(from: path, passphrase: secret(Self.passphrase), policy: .skip)
        #expect(report.skippedExisting == 10)
        #expect(try snapshot(source) == before)
    }

    @Test("a persistent reference held by another item is replaced by a fresh one")
    func referenceClash() throws {
        let temp = try TemporaryKeychain()
        let (source, path, _) = try makeBackup(temp)
        // Rename every item in the source so their primary keys differ but their references stay.
        for itemClass in ItemClass.allCases {
            _ = try source.update(
                ItemQuery(itemClass: itemClass, scope: .all, synchronizable: .any),
                changes: ["labl": .string("x"), "acct": .string("renamed")], secret: nil)
        }
        let report = try source.restore(from: path, passphrase: secret(Self.passphrase), policy: .fail)
        #expect(report.restored == 10)
        #expect(report.reassignedReferences == 10)
        #expect(try snapshot(source).count == 20)
    }

    // MARK: - Files

    @Test("an existing file is never overwritten without the overwrite flag")
    func existingFile() throws {
        let temp = try TemporaryKeychain()
        let (source, path, _) = try makeBackup(temp)
        let before = FileManager.default.contents(atPath: path)
        expectFailure(.duplicateItem) { _ = try source.backup(to: path, passphrase: secret("p"), parameters: .testing) }
        #expect(FileManager.default.contents(atPath: path) == before)
        _ = try source.backup(to: path, passphrase: secret("p"), parameters: .testing, overwrite: true)
        #expect(FileManager.default.contents(atPath: path) != before)
        #expect(FileSystem.permissions(path) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: temp.directory).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
    }

    @Test("a locked keychain is not backed up partially: errSecInteractionNotAllowed and no file")
    func lockedKeychain() throws {
        let temp = try TemporaryKeychain()
        let source = try temp.open()
        try source.setPassword(secret("pin"), current: nil, parameters: .testing)
        _ = try source.add(.genericPassword, attributes: genericItem("s", "a", .whenUnlocked), secret: secret("1"))
        try source.lock()
        let path = temp.directory + "/locked"
        expectFailure(.interactionNotAllowed) {
            _ = try source.backup(to: path, passphrase: secret("p"), parameters: .testing)
        }
        #expect(!FileSystem.exists(path))
    }

    @Test("an empty passphrase is refused")
    func emptyPassphrase() throws {
        let temp = try TemporaryKeychain()
        expectFailure(.param) {
            _ = try temp.open().backup(to: temp.directory + "/x", passphrase: secret(""), parameters: .testing)
        }
    }
}
