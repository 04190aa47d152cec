public import Foundation
package import KeychainCrypto
internal import KeychainItems

/// An asymmetric key: an EC key on P-256, P-384 or P-521, or an RSA key of 1024 to 4096 bits;
/// public, or private with its public half.
///
/// Follows Apple's `SecKey` (SecKey.h; https://developer.apple.com/documentation/security/seckey).
/// Create one with ``SecKeyCreateRandomKey(_:_:)`` or ``SecKeyCreateWithData(_:_:_:)``, or get one
/// from a certificate (``SecCertificateCopyKey(_:)``) or an identity. Two keys are equal when they
/// are the same kind of key with the same public key, as Apple's `CFEqual` compares key contents.
///
/// - Important: A private key's bytes live in OpenSSL's memory for the object's lifetime and are
///   freed (and wiped by OpenSSL) with it; copies made by ``SecKeyCopyExternalRepresentation(_:_:)``
///   are ordinary `Data` and are the caller's to protect.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The key material.
    package let key: CryptoKey
    /// Whether ``SecKeyCopyExternalRepresentation(_:_:)`` may return a private key's bytes
    /// (`kSecAttrIsExtractable`, default `true`).
    package let isExtractable: Bool
    /// `kSecAttrApplicationTag` given at creation, reported by ``SecKeyCopyAttributes(_:)``.
    let applicationTag: [UInt8]?
    /// `kSecAttrLabel` given at creation, reported by ``SecKeyCopyAttributes(_:)``.
    let label: String?

    init(_ key: CryptoKey, isExtractable: Bool = true, applicationTag: [UInt8]? = nil, label: String? = nil) {
        self.key = key
        self.isExtractable = isExtractable
        self.applicationTag = applicationTag
        self.label = label
    }

    /// A key with the creation attributes of `parameters` (`kSecAttrIsExtractable`,
    /// `kSecAttrApplicationTag`, `kSecAttrLabel`), each looked up in `specific` first.
    convenience init(_ key: CryptoKey, attributes parameters: KeyParameters, specific: KeyParameters? = nil) {
        let extractable = specific?.bool(kSecAttrIsExtractable) ?? parameters.bool(kSecAttrIsExtractable) ?? true
        let tag = specific?.data(kSecAttrApplicationTag) ?? parameters.data(kSecAttrApplicationTag)
        let label = specific?.string(kSecAttrLabel) ?? parameters.string(kSecAttrLabel)
        self.init(key, isExtractable: extractable, applicationTag: tag, label: label)
    }

    public static func == (lhs: SecKey, rhs: SecKey) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// As Apple's: `<SecKeyRef algorithm id: …, key type: …, block size: … bits, …>`, never key bytes.
    public var description: String {
        let (algorithm, type) =
            switch key.kind {
            case .ec: (3, "ECPublicKey")
            case .rsa: (1, "RSAPublicKey")
            }
        let name = key.isPrivate ? type.replacingOccurrences(of: "Public", with: "Private") : type
        return "<SecKeyRef algorithm id: \(algorithm), key type: \(name), block size: \(key.sizeInBits) bits>"
    }

    /// `kSecAttrKeyType` of this key.
    var keyType: CFString {
        switch key.kind {
        case .ec: kSecAttrKeyTypeECSECPrimeRandom
        case .rsa: kSecAttrKeyTypeRSA
        }
    }
}

/// Returns the type identifier of `SecKey` objects.
///
/// Follows SecKey.h `SecKeyGetTypeID`. The value is stable within a process.
public func SecKeyGetTypeID() -> CFTypeID {
    CFTypeID(bitPattern: ObjectIdentifier(SecKey.self).hashValue)
}

// MARK: - Creating keys

/// Generates a new private key.
///
/// Follows Apple's `SecKeyCreateRandomKey` (SecKey.h). `kSecAttrKeyType` is
/// `kSecAttrKeyTypeECSECPrimeRandom` (with `kSecAttrKeySizeInBits` 256, 384 or 521) or
/// `kSecAttrKeyTypeRSA` (1024 to 4096 bits, a multiple of 8). `kSecAttrIsExtractable` (in
/// `kSecPrivateKeyAttrs` or at the top level) set to `false` makes the private key refuse export;
/// `kSecAttrApplicationTag` and `kSecAttrLabel` (likewise) are kept and reported by
/// ``SecKeyCopyAttributes(_:)``.
///
/// ```swift
/// let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
///                                  kSecAttrKeySizeInBits as String: 256]
/// var error: Unmanaged<CFError>?
/// guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
///     throw error!.takeRetainedValue() as Error
/// }
/// ```
/// - Parameters:
///   - parameters: the key's type and size, and optional `kSecPrivateKeyAttrs`/`kSecPublicKeyAttrs`.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus` (create rule; may be `nil`).
/// - Returns: the private key, or `nil` with `error` set:
///   - `errSecParam` (-50): the key type or size is missing or unsupported.
///   - `errSecUnimplemented` (-4): `kSecAttrTokenID` is `kSecAttrTokenIDSecureEnclave` and this machine
///     has no TPM 2.0, or it does not answer (as an Apple device without a Secure Enclave); the error's
///     description says which.
///   - `errSecParam` (-50) for a `kSecAttrTokenIDSecureEnclave` key that is not a 256-bit
///     `kSecAttrKeyTypeECSECPrimeRandom` key, not `…ThisDeviceOnly`, or synchronizable.
///   - `errSecNotAvailable` (-25291): the TPM refused to make the key.
///   - any status of `SecItemAdd` when `kSecAttrIsPermanent` is `true` and the key cannot be stored
///     (for example `errSecDuplicateItem`, `errSecMissingEntitlement`, `errSecInteractionNotAllowed`).
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> SecKey?
{
    let parameters = KeyParameters(parameters)
    let privateAttributes = parameters.dictionary(kSecPrivateKeyAttrs)
    if parameters.string(kSecAttrTokenID) == String(describing: kSecAttrTokenIDSecureEnclave) {
        return createEnclaveKey(parameters, privateAttributes, error)
    }
    guard let type = parameters.string(kSecAttrKeyType), let bits = parameters.int(kSecAttrKeySizeInBits) else {
        return CFError.report(errSecParam, "kSecAttrKeyType and kSecAttrKeySizeInBits are required", to: error)
    }
    let kind: CryptoKey.Kind
    switch type {
    case String(describing: kSecAttrKeyTypeECSECPrimeRandom):
        guard let curve = CryptoKey.Curve(rawValue: bits) else {
            return CFError.report(errSecParam, "unsupported EC key size \(bits) (256, 384 or 521)", to: error)
        }
        kind = .ec(curve)
    case String(describing: kSecAttrKeyTypeRSA): kind = .rsa(bits: bits)
    default: return CFError.report(errSecParam, "unsupported key type \(type)", to: error)
    }
    let privateKey: SecKey
    do {
        privateKey = SecKey(try CryptoKey.generate(kind), attributes: parameters, specific: privateAttributes)
    } catch let failure {
        return failure.report(to: error)
    }
    // kSecAttrIsPermanent (top level, or in kSecPrivateKeyAttrs/kSecPublicKeyAttrs, which take
    // precedence) stores the key as a kSecClassKey item (SecKey.c: SecKeyGeneratePair adds each
    // permanent half with SecItemAdd).
    let publicAttributes = parameters.dictionary(kSecPublicKeyAttrs)
    if privateAttributes?.bool(kSecAttrIsPermanent) ?? parameters.bool(kSecAttrIsPermanent) ?? false {
        let status = storeKey(privateKey, parameters, privateAttributes)
        guard status == errSecSuccess else {
            return CFError.report(status, "the private key could not be stored in the keychain", to: error)
        }
    }
    if publicAttributes?.bool(kSecAttrIsPermanent) ?? parameters.bool(kSecAttrIsPermanent) ?? false,
        let publicKey = try? privateKey.key.publicKey()
    {
        let status = storeKey(
            SecKey(publicKey, attributes: parameters, specific: publicAttributes), parameters, publicAttributes)
        guard status == errSecSuccess else {
            return CFError.report(status, "the public key could not be stored in the keychain", to: error)
        }
    }
    return privateKey
}

/// `SecKeyCreateRandomKey` with `kSecAttrTokenIDSecureEnclave`: a P-256 key made inside the TPM
/// (``EnclaveKey``), never extractable; with `kSecAttrIsPermanent` its private key is stored as a key
/// item holding the TPM's blob (`tkid` = `com.apple.setoken`), `…ThisDeviceOnly` (by default
/// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`) and never synchronizable, as Apple's Secure Enclave keys.
private func createEnclaveKey(
    _ parameters: KeyParameters, _ privateAttributes: KeyParameters?,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    // kSecAttrTokenIDSecureEnclave docs: "256-bit elliptic curve private keys" only.
    guard parameters.string(kSecAttrKeyType) == String(describing: kSecAttrKeyTypeECSECPrimeRandom),
        parameters.int(kSecAttrKeySizeInBits) == 256
    else {
        return CFError.report(
            errSecParam, "Secure Enclave keys are 256-bit kSecAttrKeyTypeECSECPrimeRandom keys", to: error)
    }
    let access = (privateAttributes?[kSecAttrAccessControl] ?? parameters[kSecAttrAccessControl]) as? SecAccessControl
    let accessible = (privateAttributes?[kSecAttrAccessible] ?? parameters[kSecAttrAccessible]).flatMap {
        try? SecItemRequest.protection($0)
    }
    if let protection = access?.protection ?? accessible, protection.isMigratable {
        return CFError.report(errSecParam, "a Secure Enclave key is accessible only …ThisDeviceOnly", to: error)
    }
    if privateAttributes?.bool(kSecAttrSynchronizable) ?? parameters.bool(kSecAttrSynchronizable) == true {
        return CFError.report(errSecParam, "a Secure Enclave key cannot be synchronizable", to: error)
    }
    let privateKey: SecKey
    do {
        let key = try EnclaveKey.generate(constraints: access?.constraints(applicationPassword: nil))
        let tag = privateAttributes?.data(kSecAttrApplicationTag) ?? parameters.data(kSecAttrApplicationTag)
        let label = privateAttributes?.string(kSecAttrLabel) ?? parameters.string(kSecAttrLabel)
        privateKey = SecKey(key, isExtractable: false, applicationTag: tag, label: label)
    } catch let failure {
        return failure.report(to: error)
    }
    if privateAttributes?.bool(kSecAttrIsPermanent) ?? parameters.bool(kSecAttrIsPermanent) ?? false {
        let status = storeKey(
            privateKey, parameters, privateAttributes,
            defaultProtection: access == nil && accessible == nil ? kSecAttrAccessibleWhenUnlockedThisDeviceOnly : nil)
        guard status == errSecSuccess else {
            return CFError.report(status, "the private key could not be stored in the keychain", to: error)
        }
    }
    return privateKey
}

/// Adds `key` to the keychain with the item attributes of `parameters` (then `specific`):
/// access group, accessibility, access control, synchronizable, label, tag, creator and the
/// authentication context keys.
/// `defaultProtection` is the `kSecAttrAccessible` when neither gives one.
/// - Returns: the status of `SecItemAdd`.
private func storeKey(
    _ key: SecKey, _ parameters: KeyParameters, _ specific: KeyParameters?, defaultProtection: CFString? = nil
) -> OSStatus {
    let names: [CFString] = [
        kSecAttrAccessGroup, kSecAttrAccessible, kSecAttrAccessControl, kSecAttrSynchronizable, kSecAttrLabel,
        kSecAttrApplicationTag, kSecAttrCreator, kSecUseAuthenticationContext, kSecUseAuthenticationUI,
    ]
    let item = NSMutableDictionary()
    for name in names {
        if let value = specific?[name] ?? parameters[name] { item[String(describing: name)] = value }
    }
    if let defaultProtection { item[String(describing: kSecAttrAccessible)] = defaultProtection }
    item[String(describing: kSecClass)] = kSecClassKey
    item[String(describing: kSecValueRef)] = key
    item[String(describing: kSecAttrIsPermanent)] = NSNumber(value: true)
    return SecItemAdd(item, nil)
}

/// Creates a key from its external representation.
///
/// Follows Apple's `SecKeyCreateWithData` (SecKey.h): `kSecAttrKeyType` and `kSecAttrKeyClass` are
/// required. Formats:
/// - `kSecAttrKeyTypeECSECPrimeRandom`: ANSI X9.63, `04 ‖ X ‖ Y` (public) or `04 ‖ X ‖ Y ‖ K`
///   (private); the curve follows from the length. Points off the curve are refused.
/// - `kSecAttrKeyTypeRSA`: PKCS #1 `RSAPrivateKey` or `RSAPublicKey` DER; a public key may also be
///   an X.509 `SubjectPublicKeyInfo`.
/// If `kSecAttrKeySizeInBits` is given it must match the key.
/// - Parameters:
///   - keyData: the key bytes.
///   - attributes: the key's type and class.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the key, or `nil` with `error` set to `errSecParam` (-50): a required attribute is
///   missing or unsupported, the bytes are not such a key (Apple's "… key creation from data
///   failed"), or the size does not match.
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    let attributes = KeyParameters(attributes)
    guard let type = attributes.string(kSecAttrKeyType), let keyClass = attributes.string(kSecAttrKeyClass) else {
        return CFError.report(errSecParam, "kSecAttrKeyType and kSecAttrKeyClass are required", to: error)
    }
    let rsa: Bool
    switch type {
    case String(describing: kSecAttrKeyTypeECSECPrimeRandom): rsa = false
    case String(describing: kSecAttrKeyTypeRSA): rsa = true
    default: return CFError.report(errSecParam, "unsupported key type \(type)", to: error)
    }
    let isPrivate: Bool
    switch keyClass {
    case String(describing: kSecAttrKeyClassPrivate): isPrivate = true
    case String(describing: kSecAttrKeyClassPublic): isPrivate = false
    default: return CFError.report(errSecParam, "unsupported key class \(keyClass)", to: error)
    }
    let data = bytes(of: keyData)
    let key: CryptoKey
    do {
        key = try CryptoKey(externalRepresentation: data, rsa: rsa, isPrivate: isPrivate)
    } catch _ {
        let imported = rsa && !isPrivate ? try? CryptoKey(subjectPublicKeyInfo: data) : nil
        guard let imported, case .rsa = imported.kind else {
            let name = "\(rsa ? "RSA" : "EC") \(isPrivate ? "private" : "public")"
            return CFError.report(errSecParam, "\(name) key creation from data failed", to: error)
        }
        key = imported
    }
    if let bits = attributes.int(kSecAttrKeySizeInBits), bits != key.sizeInBits {
        return CFError.report(errSecParam, "kSecAttrKeySizeInBits \(bits) does not match the key", to: error)
    }
    return SecKey(key, attributes: attributes)
}

/// Returns the public key of a key.
///
/// Follows Apple's `SecKeyCopyPublicKey` (SecKey.h).
/// - Parameter key: a private or public key.
/// - Returns: the public key (for a public key, an equal key), or `nil` if it cannot be derived.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard let publicKey = try? key.key.publicKey() else { return nil }
    return publicKey === key.key ? key : SecKey(publicKey)
}

/// Returns a key's external representation.
///
/// Follows Apple's `SecKeyCopyExternalRepresentation` (SecKey.h): ANSI X9.63 for EC keys
/// (`04 ‖ X ‖ Y [‖ K]`), PKCS #1 DER for RSA keys.
/// - Parameters:
///   - key: the key.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the bytes, or `nil` with `error` set to `errSecInteractionNotAllowed` (-25308) for a
///   private key created with `kSecAttrIsExtractable` `false`, or `errSecUnimplemented` (-4) for the
///   private key of a `kSecAttrTokenIDSecureEnclave` key (it lives in the TPM; Apple's docs: "the
///   operation fails if the key is … bound to … the Secure Enclave").
/// - Important: The returned private key bytes are outside any protection; wipe them when done.
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> CFData?
{
    // A Secure Enclave (TPM) key's private part fails in externalRepresentation: errSecUnimplemented.
    guard !key.key.isPrivate || key.isExtractable || key.key.hardware != nil else {
        return CFError.report(errSecInteractionNotAllowed, "the key is not extractable", to: error)
    }
    do {
        return try key.key.externalRepresentation().withUnsafeBytes { cfData($0) }
    } catch let failure {
        return failure.report(to: error)
    }
}

/// Returns a key's attributes.
///
/// Follows Apple's `SecKeyCopyAttributes` (SecKey.h; values as Security's
/// `SecKeyGeneratePublicAttributeDictionary`/`…PrivateAttributeDictionary`): `kSecClass`
/// (`kSecClassKey`), `kSecAttrKeyClass`, `kSecAttrKeyType`, `kSecAttrKeySizeInBits`,
/// `kSecAttrEffectiveKeySize`, `kSecAttrApplicationLabel` (SHA-1 of the public key), the usage
/// flags (`kSecAttrCanSign`, `…Verify`, `…Encrypt`, `…Decrypt`, `…Derive`, `…Wrap`, `…Unwrap`),
/// `kSecAttrIsExtractable`, `kSecAttrApplicationTag` and `kSecAttrLabel` when given at creation,
/// and `kSecValueData` (the external representation) when extractable.
/// - Parameter key: the key.
/// - Returns: the attributes.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    NSDictionary(dictionary: keyAttributes(key, includingData: true))
}

/// The attributes ``SecKeyCopyAttributes(_:)`` returns; without `kSecValueData` unless
/// `includingData` (a key item's attributes are derived without copying its private bytes into
/// ordinary memory).
func keyAttributes(_ key: SecKey, includingData: Bool) -> [String: Any] {
    let isPrivate = key.key.isPrivate
    var attributes: [String: Any] = [
        String(describing: kSecClass): kSecClassKey,
        String(describing: kSecAttrKeyClass): isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
        String(describing: kSecAttrKeyType): key.keyType,
        String(describing: kSecAttrKeySizeInBits): NSNumber(value: key.key.sizeInBits),
        String(describing: kSecAttrEffectiveKeySize): NSNumber(value: key.key.sizeInBits),
        String(describing: kSecAttrCanSign): NSNumber(value: isPrivate),
        String(describing: kSecAttrCanVerify): NSNumber(value: !isPrivate),
        String(describing: kSecAttrCanEncrypt): NSNumber(value: !isPrivate),
        String(describing: kSecAttrCanDecrypt): NSNumber(value: isPrivate),
        String(describing: kSecAttrCanDerive): NSNumber(value: true),
        String(describing: kSecAttrCanWrap): NSNumber(value: !isPrivate),
        String(describing: kSecAttrCanUnwrap): NSNumber(value: isPrivate),
        String(describing: kSecAttrIsExtractable): NSNumber(value: key.isExtractable),
    ]
    if let label = try? key.key.publicKeyHash {
        attributes[String(describing: kSecAttrApplicationLabel)] = cfData(label)
    }
    if key.key.hardware != nil { attributes[String(describing: kSecAttrTokenID)] = kSecAttrTokenIDSecureEnclave }
    if let tag = key.applicationTag { attributes[String(describing: kSecAttrApplicationTag)] = cfData(tag) }
    if let label = key.label { attributes[String(describing: kSecAttrLabel)] = NSString(string: label) }
    if includingData, !isPrivate || key.isExtractable, let data = try? key.key.externalRepresentation() {
        attributes[String(describing: kSecValueData)] = data.withUnsafeBytes { cfData($0) }
    }
    return attributes
}

/// Returns the key's block size in bytes.
///
/// Follows Apple's `SecKeyGetBlockSize` (SecKey.h): the modulus length for RSA keys (256 for 2048
/// bits); for EC keys the length of a coordinate (32, 48, 66), which is also the size of `r` and
/// `s` in ``SecKeyAlgorithm/ecdsaSignatureRFC4754`` signatures.
/// - Parameter key: the key.
/// - Returns: the block size in bytes.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.key.blockSize }

// MARK: - Operations

/// The operations of ``SecKeyIsAlgorithmSupported(_:_:_:)``.
///
/// Follows Apple's `SecKeyOperationType` (SecKey.h), with its values.
public enum SecKeyOperationType: Int, Sendable {
    /// Signing (a private key).
    case sign = 0
    /// Verifying (a public key, or a private key's public half).
    case verify = 1
    /// Encrypting (a public key, or a private key's public half).
    case encrypt = 2
    /// Decrypting (a private key).
    case decrypt = 3
    /// Key exchange (a private key).
    case keyExchange = 4
}

/// Returns whether a key can perform an operation with an algorithm.
///
/// Follows Apple's `SecKeyIsAlgorithmSupported` (SecKey.h).
/// - Parameters:
///   - key: the key.
///   - operation: the operation.
///   - algorithm: the algorithm.
/// - Returns: `true` when the algorithm is one this library implements, belongs to the key's family
///   (EC or RSA) and to the operation, and the operation's key class matches (sign, decrypt and key
///   exchange need a private key).
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm)
    -> Bool
{
    guard let parsed = KeyAlgorithm(rawValue: String(describing: algorithm.rawValue)) else { return false }
    let needsPrivate: Bool
    switch (operation, parsed.operation) {
    case (.sign, .sign), (.decrypt, .encrypt), (.keyExchange, .keyExchange): needsPrivate = true
    case (.verify, .sign), (.encrypt, .encrypt): needsPrivate = false
    default: return false
    }
    return key.key.supports(parsed, privateOperation: needsPrivate)
}

/// The algorithm, if this library implements it.
private func parse(_ algorithm: SecKeyAlgorithm) -> KeyAlgorithm? {
    KeyAlgorithm(rawValue: String(describing: algorithm.rawValue))
}

/// The one scaffold of the key operations (sign, verify, encrypt, decrypt, exchange): the algorithm
/// parsed, or `errSecUnimplemented` (-4) for one this library does not implement; then `operation`,
/// whose failure is reported in `error` as its `OSStatus` (Apple's `CFError` in `kCFErrorDomainOSStatus`).
/// - Returns: the operation's result, or `nil` with `error` set.
private func keyOperation<R>(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?,
    _ operation: (KeyAlgorithm) throws(CryptoError) -> R
) -> R? {
    guard let parsed = parse(algorithm) else {
        return CFError.report(errSecUnimplemented, "algorithm not supported by the key \(key)", to: error)
    }
    do { return try operation(parsed) } catch let failure {
        return failure.report(to: error)
    }
}

/// Signs data with a private key.
///
/// Follows Apple's `SecKeyCreateSignature` (SecKey.h). `…Message…` algorithms hash `dataToSign`
/// first; `…Digest…` algorithms take the digest (of the named hash's length).
/// - Parameters:
///   - key: a private key.
///   - algorithm: a signature algorithm for the key's family.
///   - dataToSign: the message or digest.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the signature (DER X9.62 for ECDSA, `r ‖ s` for RFC 4754, one block for RSA), or `nil`
///   with `error` set: `errSecUnimplemented` (-4) when the key cannot use the algorithm (wrong
///   family, public key, unknown algorithm); `errSecParam` (-50) for a digest of the wrong length or
///   input too long for the key.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    keyOperation(key, algorithm, error) { (parsed) throws(CryptoError) -> CFData in
        cfData(try key.key.sign(bytes(of: dataToSign), algorithm: parsed))
    }
}

/// Verifies a signature.
///
/// Follows Apple's `SecKeyVerifySignature` (SecKey.h).
/// - Parameters:
///   - key: a public key (or a private key, which verifies with its public half).
///   - algorithm: the algorithm the signature was made with.
///   - signedData: the message or digest.
///   - signature: the signature.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: `true` when the signature matches; `false` with `error` set: `errSecVerifyFailed`
///   (-67808) for a signature that does not match (malformed ones included); `errSecUnimplemented`
///   (-4) when the key cannot use the algorithm; `errSecParam` (-50) for a digest of the wrong length.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    keyOperation(key, algorithm, error) { (parsed) throws(CryptoError) -> Bool in
        try key.key.verify(bytes(of: signature), for: bytes(of: signedData), algorithm: parsed)
        return true
    } ?? false
}

/// Encrypts data with a public key.
///
/// Follows Apple's `SecKeyCreateEncryptedData` (SecKey.h). ECIES output is Apple's layout:
/// ephemeral public key (`04 ‖ X ‖ Y`) ‖ AES-GCM ciphertext ‖ 16-byte tag.
/// - Parameters:
///   - key: a public key (or a private key, which encrypts to its public half).
///   - algorithm: an encryption algorithm for the key's family.
///   - plaintext: the data.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the ciphertext, or `nil` with `error` set: `errSecUnimplemented` (-4) when the key
///   cannot use the algorithm; `errSecParam` (-50) for a plaintext too long for an RSA key.
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    keyOperation(key, algorithm, error) { (parsed) throws(CryptoError) -> CFData in
        cfData(try key.key.encrypt(bytes(of: plaintext), algorithm: parsed))
    }
}

/// Decrypts data with a private key.
///
/// Follows Apple's `SecKeyCreateDecryptedData` (SecKey.h).
/// - Parameters:
///   - key: a private key.
///   - algorithm: the algorithm the data was encrypted with.
///   - ciphertext: the data.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the plaintext, or `nil` with `error` set: `errSecUnimplemented` (-4) when the key
///   cannot use the algorithm (a public key included); `errSecParam` (-50) when the ciphertext is
///   malformed or fails its padding or authentication check.
/// - Important: The returned plaintext is ordinary `Data`; wipe it when done if it is secret.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    keyOperation(key, algorithm, error) { (parsed) throws(CryptoError) -> CFData in
        try key.key.decrypt(bytes(of: ciphertext), algorithm: parsed).withUnsafeBytes { cfData($0) }
    }
}

/// Performs a Diffie-Hellman key exchange.
///
/// Follows Apple's `SecKeyCopyKeyExchangeResult` (SecKey.h). With the `…X963SHA…` algorithms the
/// shared secret goes through the ANSI X9.63 KDF: ``SecKeyKeyExchangeParameter/requestedSize`` is
/// required, ``SecKeyKeyExchangeParameter/sharedInfo`` optional.
/// - Parameters:
///   - privateKey: our private EC key.
///   - algorithm: an `ecdhKeyExchange…` algorithm.
///   - publicKey: the peer's public key, on the same curve.
///   - parameters: the KDF parameters (may be empty).
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the shared secret (one block long) or the KDF output, or `nil` with `error` set:
///   `errSecUnimplemented` (-4) when the key cannot use the algorithm; `errSecParam` (-50) for a
///   peer on another curve or a missing requested size.
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    let parameters = KeyParameters(parameters)
    return keyOperation(privateKey, algorithm, error) { (parsed) throws(CryptoError) -> CFData in
        let secret = try privateKey.key.keyExchange(
            with: publicKey.key, algorithm: parsed,
            requestedSize: parameters.int(SecKeyKeyExchangeParameter.requestedSize.rawValue),
            sharedInfo: parameters.data(SecKeyKeyExchangeParameter.sharedInfo.rawValue))
        return secret.withUnsafeBytes { cfData($0) }
    }
}
