internal import CSQLite

/// An SQLite result code, typed (as GRDB's `ResultCode`): the extended code SQLite returned, and the
/// primary code it belongs to (https://sqlite.org/rescode.html).
package struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The extended result code (connections are opened with extended codes on).
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary result code: the low 8 bits (`SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`).
    package var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xff) }

    package static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    package static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    package static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    package static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    package static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    package static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)

    /// Another connection holds a lock the call needed (after the busy timeout and any retries).
    package var isBusy: Bool { primary == .busy || primary == .locked }
    /// A `UNIQUE` (or other) constraint refused the write.
    package var isConstraint: Bool { primary == .constraint }
    /// The disk, or the database's `max_page_count`, is full.
    package var isFull: Bool { primary == .full }
    /// The file is damaged, or not an SQLite database.
    package var isCorrupt: Bool { primary == .corrupt || primary == .notADatabase }

    package var description: String { "\(rawValue)" }
}
