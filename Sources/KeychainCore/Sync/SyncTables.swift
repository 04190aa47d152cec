/// Whether one connection's keychain file has the sync tables (``SyncSchema``), remembered so that writes of
/// non-synchronizable items never query `sqlite_master`, and whether the current transaction is applying remote
/// changes (its item writes then journal nothing themselves).
///
/// The same rules as ``SecretItemTables``: "present" is kept for the connection's life, "absent" together with
/// the `PRAGMA data_version` of the transaction that looked, and what a rolled-back transaction created is
/// forgotten. Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class SyncTables {
    private enum Known {
        case unknown
        case present
        case absent(dataVersion: Int64)
    }

    private var known = Known.unknown
    /// Set while ``StoreSession/applySyncChanges(_:now:)`` writes items: the journal rows are its own.
    var applying = false

    /// Whether the tables exist, querying `sqlite_master` only when the remembered answer may be stale.
    func exist(_ database: Database, dataVersion: Int64?) throws(KeychainFailure) -> Bool {
        switch known {
        case .present: return true
        case .absent(let seen) where seen == dataVersion: return false
        case .absent, .unknown: break
        }
        let found: Bool =
            try database.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(SyncSchema.itemsTable)])
            > 0
        known = found ? .present : dataVersion.map { .absent(dataVersion: $0) } ?? .unknown
        return found
    }

    /// This connection created the tables in the current transaction.
    func created() { known = .present }

    /// The current transaction rolled back: tables it created are gone.
    func transactionRolledBack() {
        known = .unknown
        applying = false
    }
}
