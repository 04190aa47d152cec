/// An engine failure: the status to report, a non-secret detail for people, and why.
///
/// `detail` never holds secret data, account names or service names; it names files,
/// operations and counts only. This is the engine's one error type: SQLite failures become one at the
/// database boundary (``init(_:)``, `SQLite/SQLiteError.swift`), and front ends map it to their own
/// (an `OSStatus`, a tool's message and exit status).
package struct KeychainFailure: Error, Sendable, CustomStringConvertible {
    /// Why the call failed, beyond its status: what tools and callers decide on.
    package enum Reason: Sendable, Equatable {
        /// The status and detail say it all.
        case failed
        /// The detail tells the user what to do, and tools print it under the status's own message
        /// (a keychain waiting for adoption, a damaged device key, a file that needs its passphrase).
        case advice
        /// The call's only matches were `…ThisDeviceOnly` items an adoption left unreadable
        /// (`StoreSession.orphanedFailure`): a listing goes on past them. The detail is advice.
        case orphanedItem
        /// SQLite failed; the status is ``KeychainFailure/init(_:)``'s mapping of its result code.
        case database(SQLiteError)
    }

    package let status: KeychainStatus
    package let detail: String?
    package let reason: Reason

    package init(_ status: KeychainStatus, _ detail: String? = nil, reason: Reason = .failed) {
        self.status = status
        self.detail = detail
        self.reason = reason
    }

    /// Whether tools print the detail as advice under the status's message (``Reason/advice`` and
    /// ``Reason/orphanedItem``).
    package var isAdvice: Bool {
        switch reason {
        case .advice, .orphanedItem: true
        case .failed, .database: false
        }
    }

    package var description: String {
        detail.map { "\(status.message) (\(status.rawValue)): \($0)" } ?? status.description
    }
}
