/// An engine failure: the status to report, and a non-secret detail for people.
///
/// `detail` never holds secret data, account names or service names; it names files,
/// operations and counts only.
package struct KeychainFailure: Error, Sendable, CustomStringConvertible {
    package let status: KeychainStatus
    package let detail: String?
    /// The detail tells the user what to do, and tools print it under the status's own message
    /// (a keychain waiting for adoption, an item bound to another installation).
    package let isAdvice: Bool
    /// The call's only matches were `…ThisDeviceOnly` items an adoption left unreadable
    /// (`StoreSession.orphanedFailure`): a listing goes on past them.
    package let isOrphanedItem: Bool

    package init(_ status: KeychainStatus, _ detail: String? = nil, isAdvice: Bool = false, isOrphanedItem: Bool = false) {
        self.status = status
        self.detail = detail
        self.isAdvice = isAdvice
        self.isOrphanedItem = isOrphanedItem
    }

    package var description: String {
        detail.map { "\(status.message) (\(status.rawValue)): \($0)" } ?? status.description
    }
}
