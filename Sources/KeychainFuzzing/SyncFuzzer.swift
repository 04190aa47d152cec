package import Foundation
import KeychainCore
import KeychainSync

/// The sync decoders (tracker issue 26, docs/SYNC.md): every input goes to the head, segment, trust-list and
/// join-request decoders, and to the segment body decoder (what a box opens to). A segment that decodes is
/// verified and opened with ``key``, so a seed made with that key (``seeds()``) reaches the body decoder
/// through the real path.
package enum SyncFuzzer {
    /// The fixed sync key and signing seed of the fuzz seeds (not secret: test material).
    static let key = SecureBytes(copying: [UInt8](repeating: 0x5a, count: 32))
    static let signingSeed = SecureBytes(copying: [UInt8](repeating: 0x11, count: 32))
    static let device = SyncDeviceID(bytes: [UInt8](repeating: 0x22, count: 16))!

    package static func run(_ data: Data) {
        let bytes = Array(data)
        let publicKey = SyncCrypto.signingPublicKey(seed: signingSeed)
        if let head = try? SyncHead(decoding: bytes) { _ = head.verify(publicKey: publicKey) }
        if let segment = try? SyncSegment(decoding: bytes) {
            _ = segment.verify(publicKey: publicKey)
            if let body = try? segment.open(key: key) { _ = try? SyncSegmentBody.decode(body) }
        }
        if let list = try? SyncTrustList(decoding: bytes) {
            _ = list.signerKey(in: nil).map { list.verify(publicKey: $0) }
            _ = list.encoded
        }
        _ = try? SyncJoinRequest(decoding: bytes)
        _ = try? SyncSegmentBody.decode(SecureBytes(copying: bytes))
        _ = try? SyncLocalState(decoding: bytes)
        _ = try? SyncSeenLogs(decoding: bytes)
    }

    /// Well-formed seeds: a head, a segment of three changes under ``key``, its body, a trust list, a request.
    package static func seeds() -> [(String, [UInt8])] {
        let clock = SyncClock(milliseconds: 1_700_000_000_000, counter: 2, device: device)
        let item = SyncItemID(bytes: [UInt8](repeating: 0x33, count: 16))!
        let changes = [
            SyncChange(item: item, clock: clock, base: nil, payload: SecureBytes(copying: Array("payload".utf8))),
            SyncChange(item: item, clock: clock, base: clock, payload: SecureBytes(copying: [1, 2, 3])),
            SyncChange(item: item, clock: clock, base: clock, payload: nil),
        ]
        let body = SyncSegmentBody.encode(changes)
        let segment = SyncSegment(
            device: device, sequence: 1, epoch: 1, previousHash: [UInt8](repeating: 0, count: 32), body: body, key: key,
            signingSeed: signingSeed)
        let head = SyncHead(
            device: device, sequence: 1, segmentHash: SyncCrypto.hash(segment.encoded), signingSeed: signingSeed)
        let me = SyncTrustedDevice(
            id: device, signingKey: SyncCrypto.signingPublicKey(seed: signingSeed),
            boxKey: SyncCrypto.boxPublicKey(secret: key), name: "fuzz")
        let recovery = SyncRecoveryKeys(
            salt: [UInt8](repeating: 7, count: 16), parameters: .testing, signingKey: me.signingKey, boxKey: me.boxKey)
        var list = SyncTrustList(
            generation: 1, previousHash: [UInt8](repeating: 0, count: 32), epoch: 1,
            keyCheck: SyncTrustList.keyCheck(for: key),
            recovery: recovery, devices: [me],
            envelopes: [(.device(device), SyncCrypto.sealToKey(key, publicKey: me.boxKey))], previousKeys: [])
        list.sign(as: .device(device), seed: signingSeed)
        return [
            ("seed-head.bin", head.encoded), ("seed-segment.bin", segment.encoded),
            ("seed-body.bin", body.unprotectedCopy),
            ("seed-trust.bin", list.encoded),
            ("seed-request.bin", SyncJoinRequest(device: me, signingSeed: signingSeed).encoded),
        ]
    }
}
