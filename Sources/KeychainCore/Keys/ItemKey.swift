/// An item key: the random 256-bit XChaCha20-Poly1305 key that seals one item's attributes and
/// secret, stored wrapped by its protection class's ``ClassKey`` (`ItemRow`).
///
/// A distinct type wrapping zeroising ``SecureBytes`` (as swift-crypto types its keys), so that it
/// cannot be passed where another kind of key is expected; `bytes` is read only where libsodium
/// takes the key.
///
/// What is wrapped (docs/RECORD-FORMAT.md): since schema version 3 the key's 32 bytes and one byte of
/// ``AccessEntryFlags``; before, the 32 bytes alone, which still open (``accessEntries`` is then `nil`).
struct ItemKey: Sendable {
    /// The key's 32 bytes.
    let bytes: SecureBytes
    /// The access entries of the item's attributes, as sealed with the key; `nil` for a key wrapped
    /// before schema version 3 (unknown: the attributes must be opened to know) and for keys that are
    /// not an item row's (Secret Service items).
    let accessEntries: AccessEntryFlags?

    init(_ bytes: SecureBytes, accessEntries: AccessEntryFlags? = nil) {
        self.bytes = bytes
        self.accessEntries = accessEntries
    }

    /// A fresh random item key.
    static func random() -> ItemKey { ItemKey(SecureBytes.random(count: Sodium.keyBytes)) }

    /// The key as a wrapping opened it: 32 bytes (a key wrapped before schema version 3), or 33 with the
    /// flags last; `nil` for any other length.
    init?(unwrapped: SecureBytes) {
        switch unwrapped.count {
        case Sodium.keyBytes:
            self.init(unwrapped)
        case Sodium.keyBytes + 1:
            let flags = unwrapped.withUnsafeBytes { AccessEntryFlags(rawValue: $0[Sodium.keyBytes]) }
            let key = unwrapped.withUnsafeBytes { all in
                SecureBytes(count: Sodium.keyBytes) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: all.prefix(Sodium.keyBytes)))
                }
            }
            self.init(key, accessEntries: flags)
        default:
            return nil
        }
    }

    /// This key and `accessEntries`, sealed under `classKey` with `associatedData` (the row's, part
    /// ``SealedPart/key``): the `wrapped_key` column.
    func wrapped(accessEntries: AccessEntryFlags, classKey: ClassKey, associatedData: [UInt8]) -> [UInt8] {
        let plaintext = bytes.withUnsafeBytes { key in
            SecureBytes(count: Sodium.keyBytes + 1) { out in
                out.copyMemory(from: key)
                out[Sodium.keyBytes] = accessEntries.rawValue
            }
        }
        return Sodium.seal(plaintext, key: classKey.bytes, associatedData: associatedData)
    }
}
