internal import COpenSSL
package import KeychainCore

/// Errors of the session cryptography.
package enum SessionCryptoError: Error, Equatable, CustomStringConvertible {
    /// The peer's public key is not an integer with 1 < y < p − 1 (or is longer than the group).
    case invalidPublicKey
    /// The secret's parameters are not a 16-byte IV.
    case invalidParameters
    /// The ciphertext does not decrypt (wrong key, length, or PKCS #7 padding).
    case undecryptable
    /// An OpenSSL call failed; the name of the call.
    case openSSL(String)

    package var description: String {
        switch self {
        case .invalidPublicKey: "the public key is outside 1 < y < p - 1 of RFC 2409 group 2"
        case .invalidParameters: "the secret's parameters are not a 16-byte AES-CBC IV"
        case .undecryptable: "the secret does not decrypt with the session key"
        case .openSSL(let call): "OpenSSL: \(call) failed"
        }
    }
}

/// The key agreement of the Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session algorithm.
///
/// Secret Service API, "Transfer of Secrets" / "Algorithm: dh-ietf1024-sha256-aes128-cbc-pkcs7":
/// Diffie-Hellman in the Second Oakley Group (RFC 2409 §6.2, the 1024-bit MODP prime, g = 2); public
/// keys travel as big-endian integers; the shared secret is left-padded with zeros to 128 bytes; the
/// AES-128 key is HKDF-SHA256 (RFC 5869) over it with no salt and empty info. All of it is OpenSSL's
/// EVP API; nothing here is hand-written cryptography.
///
/// This type owns one `EVP_PKEY` (the private key) and frees it in `deinit`; it is not `Sendable`.
package final class DHIETF1024KeyAgreement {
    /// Bytes of the group's prime, and so of a padded public key or shared secret.
    package static let groupBytes = 128

    private let privateKey: OpaquePointer

    /// Generates a fresh key pair in RFC 2409 group 2.
    /// - Throws: ``SessionCryptoError/openSSL(_:)`` when OpenSSL cannot generate it.
    package init() throws(SessionCryptoError) {
        let domain = try Self.makeKey(publicKey: nil)
        defer { libcrypto.EVP_PKEY_free(domain) }
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_pkey(nil, domain, nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard libcrypto.EVP_PKEY_keygen_init(context) == 1, libcrypto.EVP_PKEY_generate(context, &generated) == 1,
            let generated
        else {
            throw .openSSL("EVP_PKEY_generate")
        }
        privateKey = generated
    }

    deinit { libcrypto.EVP_PKEY_free(privateKey) }

    /// This side's public key, big-endian, left-padded to 128 bytes.
    package var publicKey: [UInt8] {
        var number: OpaquePointer?
        guard libcrypto.EVP_PKEY_get_bn_param(privateKey, "pub", &number) == 1, let number else { return [] }
        defer { libcrypto.BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: Self.groupBytes)
        _ = libcrypto.BN_bn2binpad(number, &bytes, Int32(Self.groupBytes))
        return bytes
    }

    /// Derives the session's AES-128 key from the peer's public key.
    ///
    /// - Parameter peerPublicKey: the peer's big-endian public key (leading zeros allowed).
    /// - Returns: 16 bytes: HKDF-SHA256(salt: none, info: empty) of the zero-padded shared secret.
    /// - Throws: ``SessionCryptoError/invalidPublicKey`` unless 1 < y < p − 1;
    ///   ``SessionCryptoError/openSSL(_:)`` when OpenSSL fails.
    package func sessionKey(peerPublicKey: UnsafeRawBufferPointer) throws(SessionCryptoError) -> SecureBytes {
        guard peerPublicKey.count <= Self.groupBytes * 2 else { throw .invalidPublicKey }
        try Self.validate(peerPublicKey)
        let peer = try Self.makeKey(publicKey: peerPublicKey)
        defer { libcrypto.EVP_PKEY_free(peer) }
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_pkey(nil, privateKey, nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        guard libcrypto.EVP_PKEY_derive_init(context) == 1 else { throw .openSSL("EVP_PKEY_derive_init") }
        // Pad the shared secret to the prime's size, as the spec asks.
        guard libcrypto.EVP_PKEY_CTX_set_dh_pad(context, 1) == 1 else { throw .openSSL("EVP_PKEY_CTX_set_dh_pad") }
        guard libcrypto.EVP_PKEY_derive_set_peer(context, peer) == 1 else { throw .invalidPublicKey }
        var length = 0
        guard libcrypto.EVP_PKEY_derive(context, nil, &length) == 1, length == Self.groupBytes else {
            throw .openSSL("EVP_PKEY_derive")
        }
        var failed = false
        let shared = SecureBytes(count: Self.groupBytes) { buffer in
            var written = buffer.count
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            failed = libcrypto.EVP_PKEY_derive(context, base, &written) != 1 || written != Self.groupBytes
        }
        if failed { throw .openSSL("EVP_PKEY_derive") }
        return try Self.hkdfSHA256(shared, length: 16)
    }

    // MARK: - Private

    /// Checks 1 < y < p − 1 (Secret Service security note; RFC 2631 §2.1.5's range check).
    private static func validate(_ peer: UnsafeRawBufferPointer) throws(SessionCryptoError) {
        guard let y = libcrypto.BN_bin2bn(peer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(peer.count), nil)
        else {
            throw .invalidPublicKey
        }
        defer { libcrypto.BN_free(y) }
        guard let p = libcrypto.BN_get_rfc2409_prime_1024(nil) else { throw .openSSL("BN_get_rfc2409_prime_1024") }
        defer { libcrypto.BN_free(p) }
        guard libcrypto.BN_sub_word(p, 1) == 1 else { throw .openSSL("BN_sub_word") }
        guard libcrypto.BN_cmp(y, libcrypto.BN_value_one()) > 0, libcrypto.BN_cmp(y, p) < 0 else {
            throw .invalidPublicKey
        }
    }

    /// A DH `EVP_PKEY` with the group's parameters and, if given, a public key. The caller frees it.
    private static func makeKey(publicKey: UnsafeRawBufferPointer?) throws(SessionCryptoError) -> OpaquePointer {
        guard let p = libcrypto.BN_get_rfc2409_prime_1024(nil) else { throw .openSSL("BN_get_rfc2409_prime_1024") }
        defer { libcrypto.BN_free(p) }
        guard let g = libcrypto.BN_new() else { throw .openSSL("BN_new") }
        defer { libcrypto.BN_free(g) }
        guard libcrypto.BN_set_word(g, 2) == 1 else { throw .openSSL("BN_set_word") }
        var y: OpaquePointer?
        if let publicKey {
            y = libcrypto.BN_bin2bn(
                publicKey.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(publicKey.count), nil)
            if y == nil { throw .openSSL("BN_bin2bn") }
        }
        defer { if let y { libcrypto.BN_free(y) } }
        guard let builder = libcrypto.OSSL_PARAM_BLD_new() else { throw .openSSL("OSSL_PARAM_BLD_new") }
        defer { libcrypto.OSSL_PARAM_BLD_free(builder) }
        // The builder keeps the name pointers until OSSL_PARAM_BLD_to_param: static strings outlive it.
        guard libcrypto.OSSL_PARAM_BLD_push_BN(builder, cString("p"), p) == 1,
            libcrypto.OSSL_PARAM_BLD_push_BN(builder, cString("g"), g) == 1,
            y == nil || libcrypto.OSSL_PARAM_BLD_push_BN(builder, cString("pub"), y) == 1,
            let parameters = libcrypto.OSSL_PARAM_BLD_to_param(builder)
        else { throw .openSSL("OSSL_PARAM_BLD") }
        defer { libcrypto.OSSL_PARAM_free(parameters) }
        guard let context = libcrypto.EVP_PKEY_CTX_new_from_name(nil, "DH", nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_name")
        }
        defer { libcrypto.EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        let selection = y == nil ? copenssl_selection_key_parameters() : copenssl_selection_public_key()
        guard libcrypto.EVP_PKEY_fromdata_init(context) == 1,
            libcrypto.EVP_PKEY_fromdata(context, &key, selection, parameters) == 1,
            let key
        else { throw .openSSL("EVP_PKEY_fromdata") }
        return key
    }

    /// HKDF-SHA256 (RFC 5869) with no salt and empty info, through OpenSSL's `EVP_KDF` "HKDF".
    static func hkdfSHA256(_ inputKeyMaterial: SecureBytes, length: Int) throws(SessionCryptoError) -> SecureBytes {
        guard let kdf = libcrypto.EVP_KDF_fetch(nil, "HKDF", nil) else { throw .openSSL("EVP_KDF_fetch") }
        defer { libcrypto.EVP_KDF_free(kdf) }
        guard let context = libcrypto.EVP_KDF_CTX_new(kdf) else { throw .openSSL("EVP_KDF_CTX_new") }
        defer { libcrypto.EVP_KDF_CTX_free(context) }
        var failed = false
        let key = SecureBytes(count: length) { output in
            inputKeyMaterial.withUnsafeBytes { ikm in
                // OSSL_PARAM keeps the name pointers: static strings outlive the call.
                let digestKey: StaticString = "digest", keyKey: StaticString = "key", sha256: StaticString = "SHA256"
                var parameters = [
                    libcrypto.OSSL_PARAM_construct_utf8_string(
                        cString(digestKey), UnsafeMutablePointer(mutating: cString(sha256)), 0),
                    libcrypto.OSSL_PARAM_construct_octet_string(
                        cString(keyKey), UnsafeMutableRawPointer(mutating: ikm.baseAddress), ikm.count),
                    libcrypto.OSSL_PARAM_construct_end(),
                ]
                failed =
                    libcrypto.EVP_KDF_derive(
                        context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count, &parameters)
                    != 1
            }
        }
        if failed { throw .openSSL("EVP_KDF_derive") }
        return key
    }
}

/// A static string's bytes as a C string (string literals are NUL-terminated and live forever).
private func cString(_ string: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(string.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// AES-128-CBC with PKCS #7 padding through OpenSSL's EVP cipher API, as the DH session uses it.
package enum AES128CBC {
    /// Bytes of the IV (the secret's `parameters`) and of the key.
    package static let ivBytes = 16

    /// Encrypts `plaintext` under `key` with `iv`.
    /// - Returns: the ciphertext (a multiple of 16 bytes, at least one block).
    /// - Throws: ``SessionCryptoError/openSSL(_:)`` if OpenSSL fails.
    package static func encrypt(
        _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, iv: [UInt8]
    ) throws(SessionCryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var failed = false
        let written = output.withUnsafeMutableBytes { buffer in
            let count = run(encrypt: true, plaintext, into: buffer, key: key, iv: iv)
            failed = count == nil
            return count ?? 0
        }
        if failed { throw .openSSL("EVP_EncryptFinal_ex") }
        output.removeLast(output.count - written)
        return output
    }

    /// Decrypts `ciphertext` under `key` with the IV in `parameters`.
    /// - Returns: the plaintext, in zeroising storage.
    /// - Throws: ``SessionCryptoError/invalidParameters`` unless the IV is 16 bytes;
    ///   ``SessionCryptoError/undecryptable`` for a wrong length or padding.
    package static func decrypt(
        _ ciphertext: UnsafeRawBufferPointer, key: SecureBytes, iv: UnsafeRawBufferPointer
    ) throws(SessionCryptoError) -> SecureBytes {
        guard iv.count == ivBytes else { throw .invalidParameters }
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw .undecryptable }
        var written: Int?
        let padded = SecureBytes(count: ciphertext.count + 16) { buffer in
            written = run(encrypt: false, ciphertext, into: buffer, key: key, iv: Array(iv))
        }
        guard let written else { throw .undecryptable }
        return padded.withUnsafeBytes { SecureBytes(copying: $0.prefix(written)) }
    }

    private static func run(
        encrypt: Bool, _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, key: SecureBytes,
        iv: [UInt8]
    ) -> Int? {
        guard iv.count == ivBytes, key.count == 16, let context = libcrypto.EVP_CIPHER_CTX_new() else { return nil }
        defer { libcrypto.EVP_CIPHER_CTX_free(context) }
        let started = key.withUnsafeBytes { keyBytes in
            libcrypto.EVP_CipherInit_ex2(
                context, libcrypto.EVP_aes_128_cbc(), keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), iv,
                encrypt ? 1 : 0, nil) == 1
        }
        guard started, let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var first: Int32 = 0, last: Int32 = 0
        let empty: [UInt8] = [0]
        let ok =
            input.isEmpty
            ? empty.withUnsafeBufferPointer { libcrypto.EVP_CipherUpdate(context, out, &first, $0.baseAddress, 0) == 1 }
            : libcrypto.EVP_CipherUpdate(
                context, out, &first, input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1
        guard ok, libcrypto.EVP_CipherFinal_ex(context, out + Int(first), &last) == 1 else { return nil }
        return Int(first + last)
    }

    /// 16 random bytes for an IV (`RAND_bytes`).
    package static func randomIV() -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: ivBytes)
        _ = libcrypto.RAND_bytes(&iv, Int32(ivBytes))
        return iv
    }
}
