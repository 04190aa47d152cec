/// One synchronizable item's state as it travels between devices: its id, its clock, the clock it was made over,
/// and its portable payload (nil for a tombstone).
package struct SyncChange: Sendable {
    /// The item, the same on every device.
    package let item: SyncItemID
    /// The stamp of this version.
    package let clock: SyncClock
    /// The clock of the version this change was made over (nil for a new item). The receiver uses it to tell a
    /// successor (base == what it holds) from a concurrent edit (base != what it holds, and both are edits),
    /// which keeps a conflict copy.
    package let base: SyncClock?
    /// The item in its portable form (``SyncPayload``, documented in docs/SYNC.md), or nil for a tombstone.
    ///
    /// - Important: plaintext, zeroised when released. The protocol encrypts it under the sync key before it
    ///   leaves the process and never logs it.
    package let payload: SecureBytes?

    package init(item: SyncItemID, clock: SyncClock, base: SyncClock?, payload: SecureBytes?) {
        self.item = item
        self.clock = clock
        self.base = base
        self.payload = payload
    }

    /// Whether this change deletes the item.
    package var isTombstone: Bool { payload == nil }
}
