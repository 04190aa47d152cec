internal import CSQLite

/// A failing SQLite result code with SQLite's message (which never contains bound values).
package struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code.
    package let code: Int32
    /// `sqlite3_errmsg` at the time of failure.
    package let message: String

    package var description: String { "SQLite error \(code): \(message)" }

    /// The primary result code (`code & 0xff`).
    package var primaryCode: Int32 { code & 0xff }

    package var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    package var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
    package var isFull: Bool { primaryCode == SQLITE_FULL }
    package var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
}
