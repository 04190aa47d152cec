public import Foundation

// `nonisolated(unsafe)` on the constants below: immutable `NSString` values (not declared `Sendable`
// by Foundation), never mutated.

/// A cryptographic algorithm for a ``SecKey`` operation: the values of Apple's `kSecKeyAlgorithm…`
/// constants, which are strings (`"algid:sign:ECDSA:message-X962:SHA256"`).
///
/// Follows Apple's `SecKeyAlgorithm` (SecKey.h;
/// https://developer.apple.com/documentation/security/seckeyalgorithm): the same static members and
/// the same raw values, so an algorithm stored or logged on an Apple platform means the same here.
/// ECIES key sizes follow Apple's: AES-128 for P-256, AES-256 for larger curves.
// @unchecked Sendable: wraps an immutable `NSString`.
public struct SecKeyAlgorithm: Hashable, RawRepresentable, @unchecked Sendable {
    /// The algorithm's identifier string.
    public let rawValue: CFString

    /// An algorithm from its identifier string.
    /// - Parameter rawValue: one of Apple's `algid:…` strings; others are accepted and reported as
    ///   unsupported by every key.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    private init(_ raw: String) { self.rawValue = NSString(string: raw) }

    /// Raw RSA signature: the private-key operation on an input exactly one block long. (`"algid:sign:RSA:raw"`)
    public static let rsaSignatureRaw = SecKeyAlgorithm("algid:sign:RSA:raw")
    /// PKCS #1 v1.5 signature padding over the input, without a DigestInfo. (`"algid:sign:RSA:digest-PKCS1v15"`)
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15")
    /// PKCS #1 v1.5 signature over a MD5 digest (input: the digest). (`"algid:sign:RSA:digest-PKCS1v15:MD5"`)
    public static let rsaSignatureDigestPKCS1v15MD5 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:MD5")
    /// PKCS #1 v1.5 signature over a SHA1 digest (input: the digest). (`"algid:sign:RSA:digest-PKCS1v15:SHA1"`)
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// PKCS #1 v1.5 signature over a SHA224 digest (input: the digest). (`"algid:sign:RSA:digest-PKCS1v15:SHA224"`)
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// PKCS #1 v1.5 signature over a SHA256 digest (input: the digest). (`"algid:sign:RSA:digest-PKCS1v15:SHA256"`)
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// PKCS #1 v1.5 signature over a SHA384 digest (input: the digest). (`"algid:sign:RSA:digest-PKCS1v15:SHA384"`)
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// PKCS #1 v1.5 signature over a SHA512 digest (input: the digest). (`"algid:sign:RSA:digest-PKCS1v15:SHA512"`)
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// PKCS #1 v1.5 signature of the MD5 digest of the input. (`"algid:sign:RSA:message-PKCS1v15:MD5"`)
    public static let rsaSignatureMessagePKCS1v15MD5 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:MD5")
    /// PKCS #1 v1.5 signature of the SHA1 digest of the input. (`"algid:sign:RSA:message-PKCS1v15:SHA1"`)
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA1")
    /// PKCS #1 v1.5 signature of the SHA224 digest of the input. (`"algid:sign:RSA:message-PKCS1v15:SHA224"`)
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA224")
    /// PKCS #1 v1.5 signature of the SHA256 digest of the input. (`"algid:sign:RSA:message-PKCS1v15:SHA256"`)
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA256")
    /// PKCS #1 v1.5 signature of the SHA384 digest of the input. (`"algid:sign:RSA:message-PKCS1v15:SHA384"`)
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA384")
    /// PKCS #1 v1.5 signature of the SHA512 digest of the input. (`"algid:sign:RSA:message-PKCS1v15:SHA512"`)
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA512")
    /// RSASSA-PSS over a SHA1 digest: MGF1 with SHA1, 20-byte salt. (`"algid:sign:RSA:digest-PSS:SHA1:SHA1:20"`)
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// RSASSA-PSS over a SHA224 digest: MGF1 with SHA224, 28-byte salt. (`"algid:sign:RSA:digest-PSS:SHA224:SHA224:28"`)
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA224:SHA224:28")
    /// RSASSA-PSS over a SHA256 digest: MGF1 with SHA256, 32-byte salt. (`"algid:sign:RSA:digest-PSS:SHA256:SHA256:32"`)
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// RSASSA-PSS over a SHA384 digest: MGF1 with SHA384, 48-byte salt. (`"algid:sign:RSA:digest-PSS:SHA384:SHA384:48"`)
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// RSASSA-PSS over a SHA512 digest: MGF1 with SHA512, 64-byte salt. (`"algid:sign:RSA:digest-PSS:SHA512:SHA512:64"`)
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// RSASSA-PSS of the SHA1 digest of the input: MGF1 with SHA1, 20-byte salt. (`"algid:sign:RSA:message-PSS:SHA1:SHA1:20"`)
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// RSASSA-PSS of the SHA224 digest of the input: MGF1 with SHA224, 28-byte salt. (`"algid:sign:RSA:message-PSS:SHA224:SHA224:28"`)
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA224:SHA224:28")
    /// RSASSA-PSS of the SHA256 digest of the input: MGF1 with SHA256, 32-byte salt. (`"algid:sign:RSA:message-PSS:SHA256:SHA256:32"`)
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// RSASSA-PSS of the SHA384 digest of the input: MGF1 with SHA384, 48-byte salt. (`"algid:sign:RSA:message-PSS:SHA384:SHA384:48"`)
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// RSASSA-PSS of the SHA512 digest of the input: MGF1 with SHA512, 64-byte salt. (`"algid:sign:RSA:message-PSS:SHA512:SHA512:64"`)
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    /// ECDSA over a digest; the signature is r ‖ s, each one block long (RFC 4754). (`"algid:sign:ECDSA:RFC4754"`)
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:RFC4754")
    /// ECDSA over a digest of any length; DER X9.62 signature. (`"algid:sign:ECDSA:digest-X962"`)
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962")
    /// ECDSA over a SHA1 digest (its length is checked); DER X9.62 signature. (`"algid:sign:ECDSA:digest-X962:SHA1"`)
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA1")
    /// ECDSA over a SHA224 digest (its length is checked); DER X9.62 signature. (`"algid:sign:ECDSA:digest-X962:SHA224"`)
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA224")
    /// ECDSA over a SHA256 digest (its length is checked); DER X9.62 signature. (`"algid:sign:ECDSA:digest-X962:SHA256"`)
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA over a SHA384 digest (its length is checked); DER X9.62 signature. (`"algid:sign:ECDSA:digest-X962:SHA384"`)
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA over a SHA512 digest (its length is checked); DER X9.62 signature. (`"algid:sign:ECDSA:digest-X962:SHA512"`)
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA512")
    /// ECDSA of the SHA1 digest of the input; DER X9.62 signature. (`"algid:sign:ECDSA:message-X962:SHA1"`)
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA1")
    /// ECDSA of the SHA224 digest of the input; DER X9.62 signature. (`"algid:sign:ECDSA:message-X962:SHA224"`)
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA224")
    /// ECDSA of the SHA256 digest of the input; DER X9.62 signature. (`"algid:sign:ECDSA:message-X962:SHA256"`)
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA of the SHA384 digest of the input; DER X9.62 signature. (`"algid:sign:ECDSA:message-X962:SHA384"`)
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA of the SHA512 digest of the input; DER X9.62 signature. (`"algid:sign:ECDSA:message-X962:SHA512"`)
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA512")
    /// Raw RSA encryption of one block. (`"algid:encrypt:RSA:raw"`)
    public static let rsaEncryptionRaw = SecKeyAlgorithm("algid:encrypt:RSA:raw")
    /// RSAES-PKCS1-v1_5 encryption. (`"algid:encrypt:RSA:PKCS1"`)
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
    /// RSAES-OAEP with SHA1 and MGF1-SHA1, empty label. (`"algid:encrypt:RSA:OAEP:SHA1"`)
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
    /// RSAES-OAEP with SHA224 and MGF1-SHA224, empty label. (`"algid:encrypt:RSA:OAEP:SHA224"`)
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224")
    /// RSAES-OAEP with SHA256 and MGF1-SHA256, empty label. (`"algid:encrypt:RSA:OAEP:SHA256"`)
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
    /// RSAES-OAEP with SHA384 and MGF1-SHA384, empty label. (`"algid:encrypt:RSA:OAEP:SHA384"`)
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
    /// RSAES-OAEP with SHA512 and MGF1-SHA512, empty label. (`"algid:encrypt:RSA:OAEP:SHA512"`)
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
    /// ECIES (standard ECDH, X9.63 KDF with SHA1, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM"`)
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA224, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM"`)
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA256, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM"`)
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA384, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM"`)
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA512, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM"`)
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA224, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV"`)
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES (standard ECDH, X9.63 KDF with SHA256, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"`)
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES (standard ECDH, X9.63 KDF with SHA384, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV"`)
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES (standard ECDH, X9.63 KDF with SHA512, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV"`)
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA1, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM"`)
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA224, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM"`)
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA256, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM"`)
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA384, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM"`)
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA512, AES-GCM with a zero 16-byte IV); legacy, prefer the VariableIV variant. (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM"`)
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA224, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV"`)
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA256, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV"`)
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA384, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV"`)
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA512, AES-GCM keyed and IV'd from the KDF output). (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV"`)
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")
    /// Standard ECDH: the shared secret (the x-coordinate). (`"algid:keyexchange:ECDH"`)
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
    /// Standard ECDH, then the X9.63 KDF with SHA1 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDH:KDFX963:SHA1"`)
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA1")
    /// Standard ECDH, then the X9.63 KDF with SHA224 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDH:KDFX963:SHA224"`)
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA224")
    /// Standard ECDH, then the X9.63 KDF with SHA256 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDH:KDFX963:SHA256"`)
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA256")
    /// Standard ECDH, then the X9.63 KDF with SHA384 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDH:KDFX963:SHA384"`)
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA384")
    /// Standard ECDH, then the X9.63 KDF with SHA512 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDH:KDFX963:SHA512"`)
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Cofactor ECDH: the shared secret (the x-coordinate). (`"algid:keyexchange:ECDHC"`)
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
    /// Cofactor ECDH, then the X9.63 KDF with SHA1 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDHC:KDFX963:SHA1"`)
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// Cofactor ECDH, then the X9.63 KDF with SHA224 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDHC:KDFX963:SHA224"`)
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// Cofactor ECDH, then the X9.63 KDF with SHA256 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDHC:KDFX963:SHA256"`)
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// Cofactor ECDH, then the X9.63 KDF with SHA384 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDHC:KDFX963:SHA384"`)
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// Cofactor ECDH, then the X9.63 KDF with SHA512 (requestedSize and sharedInfo parameters). (`"algid:keyexchange:ECDHC:KDFX963:SHA512"`)
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA512")
}
