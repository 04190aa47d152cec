import Foundation
import KeychainCore
import KeychainSync
import Testing

@Suite("Sync against a hostile remote: every tampering is detected and nothing of it applied")
struct HostileRemoteTests {
    /// Device 0 writes three segments (one item each); device 1 has read none of them.
    func prepared(_ kind: SyncGroup.Kind) throws -> (SyncGroup, [SyncItemID], String) {
        let group = try SyncGroup(kind, devices: 2)
        try group.setUp()
        var items: [SyncItemID] = []
        for index in 0..<3 {
            let item = SyncItemID.random()
            items.append(item)
            group.replica(0).write(item, "value \(index)")
            _ = try group.engine(0).syncNow()
        }
        return (group, items, "devices/\(try group.engine(0).deviceID())")
    }

    func expectRefused(_ group: SyncGroup, _ items: [SyncItemID], saying words: String) {
        #expect {
            try group.engine(1).syncNow()
        } throws: { error in
            guard let error = error as? SyncError else { return false }
            return error.kind == .verification && error.message.contains(words)
        }
        for item in items { #expect(group.replica(1).items[item] == nil) }
    }

    static func segment(_ n: Int) -> String { String(repeating: "0", count: 15) + "\(n).seg" }

    @Test("A flipped byte in a segment", arguments: SyncEngineTests.kinds)
    func flippedByte(kind: SyncGroup.Kind) throws {
        let (group, items, folder) = try prepared(kind)
        try group.tamper { root in
            let path = root + "/" + folder + "/" + Self.segment(2)
            var bytes = Array(try #require(FileManager.default.contents(atPath: path)))
            bytes[bytes.count / 2] ^= 1
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        expectRefused(group, items, saying: "bad signature on segment 2")
    }

    @Test("A dropped segment", arguments: SyncEngineTests.kinds)
    func droppedSegment(kind: SyncGroup.Kind) throws {
        let (group, items, folder) = try prepared(kind)
        try group.tamper { root in
            try FileManager.default.removeItem(atPath: root + "/" + folder + "/" + Self.segment(2))
        }
        expectRefused(group, items, saying: "segment 2 is missing")
    }

    @Test("An old segment replayed in place of a newer one", arguments: SyncEngineTests.kinds)
    func replayedSegment(kind: SyncGroup.Kind) throws {
        let (group, items, folder) = try prepared(kind)
        try group.tamper { root in
            let base = root + "/" + folder + "/"
            try FileManager.default.removeItem(atPath: base + Self.segment(3))
            try FileManager.default.copyItem(atPath: base + Self.segment(1), toPath: base + Self.segment(3))
        }
        expectRefused(group, items, saying: "segment 3 holds segment 1")
    }

    @Test("Two segments swapped", arguments: SyncEngineTests.kinds)
    func reorderedSegments(kind: SyncGroup.Kind) throws {
        let (group, items, folder) = try prepared(kind)
        try group.tamper { root in
            let base = root + "/" + folder + "/"
            try FileManager.default.moveItem(atPath: base + Self.segment(1), toPath: base + "swap")
            try FileManager.default.moveItem(atPath: base + Self.segment(2), toPath: base + Self.segment(1))
            try FileManager.default.moveItem(atPath: base + "swap", toPath: base + Self.segment(2))
        }
        expectRefused(group, items, saying: "(replayed or reordered)")
    }

    @Test("A head rolled back after a device has read it", arguments: SyncEngineTests.kinds)
    func rolledBackHead(kind: SyncGroup.Kind) throws {
        let (group, items, folder) = try prepared(kind)
        let oldHead = try #require(FileManager.default.contents(atPath: group.remoteFiles + "/" + folder + "/head"))
        _ = try group.engine(1).syncNow()
        let later = SyncItemID.random()
        group.replica(0).write(later, "later")
        _ = try group.engine(0).syncNow()
        _ = try group.engine(1).syncNow()
        #expect(group.replica(1).value(later) == "later")
        try group.tamper { root in try oldHead.write(to: URL(fileURLWithPath: root + "/" + folder + "/head")) }
        #expect(items.allSatisfy { group.replica(1).items[$0] != nil })
        expectRefused(group, [], saying: "rolled back")
    }

    @Test("A device added to the trust list by hand, and its segments", arguments: SyncEngineTests.kinds)
    func deviceAddedByHand(kind: SyncGroup.Kind) throws {
        let (group, items, _) = try prepared(kind)
        // The remote forges generation 3 (after the join's generation 2) adding its own device, signed by it.
        let intruderSeed = SecureBytes.random(count: 32)
        let intruder = SyncTrustedDevice(
            id: SyncDeviceID.random(), signingKey: SyncCrypto.signingPublicKey(seed: intruderSeed),
            boxKey: SyncCrypto.boxPublicKey(secret: SecureBytes.random(count: 32)), name: "intruder")
        try group.tamper { root in
            let names = try FileManager.default.contentsOfDirectory(atPath: root + "/trust").sorted()
            let newest = try SyncTrustList(
                decoding: Array(try #require(FileManager.default.contents(atPath: root + "/trust/" + names.last!))))
            var forged = SyncTrustList(
                generation: newest.generation + 1, previousHash: SyncCrypto.hash(newest.encoded), epoch: newest.epoch,
                keyCheck: newest.keyCheck, recovery: newest.recovery, devices: newest.devices + [intruder],
                envelopes: newest.envelopes, previousKeys: newest.previousKeys)
            forged.sign(as: .device(intruder.id), seed: intruderSeed)
            let name = String(repeating: "0", count: 15) + "\(newest.generation + 1)-\(intruder.id).trust"
            try Data(forged.encoded).write(to: URL(fileURLWithPath: root + "/trust/" + name))
        }
        expectRefused(group, items, saying: "not signed by a trusted device")
    }

    @Test("Segments from a device that is in no trust list")
    func unknownDevice() throws {
        let (group, items, folder) = try prepared(.folder)
        let stranger = SyncDeviceID.random()
        try FileManager.default.copyItem(atPath: group.url + "/" + folder, toPath: group.url + "/devices/\(stranger)")
        #expect {
            try group.engine(1).syncNow()
        } throws: { ($0 as? SyncError)?.message.contains("device \(stranger): unknown device") == true }
        // The trusted device's own segments verified and applied; nothing came from the stranger.
        #expect(items.allSatisfy { group.replica(1).items[$0] != nil })
    }
}
