/// A failing SQLite call: its result code and SQLite's message (which never contains bound values).
///
/// It does not leave the SQLite layer as an error of its own: ``Database`` and ``Statement`` throw
/// the ``KeychainFailure`` that ``KeychainFailure/init(_:)`` maps it to, with this error kept in its
/// ``KeychainFailure/Reason/database(_:)`` reason.
package struct SQLiteError: Sendable, Equatable, CustomStringConvertible {
    /// The extended result code.
    package let code: SQLiteResultCode
    /// `sqlite3_errmsg` at the time of failure.
    package let message: String

    package init(code: SQLiteResultCode, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "SQLite error \(code): \(message)" }
}

extension KeychainFailure {
    /// The one mapping of SQLite failures to statuses, made where SQLite is called (``Database``,
    /// ``Statement``): constraint → duplicate item, full → disk full, corrupt or not a database →
    /// invalid keychain, busy or locked (after the busy timeout) → not available, anything else → I/O.
    package init(_ error: SQLiteError) {
        let code = error.code
        let (status, detail): (KeychainStatus, String?) =
            if code.isConstraint { (.duplicateItem, nil) } else if code.isFull {
                (.diskFull, "the keychain's disk or size limit is full")
            } else if code.isCorrupt { (.invalidKeychain, error.message) } else if code.isBusy {
                (.notAvailable, "the keychain stayed locked by another process")
            } else { (.io, error.description) }
        self.init(status, detail, reason: .database(error))
    }

    /// The SQLite failure behind this one, when it came from the database.
    package var databaseError: SQLiteError? {
        if case .database(let error) = reason { return error }
        return nil
    }

    /// What SQLite said, for messages that name the operation themselves; the description otherwise.
    package var databaseMessage: String { databaseError?.message ?? description }
}
