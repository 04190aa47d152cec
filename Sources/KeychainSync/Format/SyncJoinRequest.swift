package import KeychainCore

/// A device's request to join, `requests/<device id>.req`, self-signed; `security sync approve CODE` on a
/// trusted device adds it when CODE matches (docs/SYNC.md, "Joining").
///
/// `"SWKCJOIN" ‖ version (1) ‖ device (id, keys, name: ``SyncTrustedDevice``) ‖ signature (64)`.
package struct SyncJoinRequest: Sendable {
    package static let magic = Array("SWKCJOIN".utf8)
    package static let version: UInt8 = 1

    package let device: SyncTrustedDevice
    package let signature: [UInt8]

    package init(device: SyncTrustedDevice, signingSeed: SecureBytes) {
        self.device = device
        signature = SyncCrypto.sign(Self.signedBytes(device), seed: signingSeed)
    }

    package var encoded: [UInt8] { Self.signedBytes(device) + signature }

    /// Decodes a request and checks its self-signature.
    /// - Throws: ``SyncFormatError`` for a malformed file or a signature that does not verify.
    package init(decoding bytes: [UInt8]) throws(SyncFormatError) {
        var reader = SyncByteReader(bytes, what: "join request")
        guard try reader.take(8) == Self.magic, try reader.integer(UInt8.self) == Self.version else {
            throw .unknownFormat("join request")
        }
        device = try SyncTrustedDevice(from: &reader)
        signature = try reader.take(64)
        try reader.expectEnd()
        guard SyncCrypto.verify(signature, of: Self.signedBytes(device), by: device.signingKey) else {
            throw .badSignature("join request")
        }
    }

    /// The code the joining device prints and the user types on a trusted one: 12 decimal digits
    /// (about 40 bits) of BLAKE2b-256 of the request, as `1234-5678-9012`.
    package var code: String {
        let hash = SyncCrypto.hash(encoded)
        let value = hash.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000_000_000
        var digits = String(value)
        digits = String(repeating: "0", count: 12 - digits.count) + digits
        let characters = Array(digits)
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    private static func signedBytes(_ device: SyncTrustedDevice) -> [UInt8] {
        var writer = SyncByteWriter()
        writer.append(magic)
        writer.append(version)
        device.encode(into: &writer)
        return writer.bytes
    }
}
