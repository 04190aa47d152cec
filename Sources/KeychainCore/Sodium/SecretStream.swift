internal import CSodium

/// libsodium's `crypto_secretstream_xchacha20poly1305`: an authenticated stream of messages.
///
/// Each message is sealed with XChaCha20-Poly1305 under a key that ratchets after every message,
/// so messages cannot be dropped, reordered, duplicated or truncated away without `pull` failing.
/// The last message carries ``Tag/final``; a reader that never sees it knows the stream was cut.
///
/// The state holds key material; it lives in `sodium_malloc` storage and is wiped on release.
/// Not `Sendable`: one stream, one owner.
package final class SecretStream {
    /// What a message's tag says about its place in the stream.
    package enum Tag: UInt8, Sendable {
        /// An ordinary message (`TAG_MESSAGE`).
        case message = 0
        /// The last message (`TAG_FINAL`).
        case final = 3
    }

    /// Bytes of the stream header written once, before the first message.
    package static let headerBytes = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
    /// Bytes each message's ciphertext adds to its plaintext.
    package static let overhead = Int(crypto_secretstream_xchacha20poly1305_abytes())
    /// Bytes of key.
    package static let keyBytes = Int(crypto_secretstream_xchacha20poly1305_keybytes())

    private let state: UnsafeMutablePointer<crypto_secretstream_xchacha20poly1305_state>

    private init() {
        Sodium.ensureInitialized()
        let size = crypto_secretstream_xchacha20poly1305_statebytes()
        guard let raw = sodium_malloc(size) else { fatalError("sodium_malloc failed: out of memory") }
        state = raw.bindMemory(to: crypto_secretstream_xchacha20poly1305_state.self, capacity: 1)
    }

    deinit {
        sodium_memzero(state, crypto_secretstream_xchacha20poly1305_statebytes())
        sodium_free(state)
    }

    // MARK: - Writing

    /// Starts a stream for writing under `key`; returns it with the header to store before the messages.
    package static func push(key: SecureBytes) -> (stream: SecretStream, header: [UInt8]) {
        precondition(key.count == keyBytes)
        let stream = SecretStream()
        var header = [UInt8](repeating: 0, count: headerBytes)
        let status = key.withUnsafeBytes { k in
            crypto_secretstream_xchacha20poly1305_init_push(
                stream.state, &header, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        precondition(status == 0, "crypto_secretstream_xchacha20poly1305_init_push failed")
        return (stream, header)
    }

    /// Seals the next message; returns its ciphertext (`plaintext.count + overhead` bytes).
    package func seal(_ plaintext: UnsafeRawBufferPointer, associatedData: [UInt8] = [], tag: Tag = .message) -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: plaintext.count + Self.overhead)
        output.withUnsafeMutableBufferPointer { out in
            associatedData.withUnsafeBufferPointer { ad in
                var produced: UInt64 = 0
                let status = crypto_secretstream_xchacha20poly1305_push(
                    state, out.baseAddress, &produced,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                    ad.baseAddress, UInt64(ad.count), tag.rawValue)
                // Fails only for a message over the stream's limit (~256 GiB): a caller's bug.
                precondition(status == 0, "crypto_secretstream_xchacha20poly1305_push failed")
            }
        }
        return output
    }

    // MARK: - Reading

    /// Starts reading a stream written under `key` with `header`.
    /// - Returns: `nil` when the header is malformed.
    package static func pull(key: SecureBytes, header: [UInt8]) -> SecretStream? {
        guard key.count == keyBytes, header.count == headerBytes else { return nil }
        let stream = SecretStream()
        let ok = key.withUnsafeBytes { k in
            crypto_secretstream_xchacha20poly1305_init_pull(
                stream.state, header, k.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
        }
        return ok ? stream : nil
    }

    /// Opens the next message into protected memory.
    /// - Returns: the plaintext and its tag, or `nil` when the ciphertext does not authenticate
    ///   (wrong key, tampering, a message out of order, wrong associated data) or has an unknown tag.
    ///   After a failure the stream is unusable.
    package func open(_ ciphertext: [UInt8], associatedData: [UInt8] = []) -> (plaintext: SecureBytes, tag: Tag)? {
        guard ciphertext.count >= Self.overhead else { return nil }
        var ok = false
        var rawTag: UInt8 = 0
        let plaintext = SecureBytes(count: ciphertext.count - Self.overhead) { out in
            associatedData.withUnsafeBufferPointer { ad in
                var produced: UInt64 = 0
                ok =
                    crypto_secretstream_xchacha20poly1305_pull(
                        state, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &produced, &rawTag,
                        ciphertext, UInt64(ciphertext.count), ad.baseAddress, UInt64(ad.count)) == 0
            }
        }
        guard ok, let tag = Tag(rawValue: rawTag) else { return nil }
        return (plaintext, tag)
    }
}

extension Sodium {
    /// Unkeyed BLAKE2b of `message`, `length` bytes long (16…64): a checksum, not a MAC.
    package static func hash(_ message: [UInt8], length: Int = 32) -> [UInt8] {
        ensureInitialized()
        var out = [UInt8](repeating: 0, count: length)
        precondition(
            crypto_generichash(&out, length, message, UInt64(message.count), nil, 0) == 0, "crypto_generichash failed")
        return out
    }

    /// Zeroes plain memory that briefly held a secret (`sodium_memzero`, which the compiler cannot elide).
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// The largest Argon2id `opslimit` libsodium accepts.
    package static let passwordHashOpsLimitMax = UInt64(crypto_pwhash_opslimit_max())
    /// The largest Argon2id `memlimit` libsodium accepts on this platform.
    package static let passwordHashMemLimitMax = UInt64(crypto_pwhash_memlimit_max())
}
