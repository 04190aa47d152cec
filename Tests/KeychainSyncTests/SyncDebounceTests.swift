import Foundation
import KeychainCore
import KeychainSync
import Testing

/// Sync after local changes without real timers: the debounce rule (``SyncDebounce``) on made-up times, and
/// ``SyncEngine/syncIfChanged(quiet:limit:now:sleep:)`` with a clock the test moves (docs/SYNC.md, "Running by
/// itself").
@Suite("Sync after local changes: debounced, and nothing to send never reaches the remote")
struct SyncDebounceTests {
    @Test("A burst of changes waits until the journal has been still for the quiet time")
    func burst() {
        var debounce = SyncDebounce(quiet: 10_000, limit: 120_000, mark: 1, now: 0)
        #expect(debounce.observe(2, at: 1_000) == .wait)
        #expect(debounce.observe(3, at: 5_000) == .wait)
        #expect(debounce.observe(3, at: 14_999) == .wait)
        #expect(debounce.observe(3, at: 15_000) == .run)
    }

    @Test("Changes that never stop run at the limit")
    func limit() {
        var debounce = SyncDebounce(quiet: 10_000, limit: 60_000, mark: 0, now: 0)
        for second in 1..<60 { #expect(debounce.observe(UInt64(second), at: UInt64(second) * 1_000) == .wait) }
        #expect(debounce.observe(60, at: 60_000) == .run)
    }

    @Test("A wall clock that goes back counts as no time passing")
    func clockBack() {
        var debounce = SyncDebounce(quiet: 10_000, limit: 60_000, mark: 7, now: 50_000)
        #expect(debounce.observe(7, at: 40_000) == .wait)
        #expect(debounce.observe(7, at: 59_999) == .wait)
        #expect(debounce.observe(7, at: 60_000) == .run)
    }

    @Test("Nothing to send returns at once without reaching the remote", arguments: SyncEngineTests.kinds)
    func nothingToSend(kind: SyncGroup.Kind) throws {
        let group = try SyncGroup(kind, devices: 2)
        try group.setUp()
        try group.syncAll()
        // The remote is gone: a run that reached it would throw .remote.
        try FileManager.default.removeItem(atPath: group.url)
        var slept = 0
        #expect(try group.engine(0).syncIfChanged(quiet: 10_000, limit: 120_000, sleep: { slept += 1 }) == nil)
        #expect(slept == 0)
        #expect(try group.engine(0).pendingMark() == nil)
    }

    @Test("Edits during the wait go out in the one run that follows the quiet time", arguments: SyncEngineTests.kinds)
    func debouncedRun(kind: SyncGroup.Kind) throws {
        let group = try SyncGroup(kind, devices: 2)
        try group.setUp()
        try group.syncAll()
        let first = SyncItemID.random()
        let second = SyncItemID.random()
        group.replica(0).write(first, "first edit")
        var clock: UInt64 = 1_000_000
        var looks = 0
        let report = try group.engine(0).syncIfChanged(
            quiet: 10_000, limit: 120_000, now: { clock },
            sleep: {
                looks += 1
                clock += 1_000
                if looks == 3 { group.replica(0).write(second, "second edit") }
            })
        // The second edit at 3 s moved the mark: the run starts 10 s later, at the 13th look, with both edits.
        #expect(looks == 13)
        #expect(report?.changesPushed == 2)
        #expect(report?.segmentsPushed == 1)
        #expect(try group.engine(0).pendingMark() == nil)
        _ = try group.engine(1).syncNow()
        #expect(group.replica(1).value(first) == "first edit")
        #expect(group.replica(1).value(second) == "second edit")
    }

    @Test("Segments waiting for an unreachable remote count as unsent and go out when it is back")
    func queuedOutbox() throws {
        let group = try SyncGroup(.folder, devices: 2)
        try group.setUp()
        try group.syncAll()
        let item = SyncItemID.random()
        group.replica(0).write(item, "queued")
        try FileManager.default.moveItem(atPath: group.url, toPath: group.url + ".away")
        #expect(throws: SyncError.self) { try group.engine(0).syncNow() }
        #expect(try group.engine(0).pendingMark() != nil)
        try FileManager.default.moveItem(atPath: group.url + ".away", toPath: group.url)
        var clock: UInt64 = 0
        let report = try group.engine(0).syncIfChanged(
            quiet: 2_000, limit: 10_000, now: { clock }, sleep: { clock += 1_000 })
        #expect(report?.segmentsPushed == 1)
        _ = try group.engine(1).syncNow()
        #expect(group.replica(1).value(item) == "queued")
    }
}
