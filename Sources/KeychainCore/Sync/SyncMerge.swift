/// What ``StoreSession/applySyncChanges(_:now:)`` does with one remote version of an item against the version
/// the store holds: the merge rule of docs/SYNC.md, "Payload", as a pure function.
enum SyncMerge: Equatable {
    /// The store holds this version, a newer one that descends from it, or a concurrent one that wins.
    case ignore
    /// The remote version replaces what is held: new, a successor, or a concurrent delete or edit after a delete
    /// with the greater clock.
    case apply
    /// Concurrent edits and the remote one wins: applied, and the held version kept as a conflict copy.
    case applyKeepingHeldCopy
    /// Concurrent edits and the held one wins: the remote version is kept as a conflict copy.
    case keepRemoteCopy

    /// The decision for a remote version against `held` (nil when the store has never seen the item).
    ///
    /// Versions are ordered by their clocks' ancestry first: the same clock is a repeat; a remote clock among the
    /// held version's ancestors is older; a held clock among the remote version's ancestors (or equal to its
    /// base) makes the remote a successor. Anything else is concurrent: a delete on either side is settled by
    /// the greater clock alone (an edit after a delete wins, a delete after an edit wins); two edits keep the
    /// loser as a conflict copy.
    static func decide(
        remote clock: SyncClock, ancestors: [SyncClock], base: SyncClock?, isTombstone: Bool,
        held: SyncJournalEntry?
    ) -> SyncMerge {
        guard let held else { return .apply }
        if clock == held.clock || held.ancestors.contains(clock) { return .ignore }
        if base == held.clock || ancestors.contains(held.clock) { return .apply }
        if isTombstone || held.isTombstone { return clock > held.clock ? .apply : .ignore }
        return clock > held.clock ? .applyKeepingHeldCopy : .keepRemoteCopy
    }
}
