import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The merge rule (docs/SYNC.md, "Merge rule"; issue 26 item 4), with devices on one machine exchanging changes
/// directly: they converge, a change applied twice is ignored, concurrent edits keep one conflict copy, a delete
/// and an edit are settled by their clocks, and what was applied is never sent on as a local change.
@Suite("Sync merge of remote changes")
struct SyncMergeTests {
    func edit(_ keystore: Keystore, _ account: String, _ value: String) throws {
        var sync = query("svc", account)
        sync.synchronizable = .yes
        #expect(try keystore.update(sync, changes: [:], secret: secret(value)) == 1)
    }

    func remove(_ keystore: Keystore, _ account: String) throws {
        var sync = query("svc", account)
        sync.synchronizable = .yes
        #expect(try keystore.delete(sync) == 1)
    }

    @Test("adds, updates and deletes on one device reach the other, and both hold the same items")
    func converge() throws {
        let devices = try SyncDevices()
        for account in ["a", "b", "c"] {
            _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", account), secret: secret(account))
        }
        #expect(try devices.send(0, to: 1) == SyncApplyReport(applied: 3))
        #expect(try syncContents(devices[1]) == ["svc/a=a", "svc/b=b", "svc/c=c"])
        try edit(devices[1], "b", "B")
        try remove(devices[1], "c")
        #expect(try devices.send(1, to: 0) == SyncApplyReport(applied: 2))
        #expect(try syncContents(devices[0]) == ["svc/a=a", "svc/b=B"])
        #expect(try syncContents(devices[0]) == (try syncContents(devices[1])))
        #expect(try devices[0].verifyIntegrity() == 2)
        #expect(try devices[1].verifyIntegrity() == 2)
    }

    @Test("applied changes are sealed here and never reported again as local changes")
    func notReemitted() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        try devices.send(0, to: 1)
        #expect(try devices[1].syncChanges(after: 0).changes.isEmpty)
        // An edit made on the receiving device is a local change again, over the applied version.
        let applied = try devices[0].syncChanges(after: 0).changes[0]
        try edit(devices[1], "a", "y")
        let (changes, _) = try devices[1].syncChanges(after: 0)
        #expect(changes.count == 1)
        #expect(changes[0].item == applied.item)
        #expect(changes[0].base == applied.clock)
    }

    @Test("the same changes applied twice are ignored the second time and change nothing")
    func idempotent() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "b"), secret: secret("y"))
        try remove(devices[0], "b")
        let (changes, _) = try devices[0].syncChanges(after: 0)
        #expect(try devices[1].applySyncChanges(changes) == SyncApplyReport(applied: 2))
        #expect(try devices[1].applySyncChanges(changes) == SyncApplyReport(ignored: 2))
        #expect(try syncContents(devices[1]) == ["svc/a=x"])
        #expect(try devices[1].syncConflicts().isEmpty)
    }

    @Test("an older version arriving after a newer one is ignored")
    func olderIgnored() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("v1"))
        let (first, cursor) = try devices[0].syncChanges(after: 0)
        try edit(devices[0], "a", "v2")
        let (second, _) = try devices[0].syncChanges(after: cursor)
        #expect(try devices[1].applySyncChanges(second) == SyncApplyReport(applied: 1))
        #expect(try devices[1].applySyncChanges(first) == SyncApplyReport(ignored: 1))
        #expect(try syncContents(devices[1]) == ["svc/a=v2"])
        #expect(try devices[1].syncConflicts().isEmpty)
    }

    @Test("concurrent edits converge on every device to the greater clock, with exactly one conflict copy each")
    func concurrentEdits() throws {
        let devices = try SyncDevices(3)
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("base"))
        try devices.exchangeAll()
        try edit(devices[0], "a", "from-0")
        tick()
        try edit(devices[1], "a", "from-1")
        try devices.exchangeAll()
        for index in 0..<3 {
            #expect(try syncContents(devices[index]) == ["svc/a=from-1"], "device \(index)")
            let conflicts = try devices[index].syncConflicts()
            #expect(conflicts.count == 1, "device \(index)")
            #expect(conflicts.first?.summary == #"genp service="svc" account="a""#)
            #expect(conflicts.first?.summary.contains("from-0") == false)
            #expect(try devices[index].verifyIntegrity() == 1)
        }
        // The copy holds the losing version: keeping it makes it the item's again, as a local change that syncs.
        let copy = try devices[2].syncConflicts()[0]
        try devices[2].resolveSyncConflict(copy.copy, keep: .copy)
        #expect(try syncContents(devices[2]) == ["svc/a=from-0"])
        #expect(try devices[2].syncConflicts().isEmpty)
        try devices.exchangeAll()
        for index in 0..<3 { #expect(try syncContents(devices[index]) == ["svc/a=from-0"], "device \(index)") }
        // Keeping the winner drops the copy and changes nothing else.
        let other = try devices[0].syncConflicts()[0]
        try devices[0].resolveSyncConflict(other.copy, keep: .winner)
        #expect(try devices[0].syncConflicts().isEmpty)
        #expect(try syncContents(devices[0]) == ["svc/a=from-0"])
        let unknown = #expect(throws: KeychainFailure.self) {
            try devices[0].resolveSyncConflict(other.copy, keep: .winner)
        }
        #expect(unknown?.status == .itemNotFound)
    }

    @Test("an edit made after a concurrent delete wins on both devices, with no conflict copy")
    func editAfterDelete() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("base"))
        try devices.exchangeAll()
        try remove(devices[0], "a")
        tick()
        try edit(devices[1], "a", "edited")
        try devices.exchangeAll()
        #expect(try syncContents(devices[0]) == ["svc/a=edited"])
        #expect(try syncContents(devices[1]) == ["svc/a=edited"])
        #expect(try devices[0].syncConflicts().isEmpty && devices[1].syncConflicts().isEmpty)
    }

    @Test("a delete made after a concurrent edit wins on both devices, with no conflict copy")
    func deleteAfterEdit() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("base"))
        try devices.exchangeAll()
        try edit(devices[0], "a", "edited")
        tick()
        try remove(devices[1], "a")
        try devices.exchangeAll()
        #expect(try syncContents(devices[0]).isEmpty)
        #expect(try syncContents(devices[1]).isEmpty)
        #expect(try devices[0].syncConflicts().isEmpty && devices[1].syncConflicts().isEmpty)
    }

    @Test("the same item added on two devices ends as one item; different secrets keep the other as a conflict copy")
    func addedTwice() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("zero"))
        _ = try devices[1].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "same"), secret: secret("s"))
        _ = try devices[1].add(.genericPassword, attributes: syncItem("svc", "same"), secret: secret("s"))
        try devices.exchangeAll()
        let contents = try syncContents(devices[0])
        #expect(contents == (try syncContents(devices[1])))
        #expect(contents.count == 2)
        #expect(contents.contains("svc/same=s"))
        // Which id keeps the key depends on the ids (the smaller wins on both devices); the device whose own
        // version lost before it was sent keeps the only copy, otherwise each keeps one. Equal items keep none.
        let conflicts = try devices[0].syncConflicts() + devices[1].syncConflicts()
        #expect((1...2).contains(conflicts.count))
        #expect(conflicts.allSatisfy { $0.summary == #"genp service="svc" account="a""# })
        #expect(try devices[0].syncConflicts().count <= 1 && devices[1].syncConflicts().count <= 1)
        let kept = try syncSecret(devices[0], "svc", "a")
        #expect(kept == "zero" || kept == "one")
        // The losing secret is not lost: keeping a copy brings it back as the item's value everywhere.
        let holder = try devices[0].syncConflicts().isEmpty ? 1 : 0
        try devices[holder].resolveSyncConflict(try devices[holder].syncConflicts()[0].copy, keep: .copy)
        try devices.exchangeAll()
        let other = kept == "zero" ? "one" : "zero"
        #expect(try syncSecret(devices[0], "svc", "a") == other)
        #expect(try syncSecret(devices[1], "svc", "a") == other)
    }

    @Test("a malformed payload is errSecDecode and nothing of the batch is applied")
    func malformed() throws {
        let devices = try SyncDevices()
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("x"))
        let good = try devices[0].syncChanges(after: 0).changes[0]
        let bad = SyncChange(
            item: SyncItemID.random(), clock: good.clock, base: nil, payload: SecureBytes(copying: [1, 1, 0, 0]))
        let failure = #expect(throws: KeychainFailure.self) { _ = try devices[1].applySyncChanges([good, bad]) }
        #expect(failure?.status == .decode)
        #expect(failure?.description.contains("malformed") == true)
        #expect(try syncContents(devices[1]).isEmpty)
        #expect(try devices[1].applySyncChanges([good]) == SyncApplyReport(applied: 1))
    }

    @Test("a payload for a …ThisDeviceOnly or non-synchronizable item is refused with errSecDecode")
    func thisDeviceOnlyPayload() throws {
        let devices = try SyncDevices()
        for attributes in [genericItem("svc", "a", .whenUnlocked), genericItem("svc", "a", .alwaysThisDeviceOnly)] {
            var attributes = attributes
            if attributes["pdmn"] == .string("dku") { attributes["sync"] = .bool(true) }
            let payload = try SyncPayload.encode(
                .genericPassword, attributes: attributes, secret: secret("x"), ancestors: [])
            let change = SyncChange(
                item: SyncItemID.random(), clock: SyncClock(milliseconds: 1, counter: 0, device: .random()), base: nil,
                payload: payload)
            let failure = #expect(throws: KeychainFailure.self) { _ = try devices[1].applySyncChanges([change]) }
            #expect(failure?.status == .decode)
        }
        #expect(
            try devices[1].search(
                ItemQuery(itemClass: .genericPassword, scope: .all, synchronizable: .any), projection: []
            ).isEmpty)
    }
}
