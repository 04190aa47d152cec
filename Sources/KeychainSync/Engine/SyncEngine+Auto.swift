internal import KeychainCore

/// Sync after local changes (`security sync now --if-changed`; docs/SYNC.md, "Running by itself").
extension SyncEngine {
    /// How long the keychain must go without a local change before `--if-changed` runs: 10 seconds.
    package static let changeQuiet: UInt64 = 10_000
    /// The longest `--if-changed` waits while changes keep coming: 2 minutes.
    package static let changeLimit: UInt64 = 120_000

    /// The mark of this device's unsent work: the newest local change serial not yet packed, or the
    /// outbox's own sequence while segments wait to be published; nil when there is nothing to send.
    /// Reads only the keychain (no remote).
    /// - Throws: ``SyncError`` `.state` before init/join; `.keychain` while locked.
    package func pendingMark() throws(SyncError) -> UInt64? {
        guard try remoteURL() != nil else {
            throw SyncError(.state, "this keychain does not sync: run security sync init URL or security sync join URL")
        }
        let local = try localState()
        if !local.outbox.isEmpty { return local.sequence | 1 << 63 }
        let pending: (changes: [SyncChange], through: UInt64)
        do { pending = try replica.syncChanges(after: local.cursor, limit: .max) } catch {
            throw SyncError(error, while: "reading local changes")
        }
        return pending.changes.isEmpty ? nil : pending.through
    }

    /// Runs ``syncNow()`` once this device has unsent changes and they have stopped changing
    /// (``SyncDebounce``): nothing to send returns at once without reaching the remote.
    /// - Parameters:
    ///   - quiet: milliseconds without a new local change before the run starts.
    ///   - limit: the longest wait in milliseconds, however often the keychain changes.
    ///   - now: the clock (Unix milliseconds); tests pass their own.
    ///   - sleep: waits about a second between looks; tests pass their own.
    /// - Returns: the run's report, or nil when there was nothing to send.
    /// - Throws: ``SyncError`` as ``pendingMark()`` and ``syncNow()`` do.
    package func syncIfChanged(
        quiet: UInt64, limit: UInt64, now: () -> UInt64 = SyncEngine.nowMilliseconds,
        sleep: () -> Void = { FileSystem.sleep(microseconds: 1_000_000) }
    ) throws(SyncError) -> SyncNowReport? {
        guard let first = try pendingMark() else { return nil }
        var debounce = SyncDebounce(quiet: quiet, limit: limit, mark: first, now: now())
        while true {
            sleep()
            // Another run (the timer's, the user's) may have sent everything meanwhile.
            guard let mark = try pendingMark() else { return nil }
            if debounce.observe(mark, at: now()) == .run { return try syncNow() }
        }
    }
}
