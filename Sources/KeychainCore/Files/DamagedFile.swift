/// How the engine names a keychain file it cannot read (truncated, overwritten, emptied, damaged in
/// an inner page, another program's database), so that every front end can name the file and how to
/// restore it (tracker issue 24, item 2): `security` and the Secret Service provider say the same.
package enum DamagedFile {
    /// What follows the file's path in the engine's `.invalidKeychain` details
    /// (``Schema/validate(_:path:)``, ``Keystore/init(location:create:convertingRecords:)``, and
    /// every transaction that meets a damaged page).
    package static let markers = [
        " cannot be read as a keychain", " is empty; refusing", " is not a swift-keychain database",
    ]

    /// The damaged file a failure names. - Returns: `nil` unless `failure` is `.invalidKeychain` and
    /// its detail starts with a path followed by one of ``markers``.
    package static func path(of failure: KeychainFailure) -> String? {
        guard failure.status == .invalidKeychain, let detail = failure.detail,
            let reason = markers.lazy.compactMap({ detail.firstRange(of: $0) }).first
        else { return nil }
        return String(detail[..<reason.lowerBound])
    }
}
