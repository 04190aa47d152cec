/// Why a KeychainCrypto operation failed. Each case maps to the `OSStatus` Apple's Security
/// framework reports for the same failure (``osStatus``), so that `KeychainServices` can build
/// Apple's `CFError` (domain `NSOSStatusErrorDomain`) from it.
///
/// Messages name the operation and never hold key material or plaintext.
package enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A parameter is out of range: wrong digest length, unsupported key size, missing
    /// requested size (`errSecParam`, -50).
    case parameter(String)
    /// The algorithm is not one this key can perform (`errSecUnimplemented`, -4, as Apple's
    /// `SecKeyCreateSignature` reports for an unsupported algorithm).
    case unsupported(String)
    /// Key bytes, a certificate or a PKCS #12 file could not be decoded (`errSecDecode`, -26275).
    case decode(String)
    /// A signature does not match (`errSecVerifyFailed`, -67808).
    case verifyFailed
    /// A ciphertext failed its authentication tag or padding check (`errSecParam`, -50, as Apple's
    /// `SecKeyCreateDecryptedData` reports it).
    case decryptFailed(String)
    /// A PKCS #12 passphrase is wrong (`errSecAuthFailed`, -25293).
    case authFailed
    /// OpenSSL failed in a way the input does not explain (`errSecInternalComponent`, -2070).
    case library(String)
    /// The hardware that holds a key's private half (a TPM) does not answer, does not load the key
    /// (another machine's, or cleared since) or refuses the operation (`errSecNotAvailable`, -25291).
    case token(String)
    /// A key's access control is not satisfied (the user canceled its prompt, typed a wrong password,
    /// or no prompt can be shown), with the status the keychain gives for it (-128, -25293, -25308).
    case denied(status: Int32, String)

    /// The `OSStatus` Apple's Security framework reports for this failure.
    package var osStatus: Int32 {
        switch self {
        case .parameter: -50
        case .unsupported: -4
        case .decode: -26275
        case .verifyFailed: -67808
        case .decryptFailed: -50
        case .authFailed: -25293
        case .library: -2070
        case .token: -25291
        case .denied(let status, _): status
        }
    }

    package var description: String {
        switch self {
        case .parameter(let message): "invalid parameter: \(message)"
        case .unsupported(let message): "unsupported: \(message)"
        case .decode(let message): "cannot decode \(message)"
        case .verifyFailed: "signature verification failed"
        case .decryptFailed(let message): "decryption failed: \(message)"
        case .authFailed: "wrong passphrase"
        case .library(let message): "OpenSSL failed: \(message)"
        case .token(let message): "the key's TPM: \(message)"
        case .denied(_, let message): "access denied: \(message)"
        }
    }
}
