import Foundation
import KeychainCore
import KeychainTesting
import Testing

/// `security sync now` as a process of its own, killed with SIGKILL at each of its steps (``CrashPoint/syncRun``,
/// set by `KEYCHAIN_CRASH_POINT`): the next run completes, nothing acknowledged locally is lost, and no change
/// is applied twice (tracker issue 26, "Crashes").
@Suite("security sync now killed by SIGKILL at each step: the next run completes, losing and repeating nothing")
struct SyncProcessCrashTests {
    struct Case: CustomStringConvertible, Sendable {
        let kind: SyncGroup.Kind
        let point: String
        var description: String { "\(kind) \(point)" }
    }

    /// Every point over both remotes; git's commit is a step of git remotes only.
    static let cases = [SyncGroup.Kind.folder, .git].flatMap { kind in
        CrashPoint.syncRun.filter { kind == .git || $0 != "sync.git-committed" }.map { Case(kind: kind, point: $0) }
    }

    /// The numbers of a `sync now` report: applied, already had, conflicts kept, segments pushed.
    struct Report: Equatable {
        var applied = -1
        var alreadyHad = -1
        var conflicts = -1
        var segments = -1

        init(_ text: String) {
            let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" })
            // The last occurrence: "in sync with URL" precedes "pushed … in N segments".
            func number(after word: String) -> Int {
                guard let index = words.lastIndex(of: Substring(word)), index + 1 < words.count else { return -1 }
                return Int(words[index + 1]) ?? -1
            }
            applied = number(after: "applied")
            alreadyHad = number(after: "had")
            conflicts = number(after: "kept")
            segments = number(after: "in")
        }

        init(applied: Int, alreadyHad: Int, conflicts: Int, segments: Int) {
            self.applied = applied
            self.alreadyHad = alreadyHad
            self.conflicts = conflicts
            self.segments = segments
        }
    }

    /// A remote of `kind` under `home`: a plain folder or a bare git repository.
    static func remote(_ kind: SyncGroup.Kind, in home: TemporaryKeychain) throws -> String {
        switch kind {
        case .folder:
            let url = home.directory + "/shared"
            try FileManager.default.createDirectory(atPath: url, withIntermediateDirectories: true)
            return url
        case .git:
            let url = home.directory + "/remote.git"
            try SyncGroup.git(["init", "-q", "--bare", "-b", "main", url])
            return url
        }
    }

    @Test("security sync now killed at a step, run again, then read by the other devices", arguments: cases)
    func killedRun(_ crash: Case) throws {
        let home = try TemporaryKeychain()
        let url = try Self.remote(crash.kind, in: home)
        let devices = try (0..<2).map { _ in try SyncDevice() }
        let passphrase = SyncKeychainTests.passphrase
        try #require(devices[0].security("sync", "init", url, stdin: passphrase).status == 0)
        try #require(devices[1].security("sync", "join", "--recovery", url, stdin: passphrase).status == 0)
        try devices[0].add(service: "svc-shared", account: "acct", secret: "v1")
        try #require(devices[0].security("sync", "now").status == 0)
        try #require(devices[1].security("sync", "now").status == 0)
        // Device 0 has two changes to receive (one segment) and one of its own to send.
        try devices[1].update(service: "svc-shared", secret: "v2 from 1")
        try devices[1].add(service: "svc-from-1", account: "acct", secret: "added on 1")
        try #require(devices[1].security("sync", "now").status == 0)
        try devices[0].add(service: "svc-from-0", account: "acct", secret: "added on 0")

        var environment = devices[0].environment
        environment["KEYCHAIN_CRASH_POINT"] = crash.point
        let killed = try SecurityProcess.run(["sync", "now"], environment: environment)
        #expect(killed.signal == SIGKILL, "\(killed)")

        let rerun = try SecurityProcess.run(["sync", "now"], environment: devices[0].environment)
        try #require(rerun.status == 0, "\(rerun)")
        // Killed before the merge's transaction, the rerun applies both changes; killed after it, the rerun
        // applies none (killed before the read position moved, it reads the segment again and ignores both).
        let mergedBeforeKill = crash.point != "sync.fetched"
        #expect(
            Report(rerun.out)
                == Report(
                    applied: mergedBeforeKill ? 0 : 2, alreadyHad: crash.point == "sync.merging" ? 2 : 0, conflicts: 0,
                    segments: 1), "\(rerun)")

        // Device 1 applies device 0's change once, and a third device reads both logs from the start.
        let received = devices[1].security("sync", "now")
        #expect(received.status == 0, "\(received)")
        #expect(Report(received.out) == Report(applied: 1, alreadyHad: 0, conflicts: 0, segments: 0), "\(received)")
        let settled = devices[0].security("sync", "now")
        #expect(Report(settled.out) == Report(applied: 0, alreadyHad: 0, conflicts: 0, segments: 0), "\(settled)")
        let third = try SyncDevice()
        let joined = third.security("sync", "join", "--recovery", url, stdin: passphrase)
        #expect(joined.status == 0, "\(joined)")
        #expect(Report(joined.out).conflicts == 0, "\(joined)")

        for device in devices + [third] {
            #expect(try device.secret(service: "svc-shared") == "v2 from 1")
            #expect(try device.secret(service: "svc-from-1") == "added on 1")
            #expect(try device.secret(service: "svc-from-0") == "added on 0")
            #expect(device.security("sync", "conflicts").out == "no conflicts\n")
            #expect(try device.store.verifyIntegrity() == 3)
        }
    }
}
