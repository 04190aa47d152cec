import Foundation
import KeychainCore
import KeychainSync
import Testing

@Suite("Sync formats: heads, segments, trust lists and join requests (docs/SYNC.md)")
struct SyncFormatTests {
    let device = SyncDeviceID.random()
    let seed = SecureBytes.random(count: 32)
    let key = SecureBytes.random(count: 32)

    func change(_ secret: String, counter: UInt32 = 0, base: SyncClock? = nil) -> SyncChange {
        SyncChange(
            item: SyncItemID.random(),
            clock: SyncClock(milliseconds: 1_700_000_000_000, counter: counter, device: device),
            base: base, payload: SecureBytes(copying: Array(secret.utf8)))
    }

    @Test("A head round-trips, verifies with its device's key only, and is 129 bytes")
    func headRoundTrip() throws {
        let head = SyncHead(device: device, sequence: 7, segmentHash: Array(repeating: 9, count: 32), signingSeed: seed)
        let bytes = head.encoded
        #expect(bytes.count == SyncHead.encodedSize)
        let decoded = try SyncHead(decoding: bytes)
        #expect(decoded == head)
        #expect(decoded.verify(publicKey: SyncCrypto.signingPublicKey(seed: seed)))
        #expect(!decoded.verify(publicKey: SyncCrypto.signingPublicKey(seed: SecureBytes.random(count: 32))))
    }

    @Test("A head with any byte flipped fails to decode or to verify")
    func headTampered() throws {
        let bytes = SyncHead(
            device: device, sequence: 3, segmentHash: Array(repeating: 1, count: 32), signingSeed: seed
        ).encoded
        let publicKey = SyncCrypto.signingPublicKey(seed: seed)
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x40
            if let head = try? SyncHead(decoding: damaged) {
                #expect(!head.verify(publicKey: publicKey), "byte \(index)")
            }
        }
        #expect(throws: SyncFormatError.truncated("head")) { try SyncHead(decoding: Array(bytes.prefix(100))) }
        #expect(throws: SyncFormatError.unknownFormat("head")) {
            try SyncHead(decoding: Array(repeating: 0, count: 129))
        }
    }

    @Test("A segment round-trips its changes (edits, a base clock, a tombstone) under the sync key")
    func segmentRoundTrip() throws {
        let base = SyncClock(milliseconds: 5, counter: 1, device: device)
        let tombstone = SyncChange(
            item: SyncItemID.random(), clock: SyncClock(milliseconds: 6, counter: 0, device: device), base: base,
            payload: nil)
        let changes = [change("first secret"), change("second", counter: 1, base: base), tombstone]
        let segment = SyncSegment(
            device: device, sequence: 1, epoch: 1, previousHash: Array(repeating: 0, count: 32),
            body: SyncSegmentBody.encode(changes), key: key, signingSeed: seed)
        let decoded = try SyncSegment(decoding: segment.encoded)
        #expect(decoded.verify(publicKey: SyncCrypto.signingPublicKey(seed: seed)))
        let back = try SyncSegmentBody.decode(try decoded.open(key: key))
        #expect(back.map(\.item) == changes.map(\.item))
        #expect(back.map(\.clock) == changes.map(\.clock))
        #expect(back.map(\.base) == changes.map(\.base))
        #expect(back[0].payload?.unprotectedCopy == Array("first secret".utf8))
        #expect(back[2].payload == nil)
        #expect(throws: SyncFormatError.undecryptable("segment")) {
            try decoded.open(key: SecureBytes.random(count: 32))
        }
    }

    @Test("Segment sizes are padded to power-of-two buckets, so a payload's size does not show")
    func segmentPadding() throws {
        let small = SyncSegmentBody.encode([change("a")])
        let larger = SyncSegmentBody.encode([change(String(repeating: "b", count: 150))])
        #expect(small.count == 256)
        #expect(larger.count == 256)
        #expect(SyncSegmentBody.encode([change(String(repeating: "c", count: 300))]).count == 512)
        #expect(SyncSegmentBody.bucket(for: 1000) == 1024)
    }

    @Test("A segment body with non-zero padding or a length past the end is refused")
    func segmentBodyMalformed() throws {
        var bytes = SyncSegmentBody.encode([change("x")]).unprotectedCopy
        bytes[bytes.count - 1] = 1
        #expect(throws: SyncFormatError.malformed("segment body", "padding is not zeros")) {
            try SyncSegmentBody.decode(SecureBytes(copying: bytes))
        }
        #expect(throws: SyncFormatError.self) { try SyncSegmentBody.decode(SecureBytes(copying: [0xff, 0xff, 0, 0])) }
    }

    @Test("A segment's signature covers its header and box: a flipped byte anywhere is detected")
    func segmentTampered() throws {
        let segment = SyncSegment(
            device: device, sequence: 2, epoch: 1, previousHash: Array(repeating: 3, count: 32),
            body: SyncSegmentBody.encode([change("s")]), key: key, signingSeed: seed)
        let bytes = segment.encoded
        let publicKey = SyncCrypto.signingPublicKey(seed: seed)
        for index in stride(from: 0, to: bytes.count, by: 7) {
            var damaged = bytes
            damaged[index] ^= 1
            if let decoded = try? SyncSegment(decoding: damaged) {
                #expect(!decoded.verify(publicKey: publicKey), "byte \(index)")
            }
        }
    }

    @Test("A trust list round-trips, and its sealed sync key opens only with the device's X25519 secret")
    func trustListRoundTrip() throws {
        let boxSecret = SecureBytes.random(count: 32)
        let me = SyncTrustedDevice(
            id: device, signingKey: SyncCrypto.signingPublicKey(seed: seed),
            boxKey: SyncCrypto.boxPublicKey(secret: boxSecret),
            name: "laptop")
        let recovery = try #require(
            SyncRecoveryKeys.make(passphrase: SecureBytes(copying: Array("correct horse".utf8)), parameters: .testing))
        var list = SyncTrustList(
            generation: 1, previousHash: Array(repeating: 0, count: 32), epoch: 1,
            keyCheck: SyncTrustList.keyCheck(for: key),
            recovery: recovery.0, devices: [me],
            envelopes: [
                (.device(device), SyncCrypto.sealToKey(key, publicKey: me.boxKey)),
                (.recovery, SyncCrypto.sealToKey(key, publicKey: recovery.0.boxKey)),
            ], previousKeys: [])
        list.sign(as: .device(device), seed: seed)
        let decoded = try SyncTrustList(decoding: list.encoded)
        #expect(decoded.encoded == list.encoded)
        #expect(decoded.devices == [me])
        #expect(decoded.verify(publicKey: try #require(decoded.signerKey(in: nil))))
        let envelope = try #require(decoded.envelope(for: .device(device)))
        let opened = try #require(SyncCrypto.openSealed(envelope, secret: boxSecret))
        #expect(opened.constantTimeEquals(key))
        #expect(SyncCrypto.openSealed(envelope, secret: SecureBytes.random(count: 32)) == nil)
        let recoveryEnvelope = try #require(decoded.envelope(for: .recovery))
        let fromRecovery = try #require(SyncCrypto.openSealed(recoveryEnvelope, secret: recovery.box))
        #expect(fromRecovery.constantTimeEquals(key))
    }

    @Test("A join request verifies its own signature and shows a 12-digit code")
    func joinRequest() throws {
        let me = SyncTrustedDevice(
            id: device, signingKey: SyncCrypto.signingPublicKey(seed: seed),
            boxKey: SyncCrypto.boxPublicKey(secret: SecureBytes.random(count: 32)), name: "desktop")
        let request = SyncJoinRequest(device: me, signingSeed: seed)
        let decoded = try SyncJoinRequest(decoding: request.encoded)
        #expect(decoded.code == request.code)
        #expect(request.code.count == 14)
        #expect(request.code.filter(\.isNumber).count == 12)
        var forged = request.encoded
        forged[20] ^= 1
        #expect(throws: SyncFormatError.self) { try SyncJoinRequest(decoding: forged) }
    }
}

@Suite("Sync fuzz seeds (Tests/Fuzz/Corpus/sync): well-formed, so fuzzing starts past the decoders' checks")
struct SyncFuzzSeedTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus/sync")

    func seed(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    }

    @Test("The segment seed verifies and opens with the fuzz key to three changes, and matches the head seed")
    func segmentSeed() throws {
        let signing = SyncCrypto.signingPublicKey(seed: SecureBytes(copying: [UInt8](repeating: 0x11, count: 32)))
        let segment = try SyncSegment(decoding: try seed("seed-segment.bin"))
        #expect(segment.verify(publicKey: signing))
        let body = try segment.open(key: SecureBytes(copying: [UInt8](repeating: 0x5a, count: 32)))
        #expect(try SyncSegmentBody.decode(body).count == 3)
        let head = try SyncHead(decoding: try seed("seed-head.bin"))
        #expect(head.verify(publicKey: signing))
        #expect(head.segmentHash == SyncCrypto.hash(try seed("seed-segment.bin")))
        #expect(throws: SyncFormatError.self) { try SyncSegment(decoding: try seed("truncated-segment.bin")) }
        #expect(throws: SyncFormatError.self) { try SyncSegment(decoding: try seed("huge-box-length.bin")) }
    }

    @Test("The trust-list and join-request seeds decode and verify")
    func trustSeed() throws {
        let list = try SyncTrustList(decoding: try seed("seed-trust.bin"))
        #expect(list.verify(publicKey: try #require(list.signerKey(in: nil))))
        #expect(throws: SyncFormatError.self) { try SyncTrustList(decoding: try seed("trust-damaged-count.bin")) }
        _ = try SyncJoinRequest(decoding: try seed("seed-request.bin"))
    }
}
