import KeychainCore
import KeychainSync

/// A stand-in for the store side of sync (the seam in `Sources/KeychainCore/Sync/`): items by id with their
/// clock and payload, a local journal, last-writer-wins by clock, and a conflict copy when a concurrent edit
/// loses. It lets the protocol's tests run whatever state the store side is in.
final class MemoryReplica: SyncReplica {
    struct Version {
        var clock: SyncClock
        var payload: [UInt8]?
    }

    let device = SyncDeviceID.random()
    var items: [SyncItemID: Version] = [:]
    var journal: [(serial: UInt64, change: SyncChange)] = []
    var conflictList: [SyncConflict] = []
    var secrets: [String: SecureBytes] = [:]
    var states: [String: [UInt8]] = [:]
    var locked = false
    /// How many times each item's remote changes were applied (written), to catch a change applied twice.
    var appliedCount: [SyncItemID: Int] = [:]
    var clock: SyncClock?
    var now: UInt64 = 1_000

    /// A local edit (or delete with nil).
    func write(_ item: SyncItemID, _ value: String?) {
        now += 1
        let stamp = SyncClock.next(after: clock, now: now, device: device)
        clock = stamp
        let base = items[item]?.clock
        items[item] = Version(clock: stamp, payload: value.map { Array($0.utf8) })
        journal.append(
            (
                UInt64(journal.count + 1),
                SyncChange(
                    item: item, clock: stamp, base: base, payload: value.map { SecureBytes(copying: Array($0.utf8)) })
            ))
    }

    func value(_ item: SyncItemID) -> String? { items[item]?.payload.map { String(decoding: $0, as: UTF8.self) } }

    func syncDeviceID() throws(KeychainFailure) -> SyncDeviceID { device }

    func syncChanges(after serial: UInt64, limit: Int) throws(KeychainFailure) -> (
        changes: [SyncChange], through: UInt64
    ) {
        if locked { throw KeychainFailure(.interactionNotAllowed) }
        let newer = journal.filter { $0.serial > serial }.prefix(limit)
        return (newer.map(\.change), newer.last?.serial ?? serial)
    }

    func applySyncChanges(_ changes: [SyncChange]) throws(KeychainFailure) -> SyncApplyReport {
        if locked { throw KeychainFailure(.interactionNotAllowed) }
        var report = SyncApplyReport(applied: 0, ignored: 0, conflicts: 0)
        for change in changes {
            now += 1
            clock = (clock ?? change.clock).receiving(change.clock, now: now)
            let current = items[change.item]
            guard current == nil || change.clock > current!.clock else {
                report.ignored += 1
                continue
            }
            if let current, current.payload != nil, change.payload != nil, change.base != current.clock {
                conflictList.append(
                    SyncConflict(item: change.item, copy: SyncItemID.random(), clock: current.clock, summary: "genp"))
                report.conflicts += 1
            }
            items[change.item] = Version(clock: change.clock, payload: change.payload?.unprotectedCopy)
            report.applied += 1
            appliedCount[change.item, default: 0] += 1
        }
        return report
    }

    func syncConflicts() throws(KeychainFailure) -> [SyncConflict] { conflictList }

    func resolveSyncConflict(_ copy: SyncItemID, keep: SyncConflictChoice) throws(KeychainFailure) {
        guard conflictList.contains(where: { $0.copy == copy }) else { throw KeychainFailure(.itemNotFound) }
        conflictList.removeAll { $0.copy == copy }
    }

    func syncSecret(named name: String) throws(KeychainFailure) -> SecureBytes? {
        if locked { throw KeychainFailure(.interactionNotAllowed) }
        return secrets[name]
    }

    func setSyncSecret(_ value: SecureBytes?, named name: String) throws(KeychainFailure) {
        if locked { throw KeychainFailure(.interactionNotAllowed) }
        secrets[name] = value
    }

    func syncState(named name: String) throws(KeychainFailure) -> [UInt8]? { states[name] }

    func setSyncState(_ value: [UInt8]?, named name: String) throws(KeychainFailure) { states[name] = value }
}
