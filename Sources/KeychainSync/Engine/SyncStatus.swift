package import KeychainCore

/// What `security sync status` shows.
package struct SyncStatus: Sendable {
    package var remote: String?
    package var device: SyncDeviceID
    package var joining: Bool
    package var enabled: Bool
    /// Unix time in milliseconds of the last completed run, or nil.
    package var lastSync: UInt64?
    /// Local changes not yet pushed (nil while locked).
    package var pendingChanges: Int?
    /// Segments packed but not yet known to be published (the remote was unreachable).
    package var queuedSegments: Int
    package var conflicts: Int?
    /// Received changes of a kind or version this build does not know, kept for a newer build (nil while locked).
    package var waitingChanges: Int?
    package var trustedDevices: Int
    package var epoch: UInt32?
}

extension SyncEngine {
    /// The status, reading only the keychain (no network).
    package func status() throws(SyncError) -> SyncStatus {
        let local = try localState()
        let pending: Int? = (try? replica.syncChanges(after: local.cursor, limit: .max)).map { $0.changes.count } ?? nil
        let conflicts = (try? replica.syncConflicts()).map(\.count)
        let waiting = try? replica.waitingSyncChangeCount()
        let trust = try pinnedTrust()
        let last = try state(Self.lastSyncName).flatMap { bytes in
            bytes.count == 8 ? bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : nil
        }
        return SyncStatus(
            remote: try remoteURL(), device: try deviceID(), joining: try isJoining(), enabled: try isEnabled(),
            lastSync: last, pendingChanges: pending, queuedSegments: max(0, local.outbox.count - 1),
            conflicts: conflicts, waitingChanges: waiting,
            trustedDevices: trust?.devices.count ?? 0, epoch: trust?.epoch)
    }

    /// Whether the keychain is marked synchronized (`security sync enable`): Secret Service items of its
    /// collections then sync too (SecItem items sync by their own kSecAttrSynchronizable).
    package func isEnabled() throws(SyncError) -> Bool { try state(Self.enabledName) == [1] }

    package func setEnabled(_ enabled: Bool) throws(SyncError) {
        try setState(enabled ? [1] : nil, Self.enabledName)
    }
}

extension SyncEngine {
    /// The kept conflict copies (``SyncReplica/syncConflicts()``).
    /// - Throws: ``SyncError`` `.keychain` while locked.
    package func conflicts() throws(SyncError) -> [SyncConflict] {
        do { return try replica.syncConflicts() } catch { throw SyncError(error, while: "listing conflicts") }
    }

    /// Settles a conflict (``SyncReplica/resolveSyncConflict(_:keep:)``); a kept copy syncs at the next run.
    /// - Throws: ``SyncError`` `.state` for an unknown copy (no such conflict copy); `.keychain` while locked.
    package func resolve(_ copy: SyncItemID, keep: SyncConflictChoice) throws(SyncError) {
        do { try replica.resolveSyncConflict(copy, keep: keep) } catch {
            if error.status == .itemNotFound {
                throw SyncError(.state, "no conflict copy \(copy): security sync conflicts lists them")
            }
            throw SyncError(error, while: "resolving \(copy)")
        }
    }
}
