import Foundation
import KeychainCore
import KeychainSync
import Testing

@Suite("Sync runs stopped at each step (as by SIGKILL) complete at the next run, losing and repeating nothing")
struct SyncCrashTests {
    static let steps = ["fetched", "merged", "committed", "written", "pushed"]

    struct Stop: Error {}

    @Test(
        "A run stopped at each step, then run again", arguments: SyncEngineTests.kinds, steps)
    func stoppedRun(kind: SyncGroup.Kind, step: String) throws {
        let group = try SyncGroup(kind, devices: 2)
        try group.setUp()
        let mine = SyncItemID.random()
        let theirs = SyncItemID.random()
        group.replica(1).write(theirs, "from device 1")
        _ = try group.engine(1).syncNow()
        group.replica(0).write(mine, "from device 0")
        group.devices[0].engine.step = { (name: String) throws(SyncError) in
            if name == step { throw SyncError(.remote, "stopped at \(name)") }
        }
        #expect(throws: SyncError.self) { try group.engine(0).syncNow() }
        group.devices[0].engine.step = nil
        _ = try group.engine(0).syncNow()
        _ = try group.engine(1).syncNow()
        _ = try group.engine(0).syncNow()
        #expect(group.replica(0).value(theirs) == "from device 1")
        #expect(group.replica(1).value(mine) == "from device 0")
        #expect(group.replica(0).appliedCount[theirs] == 1)
        #expect(group.replica(1).appliedCount[mine] == 1)
        // The log stays one chain: a third run on either side verifies it again from the start.
        _ = try SyncEngine(replica: group.replica(1), environment: group.environment(1)).syncNow()
    }
}
