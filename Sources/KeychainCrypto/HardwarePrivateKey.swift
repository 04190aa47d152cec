/// The private half of a P-256 key that lives in hardware (a TPM, for `kSecAttrTokenIDSecureEnclave`
/// keys): it signs digests and agrees keys there, and its scalar never reaches this process.
///
/// A ``CryptoKey`` made with ``CryptoKey/init(hardware:publicKey:)`` holds the public key in OpenSSL
/// (verification, encryption, attributes) and sends each private-key operation here; KeychainCrypto
/// does the rest of every algorithm (hashing the message, DER encoding, the X9.63 KDF, AES-GCM).
package protocol HardwarePrivateKey: Sendable {
    /// ECDSA over a 32-byte digest (already truncated or padded to the curve's size).
    /// - Returns: `r ‖ s`, 32 bytes each.
    /// - Throws: `CryptoError.token` when the hardware does not answer or refuses; `.denied` when the
    ///   key's access control is not satisfied.
    func signDigest(_ digest: [UInt8]) throws(CryptoError) -> [UInt8]

    /// The ECDH shared secret (x-coordinate, 32 bytes) with `peer` (`04 ‖ X ‖ Y` on P-256).
    /// - Throws: as ``signDigest(_:)``.
    func sharedSecret(peer: [UInt8]) throws(CryptoError) -> SensitiveBytes
}
