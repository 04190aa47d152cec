public import Foundation

// The key, certificate and PKCS #12 constants of SecItem.h, SecKey.h and SecImportExport.h, with
// Apple's raw values (so dictionaries written on an Apple platform mean the same here).
// `nonisolated(unsafe)`: immutable `NSString` values (not declared `Sendable` by Foundation).

// MARK: - Key attributes (SecItem.h)

/// The key's algorithm: ``kSecAttrKeyTypeRSA`` or ``kSecAttrKeyTypeECSECPrimeRandom`` (`"type"`).
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// RSA keys (`"42"`).
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// Elliptic-curve keys on the NIST prime curves P-256, P-384, P-521 (`"73"`).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// The older name of ``kSecAttrKeyTypeECSECPrimeRandom`` (`"73"`).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// Public, private or symmetric (`"kcls"`).
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// A public key (`"0"`).
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// A private key (`"1"`).
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key (`"2"`); not supported by ``SecKey`` functions here.
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// The key size in bits: 256, 384, 521 for EC; the modulus size for RSA (`"bsiz"`).
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// The effective key size in bits (`"esiz"`).
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// SHA-1 of the public key's external representation, for finding a key by its public key (`"klbl"`).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// The application's own tag for a key (`"atag"`).
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// Whether a generated key is stored in the keychain (`"perm"`).
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Whether the key is sensitive (`"sens"`).
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// Whether the key's bytes may leave it (`"extr"`).
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// Usage flag: encryption (`"encr"`).
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Usage flag: decryption (`"decr"`).
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Usage flag: key derivation (`"drve"`).
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Usage flag: signing (`"sign"`).
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Usage flag: verification (`"vrfy"`).
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Usage flag: wrapping other keys (`"wrap"`).
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Usage flag: unwrapping other keys (`"unwp"`).
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// Attributes for the private key of ``SecKeyCreateRandomKey(_:_:)`` (`"private"`).
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// Attributes for the public key of ``SecKeyCreateRandomKey(_:_:)`` (`"public"`).
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"
/// The token that holds the key (`"tkid"`).
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// The Secure Enclave token (`"com.apple.setoken"`). On Linux its keys are made and used inside the
/// machine's TPM 2.0 (P-256 only, never exported; ``SecKeyCreateRandomKey(_:_:)``); without a TPM, key
/// generation with it fails with `errSecUnimplemented`, as on an Apple device without a Secure Enclave.
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"

// MARK: - Certificate attributes (SecItem.h)

/// The certificate type (`"ctyp"`).
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// The certificate encoding (`"cenc"`).
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// The normalized subject sequence (`"subj"`).
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// The normalized issuer sequence (`"issr"`).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// The serial number's content octets (`"slnr"`).
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// The subject key identifier (`"skid"`).
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// SHA-1 of the subject public key (`"pkhh"`).
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"

// MARK: - Key exchange parameters (SecKey.h)

/// A parameter of ``SecKeyCopyKeyExchangeResult(_:_:_:_:_:)``.
///
/// Follows Apple's `SecKeyKeyExchangeParameter` (SecKey.h).
// @unchecked Sendable: wraps an immutable `NSString`.
public struct SecKeyKeyExchangeParameter: Hashable, RawRepresentable, @unchecked Sendable {
    /// The parameter's key in the parameters dictionary.
    public let rawValue: CFString
    /// A parameter from its key.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    /// The number of bytes the X9.63 KDF returns (a number; required by the `…X963SHA…` algorithms).
    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: "requestedSize")
    /// The shared info of the X9.63 KDF (data; optional).
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: "sharedInfo")
}

// MARK: - PKCS #12 import (SecImportExport.h)

/// The passphrase of ``SecPKCS12Import(_:_:_:)`` (`"passphrase"`).
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
/// An imported item's label, the file's `friendlyName` (`"label"`).
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
/// An imported item's key ID, the file's `localKeyID` (`"keyid"`).
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
/// An imported item's trust object (`"trust"`); not produced on Linux (no `SecTrust`).
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// An imported item's certificate chain, leaf first (`"chain"`).
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
/// An imported item's ``SecIdentity`` (`"identity"`).
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"

// MARK: - Statuses (SecBase.h)

/// An internal error, such as a certificate without a common name in
/// ``SecCertificateCopyCommonName(_:_:)`` (SecBase.h `errSecInternal`, -26276).
public let errSecInternal: OSStatus = -26276
/// A signature did not verify (SecBase.h `errSecVerifyFailed`, -67808).
public let errSecVerifyFailed: OSStatus = -67808
