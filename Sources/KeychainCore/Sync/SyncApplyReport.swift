/// What ``Keystore/applySyncChanges(_:)`` did with a batch of remote changes.
package struct SyncApplyReport: Sendable, Equatable {
    /// Remote changes that won and were written.
    package var applied: Int
    /// Remote changes older than what the store holds, or already applied (applying is idempotent).
    package var ignored: Int
    /// Concurrent edits: the losing version kept as a conflict copy.
    package var conflicts: Int
    /// Changes of a payload kind or version this build does not know (made by a newer build), kept sealed until a
    /// build that knows them applies them: how many wait after this batch, the earlier ones included.
    package var waiting: Int

    package init(applied: Int = 0, ignored: Int = 0, conflicts: Int = 0, waiting: Int = 0) {
        self.applied = applied
        self.ignored = ignored
        self.conflicts = conflicts
        self.waiting = waiting
    }
}
