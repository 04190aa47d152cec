/// When a sync after local changes should start (`security sync now --if-changed`, run by the
/// `keychain-sync-changed.path` unit; docs/SYNC.md, "Running by itself"): once the change mark (the
/// journal's newest local change serial) has not moved for ``quiet`` milliseconds, so a burst of edits goes
/// out in one run, or after ``limit`` milliseconds of continuous changes at the latest.
///
/// Pure: the caller feeds it marks and times, so the rule is tested without clocks or timers.
package struct SyncDebounce: Sendable, Equatable {
    /// What the caller does next.
    package enum Decision: Sendable, Equatable {
        /// Look again later (after about a second).
        case wait
        /// Start the run now.
        case run
    }

    /// How long the mark must stay still, in milliseconds.
    package let quiet: UInt64
    /// The longest wait from the first observation, in milliseconds.
    package let limit: UInt64
    private let start: UInt64
    private var mark: UInt64
    private var moved: UInt64

    /// Starts watching with the mark seen at `now` (Unix milliseconds).
    package init(quiet: UInt64, limit: UInt64, mark: UInt64, now: UInt64) {
        self.quiet = quiet
        self.limit = max(limit, quiet)
        start = now
        self.mark = mark
        moved = now
    }

    /// Records the mark seen at `now` and decides.
    /// - Returns: `.run` when the mark has been still for ``quiet`` or ``limit`` has passed since the start;
    ///   `.wait` otherwise. A clock that goes back counts as no time passing.
    package mutating func observe(_ mark: UInt64, at now: UInt64) -> Decision {
        if mark != self.mark {
            self.mark = mark
            moved = max(moved, now)
        }
        let still = now >= moved ? now - moved : 0
        let waited = now >= start ? now - start : 0
        return still >= quiet || waited >= limit ? .run : .wait
    }
}
