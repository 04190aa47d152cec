/// A protection class key: keybag entry 1…7 (`KeybagEntry/classKey(_:)`), which wraps the item keys
/// of one protection class.
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct ClassKey: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }

    /// A fresh random class key (a new keychain, or an adoption's new `…ThisDeviceOnly` keys).
    static func random() -> ClassKey { ClassKey(SecureBytes.random(count: Sodium.keyBytes)) }
}
