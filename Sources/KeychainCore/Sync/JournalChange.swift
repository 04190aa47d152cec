/// One entry of the change journal as ``Keystore/journalChanges(after:)`` reports it: which item, the local change
/// serial of its last write, and what it is now.
package struct JournalChange: Sendable, Equatable {
    /// What the entry names now.
    package enum Kind: Sendable, Equatable {
        /// A synchronizable SecItem item.
        case secItem
        /// A Secret Service item, by its number in this keychain.
        case secretItem(Int64)
        /// A tombstone: the item was deleted (no query, search or backup returns it).
        case deleted
    }

    /// The item's id, the same on every device.
    package let item: SyncItemID
    /// The local change serial of the item's last write: strictly increasing over every write of this file.
    package let serial: Int64
    package let kind: Kind
    /// Whether the write was made here (else applied from another device).
    package let local: Bool
}
