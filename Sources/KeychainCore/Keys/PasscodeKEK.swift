/// The key-encryption key of the keybag's passcode slot (`Keybag/Slot/passcode`): the password's
/// Argon2id hash combined with the device key (`Keybag/passcodeKEK(passwordHash:deviceKey:)`).
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct PasscodeKEK: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }
}
