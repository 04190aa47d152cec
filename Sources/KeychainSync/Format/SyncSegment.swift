package import KeychainCore

/// One append-only segment of a device's log, `devices/<device id>/<sequence>.seg` (docs/SYNC.md, "Segment").
///
/// `"SWKCSEG1" ‖ version (1) ‖ device (16) ‖ sequence (u64) ‖ epoch (u32) ‖ previous hash (32) ‖
/// box length (u32) ‖ box ‖ Ed25519 signature (64)`. The box is XChaCha20-Poly1305 under the sync key of
/// `epoch` with the header (every byte before the box length) as associated data; its plaintext is
/// ``SyncSegmentBody``'s, padded to a power-of-two bucket. The signature covers every byte before it.
/// `previous hash` is BLAKE2b-256 of the device's previous segment file (zeros for sequence 1): the chain.
package struct SyncSegment: Sendable {
    package static let magic = Array("SWKCSEG1".utf8)
    package static let version: UInt8 = 1
    /// The largest box accepted (64 MiB), so a hostile remote cannot make a reader allocate without bound.
    package static let maximumBoxBytes = 64 << 20

    package let device: SyncDeviceID
    package let sequence: UInt64
    package let epoch: UInt32
    package let previousHash: [UInt8]
    package let box: [UInt8]
    package let signature: [UInt8]

    /// Seals `body` under `key` and signs the segment.
    package init(
        device: SyncDeviceID, sequence: UInt64, epoch: UInt32, previousHash: [UInt8], body: SecureBytes,
        key: SecureBytes, signingSeed: SecureBytes
    ) {
        self.device = device
        self.sequence = sequence
        self.epoch = epoch
        self.previousHash = previousHash
        let header = Self.header(device: device, sequence: sequence, epoch: epoch, previousHash: previousHash)
        box = Sodium.seal(body, key: key, associatedData: header)
        signature = SyncCrypto.sign(Self.signed(header: header, box: box), seed: signingSeed)
    }

    /// The file's bytes.
    package var encoded: [UInt8] {
        Self.signed(
            header: Self.header(device: device, sequence: sequence, epoch: epoch, previousHash: previousHash), box: box)
            + signature
    }

    /// Decodes a segment without checking its signature or opening its box.
    /// - Throws: ``SyncFormatError`` for a wrong magic, version or length.
    package init(decoding bytes: [UInt8]) throws(SyncFormatError) {
        var reader = SyncByteReader(bytes, what: "segment")
        guard try reader.take(8) == Self.magic else { throw .unknownFormat("segment") }
        guard try reader.integer(UInt8.self) == Self.version else { throw .unknownFormat("segment") }
        guard let device = SyncDeviceID(bytes: try reader.take(16)) else { throw .malformed("segment", "device id") }
        self.device = device
        sequence = try reader.integer(UInt64.self)
        guard sequence > 0 else { throw .malformed("segment", "sequence 0") }
        epoch = try reader.integer(UInt32.self)
        previousHash = try reader.take(32)
        box = try reader.lengthPrefixed(limit: Self.maximumBoxBytes)
        guard box.count >= Sodium.sealOverhead else { throw .malformed("segment", "a box shorter than its tag") }
        signature = try reader.take(64)
        try reader.expectEnd()
    }

    /// Whether the signature is `publicKey`'s.
    package func verify(publicKey: [UInt8]) -> Bool {
        let header = Self.header(device: device, sequence: sequence, epoch: epoch, previousHash: previousHash)
        return SyncCrypto.verify(signature, of: Self.signed(header: header, box: box), by: publicKey)
    }

    /// Opens the box with the sync key of the segment's epoch.
    /// - Throws: ``SyncFormatError/undecryptable(_:)`` when the key is wrong or the box damaged.
    package func open(key: SecureBytes) throws(SyncFormatError) -> SecureBytes {
        let header = Self.header(device: device, sequence: sequence, epoch: epoch, previousHash: previousHash)
        guard let body = Sodium.openSecret(box, key: key, associatedData: header) else {
            throw .undecryptable("segment")
        }
        return body
    }

    private static func header(device: SyncDeviceID, sequence: UInt64, epoch: UInt32, previousHash: [UInt8]) -> [UInt8]
    {
        var writer = SyncByteWriter()
        writer.append(magic)
        writer.append(version)
        writer.append(device.bytes)
        writer.append(sequence)
        writer.append(epoch)
        writer.append(previousHash)
        return writer.bytes
    }

    private static func signed(header: [UInt8], box: [UInt8]) -> [UInt8] {
        var writer = SyncByteWriter()
        writer.append(header)
        writer.appendLengthPrefixed(box)
        return writer.bytes
    }
}
