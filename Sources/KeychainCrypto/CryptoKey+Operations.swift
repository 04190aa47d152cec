internal import COpenSSL

// Signatures, encryption and key exchange with the semantics of Apple's SecKeyAlgorithm
// constants (Security/SecKey.h and SecKeyAdaptors.c): message variants hash first and then run
// the digest variant; digest variants with a named hash insist on that hash's length.

extension CryptoKey {
    // MARK: - Support

    /// Whether this key can run `algorithm` for `operation` (`SecKeyIsAlgorithmSupported`):
    /// the family must match; signing, decryption and key exchange need a private key;
    /// verification and encryption work with either.
    package func supports(_ algorithm: KeyAlgorithm, privateOperation: Bool) -> Bool {
        switch kind {
        case .rsa: guard algorithm.isRSA else { return false }
        case .ec: guard !algorithm.isRSA else { return false }
        }
        return !privateOperation || isPrivate
    }

    private func require(_ algorithm: KeyAlgorithm, _ operation: KeyAlgorithm.Operation, privateKey: Bool)
        throws(CryptoError)
    {
        guard algorithm.operation == operation, supports(algorithm, privateOperation: privateKey) else {
            throw .unsupported("algorithm \(algorithm.rawValue) for \(self)")
        }
    }

    private func context() throws(CryptoError) -> OpaquePointer {
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw .library("EVP_PKEY_CTX_new: \(OpenSSL.drainErrors())")
        }
        return context
    }

    // MARK: - Signatures

    /// Signs `data` (`SecKeyCreateSignature`).
    ///
    /// - Parameters:
    ///   - data: the message for `…Message…` algorithms, else the digest (its hash's length for
    ///     algorithms that name one; the block size for `rsaSignatureRaw`).
    ///   - algorithm: a signature algorithm for this key's family.
    /// - Returns: DER `ECDSA-Sig-Value` (X9.62), `r ‖ s` (RFC 4754), or the RSA signature (block size).
    /// - Throws: `CryptoError.unsupported` for another family's algorithm or a public key;
    ///   `.parameter` for a digest of the wrong length or an input too long for the key.
    package func sign(_ data: [UInt8], algorithm: KeyAlgorithm) throws(CryptoError) -> [UInt8] {
        try require(algorithm, .sign, privateKey: true)
        let (input, setup) = try signatureInput(data, algorithm)
        if let hardware {
            let raw = try hardware.signDigest(Self.curveSizedDigest(input, width: blockSize))
            return algorithm == .ecdsaSignatureRFC4754 ? raw : try derSignature(fromRaw: raw)
        }
        let context = try context()
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(libcrypto.EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
        try setup(context)
        var length = 0
        let sized = input.withUnsafeBufferPointer {
            libcrypto.EVP_PKEY_sign(context, nil, &length, $0.baseAddress, $0.count)
        }
        guard sized == 1 else { throw .parameter("input for \(algorithm.rawValue): \(OpenSSL.drainErrors())") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = input.withUnsafeBufferPointer { tbs in
            signature.withUnsafeMutableBufferPointer {
                libcrypto.EVP_PKEY_sign(context, $0.baseAddress, &length, tbs.baseAddress, tbs.count)
            }
        }
        guard signed == 1 else { throw .parameter("input for \(algorithm.rawValue): \(OpenSSL.drainErrors())") }
        signature.removeSubrange(length...)
        if algorithm == .ecdsaSignatureRFC4754 { return try rawSignature(fromDER: signature) }
        return signature
    }

    /// Verifies `signature` over `data` (`SecKeyVerifySignature`); private keys verify with their public half.
    ///
    /// - Throws: `CryptoError.verifyFailed` when the signature does not match (including a
    ///   malformed signature); `.unsupported` for another family's algorithm; `.parameter` for a
    ///   digest of the wrong length.
    package func verify(_ signature: [UInt8], for data: [UInt8], algorithm: KeyAlgorithm) throws(CryptoError) {
        try require(algorithm, .sign, privateKey: false)
        let (input, setup) = try signatureInput(data, algorithm)
        var signature = signature
        if algorithm == .ecdsaSignatureRFC4754 {
            guard let der = try? derSignature(fromRaw: signature) else { throw .verifyFailed }
            signature = der
        }
        let context = try context()
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(libcrypto.EVP_PKEY_verify_init(context), "EVP_PKEY_verify_init")
        try setup(context)
        let result = input.withUnsafeBufferPointer { tbs in
            signature.withUnsafeBufferPointer {
                libcrypto.EVP_PKEY_verify(context, $0.baseAddress, $0.count, tbs.baseAddress, tbs.count)
            }
        }
        _ = OpenSSL.drainErrors()
        guard result == 1 else { throw .verifyFailed }
    }

    /// The bytes the private-key operation signs, and the context setup for `algorithm`.
    private func signatureInput(_ data: [UInt8], _ algorithm: KeyAlgorithm) throws(CryptoError) -> (
        [UInt8], (OpaquePointer) throws(CryptoError) -> Void
    ) {
        func digest(_ hash: HashFunction) throws(CryptoError) -> [UInt8] {
            guard data.count == hash.byteCount else {
                throw .parameter("bad digest size for signing with algorithm \(algorithm.rawValue)")
            }
            return data
        }
        func padding(_ mode: Int32, hash: HashFunction?) -> (OpaquePointer) throws(CryptoError) -> Void {
            { (context) throws(CryptoError) in
                try OpenSSL.check(libcrypto.EVP_PKEY_CTX_set_rsa_padding(context, mode), "EVP_PKEY_CTX_set_rsa_padding")
                if let hash {
                    try OpenSSL.check(
                        libcrypto.EVP_PKEY_CTX_set_signature_md(context, OpenSSL.digest(hash)),
                        "EVP_PKEY_CTX_set_signature_md")
                }
                if mode == RSA_PKCS1_PSS_PADDING, let hash {
                    try OpenSSL.check(
                        libcrypto.EVP_PKEY_CTX_set_rsa_mgf1_md(context, OpenSSL.digest(hash)), "set_rsa_mgf1_md")
                    try OpenSSL.check(
                        libcrypto.EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(hash.byteCount)),
                        "set_rsa_pss_saltlen")
                }
            }
        }
        let none: (OpaquePointer) throws(CryptoError) -> Void = { _ in }
        switch algorithm {
        case .rsaSignatureRaw:
            guard data.count == blockSize else { throw .parameter("raw RSA input must be \(blockSize) bytes") }
            return (data, padding(RSA_NO_PADDING, hash: nil))
        case .rsaSignatureDigestPKCS1v15Raw: return (data, padding(RSA_PKCS1_PADDING, hash: nil))
        case .rsaSignatureDigestPKCS1v15(let hash): return (try digest(hash), padding(RSA_PKCS1_PADDING, hash: hash))
        case .rsaSignatureMessagePKCS1v15(let hash):
            return (try hash.hash(data), padding(RSA_PKCS1_PADDING, hash: hash))
        case .rsaSignatureDigestPSS(let hash): return (try digest(hash), padding(RSA_PKCS1_PSS_PADDING, hash: hash))
        case .rsaSignatureMessagePSS(let hash): return (try hash.hash(data), padding(RSA_PKCS1_PSS_PADDING, hash: hash))
        case .ecdsaSignatureRFC4754, .ecdsaSignatureDigestX962: return (data, none)
        case .ecdsaSignatureDigestX962Hash(let hash): return (try digest(hash), none)
        case .ecdsaSignatureMessageX962(let hash): return (try hash.hash(data), none)
        default: throw .unsupported("algorithm \(algorithm.rawValue) for signatures")
        }
    }

    /// A digest as ECDSA uses it on a curve whose order has `width` bytes (SEC 1 §4.1.3 step 5, with
    /// an order of exactly `8·width` bits, as P-256's): its leftmost `width` bytes, or left-padded with
    /// zeros (the same integer) when shorter.
    static func curveSizedDigest(_ digest: [UInt8], width: Int) -> [UInt8] {
        digest.count >= width
            ? Array(digest.prefix(width)) : [UInt8](repeating: 0, count: width - digest.count) + digest
    }

    /// DER `ECDSA-Sig-Value` to `r ‖ s`, each left-padded to the block size.
    private func rawSignature(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let decoded = try OpenSSL.decode(der, what: "ECDSA signature") { libcrypto.d2i_ECDSA_SIG(nil, $0, $1) }
        defer { libcrypto.ECDSA_SIG_free(decoded.object) }
        guard let r = libcrypto.ECDSA_SIG_get0_r(decoded.object), let s = libcrypto.ECDSA_SIG_get0_s(decoded.object)
        else {
            throw .library("ECDSA_SIG_get0")
        }
        return try OpenSSL.bytes(of: r, width: blockSize) + OpenSSL.bytes(of: s, width: blockSize)
    }

    /// `r ‖ s` to DER `ECDSA-Sig-Value`.
    private func derSignature(fromRaw raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard raw.count == 2 * blockSize else { throw .verifyFailed }
        guard let signature = libcrypto.ECDSA_SIG_new() else { throw .library("ECDSA_SIG_new") }
        defer { libcrypto.ECDSA_SIG_free(signature) }
        let half = blockSize
        let set = raw.withUnsafeBufferPointer { buffer -> Bool in
            let r = libcrypto.BN_bin2bn(buffer.baseAddress, Int32(half), nil)
            let s = libcrypto.BN_bin2bn(buffer.baseAddress! + half, Int32(half), nil)
            guard let r, let s, libcrypto.ECDSA_SIG_set0(signature, r, s) == 1 else {
                libcrypto.BN_free(r)
                libcrypto.BN_free(s)
                return false
            }
            return true
        }
        guard set else { throw .library("ECDSA_SIG_set0") }
        return try OpenSSL.der { libcrypto.i2d_ECDSA_SIG(signature, $0) }
    }

    // MARK: - Encryption

    /// Encrypts `plaintext` to this key (`SecKeyCreateEncryptedData`); private keys encrypt to their public half.
    ///
    /// - RSA raw: the plaintext must be one block, numerically below the modulus.
    /// - RSA PKCS #1 and OAEP: at most block size − 11 (PKCS #1) or − 2·hash − 2 (OAEP) bytes.
    /// - ECIES: any length; the result is `ephemeral public key (04 ‖ X ‖ Y) ‖ ciphertext ‖ 16-byte tag`
    ///   (Apple's layout; AES-128-GCM for P-256, AES-256-GCM for larger curves; 16-byte IV of zeros,
    ///   or from the KDF for the VariableIV algorithms).
    /// - Throws: `CryptoError.unsupported` for another family's algorithm; `.parameter` for a
    ///   plaintext too long for the key.
    package func encrypt(_ plaintext: [UInt8], algorithm: KeyAlgorithm) throws(CryptoError) -> [UInt8] {
        try require(algorithm, .encrypt, privateKey: false)
        if case .ecies(let cofactor, let variableIV, let hash) = algorithm {
            return try eciesEncrypt(plaintext, cofactor: cofactor, variableIV: variableIV, hash: hash)
        }
        let context = try context()
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(libcrypto.EVP_PKEY_encrypt_init(context), "EVP_PKEY_encrypt_init")
        try rsaEncryptionSetup(context, algorithm, inputLength: plaintext.count)
        var length = 0
        guard
            plaintext.withUnsafeBufferPointer({
                libcrypto.EVP_PKEY_encrypt(context, nil, &length, $0.baseAddress, $0.count)
            })
                == 1
        else { throw .parameter("plaintext for \(algorithm.rawValue): \(OpenSSL.drainErrors())") }
        var ciphertext = [UInt8](repeating: 0, count: length)
        let result = plaintext.withUnsafeBufferPointer { input in
            ciphertext.withUnsafeMutableBufferPointer {
                libcrypto.EVP_PKEY_encrypt(context, $0.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        guard result == 1 else { throw .parameter("plaintext for \(algorithm.rawValue): \(OpenSSL.drainErrors())") }
        ciphertext.removeSubrange(length...)
        return ciphertext
    }

    /// Decrypts `ciphertext` with this private key (`SecKeyCreateDecryptedData`).
    ///
    /// - Returns: the plaintext, in storage wiped on release.
    /// - Throws: `CryptoError.unsupported` for a public key or another family's algorithm;
    ///   `.decryptFailed` when padding or the GCM tag does not check, or the ciphertext is malformed.
    package func decrypt(_ ciphertext: [UInt8], algorithm: KeyAlgorithm) throws(CryptoError) -> SensitiveBytes {
        try require(algorithm, .encrypt, privateKey: true)
        if case .ecies(let cofactor, let variableIV, let hash) = algorithm {
            return try eciesDecrypt(ciphertext, cofactor: cofactor, variableIV: variableIV, hash: hash)
        }
        guard ciphertext.count == blockSize else { throw .decryptFailed("ciphertext must be \(blockSize) bytes") }
        let context = try context()
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(libcrypto.EVP_PKEY_decrypt_init(context), "EVP_PKEY_decrypt_init")
        try rsaEncryptionSetup(context, algorithm, inputLength: nil)
        var length = blockSize
        let output = try SensitiveBytes(count: blockSize) { (buffer) throws(CryptoError) in
            let result = ciphertext.withUnsafeBufferPointer {
                libcrypto.EVP_PKEY_decrypt(
                    context, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, $0.baseAddress, $0.count)
            }
            guard result == 1 else {
                _ = OpenSSL.drainErrors()
                throw .decryptFailed(algorithm.rawValue)
            }
        }
        return output.withUnsafeBytes { SensitiveBytes(copying: $0.prefix(length)) }
    }

    private func rsaEncryptionSetup(_ context: OpaquePointer, _ algorithm: KeyAlgorithm, inputLength: Int?)
        throws(CryptoError)
    {
        switch algorithm {
        case .rsaEncryptionRaw:
            if let inputLength, inputLength != blockSize {
                throw .parameter("raw RSA input must be \(blockSize) bytes")
            }
            try OpenSSL.check(libcrypto.EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING), "set_rsa_padding")
        case .rsaEncryptionPKCS1:
            try OpenSSL.check(libcrypto.EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "set_rsa_padding")
        case .rsaEncryptionOAEP(let hash):
            try OpenSSL.check(
                libcrypto.EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING), "set_rsa_padding")
            try OpenSSL.check(libcrypto.EVP_PKEY_CTX_set_rsa_oaep_md(context, OpenSSL.digest(hash)), "set_rsa_oaep_md")
            try OpenSSL.check(libcrypto.EVP_PKEY_CTX_set_rsa_mgf1_md(context, OpenSSL.digest(hash)), "set_rsa_mgf1_md")
        default: throw .unsupported("algorithm \(algorithm.rawValue) for RSA encryption")
        }
    }

    // MARK: - ECIES (Apple's construction)

    private func eciesKeyLength() -> Int { sizeInBits <= 256 ? 16 : 32 }

    private func eciesEncrypt(_ plaintext: [UInt8], cofactor: Bool, variableIV: Bool, hash: HashFunction)
        throws(CryptoError) -> [UInt8]
    {
        guard case .ec(let curve) = kind else { throw .unsupported("ECIES with an RSA key") }
        let ephemeral = try CryptoKey.generate(.ec(curve))
        let ephemeralPublic = try ephemeral.publicKeyBytes
        let recipient = try publicKey()
        let secret = try ephemeral.sharedSecret(with: recipient, cofactor: cofactor)
        let keyLength = eciesKeyLength()
        let derived = try X963KDF.derive(secret: secret, sharedInfo: ephemeralPublic, hash: hash, count: keyLength + 16)
        let sealed = try derived.withUnsafeBytes { (material) throws(CryptoError) -> [UInt8] in
            let iv = variableIV ? Array(material[keyLength..<(keyLength + 16)]) : [UInt8](repeating: 0, count: 16)
            return try AESGCM.seal(plaintext, key: UnsafeRawBufferPointer(rebasing: material[0..<keyLength]), iv: iv)
        }
        return ephemeralPublic + sealed
    }

    private func eciesDecrypt(_ ciphertext: [UInt8], cofactor: Bool, variableIV: Bool, hash: HashFunction)
        throws(CryptoError) -> SensitiveBytes
    {
        guard case .ec(let curve) = kind else { throw .unsupported("ECIES with an RSA key") }
        let pointLength = 1 + 2 * curve.coordinateBytes
        guard ciphertext.count >= pointLength + 16 else { throw .decryptFailed("ECIES ciphertext too short") }
        let ephemeralBytes = Array(ciphertext[0..<pointLength])
        let ephemeral: CryptoKey
        do { ephemeral = try CryptoKey(externalRepresentation: ephemeralBytes, rsa: false, isPrivate: false) } catch {
            throw .decryptFailed("ECIES ephemeral key")
        }
        guard ephemeral.kind == kind else { throw .decryptFailed("ECIES ephemeral key on another curve") }
        let secret = try sharedSecret(with: ephemeral, cofactor: cofactor)
        let keyLength = eciesKeyLength()
        let derived = try X963KDF.derive(secret: secret, sharedInfo: ephemeralBytes, hash: hash, count: keyLength + 16)
        return try derived.withUnsafeBytes { (material) throws(CryptoError) -> SensitiveBytes in
            let iv = variableIV ? Array(material[keyLength..<(keyLength + 16)]) : [UInt8](repeating: 0, count: 16)
            return try AESGCM.open(
                Array(ciphertext[pointLength...]), key: UnsafeRawBufferPointer(rebasing: material[0..<keyLength]),
                iv: iv)
        }
    }

    // MARK: - Key exchange

    /// ECDH with `peer` (`SecKeyCopyKeyExchangeResult`).
    ///
    /// - Parameters:
    ///   - peer: the other party's public key, on the same curve.
    ///   - algorithm: `.ecdh(cofactor:kdf:)`.
    ///   - requestedSize: `kSecKeyKeyExchangeParameterRequestedSize`; required with a KDF, ignored without.
    ///   - sharedInfo: `kSecKeyKeyExchangeParameterSharedInfo` for the X9.63 KDF.
    /// - Returns: the shared secret (the x-coordinate, block size bytes), or `requestedSize` bytes
    ///   of X9.63 KDF output; wiped on release.
    /// - Throws: `.unsupported` for RSA keys or a public key; `.parameter` for a peer on another
    ///   curve or a missing requested size.
    package func keyExchange(
        with peer: CryptoKey, algorithm: KeyAlgorithm, requestedSize: Int?, sharedInfo: [UInt8]?
    ) throws(CryptoError) -> SensitiveBytes {
        try require(algorithm, .keyExchange, privateKey: true)
        guard case .ecdh(let cofactor, let kdf) = algorithm else { throw .unsupported(algorithm.rawValue) }
        guard peer.kind == kind else { throw .parameter("peer key is not on the same curve") }
        let secret = try sharedSecret(with: peer, cofactor: cofactor)
        guard let kdf else { return secret }
        guard let requestedSize, requestedSize > 0 else {
            throw .parameter("kSecKeyKeyExchangeParameterRequestedSize is required with \(algorithm.rawValue)")
        }
        return try X963KDF.derive(secret: secret, sharedInfo: sharedInfo ?? [], hash: kdf, count: requestedSize)
    }

    /// The raw ECDH shared secret (x-coordinate) with `peer`.
    func sharedSecret(with peer: CryptoKey, cofactor: Bool) throws(CryptoError) -> SensitiveBytes {
        // P-256's cofactor is 1: the cofactor variants agree the same secret.
        if let hardware { return try hardware.sharedSecret(peer: try peer.publicKeyBytes) }
        let context = try context()
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(libcrypto.EVP_PKEY_derive_init(context), "EVP_PKEY_derive_init")
        if cofactor {
            try OpenSSL.check(libcrypto.EVP_PKEY_CTX_set_ecdh_cofactor_mode(context, 1), "set_ecdh_cofactor_mode")
        }
        guard libcrypto.EVP_PKEY_derive_set_peer(context, peer.pkey) == 1 else {
            _ = OpenSSL.drainErrors()
            throw .parameter("peer key")
        }
        var length = 0
        try OpenSSL.check(libcrypto.EVP_PKEY_derive(context, nil, &length), "EVP_PKEY_derive")
        var written = length
        let secret = try SensitiveBytes(count: length) { (buffer) throws(CryptoError) in
            try OpenSSL.check(
                libcrypto.EVP_PKEY_derive(context, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &written),
                "EVP_PKEY_derive")
        }
        guard written == length else { throw .library("EVP_PKEY_derive: short secret") }
        return secret
    }
}

/// ANSI X9.63 KDF (SEC 1 §3.6.1) through OpenSSL's `X963KDF`.
package enum X963KDF {
    /// `count` bytes of X9.63 KDF output over `secret` and `sharedInfo`.
    package static func derive(secret: SensitiveBytes, sharedInfo: [UInt8], hash: HashFunction, count: Int)
        throws(CryptoError) -> SensitiveBytes
    {
        guard let kdf = libcrypto.EVP_KDF_fetch(nil, "X963KDF", nil) else {
            throw .library("X963KDF: \(OpenSSL.drainErrors())")
        }
        defer { libcrypto.EVP_KDF_free(kdf) }
        guard let context = libcrypto.EVP_KDF_CTX_new(kdf) else { throw .library("EVP_KDF_CTX_new") }
        defer { libcrypto.EVP_KDF_CTX_free(context) }
        return try SensitiveBytes(count: count) { (output) throws(CryptoError) in
            let result = secret.withUnsafeBytes { key in
                sharedInfo.withUnsafeBytes { info in
                    hash.rawValue.withCString { digestName in
                        var params = [
                            libcrypto.OSSL_PARAM_construct_utf8_string(
                                copenssl_param_digest(), UnsafeMutablePointer(mutating: digestName), 0),
                            libcrypto.OSSL_PARAM_construct_octet_string(
                                copenssl_param_key(), UnsafeMutableRawPointer(mutating: key.baseAddress), key.count),
                            libcrypto.OSSL_PARAM_construct_octet_string(
                                copenssl_param_info(), UnsafeMutableRawPointer(mutating: info.baseAddress), info.count),
                            libcrypto.OSSL_PARAM_construct_end(),
                        ]
                        return libcrypto.EVP_KDF_derive(
                            context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &params)
                    }
                }
            }
            try OpenSSL.check(result, "X963KDF")
        }
    }
}

/// AES-GCM with a 16-byte IV and a 16-byte tag, as Apple's ECIES uses it.
enum AESGCM {
    static func cipher(keyLength: Int) -> OpaquePointer? {
        keyLength == 16 ? libcrypto.EVP_aes_128_gcm() : libcrypto.EVP_aes_256_gcm()
    }

    /// `ciphertext ‖ tag`.
    static func seal(_ plaintext: [UInt8], key: UnsafeRawBufferPointer, iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = libcrypto.EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        defer { libcrypto.EVP_CIPHER_CTX_free(context) }
        try OpenSSL.check(
            libcrypto.EVP_EncryptInit_ex(context, cipher(keyLength: key.count), nil, nil, nil), "EncryptInit")
        try OpenSSL.check(
            libcrypto.EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil),
            "EVP_CTRL_GCM_SET_IVLEN")
        try OpenSSL.check(
            libcrypto.EVP_EncryptInit_ex(context, nil, nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), iv),
            "EncryptInit")
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        var final: Int32 = 0
        let result = output.withUnsafeMutableBufferPointer { out -> Int32 in
            guard
                plaintext.isEmpty
                    || libcrypto.EVP_EncryptUpdate(context, out.baseAddress, &length, plaintext, Int32(plaintext.count))
                        == 1
            else { return 0 }
            guard libcrypto.EVP_EncryptFinal_ex(context, out.baseAddress! + Int(length), &final) == 1 else { return 0 }
            return libcrypto.EVP_CIPHER_CTX_ctrl(
                context, EVP_CTRL_GCM_GET_TAG, 16, out.baseAddress! + Int(length) + Int(final))
        }
        try OpenSSL.check(result, "AES-GCM seal")
        return output
    }

    /// The plaintext of `ciphertext ‖ tag`, wiped on release.
    static func open(_ sealed: [UInt8], key: UnsafeRawBufferPointer, iv: [UInt8]) throws(CryptoError) -> SensitiveBytes
    {
        guard sealed.count >= 16 else { throw .decryptFailed("AES-GCM input too short") }
        guard let context = libcrypto.EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        defer { libcrypto.EVP_CIPHER_CTX_free(context) }
        try OpenSSL.check(
            libcrypto.EVP_DecryptInit_ex(context, cipher(keyLength: key.count), nil, nil, nil), "DecryptInit")
        try OpenSSL.check(
            libcrypto.EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil),
            "EVP_CTRL_GCM_SET_IVLEN")
        try OpenSSL.check(
            libcrypto.EVP_DecryptInit_ex(context, nil, nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), iv),
            "DecryptInit")
        let bodyLength = sealed.count - 16
        var tag = Array(sealed[bodyLength...])
        return try SensitiveBytes(count: bodyLength) { (out) throws(CryptoError) in
            var length: Int32 = 0
            var final: Int32 = 0
            let outBase = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let ok = sealed.withUnsafeBufferPointer { input -> Bool in
                guard
                    bodyLength == 0
                        || libcrypto.EVP_DecryptUpdate(context, outBase, &length, input.baseAddress, Int32(bodyLength))
                            == 1
                else { return false }
                guard libcrypto.EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { return false }
                var scratch = [UInt8](repeating: 0, count: 16)
                return scratch.withUnsafeMutableBufferPointer { spare in
                    libcrypto.EVP_DecryptFinal_ex(
                        context, outBase.map { $0 + Int(length) } ?? spare.baseAddress, &final) == 1
                }
            }
            guard ok else {
                _ = OpenSSL.drainErrors()
                throw .decryptFailed("ECIES authentication tag")
            }
        }
    }
}
