package import KeychainCore

/// A device's signed head, `devices/<device id>/head`: its newest sequence number and the hash of that
/// segment, so a dropped newest segment or a head rolled back to an older one is detected (docs/SYNC.md, "Head").
///
/// `"SWKCHEAD" ‖ version (1) ‖ device (16) ‖ sequence (u64) ‖ segment hash (32) ‖ Ed25519 signature (64)`;
/// the signature covers every byte before it. 129 bytes.
package struct SyncHead: Sendable, Equatable {
    package static let magic = Array("SWKCHEAD".utf8)
    package static let version: UInt8 = 1
    package static let encodedSize = 8 + 1 + 16 + 8 + 32 + 64

    package let device: SyncDeviceID
    /// The newest segment's sequence number (1 for the first).
    package let sequence: UInt64
    /// BLAKE2b-256 of that segment file's bytes.
    package let segmentHash: [UInt8]
    package let signature: [UInt8]

    /// Makes and signs a head.
    package init(device: SyncDeviceID, sequence: UInt64, segmentHash: [UInt8], signingSeed: SecureBytes) {
        self.device = device
        self.sequence = sequence
        self.segmentHash = segmentHash
        signature = SyncCrypto.sign(
            Self.signedBytes(device: device, sequence: sequence, hash: segmentHash), seed: signingSeed)
    }

    /// The file's bytes.
    package var encoded: [UInt8] { Self.signedBytes(device: device, sequence: sequence, hash: segmentHash) + signature }

    /// Decodes a head without checking its signature (``verify(publicKey:)`` does).
    /// - Throws: ``SyncFormatError`` for a wrong size, magic or version.
    package init(decoding bytes: [UInt8]) throws(SyncFormatError) {
        var reader = SyncByteReader(bytes, what: "head")
        guard try reader.take(8) == Self.magic else { throw .unknownFormat("head") }
        guard try reader.integer(UInt8.self) == Self.version else { throw .unknownFormat("head") }
        guard let device = SyncDeviceID(bytes: try reader.take(16)) else { throw .malformed("head", "device id") }
        self.device = device
        sequence = try reader.integer(UInt64.self)
        guard sequence > 0 else { throw .malformed("head", "sequence 0") }
        segmentHash = try reader.take(32)
        signature = try reader.take(64)
        try reader.expectEnd()
    }

    /// Whether the signature is `publicKey`'s.
    package func verify(publicKey: [UInt8]) -> Bool {
        SyncCrypto.verify(
            signature, of: Self.signedBytes(device: device, sequence: sequence, hash: segmentHash), by: publicKey)
    }

    private static func signedBytes(device: SyncDeviceID, sequence: UInt64, hash: [UInt8]) -> [UInt8] {
        var writer = SyncByteWriter()
        writer.append(magic)
        writer.append(version)
        writer.append(device.bytes)
        writer.append(sequence)
        writer.append(hash)
        return writer.bytes
    }
}
