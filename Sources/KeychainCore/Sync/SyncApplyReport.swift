/// What ``Keystore/applySyncChanges(_:)`` did with a batch of remote changes.
package struct SyncApplyReport: Sendable, Equatable {
    /// Remote changes that won and were written.
    package var applied: Int
    /// Remote changes older than what the store holds, or already applied (applying is idempotent).
    package var ignored: Int
    /// Concurrent edits: the losing version kept as a conflict copy.
    package var conflicts: Int

    package init(applied: Int = 0, ignored: Int = 0, conflicts: Int = 0) {
        self.applied = applied
        self.ignored = ignored
        self.conflicts = conflicts
    }
}
