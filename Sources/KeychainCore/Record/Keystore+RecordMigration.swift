/// What converting a keychain's legacy records did (``Keystore/migrateLegacyRecords(batchSize:)``).
package struct RecordMigrationReport: Sendable, Equatable {
    /// Rows converted from binary property lists to item records.
    package var converted = 0
    /// Rows of a marked class that already held item records (an earlier run was interrupted).
    package var alreadyCurrent = 0
    /// Rows that could not be opened (orphaned `…ThisDeviceOnly` items, damaged rows), left unchanged;
    /// they read (or fail) exactly as before.
    package var unopenable = 0
    /// Protection classes whose key was locked: their rows are converted by a later open, once unlocked.
    package var lockedClasses: [ProtectionClass] = []

    package init() {}
}

extension Keystore {
    // MARK: - Package

    /// The crash points of a record migration, in the order it reaches them (`KEYCHAIN_CRASH_POINT`):
    /// inside the transaction that upgrades the schema, before it commits; inside the first batch,
    /// after its rows are rewritten, before it commits; after the first batch commits; after the last.
    package static let recordMigrationCrashPoints = [
        "records.marked", "records.converted", "records.committed", "records.done",
    ]

    /// Converts the keychain's legacy records (attributes sealed as binary property lists by builds
    /// before schema version 2) into item records (`docs/RECORD-FORMAT.md`). ``init(location:create:)``
    /// calls it when the file needs it, so callers rarely do.
    ///
    /// Crash-safe: the schema upgrade is one transaction, which records in `meta` the protection classes
    /// holding rows; each batch of `batchSize` rows of one class is then one transaction, and the last
    /// one clears its class. Every row is thus either old or new, and both read correctly (the decoder
    /// tells them apart), so a run killed at any point is finished by the next open. Classes whose key is
    /// locked (a keychain with a password, not unlocked) stay marked and are converted at a later open.
    /// - Parameter batchSize: rows per transaction (at least 1).
    /// - Returns: what was converted; empty when nothing was pending.
    /// - Throws: `.invalidKeychain`, `.io`, `.diskFull` or `.notAvailable` for SQLite failures. Rows that
    ///   do not open are counted in ``RecordMigrationReport/unopenable``, not thrown.
    @discardableResult
    package func migrateLegacyRecords(batchSize: Int = 1_000) throws(KeychainFailure) -> RecordMigrationReport {
        var report = RecordMigrationReport()
        let pending = try write(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> Int64 in
            let marked = try s.markLegacyRecords()
            if marked != nil { CrashPoint.reach("records.marked") }
            return try s.legacyRecordClasses()
        }
        guard pending != 0 else { return report }
        var firstBatch = true
        for protection in ProtectionClass.allCases where pending & (1 << protection.code) != 0 {
            var after: Int64 = 0
            while true {
                let batch = try write {
                    (s: borrowing StoreSession) throws(KeychainFailure) -> StoreSession.RecordBatch? in
                    guard s.keys.classKey(protection) != nil else { return nil }
                    let batch = try s.convertLegacyRecords(protection, after: after, limit: max(1, batchSize))
                    if firstBatch { CrashPoint.reach("records.converted") }
                    return batch
                }
                guard let batch else {
                    report.lockedClasses.append(protection)
                    break
                }
                if firstBatch { CrashPoint.reach("records.committed") }
                firstBatch = false
                report.converted += batch.converted
                report.alreadyCurrent += batch.alreadyCurrent
                report.unopenable += batch.unopenable
                after = batch.lastRowID
                if batch.isLast { break }
            }
        }
        CrashPoint.reach("records.done")
        return report
    }
}
