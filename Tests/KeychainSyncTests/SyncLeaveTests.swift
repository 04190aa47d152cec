import Foundation
import KeychainCore
import KeychainSync
import KeychainTesting
import Testing

/// `security sync leave` and `security delete-keychain` of a keychain that syncs (issue 26): this device only; the
/// clone goes, the remote and the other devices keep the items.
@Suite("security sync leave, and delete-keychain of a keychain that syncs")
struct SyncLeaveTests {
    static let passphrase = "a recovery passphrase for the tests\n"

    /// A bare git remote (in `remote`'s folder) that `device` syncs one item with.
    func synced(_ device: SyncDevice, remote: TemporaryKeychain) throws -> (url: String, clone: String) {
        let url = remote.directory + "/remote.git"
        try SyncGroup.git(["init", "-q", "--bare", "-b", "main", url])
        try #require(device.security("sync", "init", url, stdin: Self.passphrase).status == 0)
        try device.add(service: "leave-svc", account: "me", secret: "kept-secret")
        try #require(device.security("sync", "now").status == 0)
        let clone = GitTransport.clonePath(device: try device.store.syncDeviceID(), environment: device.environment)
        try #require(FileManager.default.fileExists(atPath: clone + "/.git"))
        return (url, clone)
    }

    @Test("sync leave stops syncing here and removes the clone; the item stays here and in the remote")
    func leave() throws {
        let remote = try TemporaryKeychain()
        let device = try SyncDevice()
        let (url, clone) = try synced(device, remote: remote)
        let left = device.security("sync", "leave")
        #expect(left.status == 0, "\(left)")
        #expect(
            left.out == "this keychain no longer syncs on this device; \(url) and the other devices keep its items\n")
        #expect(!FileManager.default.fileExists(atPath: clone))
        // The clones' folder, empty now, goes too; the folder above it stays.
        let parent = (clone as NSString).deletingLastPathComponent
        #expect(parent.hasSuffix("/keychains/sync"))
        #expect(!FileManager.default.fileExists(atPath: parent))
        #expect(FileManager.default.fileExists(atPath: (parent as NSString).deletingLastPathComponent))
        #expect(try device.secret(service: "leave-svc") == "kept-secret")
        #expect(device.security("sync", "now").status == 1)
        #expect(device.security("sync", "leave").status == 1)
        // The remote still has it: a new device joining with the recovery passphrase gets the item.
        let other = try SyncDevice()
        #expect(other.security("sync", "join", "--recovery", url, stdin: Self.passphrase).status == 0)
        #expect(try other.secret(service: "leave-svc") == "kept-secret")
    }

    @Test("sync leave keeps the clones' folder when it holds anything else")
    func leaveKeepsFolder() throws {
        let remote = try TemporaryKeychain()
        let device = try SyncDevice()
        let (_, clone) = try synced(device, remote: remote)
        let parent = (clone as NSString).deletingLastPathComponent
        let other = parent + "/not-a-clone"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: other))
        #expect(device.security("sync", "leave").status == 0)
        #expect(!FileManager.default.fileExists(atPath: clone))
        #expect(FileManager.default.contents(atPath: other) == Data("kept".utf8))
    }

    @Test(
        "A device that leaves takes itself out of the trust list; the others no longer list it, and it cannot read what they add afterwards",
        arguments: SyncEngineTests.kinds)
    func leaveGroup(kind: SyncGroup.Kind) throws {
        let home = try TemporaryKeychain()
        let (devices, url) = try SyncKeychainTests().group(kind, home: home)
        let leaver = try devices[2].store.syncDeviceID()
        let left = devices[2].security("sync", "leave")
        #expect(left.status == 0, "\(left)")
        #expect(
            left.out == "this keychain no longer syncs on this device; \(url) and the other devices keep its items\n"
                + "the other devices no longer list this device (\(leaver)); the sync key was rotated\n")
        #expect(left.err.isEmpty)
        try devices[0].add(service: "svc-after-leave", account: "acct", secret: "after the leave")
        SyncKeychainTests().syncAll(Array(devices[0...1]))
        #expect(try devices[1].secret(service: "svc-after-leave") == "after the leave")
        for device in devices[0...1] {
            let listed = device.security("sync", "devices")
            #expect(listed.out.split(separator: "\n").count == 2, "\(listed)")
            #expect(!listed.out.contains(leaver.description))
        }
        #expect(devices[2].security("sync", "now").status == 1)
        #expect(try devices[2].secret(service: "svc-after-leave") == nil)
        // Even with the remote's files in hand, the keys the leaver kept do not open what was added afterwards.
        let inspector = SyncGroup.Inspector(kind: kind, url: url, scratch: home.directory)
        let segments = try inspector.everyBlob().compactMap { try? SyncSegment(decoding: $0) }
        let writer = try devices[0].store.syncDeviceID()
        let newest = try #require(segments.filter { $0.device == writer }.max { $0.sequence < $1.sequence })
        let keys = try SyncKeyRing(decoding: try #require(try devices[2].store.syncSecret(named: SyncKeyRing.name)))
        #expect(!keys.keys.isEmpty)
        #expect(keys[newest.epoch] == nil)
        for (_, key) in keys.keys { #expect(throws: SyncFormatError.self) { try newest.open(key: key) } }
    }

    @Test(
        "A device that left can join again, by approval or by recovery: its log goes on, and the others read it",
        arguments: [false, true])
    func rejoin(byRecovery: Bool) throws {
        let home = try TemporaryKeychain()
        let (devices, url) = try SyncKeychainTests().group(.folder, home: home)
        try devices[2].add(service: "svc-before-leave", account: "acct", secret: "before")
        SyncKeychainTests().syncAll(devices)
        #expect(devices[2].security("sync", "leave").status == 0)
        try devices[0].add(service: "svc-while-away", account: "acct", secret: "while away")
        SyncKeychainTests().syncAll(Array(devices[0...1]))
        if byRecovery {
            let joined = devices[2].security("sync", "join", "--recovery", url, stdin: SyncKeychainTests.passphrase)
            #expect(joined.status == 0, "\(joined)")
        } else {
            let asked = devices[2].security("sync", "join", "--no-wait", url)
            let code = try #require(asked.out.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            // Device 0 reads device 2's log after this as before the leave: one chain, no fork.
            #expect(devices[1].security("sync", "approve", code).status == 0)
        }
        try devices[2].add(service: "svc-after-rejoin", account: "acct", secret: "after")
        SyncKeychainTests().syncAll(devices)
        for device in devices {
            #expect(try device.secret(service: "svc-after-rejoin") == "after")
            #expect(try device.secret(service: "svc-while-away") == "while away")
            #expect(device.security("sync", "devices").out.split(separator: "\n").count == 3)
        }
    }

    @Test("sync leave with the remote out of reach leaves all the same, exits 3 and says how to remove the device")
    func leaveOffline() throws {
        let home = try TemporaryKeychain()
        let (devices, url) = try SyncKeychainTests().group(.git, home: home)
        let leaver = try devices[2].store.syncDeviceID()
        try FileManager.default.moveItem(atPath: url, toPath: url + ".away")
        let left = devices[2].security("sync", "leave")
        #expect(left.status == 3, "\(left)")
        #expect(
            left.out == "this keychain no longer syncs on this device; \(url) and the other devices keep its items\n")
        #expect(
            left.err.hasSuffix(
                "security: sync leave: the other devices still list this device (\(leaver)): run security sync"
                    + " remove-device \(leaver) on one of them\n"), "\(left.err)")
        #expect(devices[2].security("sync", "status").out.hasPrefix("not syncing"))
        try FileManager.default.moveItem(atPath: url + ".away", toPath: url)
        #expect(devices[0].security("sync", "now").status == 0)
        #expect(devices[0].security("sync", "devices").out.contains(leaver.description))
        #expect(devices[0].security("sync", "remove-device", leaver.description).status == 0)
        #expect(devices[1].security("sync", "now").status == 0)
        #expect(!devices[1].security("sync", "devices").out.contains(leaver.description))
    }

    @Test("sync status counts the changes waiting for a newer build (a payload of kind 99)")
    func waitingStatus() throws {
        let remote = try TemporaryKeychain()
        let device = try SyncDevice()
        _ = try synced(device, remote: remote)
        let peer = SyncDeviceID(bytes: [UInt8](repeating: 0xAB, count: SyncDeviceID.byteCount))!
        let change = SyncChange(
            item: .random(), clock: SyncClock(milliseconds: 1_800_000_000_000, counter: 0, device: peer), base: nil,
            payload: SecureBytes(copying: [1, 99, 0, 0, 0, 0, 0, 0]))
        #expect(try device.store.applySyncChanges([change]).waiting == 1)
        let status = device.security("sync", "status")
        #expect(status.status == 0, "\(status)")
        #expect(status.out.contains("\n1 change waiting for a newer build of swift-keychain\n"), "\(status.out)")
        #expect(device.security("sync", "now").status == 0)
        #expect(try device.store.waitingSyncChangeCount() == 1)
    }

    @Test("delete-keychain of a keychain that syncs says the other devices keep its items and removes the clone")
    func deleteKeychain() throws {
        let remote = try TemporaryKeychain()
        let device = try SyncDevice()
        let (url, clone) = try synced(device, remote: remote)
        let path = device.keychain.location.databasePath
        let deleted = device.security("delete-keychain", path)
        #expect(deleted.status == 0, "\(deleted)")
        #expect(deleted.out.isEmpty)
        #expect(deleted.err.contains("synced with \(url): it is deleted on this device only"), "\(deleted.err)")
        #expect(deleted.err.contains("the other devices keep its items"))
        #expect(deleted.err.contains("security sync leave first"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: clone))
        // A keychain that does not sync is deleted without a word.
        let plain = try SyncDevice()
        let quiet = plain.security("delete-keychain", plain.keychain.location.databasePath)
        #expect(quiet.status == 0)
        #expect(quiet.err.isEmpty)
    }
}
