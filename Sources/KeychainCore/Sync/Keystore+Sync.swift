extension Keystore {
    /// This replica's device id: made at first use and kept in the file's `meta` table (not secret).
    /// - Returns: the same id on every call for this file.
    /// - Throws: ``KeychainFailure`` with `.io` or `.diskFull` when the first id cannot be written.
    package func syncDeviceID() throws(KeychainFailure) -> SyncDeviceID {
        throw KeychainFailure(.unimplemented, "sync device id")
    }

    /// Local changes to synchronizable items (and their tombstones) whose local change serial is greater than
    /// `serial`, oldest first.
    ///
    /// Only items with `kSecAttrSynchronizable` true and an accessibility that is not `…ThisDeviceOnly` appear;
    /// changes written by ``applySyncChanges(_:)`` do not.
    /// - Parameter serial: the caller's cursor: 0 for everything.
    /// - Returns: the changes, and the newest serial they cover (`serial` when there are none).
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` (errSecInteractionNotAllowed) while the
    ///   keychain is locked.
    package func syncChanges(after serial: UInt64) throws(KeychainFailure) -> (changes: [SyncChange], through: UInt64) {
        throw KeychainFailure(.unimplemented, "sync changes")
    }

    /// Merges remote changes in one transaction.
    ///
    /// Per item the greater clock wins (an edit after a delete wins, a delete after an edit wins); a concurrent
    /// edit keeps the loser as a conflict copy; the same change applied twice is ignored. Applied changes are
    /// sealed under this device's class keys and are not reported again by ``syncChanges(after:)``.
    /// - Parameter changes: remote changes, in any order.
    /// - Returns: how many were applied, ignored, and kept as conflicts.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked, `.decode` for a malformed
    ///   payload; nothing is applied in either case.
    package func applySyncChanges(_ changes: [SyncChange]) throws(KeychainFailure) -> SyncApplyReport {
        throw KeychainFailure(.unimplemented, "apply sync changes")
    }

    /// The kept conflict copies, oldest first.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked.
    package func syncConflicts() throws(KeychainFailure) -> [SyncConflict] {
        throw KeychainFailure(.unimplemented, "sync conflicts")
    }

    /// Settles a conflict: `.winner` deletes the copy, `.copy` makes the copy's content the item's (a new local
    /// change).
    /// - Throws: ``KeychainFailure`` with `.itemNotFound` for an unknown copy, `.interactionNotAllowed` while locked.
    package func resolveSyncConflict(_ copy: SyncItemID, keep: SyncConflictChoice) throws(KeychainFailure) {
        throw KeychainFailure(.unimplemented, "resolve sync conflict")
    }

    /// Small sealed state of the sync engine (device secret keys, the sync key), sealed under a ThisDeviceOnly
    /// class key of this keychain, never exported, never in backups.
    /// - Returns: the value, or nil when absent.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked.
    package func syncSecret(named name: String) throws(KeychainFailure) -> SecureBytes? {
        throw KeychainFailure(.unimplemented, "sync secret")
    }

    /// Stores (or with nil removes) a sealed sync secret; see ``syncSecret(named:)``.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked.
    package func setSyncSecret(_ value: SecureBytes?, named name: String) throws(KeychainFailure) {
        throw KeychainFailure(.unimplemented, "set sync secret")
    }

    /// Small plain state of the sync engine (cursors, the remote, sequence numbers seen), kept in `meta` and
    /// covered by the file's integrity.
    /// - Returns: the value, or nil when absent.
    package func syncState(named name: String) throws(KeychainFailure) -> [UInt8]? {
        throw KeychainFailure(.unimplemented, "sync state")
    }

    /// Stores (or with nil removes) plain sync state; see ``syncState(named:)``.
    package func setSyncState(_ value: [UInt8]?, named name: String) throws(KeychainFailure) {
        throw KeychainFailure(.unimplemented, "set sync state")
    }
}
