/// Which version ``Keystore/resolveSyncConflict(_:keep:)`` keeps.
package enum SyncConflictChoice: Sendable, Equatable {
    /// The item as it stands: the conflict copy is dropped.
    case winner
    /// The conflict copy: its content becomes the item's, as a new local change that syncs.
    case copy
}
