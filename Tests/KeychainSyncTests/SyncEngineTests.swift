import Foundation
import KeychainCore
import KeychainSync
import Testing

@Suite("Sync engine: three devices over a shared folder and over a bare git remote")
struct SyncEngineTests {
    static let kinds: [SyncGroup.Kind] = [.folder, .git]

    @Test("Add, update and delete on one device reach the other two", arguments: kinds)
    func addUpdateDelete(kind: SyncGroup.Kind) throws {
        let group = try SyncGroup(kind)
        try group.setUp()
        let item = SyncItemID.random()
        group.replica(0).write(item, "v1 secret")
        try group.syncAll()
        for index in 0..<3 { #expect(try group.engine(index).trustedDevices().count == 3) }
        #expect(group.replica(1).value(item) == "v1 secret")
        #expect(group.replica(2).value(item) == "v1 secret")
        group.replica(1).write(item, "v2 secret")
        try group.syncAll()
        #expect(group.replica(0).value(item) == "v2 secret")
        #expect(group.replica(2).value(item) == "v2 secret")
        group.replica(2).write(item, nil)
        try group.syncAll()
        for index in 0..<3 {
            #expect(group.replica(index).items[item] != nil && group.replica(index).value(item) == nil)
        }
    }

    @Test("Concurrent offline edits converge to one value everywhere, with one conflict copy", arguments: kinds)
    func concurrentEdits(kind: SyncGroup.Kind) throws {
        let group = try SyncGroup(kind)
        try group.setUp()
        let item = SyncItemID.random()
        group.replica(0).write(item, "base")
        try group.syncAll()
        group.replica(0).write(item, "edit on 0")
        group.replica(1).write(item, "edit on 1")
        try group.syncAll()
        let values = (0..<3).map { group.replica($0).value(item) }
        #expect(Set(values).count == 1)
        // The stand-in keeps a copy wherever a concurrent edit loses (the store syncs its one copy; see
        // SyncKeystoreTests for the real store's count).
        #expect((0..<3).map { group.replica($0).conflictList.count }.reduce(0, +) >= 1)
    }

    @Test("The remote holds no secret, and only padded sizes", arguments: kinds)
    func remoteSeesNoPlaintext(kind: SyncGroup.Kind) throws {
        let group = try SyncGroup(kind)
        try group.setUp()
        let secrets = ["hunter2-very-secret", "account-name@example.com"]
        for text in secrets { group.replica(0).write(SyncItemID.random(), text) }
        try group.syncAll()
        let blobs = try group.everyRemoteBlob()
        #expect(!blobs.isEmpty)
        for blob in blobs {
            for text in secrets + [SyncGroup.passphrase] {
                #expect(!Self.contains(blob, Array(text.utf8)), "a remote file holds \(text)")
            }
        }
    }

    @Test("An unreachable remote loses nothing: the changes go out at the next run")
    func unreachableRemote() throws {
        let group = try SyncGroup(.git, devices: 2)
        try group.setUp()
        let item = SyncItemID.random()
        group.replica(0).write(item, "queued")
        let moved = group.url + ".away"
        try FileManager.default.moveItem(atPath: group.url, toPath: moved)
        #expect {
            try group.engine(0).syncNow()
        } throws: { ($0 as? SyncError)?.kind == .remote }
        try FileManager.default.moveItem(atPath: moved, toPath: group.url)
        try group.syncAll()
        #expect(group.replica(1).value(item) == "queued")
    }

    @Test("A locked keychain applies nothing and says so; the changes apply after unlock")
    func lockedKeychain() throws {
        let group = try SyncGroup(.folder, devices: 2)
        try group.setUp()
        let item = SyncItemID.random()
        group.replica(0).write(item, "while locked")
        _ = try group.engine(0).syncNow()
        group.replica(1).locked = true
        #expect {
            try group.engine(1).syncNow()
        } throws: { ($0 as? SyncError)?.kind == .keychain(.interactionNotAllowed) }
        #expect(group.replica(1).items[item] == nil)
        group.replica(1).locked = false
        _ = try group.engine(1).syncNow()
        #expect(group.replica(1).value(item) == "while locked")
    }

    @Test("A removed device reads nothing written after its removal", arguments: kinds)
    func removedDevice(kind: SyncGroup.Kind) throws {
        let group = try SyncGroup(kind)
        try group.setUp()
        let removed = try group.engine(2).deviceID()
        try group.engine(0).removeDevice(removed)
        let item = SyncItemID.random()
        group.replica(0).write(item, "after removal")
        _ = try group.engine(0).syncNow()
        _ = try group.engine(1).syncNow()
        #expect(group.replica(1).value(item) == "after removal")
        #expect {
            try group.engine(2).syncNow()
        } throws: { ($0 as? SyncError)?.message.contains("removed") == true }
        #expect(group.replica(2).items[item] == nil)
        // Even with the files in hand, its keys do not open the new segment.
        let files = group.remoteFiles + "/devices/\(try group.engine(0).deviceID())"
        let names = try FileManager.default.contentsOfDirectory(atPath: files).filter { $0.hasSuffix(".seg") }.sorted()
        let newest = try SyncSegment(
            decoding: Array(try #require(FileManager.default.contents(atPath: files + "/" + names.last!))))
        let keys = try SyncKeyRing(decoding: try #require(group.replica(2).secrets[SyncKeyRing.name]))
        #expect(keys[newest.epoch] == nil)
        for (_, key) in keys.keys { #expect(throws: SyncFormatError.self) { try newest.open(key: key) } }
    }

    @Test("A first sync larger than one batch and one segment arrives whole, in several segments")
    func largeFirstSync() throws {
        let group = try SyncGroup(.folder, devices: 2)
        try group.setUp()
        let count = SyncEngine.changesPerBatch + 500
        let items = (0..<count).map { _ in SyncItemID.random() }
        for (index, item) in items.enumerated() {
            group.replica(0).write(item, "\(index):" + String(repeating: "x", count: 600))
        }
        var lines: [String] = []
        group.engine(0).progress = { lines.append($0) }
        let pushed = try group.engine(0).syncNow()
        #expect(pushed.changesPushed == count)
        // 2,000 changes of about 650 bytes fill one 1 MiB segment and part of a second; the other 500, a third.
        #expect(pushed.segmentsPushed == 3)
        #expect(
            lines == [
                "sealed 2000 local changes in 2 segments so far", "pushing 3 segments (\(pushed.bytesPushed) bytes)",
            ])
        lines = []
        group.engine(1).progress = { lines.append($0) }
        let received = try group.engine(1).syncNow()
        let sender = try group.engine(0).deviceID()
        #expect(lines == (1...3).map { "applying segment \($0) of 3 from \(sender)" })
        #expect(received.applied.applied == count)
        #expect(group.replica(1).value(items[count - 1])?.hasPrefix("\(count - 1):") == true)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }
}
