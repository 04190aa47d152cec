internal import CSodium

/// The libsodium primitives the engine uses, and nothing else.
///
/// - Item and class-key sealing: XChaCha20-Poly1305 (IETF), 24-byte random nonce, 16-byte tag.
/// - Index digests and key derivation: keyed BLAKE2b (`crypto_generichash`).
/// - Password hashing: Argon2id (`crypto_pwhash`).
package enum Sodium {
    /// Bytes in every symmetric key the engine uses.
    package static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// Bytes of nonce stored in front of each ciphertext.
    package static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// Bytes of authentication tag after each ciphertext.
    package static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// Bytes a sealed box adds to its plaintext.
    package static let sealOverhead = nonceBytes + tagBytes

    private static let initialization: Bool = sodium_init() >= 0

    /// Runs `sodium_init` once per process; it is thread-safe and idempotent.
    package static func ensureInitialized() {
        precondition(initialization, "sodium_init failed")
    }

    /// Fills `buffer` from libsodium's CSPRNG in place (no copy left behind): `SecRandomCopyBytes`.
    package static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        ensureInitialized()
        if let base = buffer.baseAddress, buffer.count > 0 { randombytes_buf(base, buffer.count) }
    }

    /// Random bytes from libsodium's CSPRNG, for non-secret values (nonces, identifiers, salts).
    package static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { randombytes_buf(base, count) } }
        return bytes
    }

    /// Seals `plaintext` under `key` with XChaCha20-Poly1305; returns `nonce ‖ ciphertext ‖ tag`.
    package static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) -> [UInt8]
    {
        ensureInitialized()
        precondition(key.count == keyBytes)
        var output = [UInt8](repeating: 0, count: nonceBytes + plaintext.count + tagBytes)
        output.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress!
            randombytes_buf(base, nonceBytes)
            key.withUnsafeBytes { k in
                associatedData.withUnsafeBufferPointer { ad in
                    var produced: UInt64 = 0
                    let status = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        base + nonceBytes, &produced,
                        plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        ad.baseAddress, UInt64(ad.count), nil, base,
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    // Fails only for a message over 2⁶⁴ bytes: a caller's bug, never data-dependent.
                    precondition(status == 0, "crypto_aead_xchacha20poly1305_ietf_encrypt failed")
                }
            }
        }
        return output
    }

    /// Seals plain bytes.
    package static func seal(_ plaintext: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        plaintext.withUnsafeBytes { seal($0, key: key, associatedData: associatedData) }
    }

    /// Seals a secret without copying it out of protected memory.
    package static func seal(_ plaintext: SecureBytes, key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        plaintext.withUnsafeBytes { seal($0, key: key, associatedData: associatedData) }
    }

    /// Opens a box made by `seal` into protected memory.
    /// - Returns: the plaintext, or `nil` when the box is too short, the tag does not verify,
    ///   the key is wrong, or the associated data differs.
    package static func openSecret(_ box: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> SecureBytes? {
        box.withUnsafeBytes { openSecret($0, key: key, associatedData: associatedData) }
    }

    /// The same open of a box read in place (a column of an SQLite row at its cursor), so that the box is
    /// not copied into an array first.
    package static func openSecret(_ boxBytes: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8])
        -> SecureBytes?
    {
        ensureInitialized()
        guard boxBytes.count >= sealOverhead, key.count == keyBytes else { return nil }
        let base = boxBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let clearCount = boxBytes.count - sealOverhead
        var ok = false
        let result = SecureBytes(count: clearCount) { out in
            key.withUnsafeBytes { k in
                associatedData.withUnsafeBufferPointer { ad in
                    var produced: UInt64 = 0
                    ok =
                        crypto_aead_xchacha20poly1305_ietf_decrypt(
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self), &produced, nil,
                            base + nonceBytes, UInt64(boxBytes.count - nonceBytes),
                            ad.baseAddress, UInt64(ad.count), base,
                            k.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                }
            }
        }
        return ok ? result : nil
    }

    /// Opens a box whose plaintext is not secret (sealed attributes) straight into a plain array.
    package static func open(_ box: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> [UInt8]? {
        box.withUnsafeBytes { open($0, key: key, associatedData: associatedData) }
    }

    /// The same open of a box read in place (a column of an SQLite row at its cursor).
    package static func open(_ boxBytes: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8])
        -> [UInt8]?
    {
        ensureInitialized()
        guard boxBytes.count >= sealOverhead, key.count == keyBytes else { return nil }
        let box = boxBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var ok = false
        let output = [UInt8](unsafeUninitializedCapacity: boxBytes.count - sealOverhead) { out, initialized in
            ok =
                key.withUnsafeBytes { k in
                    associatedData.withUnsafeBufferPointer { ad in
                        var produced: UInt64 = 0
                        return crypto_aead_xchacha20poly1305_ietf_decrypt(
                            out.baseAddress, &produced, nil,
                            box + nonceBytes, UInt64(boxBytes.count - nonceBytes),
                            ad.baseAddress, UInt64(ad.count), box,
                            k.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                    }
                }
            initialized = ok ? out.count : 0
        }
        return ok ? output : nil
    }

    /// Keyed BLAKE2b of bytes in place (a secret held in a ``SecureBytes``), so no copy is made.
    package static func keyedHash(_ message: UnsafeRawBufferPointer, key: SecureBytes, length: Int = 32) -> [UInt8] {
        ensureInitialized()
        var out = [UInt8](repeating: 0, count: length)
        let status = key.withUnsafeBytes { k in
            crypto_generichash(
                &out, length, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                k.baseAddress?.assumingMemoryBound(to: UInt8.self), k.count)
        }
        // Fails only for lengths outside BLAKE2b's 16…64 bytes: a caller's bug.
        precondition(status == 0, "crypto_generichash failed (length \(length), key \(key.count) bytes)")
        return out
    }

    /// Keyed BLAKE2b of `message`, `length` bytes long (16…64).
    package static func keyedHash(_ message: [UInt8], key: SecureBytes, length: Int = 32) -> [UInt8] {
        ensureInitialized()
        var out = [UInt8](repeating: 0, count: length)
        let status = key.withUnsafeBytes { k in
            crypto_generichash(
                &out, length, message, UInt64(message.count),
                k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
        }
        // Fails only for lengths outside BLAKE2b's 16…64 bytes: a caller's bug.
        precondition(status == 0, "crypto_generichash failed (length \(length), key \(key.count) bytes)")
        return out
    }

    /// Derives a 32-byte key from two secrets: keyed BLAKE2b of `second ‖ context`, keyed with `first`.
    package static func combine(_ first: SecureBytes, _ second: SecureBytes, context: String) -> SecureBytes {
        ensureInitialized()
        let label = Array(context.utf8)
        let message = SecureBytes(count: second.count + label.count) { out in
            second.withUnsafeBytes { out.copyMemory(from: $0) }
            label.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[second.count...]).copyMemory(from: $0) }
        }
        return SecureBytes(count: keyBytes) { out in
            first.withUnsafeBytes { k in
                message.withUnsafeBytes { m in
                    let status = crypto_generichash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes,
                        m.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(m.count),
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
                    precondition(status == 0, "crypto_generichash failed (key \(k.count) bytes)")
                }
            }
        }
    }

    /// Bytes of salt `crypto_pwhash` takes.
    package static let passwordSaltBytes = Int(crypto_pwhash_SALTBYTES)

    /// Argon2id (`crypto_pwhash`, `crypto_pwhash_ALG_ARGON2ID13`) into a 32-byte key.
    /// - Parameters:
    ///   - password: the password bytes.
    ///   - salt: `passwordSaltBytes` bytes.
    ///   - opsLimit: passes (libsodium's opslimit, at least 1).
    ///   - memLimit: memory in bytes (at least 8 KiB).
    /// - Returns: the key, or `nil` when libsodium refuses (out of memory, limits out of range).
    package static func passwordHash(
        _ password: SecureBytes, salt: [UInt8], opsLimit: UInt64, memLimit: Int
    ) -> SecureBytes? {
        ensureInitialized()
        guard salt.count == passwordSaltBytes else { return nil }
        var ok = false
        let key = SecureBytes(count: keyBytes) { out in
            password.withUnsafeBytes { pw in
                ok =
                    crypto_pwhash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(keyBytes),
                        (pw.baseAddress ?? UnsafeRawPointer(out.baseAddress!)).assumingMemoryBound(to: CChar.self),
                        UInt64(pw.count),
                        salt, opsLimit, memLimit, crypto_pwhash_ALG_ARGON2ID13) == 0
            }
        }
        return ok ? key : nil
    }

    /// SHA-256 (`crypto_hash_sha256`, libsodium's streaming form) of the bytes `read` hands out, for
    /// the `exe:<path>@sha256:<hex>` identity of a program file (``CallerIdentity``).
    /// - Parameter read: fills the buffer it is given and returns how many bytes it wrote: `0` at the
    ///   end, a negative count on a read error.
    /// - Returns: the 32-byte digest, or `nil` when `read` failed.
    package static func sha256(reading read: (UnsafeMutableRawBufferPointer) -> Int) -> [UInt8]? {
        ensureInitialized()
        var state = crypto_hash_sha256_state()
        guard crypto_hash_sha256_init(&state) == 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read($0) }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            guard crypto_hash_sha256_update(&state, chunk, UInt64(count)) == 0 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        guard crypto_hash_sha256_final(&state, &digest) == 0 else { return nil }
        return digest
    }

    /// Lower-case hexadecimal of `bytes` (`sodium_bin2hex`), for file and key names built from ids.
    package static func hex(_ bytes: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: bytes.count * 2 + 1)
        // The buffer holds 2n + 1 characters, which sodium_bin2hex needs (it aborts otherwise).
        precondition(sodium_bin2hex(&out, out.count, bytes, bytes.count) != nil, "sodium_bin2hex failed")
        return String(decoding: out.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Base64 of `bytes` in RFC 4648's standard alphabet with `=` padding (`sodium_bin2base64`,
    /// `sodium_base64_VARIANT_ORIGINAL`), on one line: what Foundation's `Data.base64EncodedString()` gives,
    /// for PEM output (`security export`).
    /// - Returns: `4 * ceil(n / 3)` ASCII characters; `""` for no bytes.
    package static func base64(_ bytes: [UInt8]) -> String {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        var out = [CChar](repeating: 0, count: sodium_base64_encoded_len(bytes.count, variant))
        // sodium_base64_encoded_len counts the terminating NUL, which sodium_bin2base64 needs (it aborts otherwise).
        precondition(
            sodium_bin2base64(&out, out.count, bytes, bytes.count, variant) != nil, "sodium_bin2base64 failed")
        return String(decoding: out.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
