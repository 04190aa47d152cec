internal import CSQLite

/// One SQLite connection; closed in deinit. Prepared statements are cached by SQL text.
///
/// Every method throws SQLite failures already mapped to ``KeychainFailure`` (``error(_:)``).
///
/// Not `Sendable`: ``Keystore`` owns it behind a `Mutex`.
package final class Database {
    let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    /// Statements cached under a caller's integer key, for queries assembled from parts.
    private var keyedCache: [Int: Statement] = [:]
    /// The ``Fixed`` statements, by raw value: prepared on first use and then reached without hashing
    /// their text (every transaction runs three of them, every update of an item two more).
    private var fixedStatements: [Statement?] = Array(repeating: nil, count: Fixed.allCases.count)

    /// Statements that every transaction runs (without parameters), or every update of an item, held as
    /// prepared handles: hashing the text of each to find it in the cache cost about 1k instructions a
    /// statement (callgrind, keychain-bench update.durable, issue 29).
    package enum Fixed: Int, CaseIterable {
        case beginDeferred, beginImmediate, commit, dataVersion
        /// An item's sealed attributes and tag, by rowid (``StoreSession/reseal(_:itemKey:attributes:secret:)``).
        case updateAttributes
        /// The same and its sealed secret.
        case updateAttributesAndSecret
        /// The same and its wrapped item key.
        case updateKeyAttributesAndSecret
        /// XORs a delta into an accumulator in `meta` (``PendingAccumulator/flush(_:)``).
        case xorMeta

        /// The statement's SQL text.
        var sql: String {
            switch self {
            case .beginDeferred: "BEGIN DEFERRED"
            case .beginImmediate: "BEGIN IMMEDIATE"
            case .commit: "COMMIT"
            case .dataVersion: "PRAGMA data_version"
            case .updateAttributes: "UPDATE items SET attributes = ?, tag = ? WHERE rowid = ?"
            case .updateAttributesAndSecret: "UPDATE items SET attributes = ?, secret = ?, tag = ? WHERE rowid = ?"
            case .updateKeyAttributesAndSecret:
                "UPDATE items SET wrapped_key = ?, attributes = ?, secret = ?, tag = ? WHERE rowid = ?"
            case .xorMeta: "UPDATE meta SET value = \(Database.xorFunctionName)(value, ?) WHERE name = ?"
            }
        }
    }

    /// How the file is opened.
    package enum Mode { case readWrite, readWriteCreate }

    /// Opens `path`. `readWrite` never creates a file.
    package init(path: String, mode: Mode) throws(KeychainFailure) {
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if mode == .readWriteCreate { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw KeychainFailure(SQLiteError(code: SQLiteResultCode(rawValue: rc), message: message))
        }
        // Direct-only: a trigger or view in the file cannot call it, only this engine's own statements.
        let registered = sqlite3_create_function_v2(
            handle, Self.xorFunctionName, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, nil,
            xorBlobs, nil, nil, nil)
        guard registered == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close_v2(handle)
            throw KeychainFailure(SQLiteError(code: SQLiteResultCode(rawValue: registered), message: message))
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    /// `swkc_xor(a, b)`: the byte-wise XOR of two blobs of the same length, for an accumulator XORed in place
    /// by one `UPDATE` (``PendingAccumulator/flush(_:)``) instead of a `SELECT` and a write. Two values that
    /// are not blobs of the same length fail the statement with ``xorMismatch``.
    static let xorFunctionName = "swkc_xor"

    /// The message of a `swkc_xor` call on values that are not two blobs of the same length.
    package static let xorMismatch = "swkc_xor: the values are not two blobs of the same length"

    /// Rows the last `INSERT`, `UPDATE` or `DELETE` of this connection changed (`sqlite3_changes64`).
    package func changes() -> Int64 { sqlite3_changes64(handle) }

    deinit {
        fixedStatements.removeAll()
        keyedCache.removeAll()
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The failure for result code `rc`: the database boundary, where every SQLite failure becomes a
    /// ``KeychainFailure`` (``KeychainFailure/init(_:)``).
    func error(_ rc: Int32) -> KeychainFailure {
        KeychainFailure(
            SQLiteError(code: SQLiteResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(handle))))
    }

    /// A cached prepared statement for `sql`.
    package func prepare(_ sql: String) throws(KeychainFailure) -> Statement {
        if let cached = cache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// A cached prepared statement for a query assembled from parts: `key` must identify the SQL text
    /// `sql` builds (one key, one text), which is built and prepared only on the first use of `key`.
    /// Spares the caller building and hashing the text on every call. The SecItem queries' keys are their
    /// shapes (zero or more); the Secret Service items' statements use negative keys.
    package func prepare(key: Int, _ sql: () -> String) throws(KeychainFailure) -> Statement {
        if let cached = keyedCache[key] { return cached }
        let statement = try prepare(sql())
        keyedCache[key] = statement
        return statement
    }

    /// The prepared statement for `fixed`: the one the cache by SQL text holds for its text.
    /// - Throws: the SQLite failure when it cannot be prepared.
    package func prepare(_ fixed: Fixed) throws(KeychainFailure) -> Statement {
        if let statement = fixedStatements[fixed.rawValue] { return statement }
        let statement = try prepare(fixed.sql)
        fixedStatements[fixed.rawValue] = statement
        return statement
    }

    /// Runs one or more statements that take no parameters.
    package func execute(_ sql: String) throws(KeychainFailure) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// The single integer a query returns (0 when it returns no row).
    package func scalar(_ sql: String, _ values: [SQLValue] = []) throws(KeychainFailure) -> Int64 {
        try Self.scalar(prepare(sql), values)
    }

    /// ``scalar(_:_:)`` of the statement cached under `key` (``prepare(key:_:)``).
    package func scalar(key: Int, _ sql: () -> String, _ values: [SQLValue]) throws(KeychainFailure) -> Int64 {
        try Self.scalar(prepare(key: key, sql), values)
    }

    private static func scalar(_ statement: Statement, _ values: [SQLValue]) throws(KeychainFailure) -> Int64 {
        try statement.bind(values)
        defer { statement.finish() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// Waits up to `milliseconds` for other connections' locks before reporting busy.
    package func setBusyTimeout(_ milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// Caps the database at `pages` pages (`PRAGMA max_page_count`); used to simulate a full disk.
    package func setMaxPageCount(_ pages: Int) throws(KeychainFailure) { try execute("PRAGMA max_page_count=\(pages)") }

    /// Rows this connection has inserted, updated or deleted since it was opened (`sqlite3_total_changes64`):
    /// with ``dataVersion()``, which moves on other connections' commits, it tells whether anything can
    /// have changed since a row was read. A function call, no statement.
    package func totalChanges() -> Int64 { sqlite3_total_changes64(handle) }

    /// The pager's data version of the main database (`SQLITE_FCNTL_DATA_VERSION`): moves at every commit
    /// of this connection, and when a read of this connection (a transaction's or a statement's own)
    /// starts on a database another connection has committed to since this connection's last read. A
    /// function call: no statement, no lock. `nil` if SQLite refuses the file control.
    package func pagerDataVersion() -> UInt32? {
        var version: UInt32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK ? version : nil
    }

    /// Whether a transaction is open on this connection (`sqlite3_txn_state`): an explicit one, or the
    /// read of a statement not yet reset.
    package var isInTransaction: Bool { sqlite3_txn_state(handle, nil) != SQLITE_TXN_NONE }

    /// SQLite's `data_version`: changes whenever another connection commits.
    /// - Throws: the SQLite failure of `PRAGMA data_version`.
    package func dataVersion() throws(KeychainFailure) -> Int64 {
        let statement = try prepare(.dataVersion)
        defer { statement.finish() }
        return try statement.step() ? statement.int64(0) : 0
    }
}

/// ``Database/xorFunctionName``: the byte-wise XOR of two blobs of one length, or the error
/// ``Database/xorMismatch``. A C callback, so a global function with no context.
private func xorBlobs(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard count == 2, let arguments, sqlite3_value_type(arguments[0]) == SQLITE_BLOB,
        sqlite3_value_type(arguments[1]) == SQLITE_BLOB
    else {
        sqlite3_result_error(context, Database.xorMismatch, -1)
        return
    }
    // sqlite3_value_blob before sqlite3_value_bytes, as SQLite's documentation asks.
    let first = sqlite3_value_blob(arguments[0])
    let second = sqlite3_value_blob(arguments[1])
    let length = Int(sqlite3_value_bytes(arguments[0]))
    guard length == Int(sqlite3_value_bytes(arguments[1])), length > 0, let first, let second else {
        sqlite3_result_error(context, Database.xorMismatch, -1)
        return
    }
    let a = first.assumingMemoryBound(to: UInt8.self)
    let b = second.assumingMemoryBound(to: UInt8.self)
    // On the stack (SQLite copies the result): no array allocated and released per call.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
        for index in 0..<length { buffer[index] = a[index] ^ b[index] }
        sqlite3_result_blob(context, buffer.baseAddress, Int32(length), csqlite_transient())
    }
}
