/// One kept losing version of a concurrent edit: what `security sync conflicts` lists.
package struct SyncConflict: Sendable {
    /// The item it lost against.
    package let item: SyncItemID
    /// The conflict copy's own id (what ``Keystore/resolveSyncConflict(_:keep:)`` takes).
    package let copy: SyncItemID
    /// The losing version's clock.
    package let clock: SyncClock
    /// The item's class, service or server, account and label: never the secret.
    package let summary: String

    package init(item: SyncItemID, copy: SyncItemID, clock: SyncClock, summary: String) {
        self.item = item
        self.copy = copy
        self.clock = clock
        self.summary = summary
    }
}
