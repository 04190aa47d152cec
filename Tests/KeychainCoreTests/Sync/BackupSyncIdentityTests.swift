import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Backups carry each synchronizable item's sync identity (docs/BACKUP-FORMAT.md, version 4, kind 7), so that a
/// restore on a device that syncs gives the other devices the same item, never a second copy (issue 26).
@Suite("Backups keep each item's sync identity")
struct BackupSyncIdentityTests {
    static let passphrase = "backup-pass"

    func ssSecret(_ text: String) -> SecretItemSecret {
        SecretItemSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: "text/plain")
    }

    func ssText(_ keystore: Keystore) throws -> [String] {
        try keystore.secretItems(matching: [:]).map {
            try keystore.secretItemSecret($0.number).value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }.sorted()
    }

    /// The ids of every live item in the journal of `keystore`, sorted.
    func liveIDs(_ keystore: Keystore) throws -> [String] {
        try keystore.journalChanges(after: 0).filter { $0.kind != .deleted }.map(\.item.description).sorted()
    }

    func backup(_ keystore: Keystore, _ temp: TemporaryKeychain) throws -> String {
        let path = temp.directory + "/sync-\(UUID().uuidString).swkcbackup"
        _ = try keystore.backup(to: path, passphrase: secret(Self.passphrase), parameters: .testing)
        return path
    }

    @Test("an item restored on a second home keeps its sync id: the other device ignores it and gets no duplicate")
    func restoreOnSecondHome() throws {
        let devices = try SyncDevices(3)
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        _ = try devices[0].createSecretItem(
            label: "Chromium Safe Storage", attributes: ["application": "chromium"], secret: ssSecret("ss-one"),
            replace: false)
        try devices[0].setSyncState([1], named: Keystore.secretItemSyncStateName)
        #expect(try devices.send(0, to: 1).applied == 2)
        let path = try backup(devices[0], devices.homes[0])

        // Device 2 is a new home: the backup is restored there, and it sends what it has to device 1.
        let report = try devices[2].restore(from: path, passphrase: secret(Self.passphrase), policy: .fail)
        #expect(report.restored == 2)
        try devices[2].setSyncState([1], named: Keystore.secretItemSyncStateName)
        #expect(try liveIDs(devices[2]) == liveIDs(devices[0]))
        let received = try devices.send(2, to: 1)
        // The SecItem item is a repeat of what device 1 holds. The Secret Service item is journaled once more when
        // `sync enable` takes effect (so that changes made while sync was off go out): under its own id, as a
        // successor with the same content, never a second item.
        #expect(received.ignored >= 1)
        #expect(received.applied + received.ignored == 2)
        #expect(received.conflicts == 0)
        #expect(try syncContents(devices[1]) == ["svc/a=one"])
        #expect(try ssText(devices[1]) == ["ss-one"])
        #expect(try liveIDs(devices[1]) == liveIDs(devices[0]))

        // A later edit on device 1 reaches the restored home as a successor: applied, no conflict copy.
        tick()
        #expect(try devices[1].update(syncQuery("svc", "a"), changes: [:], secret: secret("two")) == 1)
        let edit = try devices.send(1, to: 2)
        #expect(edit.applied == 1)
        #expect(edit.conflicts == 0)
        #expect(try syncContents(devices[2]) == ["svc/a=two"])
        // The original device, hearing from the restored one, applies nothing twice.
        #expect(try devices.send(2, to: 0).conflicts == 0)
        try devices.exchangeAll()
        for index in 0..<3 {
            #expect(try syncContents(devices[index]) == ["svc/a=two"], "device \(index)")
            #expect(try ssText(devices[index]) == ["ss-one"], "device \(index)")
            #expect(try devices[index].syncConflicts().isEmpty, "device \(index)")
            #expect(try devices[index].verifyIntegrity() >= 1, "device \(index)")
        }
    }

    @Test("an item deleted after the backup and then restored comes back under its id, as an edit after the delete")
    func restoreAfterDelete() throws {
        let devices = try SyncDevices(2)
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        try devices.send(0, to: 1)
        let path = try backup(devices[0], devices.homes[0])
        let id = try liveIDs(devices[0])
        tick()
        #expect(try devices[0].delete(syncQuery("svc", "a")) == 1)
        try devices.send(0, to: 1)
        #expect(try syncContents(devices[1]).isEmpty)

        tick()
        #expect(try devices[0].restore(from: path, passphrase: secret(Self.passphrase), policy: .fail).restored == 1)
        #expect(try liveIDs(devices[0]) == id)
        #expect(try devices.send(0, to: 1).applied == 1)
        #expect(try syncContents(devices[1]) == ["svc/a=one"])
        #expect(try liveIDs(devices[1]) == id)
        #expect(try devices[1].syncConflicts().isEmpty)
    }

    @Test("restoring over the item itself (replace) keeps one item under one id on both devices")
    func restoreReplacing() throws {
        let devices = try SyncDevices(2)
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        try devices.send(0, to: 1)
        let path = try backup(devices[0], devices.homes[0])
        tick()
        #expect(try devices[0].restore(from: path, passphrase: secret(Self.passphrase), policy: .replace).replaced == 1)
        try devices.exchangeAll()
        #expect(try syncContents(devices[1]) == ["svc/a=one"])
        #expect(try liveIDs(devices[1]) == liveIDs(devices[0]))
        #expect(try liveIDs(devices[0]).count == 1)
    }

    @Test("items that do not sync carry no sync identity, and a second restore of one backup keeps the first's id")
    func onlySyncingItems() throws {
        let temp = try TemporaryKeychain()
        let source = try temp.open()
        _ = try source.add(
            .genericPassword, attributes: genericItem("svc", "local", .whenUnlocked), secret: secret("l"))
        _ = try source.add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        let path = try backup(source, temp)
        let other = try TemporaryKeychain()
        let target = try other.open()
        #expect(try target.restore(from: path, passphrase: secret(Self.passphrase), policy: .fail).restored == 2)
        #expect(try liveIDs(target) == liveIDs(source))
        #expect(try liveIDs(target).count == 1)
    }

    // MARK: - The record

    @Test("a sync identity record parses back under version 4 and is refused as malformed under version 3")
    func recordRoundTrip() throws {
        let identity = BackupRecordParser.sampleSyncIdentity
        let bytes = BackupMessage.syncIdentity(identity)
        #expect(bytes.count == 1 + 16 + 28 + 1 + 2 * 28)
        #expect(bytes[0] == 7)
        guard case .syncIdentity(let parsed) = try BackupMessage.parse(SecureBytes(copying: bytes), version: 4) else {
            Issue.record("not a sync identity")
            return
        }
        #expect(parsed == identity)
        for version: UInt16 in [1, 2, 3] {
            let failure = #expect(throws: KeychainFailure.self, "version \(version)") {
                _ = try BackupMessage.parse(SecureBytes(copying: bytes), version: version)
            }
            #expect(failure?.status == .decode)
        }
        var tooMany = Array(bytes.prefix(45)) + [17]
        for _ in 0..<17 { tooMany += identity.clock.encoded }
        for (what, malformed) in [
            ("short", Array(bytes.dropLast())), ("long", bytes + [0]), ("17 ancestors", tooMany),
            ("no count", Array(bytes.prefix(45))),
        ] {
            let failure = #expect(throws: KeychainFailure.self, "\(what)") {
                _ = try BackupMessage.parse(SecureBytes(copying: malformed), version: 4)
            }
            #expect(failure?.status == .decode, "\(what)")
        }
    }
}

/// The query for the synchronizable generic password `service`/`account`.
private func syncQuery(_ service: String, _ account: String) -> ItemQuery {
    var query = query(service, account)
    query.synchronizable = .yes
    return query
}
