/// An item key: the random 256-bit XChaCha20-Poly1305 key that seals one item's attributes and
/// secret, stored wrapped by its protection class's ``ClassKey`` (`ItemRow`).
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct ItemKey: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }

    /// A fresh random item key.
    static func random() -> ItemKey { ItemKey(SecureBytes.random(count: Sodium.keyBytes)) }
}
