/// The index key: keybag entry 0 (`KeybagEntry/index`), the BLAKE2b key of the keyed digest columns
/// and of the row tags (`ItemCodec`).
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
struct IndexKey: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) { self.bytes = bytes }
}
