import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Secret Service items on the change journal (issue 23: a change serial per write and tombstones) and in sync
/// (issue 26: they sync when their keychain is marked with `security sync enable`).
@Suite("Secret Service items in the change journal and in sync")
struct SecretItemSyncTests {
    static func ssSecret(_ text: String, _ type: String = "text/plain") -> SecretItemSecret {
        SecretItemSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: type)
    }

    static func text(_ secret: SecretItemSecret) -> String {
        secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    static func enable(_ keystore: Keystore) throws {
        try keystore.setSyncState([1], named: Keystore.secretItemSyncStateName)
    }

    @Test(
        "Every Secret Service write takes the next change serial, and a delete leaves a tombstone that no search returns"
    )
    func serialsAndTombstones() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let (number, _) = try keystore.createSecretItem(
            label: "Chromium Safe Storage", attributes: ["application": "chromium"], secret: Self.ssSecret("one"),
            replace: false)
        var serials: [Int64] = []
        func latest() throws -> JournalChange {
            let changes = try keystore.journalChanges(after: 0)
            #expect(changes.count == 1)
            return try #require(changes.first)
        }
        let created = try latest()
        #expect(created.kind == .secretItem(number))
        #expect(created.local)
        serials.append(created.serial)
        try keystore.setSecretItemSecret(number, Self.ssSecret("two"))
        serials.append(try latest().serial)
        try keystore.updateSecretItem(number, label: "Chromium Safe Storage 2")
        serials.append(try latest().serial)
        try keystore.updateSecretItem(number, attributes: ["application": "chromium", "profile": "1"])
        serials.append(try latest().serial)
        #expect(try keystore.deleteSecretItem(number))
        let deleted = try latest()
        serials.append(deleted.serial)
        #expect(serials == serials.sorted() && Set(serials).count == serials.count, "\(serials)")
        #expect(deleted.kind == .deleted)
        #expect(deleted.item == created.item)
        // The tombstone is in the journal only: searches, lookups and the integrity check never see it.
        #expect(try keystore.secretItems(matching: [:]).isEmpty)
        #expect(try keystore.secretItems(matching: ["application": "chromium"]).isEmpty)
        #expect(try keystore.secretItem(number) == nil)
        #expect(try keystore.secretItemNumbers().isEmpty)
        #expect(try keystore.verifyIntegrity() == 0)
        // Only what changed after a cursor is reported.
        #expect(try keystore.journalChanges(after: deleted.serial).isEmpty)
        #expect(try keystore.journalChanges(after: serials[3]).map(\.item) == [created.item])
    }

    @Test("Re-creating a Secret Service item after its delete makes a new item, with its own id, beside the tombstone")
    func recreateAfterDelete() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let attributes = ["application": "code"]
        let (first, _) = try keystore.createSecretItem(
            label: "VS Code", attributes: attributes, secret: Self.ssSecret("old"), replace: false)
        #expect(try keystore.deleteSecretItem(first))
        let (second, _) = try keystore.createSecretItem(
            label: "VS Code", attributes: attributes, secret: Self.ssSecret("new"), replace: true)
        #expect(second != first)
        #expect(try keystore.secretItems(matching: attributes).map(\.number) == [second])
        #expect(Self.text(try keystore.secretItemSecret(second)) == "new")
        let changes = try keystore.journalChanges(after: 0)
        #expect(changes.map(\.kind) == [.deleted, .secretItem(second)])
        #expect(changes[0].item != changes[1].item)
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test(
        "What changed since serial N lists both kinds in one journal: synchronizable SecItem items and Secret Service items"
    )
    func bothKinds() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(.genericPassword, attributes: syncItem("svc", "alice"), secret: secret("s"))
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("local", "bob", .whenUnlocked), secret: secret("s"))
        let (number, _) = try keystore.createSecretItem(
            label: "item", attributes: ["a": "b"], secret: Self.ssSecret("s"), replace: false)
        let changes = try keystore.journalChanges(after: 0)
        #expect(changes.map(\.kind) == [.secItem, .secretItem(number)])
        #expect(changes[0].serial < changes[1].serial)
    }

    @Test(
        "Secret Service items of a keychain marked for sync reach the other device with label, attributes, secret and content type; edits and deletes follow"
    )
    func syncsWhenEnabled() throws {
        let devices = try SyncDevices(2)
        try Self.enable(devices[0])
        let attributes = ["application": "chromium", "xdg:schema": "chrome_libsecret_os_crypt_password_v2"]
        let (number, _) = try devices[0].createSecretItem(
            label: "Chromium Safe Storage", attributes: attributes,
            secret: Self.ssSecret("p4ss", "text/plain; charset=utf8"), replace: false)
        #expect(try devices.send(0, to: 1).applied == 1)
        let received = try #require(try devices[1].secretItems(matching: ["application": "chromium"]).first)
        #expect(received.label == "Chromium Safe Storage")
        #expect(received.attributes == attributes)
        let sent = try #require(try devices[0].secretItem(number))
        #expect(received.created == sent.created && received.modified == sent.modified)
        let secret = try devices[1].secretItemSecret(received.number)
        #expect(Self.text(secret) == "p4ss")
        #expect(secret.contentType == "text/plain; charset=utf8")

        tick()
        try devices[0].updateSecretItem(number, label: "Chromium Safe Storage (renamed)")
        try devices[0].setSecretItemSecret(number, Self.ssSecret("n3w"))
        try devices.send(0, to: 1)
        let updated = try #require(try devices[1].secretItem(received.number))
        #expect(updated.label == "Chromium Safe Storage (renamed)")
        #expect(Self.text(try devices[1].secretItemSecret(received.number)) == "n3w")
        // An edit on the receiving device goes back once that keychain is marked too (it is a successor there).
        tick()
        try Self.enable(devices[1])
        try devices[1].updateSecretItem(received.number, label: "edited on 1")
        try devices.send(1, to: 0)
        #expect(try devices[0].secretItem(number)?.label == "edited on 1")

        tick()
        #expect(try devices[0].deleteSecretItem(number))
        try devices.send(0, to: 1)
        #expect(try devices[1].secretItems(matching: [:]).isEmpty)
        #expect(try devices[1].journalChanges(after: 0).map(\.kind) == [.deleted])
        #expect(try devices[1].verifyIntegrity() == 0)
        #expect(try devices[0].verifyIntegrity() == 0)
    }

    @Test("A keychain not marked for sync never sends its Secret Service items; once enabled it sends the ones it has")
    func notSentUntilEnabled() throws {
        let devices = try SyncDevices(2)
        _ = try devices[0].createSecretItem(
            label: "not yet", attributes: ["k": "v"], secret: Self.ssSecret("quiet"), replace: false)
        let (before, _) = try devices[0].syncChanges(after: 0)
        #expect(before.isEmpty)
        try Self.enable(devices[0])
        let (after, _) = try devices[0].syncChanges(after: 0)
        #expect(after.count == 1)
        let payload = try #require(after.first?.payload)
        guard case .secretItem(let content) = try SyncPayload.decodeAny(payload) else {
            Issue.record("not a Secret Service payload")
            return
        }
        #expect(content.item.label == "not yet")
        try devices.send(0, to: 1)
        #expect(try devices[1].secretItems(matching: ["k": "v"]).map(\.label) == ["not yet"])
        // Disabled again: a change made meanwhile is not sent, and goes out once enabled again.
        try devices[0].setSyncState(nil, named: Keystore.secretItemSyncStateName)
        #expect(try devices[0].syncChanges(after: 0).changes.isEmpty)
        let number = try #require(try devices[0].secretItemNumbers().first)
        try devices[0].updateSecretItem(number, label: "changed while off")
        try devices.send(0, to: 1)
        #expect(try devices[1].secretItems(matching: ["k": "v"]).map(\.label) == ["not yet"])
        try Self.enable(devices[0])
        try devices.send(0, to: 1)
        #expect(try devices[1].secretItems(matching: ["k": "v"]).map(\.label) == ["changed while off"])
    }

    /// Two devices edit one synced Secret Service item concurrently; device 1's edit is the later.
    static func concurrentEdits() throws -> (devices: SyncDevices, numbers: (Int64, Int64)) {
        let devices = try SyncDevices(2)
        try Self.enable(devices[0])
        try Self.enable(devices[1])
        let (number, _) = try devices[0].createSecretItem(
            label: "shared", attributes: ["k": "v"], secret: Self.ssSecret("base"), replace: false)
        try devices.exchangeAll()
        let other = try #require(try devices[1].secretItemNumbers().first)
        try devices[0].setSecretItemSecret(number, Self.ssSecret("from 0"))
        try devices[0].updateSecretItem(number, label: "label 0")
        tick()
        try devices[1].setSecretItemSecret(other, Self.ssSecret("from 1"))
        try devices[1].updateSecretItem(other, label: "label 1")
        return (devices, (number, other))
    }

    @Test(
        "Concurrent edits of a Secret Service item converge to the greater clock on both devices, the loser kept as a conflict copy"
    )
    func concurrentEditsKeepTheLoser() throws {
        let (devices, (number, other)) = try Self.concurrentEdits()
        let toOne = try devices.send(0, to: 1)
        let toZero = try devices.send(1, to: 0)
        #expect(toOne.conflicts == 1 && toOne.applied == 0)
        #expect(toZero.conflicts == 1 && toZero.applied == 1)
        try devices.exchangeAll()
        #expect(Self.text(try devices[0].secretItemSecret(number)) == "from 1")
        #expect(Self.text(try devices[1].secretItemSecret(other)) == "from 1")
        #expect(try devices[0].secretItem(number)?.label == "label 1")
        // Each device keeps the loser once (repeats of the exchange keep no second copy), listed by its label.
        for device in [devices[0], devices[1]] {
            let conflicts = try device.syncConflicts()
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.summary == "secret-service-item label=\"label 0\"")
            #expect(conflicts.first?.summary.contains("from 0") == false)
        }
    }

    @Test("Resolving a Secret Service conflict copy with copy makes it the item on every device; winner drops it")
    func resolveSecretItemConflict() throws {
        let (devices, (number, other)) = try Self.concurrentEdits()
        try devices.exchangeAll()
        let copy = try #require(try devices[0].syncConflicts().first).copy
        try devices[0].resolveSyncConflict(copy, keep: .copy)
        #expect(try devices[0].syncConflicts().isEmpty)
        #expect(Self.text(try devices[0].secretItemSecret(number)) == "from 0")
        #expect(try devices[0].secretItem(number)?.label == "label 0")
        #expect(try devices[0].secretItem(number)?.attributes == ["k": "v"])
        // The choice is a local edit: journaled, sent, and applied over the winner on the other device.
        let report = try devices.send(0, to: 1)
        #expect(report.applied == 1 && report.conflicts == 0)
        #expect(Self.text(try devices[1].secretItemSecret(other)) == "from 0")
        #expect(try devices[1].secretItem(other)?.label == "label 0")
        // The other device settles its own copy of the same loser by keeping what it now holds.
        let otherCopy = try #require(try devices[1].syncConflicts().first).copy
        try devices[1].resolveSyncConflict(otherCopy, keep: .winner)
        #expect(try devices[1].syncConflicts().isEmpty)
        #expect(Self.text(try devices[1].secretItemSecret(other)) == "from 0")
        try devices.exchangeAll()
        #expect(Self.text(try devices[0].secretItemSecret(number)) == "from 0")
        #expect(try devices[0].syncConflicts().isEmpty && devices[1].syncConflicts().isEmpty)
        #expect(throws: KeychainFailure.self) { try devices[0].resolveSyncConflict(copy, keep: .copy) }
    }

    @Test("A Secret Service conflict copy of an item deleted meanwhile brings the item back when kept")
    func resolveCopyOfDeletedSecretItem() throws {
        let (devices, (number, _)) = try Self.concurrentEdits()
        try devices.exchangeAll()
        #expect(try devices[0].deleteSecretItem(number))
        let copy = try #require(try devices[0].syncConflicts().first).copy
        try devices[0].resolveSyncConflict(copy, keep: .copy)
        let restored = try #require(try devices[0].secretItems(matching: ["k": "v"]).first)
        #expect(restored.label == "label 0")
        #expect(Self.text(try devices[0].secretItemSecret(restored.number)) == "from 0")
        try devices.send(0, to: 1)
        #expect(try devices[1].secretItems(matching: ["k": "v"]).map(\.label) == ["label 0"])
    }

    @Test("A Secret Service sync payload round-trips, and truncated, extended or non-canonical ones are refused")
    func payloadFormat() throws {
        let item = SecretItem(
            number: 0, label: "label", attributes: ["b": "2", "a": "1"], created: 10, modified: 20,
            access: SecretItemAccess(owner: "exe:/usr/bin/chromium", allowed: ["exe:/usr/bin/other"]))
        let clock = SyncClock(milliseconds: 5, counter: 1, device: SyncDeviceID.random())
        let payload = SyncPayload.encodeSecretItem(item, Self.ssSecret("s3", "text/plain"), ancestors: [clock])
        let bytes = payload.withUnsafeBytes { Array($0) }
        #expect(bytes[0] == 1 && bytes[1] == 5 && bytes[2] == 1)
        guard case .secretItem(let content) = try SyncPayload.decodeAny(payload) else {
            Issue.record("not a Secret Service payload")
            return
        }
        #expect(content.item == item)
        #expect(content.ancestors == [clock])
        #expect(Self.text(content.secret) == "s3" && content.secret.contentType == "text/plain")
        #expect(SyncPayloadParser.parse(bytes))
        // A SecItem-only decode refuses it rather than misreading it.
        #expect(throws: KeychainFailure.self) { try SyncPayload.decode(payload) }
        for bad in [Array(bytes.dropLast()), bytes + [0], Array(bytes.prefix(3))] {
            #expect(throws: KeychainFailure.self) { try SyncPayload.decodeAny(SecureBytes(copying: bad)) }
            #expect(!SyncPayloadParser.parse(bad))
        }
        // Attributes out of order are not the canonical record: refused.
        var metadata = SecretItemCodec.encodeMetadata(item)
        let a = metadata.firstRange(of: Array("a".utf8) + [0, 0, 0, 1] + Array("1".utf8))
        let b = metadata.firstRange(of: Array("b".utf8) + [0, 0, 0, 1] + Array("2".utf8))
        if let a, let b {
            let first = Array(metadata[a])
            metadata.replaceSubrange(a, with: Array(metadata[b]))
            metadata.replaceSubrange(b, with: first)
        }
        let swapped =
            bytes.prefix(3 + 28) + withUnsafeBytes(of: UInt32(metadata.count).bigEndian, Array.init) + metadata
            + bytes.suffix(from: 3 + 28 + 4 + metadata.count)
        #expect(!SyncPayloadParser.parse(Array(swapped)))
    }
}
