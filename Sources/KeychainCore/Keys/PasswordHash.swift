/// Argon2id of the keychain password with its stored salt and parameters
/// (`Keybag/passwordHash(_:salt:parameters:)`): the secret the passcode and migration KEKs derive from.
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct PasswordHash: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }
}
