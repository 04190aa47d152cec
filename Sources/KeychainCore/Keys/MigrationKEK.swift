/// The key-encryption key of the keybag's migration slot (`Keybag/Slot/migration`): the password's
/// Argon2id hash alone, bound to the keychain id (`Keybag/migrationKEK(passwordHash:keychainID:)`).
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct MigrationKEK: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }
}
