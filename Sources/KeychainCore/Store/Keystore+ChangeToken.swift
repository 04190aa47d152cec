extension Keystore {
    /// A value that changes whenever any connection, this one included, may have changed the items.
    ///
    /// It pairs SQLite's `data_version` (changes when *another* connection commits, including another
    /// process) with `total_changes()` (rows this connection inserted, updated or deleted). Caches
    /// record the token before reading and serve a cached value only while the token is unchanged.
    /// A rolled-back write also moves the token: a spurious invalidation, never a stale read.
    /// - Throws: ``KeychainFailure`` with `.io` or `.notAvailable` when SQLite cannot answer.
    package func changeToken() throws(KeychainFailure) -> ChangeToken {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) -> ChangeToken in
            // The transaction's start has just read data_version (SessionKeys.beginTransaction).
            var dataVersion = s.keys.dataVersion
            if dataVersion == nil { dataVersion = try s.database.dataVersion() }
            return ChangeToken(
                dataVersion: dataVersion!,
                localChanges: try s.database.scalar("SELECT total_changes()"))
        }
    }
}

/// See ``Keystore/changeToken()``.
package struct ChangeToken: Sendable, Hashable {
    package let dataVersion: Int64
    package let localChanges: Int64
}
