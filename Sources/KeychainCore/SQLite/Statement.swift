internal import CSQLite

/// A value bound to, or read from, an SQL statement.
package enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case blob([UInt8])
    case text(String)
}

/// One prepared statement, owned by one ``Database``; finalized in deinit.
///
/// Not `Sendable`: it is only ever used under the owning connection's lock.
package final class Statement {
    let handle: OpaquePointer
    private unowned let database: Database

    init(database: Database, sql: String) throws(KeychainFailure) {
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard rc == SQLITE_OK, let handle else { throw database.error(rc) }
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to parameters 1…n. Parameters past n are cleared (NULL);
    /// when `values` binds every parameter there is nothing to clear (``finish()`` cleared the last use's).
    package func bind(_ values: [SQLValue]) throws(KeychainFailure) {
        sqlite3_reset(handle)
        if values.count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, csqlite_transient())
            case .blob(let b):
                rc = b.withUnsafeBytes {
                    sqlite3_bind_blob(
                        handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count),
                        csqlite_transient())
                }
            }
            guard rc == SQLITE_OK else { throw database.error(rc) }
        }
    }

    /// Steps once. - Returns: `true` when a row is available.
    package func step() throws(KeychainFailure) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let failure = database.error(rc)
        finish()
        throw failure
    }

    /// Runs the statement to completion with `values` bound.
    ///
    /// Blobs and texts are bound where their bytes are (`SQLITE_STATIC`), not copied by SQLite
    /// (`SQLITE_TRANSIENT`) and freed again by ``finish()``: the statement runs to completion, and its
    /// bindings are cleared, inside the scope in which those bytes are valid (``run(_:from:)``). The values
    /// bound are the same as ``bind(_:)``'s; the copies cost about 500 instructions a blob (callgrind,
    /// keychain-bench update.durable, issue 29), and no copy of a sealed secret is left in SQLite's memory.
    package func run(_ values: [SQLValue] = []) throws(KeychainFailure) {
        sqlite3_reset(handle)
        if values.count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
        do {
            try run(values, from: 0)
        } catch {
            finish()
            throw error
        }
    }

    /// Binds `values[offset]` in place, then the values after it, then steps to completion and clears the
    /// bindings while every bound value's bytes are still valid.
    private func run(_ values: [SQLValue], from offset: Int) throws(KeychainFailure) {
        guard offset < values.count else {
            while try step() {}
            finish()
            return
        }
        let index = Int32(offset + 1)
        // `withCString` and `withUnsafeBytes` rethrow untyped errors: the failure is carried out of the closure.
        var failure: KeychainFailure?
        switch values[offset] {
        case .null:
            try check(sqlite3_bind_null(handle, index))
            try run(values, from: offset + 1)
        case .integer(let value):
            try check(sqlite3_bind_int64(handle, index, value))
            try run(values, from: offset + 1)
        case .text(let text):
            text.withCString { pointer in
                do throws(KeychainFailure) {
                    try check(sqlite3_bind_text(handle, index, pointer, -1, nil))
                    try run(values, from: offset + 1)
                } catch {
                    failure = error
                }
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes { buffer in
                do throws(KeychainFailure) {
                    try check(
                        sqlite3_bind_blob(
                            handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                            nil))
                    try run(values, from: offset + 1)
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
    }

    /// Throws the failure of a bind that did not return `SQLITE_OK`.
    private func check(_ rc: Int32) throws(KeychainFailure) {
        guard rc == SQLITE_OK else { throw database.error(rc) }
    }

    /// Releases the statement's read locks and bindings after use. `sqlite3_reset` keeps the bound values,
    /// and the statement stays in its connection's cache: without `sqlite3_clear_bindings` a cached
    /// statement would keep SQLite's copy of the last blob bound to it (a sealed secret of up to 4 MiB)
    /// until its next use.
    package func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Releases the statement's read locks after use and keeps its bindings: only for a statement whose
    /// bound values are no secret and small (a search's class and protection codes, persistent reference
    /// and keyed digests, which the file itself holds) and whose every use binds all its parameters, so
    /// that ``bind(_:)`` replaces them all. Spares `sqlite3_clear_bindings` (about 850 instructions for a
    /// search's three values, callgrind, issue 29).
    package func finishKeepingBindings() {
        sqlite3_reset(handle)
    }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Runs `body` over a blob column's bytes where SQLite holds them (empty for NULL or an empty blob),
    /// without copying them. The bytes are valid only inside `body`, and only until the statement steps
    /// or is reset.
    package func withBlob<R, E: Error>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R
    {
        // sqlite3_column_blob before sqlite3_column_bytes, as SQLite's documentation asks.
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? base : nil, count: count))
    }

    /// A blob column's bytes where SQLite holds them (empty for NULL or an empty blob), for a caller that
    /// needs several columns of the current row at once (``ItemRowCursor/associatedData(_:codec:)``); others
    /// use ``withBlob(_:_:)``, which keeps the bytes inside its closure. Valid only until the statement
    /// steps or is reset, or the column is read as another type.
    package func blobBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        // sqlite3_column_blob before sqlite3_column_bytes, as SQLite's documentation asks.
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return UnsafeRawBufferPointer(start: count > 0 ? base : nil, count: count)
    }

    /// The length in bytes of a blob column.
    package func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }

    package func text(_ column: Int32) -> String {
        guard let base = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: base)
    }
}
