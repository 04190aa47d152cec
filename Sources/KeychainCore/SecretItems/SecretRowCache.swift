/// Secret Service rows (``StoreSession/SecretItemRow``: ciphertext, as stored) read on one connection,
/// kept while nothing can have changed them, so that the reads of one item that a client's calls make
/// in turn (a search, then its `Label`, its `Locked` and `GetSecret`, each its own transaction) read
/// its row from SQLite once (tracker issue 29, item 4).
///
/// - **Valid while nothing was written**: every entry was read at one ``ReadStamp`` (SQLite's
///   `data_version` and this connection's `total_changes`). A lookup with either value different
///   empties the cache first, and a rolled-back transaction empties it
///   (``clear()``), so a row is never served after any change to the database, by anyone.
/// - **No secrets**: the rows as stored (sealed metadata, wrapped item key, sealed secret, tag), which
///   SQLite's page cache holds as well; opening them still needs the keys.
/// - **Bounded**: at most ``capacity`` rows; past it, an arbitrary one is dropped per insertion.
///
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class SecretRowCache {
    /// At most this many rows: a search's matches and the items a client then reads.
    static let capacity = 64

    private var rows: [Int64: StoreSession.SecretItemRow] = [:]
    private var stamp = ReadStamp()
    /// How many rows were served from the cache (tests).
    private(set) var hits = 0

    /// Rows kept now.
    var count: Int { rows.count }

    /// The row of item `number` read when the database was as it is now, or `nil`.
    /// - Parameters:
    ///   - dataVersion: the connection's `data_version` in this transaction (`nil`: unknown, no row).
    ///   - totalChanges: ``Database/totalChanges()`` now.
    func row(_ number: Int64, dataVersion: Int64?, totalChanges: Int64) -> StoreSession.SecretItemRow? {
        guard validate(dataVersion: dataVersion, totalChanges: totalChanges), let row = rows[number] else { return nil }
        hits += 1
        return row
    }

    /// Keeps `row`, read when the database was at `dataVersion` and `totalChanges`.
    func keep(_ row: StoreSession.SecretItemRow, dataVersion: Int64?, totalChanges: Int64) {
        guard validate(dataVersion: dataVersion, totalChanges: totalChanges) else { return }
        if rows[row.number] == nil && rows.count >= Self.capacity { rows.remove(at: rows.startIndex) }
        rows[row.number] = row
    }

    /// Forgets every row (a rolled-back transaction: its changes are undone without moving either counter).
    func clear() {
        rows.removeAll()
        stamp.reset()
    }

    /// Whether rows kept so far are still current; when the database may have changed since, forgets them
    /// and starts over at these values. `false` when the data version is unknown.
    private func validate(dataVersion: Int64?, totalChanges: Int64) -> Bool {
        stamp.admits(dataVersion: dataVersion, totalChanges: totalChanges) { rows.removeAll(keepingCapacity: true) }
    }
}
