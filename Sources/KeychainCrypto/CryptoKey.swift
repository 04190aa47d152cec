internal import COpenSSL

/// An EC or RSA key (public, or private with its public half) in an OpenSSL `EVP_PKEY`.
///
/// The representation behind Apple's `SecKey`: generation, Apple's external representations
/// (ANSI X9.63 for EC, PKCS #1 for RSA), signatures, encryption and key exchange (in
/// `CryptoKey+Operations.swift`). The key is immutable after init.
// @unchecked Sendable: an immutable EVP_PKEY (libcrypto allows concurrent use of a key that is
// never modified), freed once in deinit.
package final class CryptoKey: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The `EVP_PKEY`, owned by this object.
    let pkey: OpaquePointer
    /// The key's family and size.
    package let kind: Kind
    /// Whether this is a private key (it then holds the public key too).
    package let isPrivate: Bool
    /// For a private key that lives in hardware (a TPM): its private operations; `pkey` then holds
    /// only the public key.
    package let hardware: (any HardwarePrivateKey)?

    /// The key families Apple's `SecKey` supports here.
    package enum Kind: Hashable, Sendable {
        /// An elliptic-curve key on a NIST prime curve (`kSecAttrKeyTypeECSECPrimeRandom`).
        case ec(Curve)
        /// An RSA key of the given modulus size in bits (`kSecAttrKeyTypeRSA`).
        case rsa(bits: Int)
    }

    /// The NIST curves of `kSecAttrKeyTypeECSECPrimeRandom`, by `kSecAttrKeySizeInBits`.
    package enum Curve: Int, CaseIterable, Sendable {
        case p256 = 256
        case p384 = 384
        case p521 = 521

        /// The curve's name in OpenSSL.
        var groupName: String {
            switch self {
            case .p256: "prime256v1"
            case .p384: "secp384r1"
            case .p521: "secp521r1"
            }
        }

        /// Bytes of one coordinate (and of the private scalar): 32, 48, 66.
        package var coordinateBytes: Int { (rawValue + 7) / 8 }

        init?(groupName: String) {
            switch groupName {
            case "prime256v1", "P-256", "secp256r1": self = .p256
            case "secp384r1", "P-384": self = .p384
            case "secp521r1", "P-521": self = .p521
            default: return nil
            }
        }
    }

    /// Takes ownership of `pkey` (freed even when this throws).
    init(owning pkey: OpaquePointer, isPrivate: Bool, hardware: (any HardwarePrivateKey)? = nil) throws(CryptoError) {
        self.pkey = pkey
        self.isPrivate = isPrivate
        self.hardware = hardware
        switch libcrypto.EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard libcrypto.EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1,
                let curve = Curve(
                    groupName: String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            else {
                libcrypto.EVP_PKEY_free(pkey)
                _ = OpenSSL.drainErrors()
                throw .unsupported("EC keys on curves other than P-256, P-384 and P-521")
            }
            // RFC 5480 §2.1.1: named curves only; explicit parameters (even equal to a named
            // curve's) are refused, as Apple's Security does.
            var encoding = [CChar](repeating: 0, count: 32)
            if libcrypto.EVP_PKEY_get_utf8_string_param(pkey, copenssl_param_encoding(), &encoding, encoding.count, nil)
                == 1,
                String(decoding: encoding.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    != "named_curve"
            {
                libcrypto.EVP_PKEY_free(pkey)
                throw .unsupported("EC keys with explicit curve parameters")
            }
            _ = OpenSSL.drainErrors()
            kind = .ec(curve)
        case EVP_PKEY_RSA:
            kind = .rsa(bits: Int(libcrypto.EVP_PKEY_get_bits(pkey)))
        default:
            libcrypto.EVP_PKEY_free(pkey)
            throw .unsupported("key types other than EC and RSA")
        }
    }

    deinit { libcrypto.EVP_PKEY_free(pkey) }

    // MARK: - Generation

    /// Generates a new private key.
    ///
    /// - Parameter kind: `.ec(curve)`, or `.rsa(bits:)` with 1024 to 4096 bits in steps of 8
    ///   (Apple's range for `kSecAttrKeyTypeRSA`).
    /// - Throws: `CryptoError.parameter` for an RSA size out of range; `.library` if OpenSSL fails.
    package static func generate(_ kind: Kind) throws(CryptoError) -> CryptoKey {
        let generated: OpaquePointer?
        switch kind {
        case .ec(let curve): generated = copenssl_ec_generate(curve.groupName)
        case .rsa(let bits):
            guard (1024...4096).contains(bits), bits % 8 == 0 else {
                throw .parameter("RSA key size \(bits) (1024 to 4096 bits, a multiple of 8)")
            }
            generated = copenssl_rsa_generate(UInt32(bits))
        }
        guard let generated else { throw .library("key generation: \(OpenSSL.drainErrors())") }
        return try CryptoKey(owning: generated, isPrivate: true)
    }

    // MARK: - Apple's external representations

    /// Imports a key from Apple's external representation (`SecKeyCreateWithData`).
    ///
    /// - EC public: ANSI X9.63 uncompressed point `04 ‖ X ‖ Y` (65, 97 or 133 bytes).
    /// - EC private: `04 ‖ X ‖ Y ‖ K` (97, 145 or 199 bytes); the curve follows from the length.
    /// - RSA public: PKCS #1 `RSAPublicKey` DER. RSA private: PKCS #1 `RSAPrivateKey` DER.
    ///
    /// The key is checked: an EC point must lie on the curve and match the private scalar; an RSA
    /// private key must be consistent.
    /// - Throws: `CryptoError.decode` for bytes that are not such a key.
    package convenience init(externalRepresentation bytes: [UInt8], rsa: Bool, isPrivate: Bool) throws(CryptoError) {
        let pkey: OpaquePointer
        if rsa {
            let decoded = try OpenSSL.decode(bytes, what: isPrivate ? "RSA private key" : "RSA public key") {
                cursor, length in
                isPrivate
                    ? libcrypto.d2i_PrivateKey(EVP_PKEY_RSA, nil, cursor, length)
                    : libcrypto.d2i_PublicKey(EVP_PKEY_RSA, nil, cursor, length)
            }
            pkey = decoded.object
            guard decoded.free else {
                libcrypto.EVP_PKEY_free(pkey)
                throw .decode("RSA key: trailing bytes")
            }
        } else {
            pkey = try Self.ecKey(bytes, isPrivate: isPrivate)
        }
        try self.init(owning: pkey, isPrivate: isPrivate)
        try check()
    }

    /// Builds an EC key from `04 ‖ X ‖ Y [‖ K]`.
    private static func ecKey(_ bytes: [UInt8], isPrivate: Bool) throws(CryptoError) -> OpaquePointer {
        // Array.withUnsafeBytes rethrows untyped: the typed error travels in a Result.
        try bytes.withUnsafeBytes { raw in
            Result { () throws(CryptoError) -> OpaquePointer in try ecKey(raw, isPrivate: isPrivate) }
        }.get()
    }

    /// Builds an EC key from `04 ‖ X ‖ Y [‖ K]` in `bytes` (which may be wiped-on-release storage: only
    /// OpenSSL's secure `BIGNUM` copies the scalar).
    private static func ecKey(_ bytes: UnsafeRawBufferPointer, isPrivate: Bool) throws(CryptoError) -> OpaquePointer {
        let curve = Curve.allCases.first { 1 + $0.coordinateBytes * (isPrivate ? 3 : 2) == bytes.count }
        guard let curve, bytes.first == 0x04 else {
            throw .decode("EC \(isPrivate ? "private" : "public") key: not an ANSI X9.63 representation")
        }
        let pointLength = 1 + 2 * curve.coordinateBytes
        guard let builder = libcrypto.OSSL_PARAM_BLD_new() else { throw .library("OSSL_PARAM_BLD_new") }
        defer { libcrypto.OSSL_PARAM_BLD_free(builder) }
        var scalar: OpaquePointer?
        defer { libcrypto.BN_clear_free(scalar) }
        // OSSL_PARAM_BLD keeps pointers to strings and octets until OSSL_PARAM_BLD_to_param copies
        // them, so everything happens inside the scopes that keep them alive.
        let params: UnsafeMutablePointer<OSSL_PARAM>? = curve.groupName.withCString { group in
            guard libcrypto.OSSL_PARAM_BLD_push_utf8_string(builder, copenssl_param_group(), group, 0) == 1,
                libcrypto.OSSL_PARAM_BLD_push_octet_string(
                    builder, copenssl_param_pub(), bytes.baseAddress, pointLength) == 1
            else { return nil }
            if isPrivate {
                scalar = libcrypto.BN_secure_new()
                guard let scalar,
                    libcrypto.BN_bin2bn(bytes.baseAddress! + pointLength, Int32(curve.coordinateBytes), scalar) != nil,
                    libcrypto.OSSL_PARAM_BLD_push_BN(builder, copenssl_param_priv(), scalar) == 1
                else { return nil }
            }
            return libcrypto.OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else { throw .library("OSSL_PARAM_BLD: \(OpenSSL.drainErrors())") }
        defer { libcrypto.OSSL_PARAM_free(params) }
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .library("EVP_PKEY_CTX_new")
        }
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        let selection = isPrivate ? Selection.keyPair : Selection.publicKey
        guard libcrypto.EVP_PKEY_fromdata_init(context) == 1,
            libcrypto.EVP_PKEY_fromdata(context, &pkey, selection, params) == 1,
            let pkey
        else {
            _ = OpenSSL.drainErrors()
            throw .decode("EC key: not a point on \(curve)")
        }
        return pkey
    }

    /// A P-256 private key whose private half lives in hardware (`kSecAttrTokenIDSecureEnclave`).
    ///
    /// Signatures and key exchange (ECDH, ECIES decryption) go to `hardware`; the external
    /// representation, PKCS #8 and anything else that needs the scalar fail with `.unsupported`.
    /// - Parameters:
    ///   - hardware: the private-key operations.
    ///   - bytes: the public key, `04 ‖ X ‖ Y` on P-256.
    /// - Throws: `CryptoError.decode` when `bytes` is not a P-256 point.
    package convenience init(hardware: any HardwarePrivateKey, publicKey bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 65 else { throw .decode("hardware key: not a P-256 public key") }
        try self.init(owning: try Self.ecKey(bytes, isPrivate: false), isPrivate: true, hardware: hardware)
    }

    /// An EC private key from its scalar alone (`K`, big-endian, `coordinateBytes` long): the
    /// public point `K·G` is computed with OpenSSL's `EC_POINT_mul`, then the key is imported as
    /// `04 ‖ X ‖ Y ‖ K`. For keys that arrive without their public half (test vectors, some PEM).
    ///
    /// - Important: The scalar stays in wiped-on-release storage: it is read from `scalar` into
    ///   OpenSSL's secure `BIGNUM`s and into a ``SensitiveBytes`` for the import, never into an array.
    /// - Parameters:
    ///   - scalar: the private scalar `K`, big-endian, exactly `curve.coordinateBytes` long.
    ///   - curve: the key's curve.
    /// - Throws: `CryptoError.decode` if the scalar is zero, not below the order, or the wrong length;
    ///   `.library` when OpenSSL cannot make the group or point.
    package convenience init(ecPrivateScalar scalar: SensitiveBytes, curve: Curve) throws(CryptoError) {
        let width = curve.coordinateBytes
        guard scalar.count == width else { throw .decode("EC private scalar: wrong length") }
        let nid = curve.groupName.withCString { libcrypto.OBJ_sn2nid($0) }
        guard let group = libcrypto.EC_GROUP_new_by_curve_name(nid) else {
            throw .library("EC_GROUP_new_by_curve_name")
        }
        defer { libcrypto.EC_GROUP_free(group) }
        guard let point = libcrypto.EC_POINT_new(group), let number = libcrypto.BN_secure_new() else {
            throw .library("EC_POINT_new")
        }
        defer {
            libcrypto.EC_POINT_free(point)
            libcrypto.BN_clear_free(number)
        }
        // 04 ‖ X ‖ Y ‖ K, built in wiped-on-release storage.
        let representation = try SensitiveBytes(count: 1 + 3 * width) { (target) throws(CryptoError) in
            let pointBytes = UnsafeMutableRawBufferPointer(rebasing: target[0..<(1 + 2 * width)])
            let ok =
                scalar.withUnsafeBytes { libcrypto.BN_bin2bn($0.baseAddress, Int32(width), number) } != nil
                && libcrypto.EC_POINT_mul(group, point, number, nil, nil, nil) == 1
                && libcrypto.EC_POINT_point2oct(
                    group, point, POINT_CONVERSION_UNCOMPRESSED,
                    pointBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    pointBytes.count, nil)
                    == pointBytes.count
            guard ok else {
                _ = OpenSSL.drainErrors()
                throw .decode("EC private scalar")
            }
            scalar.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: target[(1 + 2 * width)...]).copyMemory(from: source)
            }
        }
        let pkey = try representation.withUnsafeBytes { (raw) throws(CryptoError) in
            try Self.ecKey(raw, isPrivate: true)
        }
        try self.init(owning: pkey, isPrivate: true)
        try check()
    }

    /// OpenSSL's key selections (`EVP_PKEY_PUBLIC_KEY`, `EVP_PKEY_KEYPAIR`; macros of macros).
    enum Selection {
        static let publicKey = Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        static let keyPair = publicKey | Int32(OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
    }

    /// Checks an imported key: the public point is on the curve; a private key matches its public half.
    private func check() throws(CryptoError) {
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw .library("EVP_PKEY_CTX_new")
        }
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        let result = isPrivate ? libcrypto.EVP_PKEY_pairwise_check(context) : libcrypto.EVP_PKEY_public_check(context)
        guard result == 1 else {
            _ = OpenSSL.drainErrors()
            throw .decode("\(isPrivate ? "private" : "public") key: inconsistent key")
        }
    }

    /// The public key's external representation: `04 ‖ X ‖ Y` for EC, PKCS #1 `RSAPublicKey` DER for RSA.
    package var publicKeyBytes: [UInt8] {
        get throws(CryptoError) {
            switch kind {
            case .ec(let curve):
                var x: OpaquePointer?
                var y: OpaquePointer?
                defer {
                    libcrypto.BN_free(x)
                    libcrypto.BN_free(y)
                }
                guard libcrypto.EVP_PKEY_get_bn_param(pkey, "qx", &x) == 1,
                    libcrypto.EVP_PKEY_get_bn_param(pkey, "qy", &y) == 1,
                    let x, let y
                else { throw .library("EC public point: \(OpenSSL.drainErrors())") }
                return try [0x04] + OpenSSL.bytes(of: x, width: curve.coordinateBytes)
                    + OpenSSL.bytes(of: y, width: curve.coordinateBytes)
            case .rsa:
                return try OpenSSL.der { libcrypto.i2d_PublicKey(pkey, $0) }
            }
        }
    }

    /// The key's external representation (`SecKeyCopyExternalRepresentation`): ``publicKeyBytes``
    /// for a public key; `04 ‖ X ‖ Y ‖ K` (EC) or PKCS #1 `RSAPrivateKey` DER (RSA) for a private key,
    /// in storage wiped on release.
    package func externalRepresentation() throws(CryptoError) -> SensitiveBytes {
        guard isPrivate else { return SensitiveBytes(copying: try publicKeyBytes) }
        guard hardware == nil else { throw .unsupported("the private key lives in a TPM and cannot be exported") }
        switch kind {
        case .ec(let curve):
            let point = try publicKeyBytes
            var scalar: OpaquePointer? = libcrypto.BN_secure_new()
            defer { libcrypto.BN_clear_free(scalar) }
            guard libcrypto.EVP_PKEY_get_bn_param(pkey, "priv", &scalar) == 1, let scalar else {
                throw .library("EC private scalar: \(OpenSSL.drainErrors())")
            }
            let width = curve.coordinateBytes
            return try SensitiveBytes(count: point.count + width) { (buffer) throws(CryptoError) in
                buffer.copyBytes(from: point)
                let written = libcrypto.BN_bn2binpad(
                    scalar, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + point.count, Int32(width))
                guard written == Int32(width) else { throw .library("BN_bn2binpad") }
            }
        case .rsa:
            let length = libcrypto.i2d_PrivateKey(pkey, nil)
            guard length > 0 else { throw .library("i2d_PrivateKey: \(OpenSSL.drainErrors())") }
            return try SensitiveBytes(count: Int(length)) { (buffer) throws(CryptoError) in
                var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                guard libcrypto.i2d_PrivateKey(pkey, &cursor) == length else { throw .library("i2d_PrivateKey") }
            }
        }
    }

    /// The public half (`SecKeyCopyPublicKey`); the key itself when it is public.
    package func publicKey() throws(CryptoError) -> CryptoKey {
        guard isPrivate else { return self }
        var params: UnsafeMutablePointer<OSSL_PARAM>?
        guard libcrypto.EVP_PKEY_todata(pkey, Selection.publicKey, &params) == 1, let params else {
            throw .library("EVP_PKEY_todata: \(OpenSSL.drainErrors())")
        }
        defer { libcrypto.OSSL_PARAM_free(params) }
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw .library("EVP_PKEY_CTX_new")
        }
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        var result: OpaquePointer?
        guard libcrypto.EVP_PKEY_fromdata_init(context) == 1,
            libcrypto.EVP_PKEY_fromdata(context, &result, Selection.publicKey, params) == 1,
            let result
        else { throw .library("EVP_PKEY_fromdata: \(OpenSSL.drainErrors())") }
        return try CryptoKey(owning: result, isPrivate: false)
    }

    // MARK: - Other encodings

    /// Imports a public key from an X.509 `SubjectPublicKeyInfo` (DER).
    /// - Throws: `CryptoError.decode` if the bytes are not one; `.unsupported` for other key types.
    package convenience init(subjectPublicKeyInfo bytes: [UInt8]) throws(CryptoError) {
        let decoded = try OpenSSL.decode(bytes, what: "SubjectPublicKeyInfo") { libcrypto.d2i_PUBKEY(nil, $0, $1) }
        guard decoded.free else {
            libcrypto.EVP_PKEY_free(decoded.object)
            throw .decode("SubjectPublicKeyInfo: trailing bytes")
        }
        try self.init(owning: decoded.object, isPrivate: false)
    }

    /// The public key as an X.509 `SubjectPublicKeyInfo` (DER), as `openssl pkey -pubin` reads it.
    package var subjectPublicKeyInfo: [UInt8] {
        get throws(CryptoError) { try OpenSSL.der { libcrypto.i2d_PUBKEY(pkey, $0) } }
    }

    /// Imports a private key from PKCS #8 `PrivateKeyInfo` DER (unencrypted), or from the
    /// type-specific DER (`ECPrivateKey`, PKCS #1), as `openssl pkey -outform DER` writes them.
    /// - Throws: `CryptoError.decode` if the bytes are not such a key.
    package convenience init(privateKeyDER bytes: [UInt8]) throws(CryptoError) {
        let decoded = try OpenSSL.decode(bytes, what: "private key") { libcrypto.d2i_AutoPrivateKey(nil, $0, $1) }
        try self.init(owning: decoded.object, isPrivate: true)
        try check()
    }

    /// The private key as unencrypted PKCS #8 PEM, wiped on release (for `openssl pkey`).
    /// - Throws: `CryptoError.parameter` for a public key.
    package func pkcs8PEM() throws(CryptoError) -> SensitiveBytes {
        guard isPrivate else { throw .parameter("not a private key") }
        guard hardware == nil else { throw .unsupported("the private key lives in a TPM and cannot be exported") }
        guard let bio = libcrypto.BIO_new(libcrypto.BIO_s_secmem()) else { throw .library("BIO_new") }
        defer { _ = libcrypto.BIO_free(bio) }
        guard libcrypto.PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else {
            throw .library("PEM_write_bio_PrivateKey: \(OpenSSL.drainErrors())")
        }
        var data: UnsafeMutablePointer<CChar>?
        let count = copenssl_bio_mem_data(bio, &data)
        return SensitiveBytes(copying: UnsafeRawBufferPointer(start: data, count: max(count, 0)))
    }

    // MARK: - Attributes

    /// `kSecAttrKeySizeInBits`: the curve size (256, 384, 521) or the modulus size.
    package var sizeInBits: Int {
        switch kind {
        case .ec(let curve): curve.rawValue
        case .rsa(let bits): bits
        }
    }

    /// `SecKeyGetBlockSize`: the modulus length in bytes for RSA; for EC the length of one
    /// coordinate (32, 48, 66), which is also the size of `r` and `s` in an RFC 4754 signature.
    package var blockSize: Int {
        switch kind {
        case .ec(let curve): curve.coordinateBytes
        case .rsa: Int(libcrypto.EVP_PKEY_get_size(pkey))
        }
    }

    /// `kSecAttrApplicationLabel` of Apple's key items: SHA-1 of ``publicKeyBytes``
    /// (Security's `SecKeyCopyPublicKeyHash`). Equals a certificate's ``Certificate/publicKeyHash``.
    package var publicKeyHash: [UInt8] {
        get throws(CryptoError) { try HashFunction.sha1.hash(try publicKeyBytes) }
    }

    // MARK: - Hashable

    package static func == (lhs: CryptoKey, rhs: CryptoKey) -> Bool {
        lhs === rhs
            || (lhs.kind == rhs.kind && lhs.isPrivate == rhs.isPrivate
                && (try? lhs.publicKeyBytes) == (try? rhs.publicKeyBytes))
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(isPrivate)
        hasher.combine(try? publicKeyBytes)
    }

    package var description: String {
        if hardware != nil { return "CryptoKey(EC P-256, private, in a TPM)" }
        return switch kind {
        case .ec(let curve): "CryptoKey(EC P-\(curve.rawValue), \(isPrivate ? "private" : "public"))"
        case .rsa(let bits): "CryptoKey(RSA \(bits), \(isPrivate ? "private" : "public"))"
        }
    }
}
