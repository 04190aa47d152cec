/// An engine failure: the status to report, and a non-secret detail for people.
///
/// `detail` never holds secret data, account names or service names; it names files,
/// operations and counts only.
package struct KeychainFailure: Error, Sendable, CustomStringConvertible {
    package let status: KeychainStatus
    package let detail: String?

    package init(_ status: KeychainStatus, _ detail: String? = nil) {
        self.status = status
        self.detail = detail
    }

    package var description: String {
        detail.map { "\(status.message) (\(status.rawValue)): \($0)" } ?? status.description
    }
}
