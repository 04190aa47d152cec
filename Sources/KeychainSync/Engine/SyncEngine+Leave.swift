internal import KeychainCore

/// Stopping sync of one keychain on this device (`security sync leave`, and `security delete-keychain` of a keychain
/// that syncs).
extension SyncEngine {
    /// Where this keychain syncs: its remote and this device's clone folder of it (used only for a git remote; for a
    /// folder remote there is none). Nil when the keychain does not sync. Changes nothing.
    /// - Throws: ``SyncError`` `.keychain` when the keychain's sync state cannot be read.
    package func syncedRemote() throws(SyncError) -> (remote: String, clone: String)? {
        guard let url = try remoteURL() else { return nil }
        return (url, GitTransport.clonePath(device: try deviceID(), environment: environment))
    }

    /// This device stops syncing this keychain: the remote, the trust list it pinned, its cursors, outbox and the logs
    /// it has seen are forgotten, so no later run reads or writes the remote. The keychain's items stay, and so does
    /// everything in the remote: the other devices keep the items (and still list this device until one of them runs
    /// `security sync remove-device`). Changes not yet pushed stay on this device only. The caller removes the clone.
    /// - Returns: what ``syncedRemote()`` said before.
    /// - Throws: ``SyncError`` `.state` when the keychain does not sync; `.keychain` when its state cannot be written.
    package func leave() throws(SyncError) -> (remote: String, clone: String) {
        guard let synced = try syncedRemote() else {
            throw SyncError(.state, "this keychain does not sync on this device")
        }
        for name in [
            Self.remoteName, Self.trustName, Self.removedName, Self.joiningName, Self.lastSyncName, SyncLocalState.name,
            SyncSeenLogs.name,
        ] {
            try setState(nil, name)
        }
        return synced
    }
}
