/// The state of one connection's database that reads kept in memory were made at: SQLite's
/// `data_version` (which moves when another connection commits) and the connection's `total_changes`
/// (which moves with each row it inserts, updates or deletes, inside a transaction too). Kept reads
/// are current while neither moved (``SecretRowCache``, ``SecretPairMemo``).
struct ReadStamp {
    private var dataVersion: Int64?
    private var totalChanges: Int64 = -1

    /// Whether reads kept at the stamp may be served and kept at the database's state now. When it moved
    /// since, calls `drop` (to forget what was kept) and takes these values; when the data version is
    /// unknown (outside a transaction), calls `drop`, forgets the stamp and answers `false`.
    /// - Parameters:
    ///   - dataVersion: the connection's `data_version` in this transaction (`nil`: unknown).
    ///   - totalChanges: ``Database/totalChanges()`` now.
    mutating func admits(dataVersion: Int64?, totalChanges: Int64, dropping drop: () -> Void) -> Bool {
        guard let dataVersion else {
            drop()
            reset()
            return false
        }
        if dataVersion != self.dataVersion || totalChanges != self.totalChanges {
            drop()
            self.dataVersion = dataVersion
            self.totalChanges = totalChanges
        }
        return true
    }

    /// Forgets the stamp (a rolled-back transaction undoes its changes without moving either counter).
    mutating func reset() {
        dataVersion = nil
        totalChanges = -1
    }
}
