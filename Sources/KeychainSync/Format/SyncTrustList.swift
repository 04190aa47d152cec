package import KeychainCore

/// One generation of the signed list of trusted devices, `trust/<generation>-<signer>.trust`
/// (docs/SYNC.md, "Trust list"): who may write, the sync key of the current epoch sealed to each of them
/// and to the recovery key, and the older epochs' keys sealed under the current one.
///
/// Generation 1 is signed by the device that ran `sync init`; generation n + 1 must name generation n's hash
/// and be signed by a device of generation n or by the recovery key, so the remote cannot add a device,
/// and a device that has seen generation n refuses anything older (rollback).
package struct SyncTrustList: Sendable {
    package static let magic = Array("SWKCTRST".utf8)
    package static let version: UInt8 = 1
    package static let maximumDevices = 1024
    /// The largest trust file read (4 MiB).
    package static let maximumBytes = 4 << 20

    package var generation: UInt64
    /// BLAKE2b-256 of the previous generation's file (zeros for generation 1).
    package var previousHash: [UInt8]
    /// The sync key's epoch (1 at init, + 1 at every removal).
    package var epoch: UInt32
    /// Keyed BLAKE2b of "swkc sync key check" under the epoch's sync key: ties the sealed keys to this list.
    package var keyCheck: [UInt8]
    package var recovery: SyncRecoveryKeys
    package var devices: [SyncTrustedDevice]
    /// The sync key sealed (`crypto_box_seal`) to each device's X25519 key and to the recovery key.
    package var envelopes: [(recipient: SyncSigner, box: [UInt8])]
    /// `(epoch u32 ‖ key 32)*` of every older epoch, XChaCha20-Poly1305 under the current key (AD: magic ‖
    /// epoch), so a device that joins later reads the whole history; empty at epoch 1.
    package var previousKeys: [UInt8]
    package private(set) var signer: SyncSigner
    package private(set) var signature: [UInt8]

    package init(
        generation: UInt64, previousHash: [UInt8], epoch: UInt32, keyCheck: [UInt8], recovery: SyncRecoveryKeys,
        devices: [SyncTrustedDevice], envelopes: [(recipient: SyncSigner, box: [UInt8])], previousKeys: [UInt8]
    ) {
        self.generation = generation
        self.previousHash = previousHash
        self.epoch = epoch
        self.keyCheck = keyCheck
        self.recovery = recovery
        self.devices = devices
        self.envelopes = envelopes
        self.previousKeys = previousKeys
        signer = .recovery
        signature = []
    }

    /// The key check of `key`.
    package static func keyCheck(for key: SecureBytes) -> [UInt8] {
        Sodium.keyedHash(Array("swkc sync key check".utf8), key: key)
    }

    /// Signs the list as `signer` with `seed`.
    package mutating func sign(as signer: SyncSigner, seed: SecureBytes) {
        self.signer = signer
        signature = SyncCrypto.sign(signedBytes, seed: seed)
    }

    /// The file's bytes (signed).
    package var encoded: [UInt8] { signedBytes + signature }

    /// The device of `id`, if trusted.
    package func device(_ id: SyncDeviceID) -> SyncTrustedDevice? { devices.first { $0.id == id } }

    /// The envelope sealed to `recipient`.
    package func envelope(for recipient: SyncSigner) -> [UInt8]? { envelopes.first { $0.recipient == recipient }?.box }

    /// The public key that must have signed this list, looked up in the previous generation `previous`
    /// (or in this one, for generation 1).
    package func signerKey(in previous: SyncTrustList?) -> [UInt8]? {
        let authority = previous ?? self
        switch signer {
        case .recovery: return authority.recovery.signingKey
        case .device(let id): return authority.device(id)?.signingKey
        }
    }

    /// Whether the signature verifies with `publicKey`.
    package func verify(publicKey: [UInt8]) -> Bool { SyncCrypto.verify(signature, of: signedBytes, by: publicKey) }

    /// Decodes a trust file without checking its signature.
    /// - Throws: ``SyncFormatError`` for a wrong magic, version, count or length.
    package init(decoding bytes: [UInt8]) throws(SyncFormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw .malformed("trust list", "over \(Self.maximumBytes) bytes")
        }
        var reader = SyncByteReader(bytes, what: "trust list")
        guard try reader.take(8) == Self.magic, try reader.integer(UInt8.self) == Self.version else {
            throw .unknownFormat("trust list")
        }
        generation = try reader.integer(UInt64.self)
        guard generation > 0 else { throw .malformed("trust list", "generation 0") }
        previousHash = try reader.take(32)
        epoch = try reader.integer(UInt32.self)
        guard epoch > 0 else { throw .malformed("trust list", "epoch 0") }
        keyCheck = try reader.take(32)
        recovery = try SyncRecoveryKeys(from: &reader)
        let deviceCount = Int(try reader.integer(UInt16.self))
        guard deviceCount <= Self.maximumDevices else { throw .malformed("trust list", "\(deviceCount) devices") }
        devices = []
        for _ in 0..<deviceCount { devices.append(try SyncTrustedDevice(from: &reader)) }
        guard Set(devices.map(\.id)).count == devices.count else {
            throw .malformed("trust list", "a device listed twice")
        }
        let envelopeCount = Int(try reader.integer(UInt16.self))
        guard envelopeCount <= Self.maximumDevices + 1 else {
            throw .malformed("trust list", "\(envelopeCount) envelopes")
        }
        envelopes = []
        for _ in 0..<envelopeCount {
            let recipient = try SyncSigner(from: &reader)
            envelopes.append((recipient, try reader.lengthPrefixed(limit: 256)))
        }
        previousKeys = try reader.lengthPrefixed(limit: 1 << 20)
        signer = try SyncSigner(from: &reader)
        signature = try reader.take(64)
        try reader.expectEnd()
    }

    private var signedBytes: [UInt8] {
        var writer = SyncByteWriter()
        writer.append(Self.magic)
        writer.append(Self.version)
        writer.append(generation)
        writer.append(previousHash)
        writer.append(epoch)
        writer.append(keyCheck)
        recovery.encode(into: &writer)
        writer.append(UInt16(devices.count))
        for device in devices { device.encode(into: &writer) }
        writer.append(UInt16(envelopes.count))
        for envelope in envelopes {
            envelope.recipient.encode(into: &writer)
            writer.appendLengthPrefixed(envelope.box)
        }
        writer.appendLengthPrefixed(previousKeys)
        signer.encode(into: &writer)
        return writer.bytes
    }
}
