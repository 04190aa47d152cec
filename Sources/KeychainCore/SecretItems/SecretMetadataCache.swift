/// Secret Service item metadata (label, attributes, dates, access list) opened on one connection,
/// remembered so that a row read again unchanged is not decrypted and decoded again (tracker issue 29,
/// item 4: a search, the client's `Label` read and `GetSecret`'s access check each read the same item).
///
/// - **Keyed by what was opened**: an entry is the item's number with the exact sealed metadata and
///   attribute-set digest of its row, and is used only when the row read now carries the same bytes.
///   Every write seals the metadata again under a fresh random nonce, so any change (by this
///   connection, another ``Keystore`` or another process) gives other bytes and the row is opened
///   again: no label or attribute can be stale, whatever the data version, and no invalidation is
///   needed. The codec's metadata key is the connection's for life (``SessionKeys/secretItemCodec()``),
///   so the same bytes always open to the same item.
/// - **No secrets**: only what ``SecretItemCodec/openMetadata(_:number:attributeSet:)`` returns, which
///   the Secret Service spec makes readable while locked; never a secret, an item key or a class key.
///   The label and attributes are Swift strings, as in every ``SecretItem`` the engine hands out, so
///   they cannot be wiped; the sealed bytes are ciphertext.
/// - **Bounded**: at most ``capacity`` items and ``byteCapacity`` sealed bytes; past either, entries
///   are dropped (an arbitrary one per insertion) before the new one is kept.
///
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class SecretMetadataCache {
    /// The default bound on entries: a search of a few thousand items stays warm.
    static let defaultCapacity = 4096
    /// The default bound on the sealed bytes kept (about what the decoded items hold as well).
    static let defaultByteCapacity = 4 << 20

    private struct Entry {
        let sealed: [UInt8]
        let attributeSet: [UInt8]
        let item: SecretItem
    }

    let capacity: Int
    let byteCapacity: Int
    private var entries: [Int64: Entry] = [:]
    private var bytes = 0
    /// How many rows were opened (misses), for tests.
    private(set) var opens = 0

    init(capacity: Int = defaultCapacity, byteCapacity: Int = defaultByteCapacity) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
    }

    /// Entries kept now.
    var count: Int { entries.count }

    /// The item opened from `sealed` (its row's `metadata`) for `number` and `attributeSet`: the
    /// remembered one when this row's bytes are the ones it was opened from, else `open()`'s, kept.
    /// - Throws: what `open` throws (nothing is kept then).
    func item(
        _ number: Int64, sealed: [UInt8], attributeSet: [UInt8], open: () throws(KeychainFailure) -> SecretItem
    ) throws(KeychainFailure) -> SecretItem {
        if let entry = entries[number], entry.sealed == sealed, entry.attributeSet == attributeSet {
            return entry.item
        }
        opens += 1
        let item = try open()
        keep(Entry(sealed: sealed, attributeSet: attributeSet, item: item), for: number)
        return item
    }

    private func keep(_ entry: Entry, for number: Int64) {
        let size = entry.sealed.count + entry.attributeSet.count
        guard size <= byteCapacity else { return }
        if let old = entries.removeValue(forKey: number) { bytes -= old.sealed.count + old.attributeSet.count }
        while !entries.isEmpty && (entries.count >= capacity || bytes + size > byteCapacity) {
            let dropped = entries.remove(at: entries.startIndex).value
            bytes -= dropped.sealed.count + dropped.attributeSet.count
        }
        entries[number] = entry
        bytes += size
    }
}
