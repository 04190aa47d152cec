/// Whether one connection's keychain file has the Secret Service tables (``SecretItemSchema``),
/// remembered so that a Secret Service call does not query `sqlite_master` every time.
///
/// - **Present** is kept for the connection's life: the engine never drops the tables, and a file
///   replaced on disk is a new file, not this connection's.
/// - **Absent** is kept together with SQLite's `PRAGMA data_version` read at the start of the
///   transaction that looked (``SessionKeys/dataVersion``). Another connection (another process, or
///   another ``Keystore`` here) can create the tables only by committing, which changes the version
///   this connection reads next, so the next transaction looks again. The version is read before the
///   transaction's first table read, so a version remembered with "absent" never postdates the
///   snapshot that saw them absent.
/// - Tables this connection creates count as present at once, and the answer is forgotten when that
///   transaction rolls back (``transactionRolledBack()``).
///
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class SecretItemTables {
    private enum Known {
        case unknown
        case present
        case absent(dataVersion: Int64)
    }

    private var known = Known.unknown
    /// How many times `sqlite_master` was queried on this connection (for tests).
    private(set) var lookups = 0

    /// Whether the tables exist, querying `sqlite_master` only when the remembered answer may be stale.
    /// - Parameter dataVersion: the `PRAGMA data_version` read at the start of the current transaction
    ///   (`nil`: unknown, so an "absent" answer is not remembered).
    /// - Throws: the database's errors.
    func exist(_ database: Database, dataVersion: Int64?) throws(KeychainFailure) -> Bool {
        switch known {
        case .present: return true
        case .absent(let seen) where seen == dataVersion: return false
        case .absent, .unknown: break
        }
        lookups += 1
        let found: Bool =
            try database.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                [.text(SecretItemSchema.itemsTable)])
            > 0
        known = found ? .present : dataVersion.map { .absent(dataVersion: $0) } ?? .unknown
        return found
    }

    /// This connection created the tables in the current transaction.
    func created() { known = .present }

    /// The current transaction rolled back: tables it created are gone, so the answer is looked up again.
    func transactionRolledBack() { known = .unknown }
}
