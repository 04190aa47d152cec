/// The key-encryption key of the keybag's device slot (`Keybag/Slot/device`):
/// `BLAKE2b(key: device key, keychain id ‖ "swkc.kek.device.v1")` (`Keybag/deviceKEK(deviceKey:keychainID:)`).
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct DeviceKEK: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }
}
