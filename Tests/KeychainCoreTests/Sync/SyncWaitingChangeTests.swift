import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// A change whose payload is of a kind or format version this build does not know (made by a newer build) waits,
/// sealed in the keychain, for a build that knows it; everything else in its batch is applied (issue 26).
@Suite("Sync changes from a newer build wait instead of refusing the batch")
struct SyncWaitingChangeTests {
    /// `version ‖ kind ‖ 0 ancestors ‖ empty record ‖ no secret`: a payload of kind `kind` (docs/SYNC.md, "Payload").
    func payload(version: UInt8 = 1, kind: UInt8) -> SecureBytes {
        SecureBytes(copying: [version, kind, 0, 0, 0, 0, 0, 0])
    }

    func change(_ payload: SecureBytes) -> SyncChange {
        let device = SyncDeviceID(bytes: [UInt8](repeating: 0xAB, count: SyncDeviceID.byteCount))!
        return SyncChange(
            item: .random(), clock: SyncClock(milliseconds: StoreSession.syncNow(), counter: 0, device: device),
            base: nil, payload: payload)
    }

    @Test("a payload of kind 99 waits, and the item beside it in the batch is applied")
    func unknownKindWaits() throws {
        let devices = try SyncDevices(2)
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        let (changes, _) = try devices[0].syncChanges(after: 0)
        let report = try devices[1].applySyncChanges([change(payload(kind: 99))] + changes)
        #expect(report.applied == 1)
        #expect(report.waiting == 1)
        #expect(try syncContents(devices[1]) == ["svc/a=one"])
        #expect(try devices[1].waitingSyncChangeCount() == 1)
        // A later batch keeps it (once), and adds another of a later format version.
        let later = try devices[1].applySyncChanges([change(payload(version: 2, kind: 1))])
        #expect(later.waiting == 2)
        #expect(try devices[1].waitingSyncChangeCount() == 2)
        #expect(try devices[1].verifyIntegrity() == 1)
        // A known kind that is malformed still refuses the whole batch.
        let failure = #expect(throws: KeychainFailure.self) {
            _ = try devices[1].applySyncChanges([change(payload(kind: 1))])
        }
        #expect(failure?.status == .decode)
        #expect(try devices[1].waitingSyncChangeCount() == 2)
    }

    @Test(
        "a waiting change that this build knows (as after an upgrade) is applied by the next batch and leaves the list")
    func appliedAfterUpgrade() throws {
        let devices = try SyncDevices(2)
        _ = try devices[0].add(.genericPassword, attributes: syncItem("svc", "a"), secret: secret("one"))
        let (changes, _) = try devices[0].syncChanges(after: 0)
        // What an older build kept: the change, stored as waiting.
        try devices[1].write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.ensureSyncTables()
            try s.setWaitingSyncChanges(changes, replacing: [])
        }
        #expect(try devices[1].waitingSyncChangeCount() == 1)
        let report = try devices[1].applySyncChanges([])
        #expect(report.applied == 1)
        #expect(report.waiting == 0)
        #expect(try devices[1].waitingSyncChangeCount() == 0)
        #expect(try syncContents(devices[1]) == ["svc/a=one"])
        #expect(try devices[1].verifyIntegrity() == 1)
    }
}
