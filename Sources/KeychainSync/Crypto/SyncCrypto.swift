internal import CSodium
package import KeychainCore

/// The libsodium primitives of the sync protocol beyond the store's own (``Sodium``): Ed25519 signatures
/// (`crypto_sign_*`), anonymous sealed boxes to X25519 keys (`crypto_box_seal`) and unkeyed BLAKE2b-256.
///
/// Symmetric encryption is the store's XChaCha20-Poly1305 (``Sodium/seal(_:key:associatedData:)-…``) and the
/// passphrase KDF the store's Argon2id (``Sodium/passwordHash(_:salt:opsLimit:memLimit:)``).
package enum SyncCrypto {
    /// Bytes of an Ed25519 or X25519 public key.
    package static let publicKeyBytes = 32
    /// Bytes of a key seed (Ed25519 seed or X25519 secret key).
    package static let seedBytes = 32
    /// Bytes of an Ed25519 signature.
    package static let signatureBytes = Int(crypto_sign_BYTES)
    /// Bytes `crypto_box_seal` adds.
    package static let sealedBoxOverhead = Int(crypto_box_sealbytes())
    /// Bytes of a content hash.
    package static let hashBytes = 32

    /// The Ed25519 public key of a 32-byte seed.
    package static func signingPublicKey(seed: SecureBytes) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition(seed.count == seedBytes)
        var publicKey = [UInt8](repeating: 0, count: publicKeyBytes)
        _ = SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { secret in
            seed.withUnsafeBytes { s in
                // Fails only for wrong buffer sizes, which the types fix.
                precondition(
                    crypto_sign_seed_keypair(
                        &publicKey, secret.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0)
            }
        }
        return publicKey
    }

    /// An Ed25519 detached signature of `message` by the key of `seed`.
    package static func sign(_ message: [UInt8], seed: SecureBytes) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition(seed.count == seedBytes)
        var publicKey = [UInt8](repeating: 0, count: publicKeyBytes)
        var signature = [UInt8](repeating: 0, count: signatureBytes)
        _ = SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { secret in
            let sk = secret.baseAddress!.assumingMemoryBound(to: UInt8.self)
            seed.withUnsafeBytes { s in
                precondition(
                    crypto_sign_seed_keypair(&publicKey, sk, s.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0)
            }
            precondition(crypto_sign_detached(&signature, nil, message, UInt64(message.count), sk) == 0)
        }
        return signature
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    package static func verify(
        _ signature: some Collection<UInt8>, of message: some Collection<UInt8>, by publicKey: [UInt8]
    ) -> Bool {
        Sodium.ensureInitialized()
        let signature = Array(signature)
        let message = Array(message)
        guard signature.count == signatureBytes, publicKey.count == publicKeyBytes else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// The X25519 public key of a 32-byte secret key (`crypto_scalarmult_base`).
    package static func boxPublicKey(secret: SecureBytes) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition(secret.count == seedBytes)
        var publicKey = [UInt8](repeating: 0, count: publicKeyBytes)
        secret.withUnsafeBytes { s in
            precondition(crypto_scalarmult_base(&publicKey, s.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0)
        }
        return publicKey
    }

    /// Seals `secret` to the X25519 key `publicKey` (`crypto_box_seal`: anonymous sender).
    package static func sealToKey(_ secret: SecureBytes, publicKey: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition(publicKey.count == publicKeyBytes)
        var output = [UInt8](repeating: 0, count: secret.count + sealedBoxOverhead)
        secret.withUnsafeBytes { m in
            precondition(
                crypto_box_seal(&output, m.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(m.count), publicKey)
                    == 0)
        }
        return output
    }

    /// Opens a sealed box made by ``sealToKey(_:publicKey:)`` with the X25519 secret key `secret`.
    /// - Returns: the plaintext, or nil when the box is short, damaged or for another key.
    package static func openSealed(_ box: [UInt8], secret: SecureBytes) -> SecureBytes? {
        Sodium.ensureInitialized()
        guard box.count > sealedBoxOverhead, secret.count == seedBytes else { return nil }
        let publicKey = boxPublicKey(secret: secret)
        var ok = false
        let result = SecureBytes(count: box.count - sealedBoxOverhead) { out in
            secret.withUnsafeBytes { s in
                ok =
                    crypto_box_seal_open(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), box, UInt64(box.count), publicKey,
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
            }
        }
        return ok ? result : nil
    }

    /// BLAKE2b-256 of `bytes` (`crypto_generichash`, no key): the hash that chains segments.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: hashBytes)
        precondition(crypto_generichash(&out, hashBytes, bytes, UInt64(bytes.count), nil, 0) == 0)
        return out
    }

    /// A 32-byte subkey of `key` for `context` (keyed BLAKE2b, ``Sodium/combine(_:_:context:)``).
    package static func subkey(_ key: SecureBytes, context: String) -> SecureBytes {
        Sodium.combine(key, SecureBytes(count: 0) { _ in }, context: context)
    }
}
