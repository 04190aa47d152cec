/// The operations of Apple's `SecKeyAlgorithm` constants, parsed from their raw values
/// (`"algid:sign:ECDSA:message-X962:SHA256"`, …), which are the strings Apple's Security
/// framework defines for them (Security/SecKey.c).
package enum KeyAlgorithm: Hashable, Sendable {
    /// `kSecKeyAlgorithmRSASignatureRaw`: the RSA private-key operation on an input as long as the modulus.
    case rsaSignatureRaw
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw`: PKCS #1 v1.5 type-1 padding, no DigestInfo.
    case rsaSignatureDigestPKCS1v15Raw
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA…`: PKCS #1 v1.5 over a digest of that hash.
    case rsaSignatureDigestPKCS1v15(HashFunction)
    /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA…`: hashes the message first.
    case rsaSignatureMessagePKCS1v15(HashFunction)
    /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA…`: PSS, MGF1 with the same hash, salt as long as the digest.
    case rsaSignatureDigestPSS(HashFunction)
    /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA…`: hashes the message first.
    case rsaSignatureMessagePSS(HashFunction)
    /// `kSecKeyAlgorithmECDSASignatureRFC4754`: ECDSA over a digest, signature `r ‖ s` of block size each.
    case ecdsaSignatureRFC4754
    /// `kSecKeyAlgorithmECDSASignatureDigestX962`: ECDSA over a digest of any length, DER signature.
    case ecdsaSignatureDigestX962
    /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA…`: the digest must be that hash's length.
    case ecdsaSignatureDigestX962Hash(HashFunction)
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA…`: hashes the message first.
    case ecdsaSignatureMessageX962(HashFunction)
    /// `kSecKeyAlgorithmRSAEncryptionRaw`: the RSA public-key operation on a modulus-sized block.
    case rsaEncryptionRaw
    /// `kSecKeyAlgorithmRSAEncryptionPKCS1`: PKCS #1 v1.5 type-2 padding.
    case rsaEncryptionPKCS1
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA…`: OAEP, MGF1 with the same hash, empty label.
    case rsaEncryptionOAEP(HashFunction)
    /// `kSecKeyAlgorithmECIESEncryption{Standard,Cofactor}[VariableIV]X963SHA…AESGCM`.
    case ecies(cofactor: Bool, variableIV: Bool, hash: HashFunction)
    /// `kSecKeyAlgorithmECDHKeyExchange{Standard,Cofactor}[X963SHA…]`: the shared secret, or
    /// (with a hash) the X9.63 KDF of it.
    case ecdh(cofactor: Bool, kdf: HashFunction?)

    /// Every algorithm Apple defines that this module implements.
    package static let all: [KeyAlgorithm] = {
        let sha: [HashFunction] = [.sha1, .sha224, .sha256, .sha384, .sha512]
        var all: [KeyAlgorithm] = [.rsaSignatureRaw, .rsaSignatureDigestPKCS1v15Raw]
        all += ([.md5] + sha).map { .rsaSignatureDigestPKCS1v15($0) }
        all += ([.md5] + sha).map { .rsaSignatureMessagePKCS1v15($0) }
        all += sha.map { .rsaSignatureDigestPSS($0) } + sha.map { .rsaSignatureMessagePSS($0) }
        all += [.ecdsaSignatureRFC4754, .ecdsaSignatureDigestX962]
        all += sha.map { .ecdsaSignatureDigestX962Hash($0) } + sha.map { .ecdsaSignatureMessageX962($0) }
        all += [.rsaEncryptionRaw, .rsaEncryptionPKCS1] + sha.map { .rsaEncryptionOAEP($0) }
        for cofactor in [false, true] {
            all += sha.map { .ecies(cofactor: cofactor, variableIV: false, hash: $0) }
            all += sha.dropFirst().map { .ecies(cofactor: cofactor, variableIV: true, hash: $0) }
        }
        for cofactor in [false, true] {
            all += [.ecdh(cofactor: cofactor, kdf: nil)] + sha.map { .ecdh(cofactor: cofactor, kdf: $0) }
        }
        return all
    }()

    private static let byRawValue: [String: KeyAlgorithm] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.rawValue, $0) })

    /// The algorithm with Apple's raw value `rawValue`, or `nil` if this module does not implement it.
    package init?(rawValue: String) {
        guard let algorithm = Self.byRawValue[rawValue] else { return nil }
        self = algorithm
    }

    /// Apple's raw value of the `SecKeyAlgorithm` constant.
    package var rawValue: String {
        switch self {
        case .rsaSignatureRaw: "algid:sign:RSA:raw"
        case .rsaSignatureDigestPKCS1v15Raw: "algid:sign:RSA:digest-PKCS1v15"
        case .rsaSignatureDigestPKCS1v15(let hash): "algid:sign:RSA:digest-PKCS1v15:\(hash.rawValue)"
        case .rsaSignatureMessagePKCS1v15(let hash): "algid:sign:RSA:message-PKCS1v15:\(hash.rawValue)"
        case .rsaSignatureDigestPSS(let hash):
            "algid:sign:RSA:digest-PSS:\(hash.rawValue):\(hash.rawValue):\(hash.byteCount)"
        case .rsaSignatureMessagePSS(let hash):
            "algid:sign:RSA:message-PSS:\(hash.rawValue):\(hash.rawValue):\(hash.byteCount)"
        case .ecdsaSignatureRFC4754: "algid:sign:ECDSA:RFC4754"
        case .ecdsaSignatureDigestX962: "algid:sign:ECDSA:digest-X962"
        case .ecdsaSignatureDigestX962Hash(let hash): "algid:sign:ECDSA:digest-X962:\(hash.rawValue)"
        case .ecdsaSignatureMessageX962(let hash): "algid:sign:ECDSA:message-X962:\(hash.rawValue)"
        case .rsaEncryptionRaw: "algid:encrypt:RSA:raw"
        case .rsaEncryptionPKCS1: "algid:encrypt:RSA:PKCS1"
        case .rsaEncryptionOAEP(let hash): "algid:encrypt:RSA:OAEP:\(hash.rawValue)"
        case .ecies(let cofactor, let variableIV, let hash):
            "algid:encrypt:ECIES:\(cofactor ? "ECDHC" : "ECDH"):KDFX963:\(hash.rawValue):AESGCM\(variableIV ? "-KDFIV" : "")"
        case .ecdh(let cofactor, let kdf):
            "algid:keyexchange:\(cofactor ? "ECDHC" : "ECDH")" + (kdf.map { ":KDFX963:\($0.rawValue)" } ?? "")
        }
    }

    /// The operation the algorithm performs.
    package enum Operation: Sendable { case sign, encrypt, keyExchange }

    /// What the algorithm does.
    package var operation: Operation {
        switch self {
        case .rsaSignatureRaw, .rsaSignatureDigestPKCS1v15Raw, .rsaSignatureDigestPKCS1v15,
            .rsaSignatureMessagePKCS1v15,
            .rsaSignatureDigestPSS, .rsaSignatureMessagePSS, .ecdsaSignatureRFC4754, .ecdsaSignatureDigestX962,
            .ecdsaSignatureDigestX962Hash, .ecdsaSignatureMessageX962:
            .sign
        case .rsaEncryptionRaw, .rsaEncryptionPKCS1, .rsaEncryptionOAEP, .ecies: .encrypt
        case .ecdh: .keyExchange
        }
    }

    /// Whether the algorithm is for RSA keys (otherwise for EC keys).
    package var isRSA: Bool {
        switch self {
        case .rsaSignatureRaw, .rsaSignatureDigestPKCS1v15Raw, .rsaSignatureDigestPKCS1v15,
            .rsaSignatureMessagePKCS1v15,
            .rsaSignatureDigestPSS, .rsaSignatureMessagePSS, .rsaEncryptionRaw, .rsaEncryptionPKCS1, .rsaEncryptionOAEP:
            true
        default: false
        }
    }
}
