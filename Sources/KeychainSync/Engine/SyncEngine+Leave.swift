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

    /// This device leaves the sync group, as an Apple device leaves the syncing circle when its user signs out of
    /// iCloud Keychain. It pulls, and when it is in the trust list with other devices, publishes the next generation
    /// without itself under a new sync key sealed to the remaining devices (``rotatedSuccessor(of:without:ring:)``, as
    /// `remove-device` does; this device never keeps the new key). Then, whether or not that worked, it forgets the
    /// remote, the trust list it pinned, its cursors, outbox and the logs it has seen, so no later run reads or writes
    /// the remote. The keychain's items stay, and so does everything in the remote: the other devices keep the items.
    /// Changes not yet pushed stay on this device only. The caller removes the clone.
    /// - Returns: what ``syncedRemote()`` said before; `departed`: whether a trust list without this device was
    ///   published (false when it was the only device, was not in the list, or was still waiting for approval);
    ///   `stillListed`: why the other devices still list this device (the remote could not be reached, refused the
    ///   push or failed verification, or the keychain is locked), nil otherwise.
    /// - Throws: ``SyncError`` `.state` when the keychain does not sync; `.keychain` when its state cannot be read or
    ///   written (nothing is forgotten then).
    package func leave() throws(SyncError) -> (
        remote: String, clone: String, departed: Bool, stillListed: SyncError?
    ) {
        guard let synced = try syncedRemote() else {
            throw SyncError(.state, "this keychain does not sync on this device")
        }
        var departed = false
        var stillListed: SyncError?
        if try !isJoining() {
            do throws(SyncError) { departed = try departTrust() } catch { stillListed = error }
        }
        for name in [
            Self.remoteName, Self.trustName, Self.removedName, Self.joiningName, Self.lastSyncName, SyncLocalState.name,
            SyncSeenLogs.name,
        ] {
            try setState(nil, name)
        }
        return (synced.remote, synced.clone, departed, stillListed)
    }

    /// Publishes the trust list without this device (see ``leave()``).
    /// - Returns: false when there was nothing to publish: this device is not in the newest list, or is its only one.
    private func departTrust() throws(SyncError) -> Bool {
        let transport = try configuredTransport()
        try transport.pull()
        let trust = try walkTrust(transport, from: try pinnedTrust()).list
        let me = try deviceID()
        guard trust.device(me) != nil, trust.devices.count > 1 else { return false }
        let next = try rotatedSuccessor(of: trust, without: me, ring: try keyRing()).list
        try transport.write([(Self.trustPath(next, writer: me), next.encoded)])
        try transport.publish(message: "sync: \(me) leaves")
        return true
    }
}
