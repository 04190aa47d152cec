package import KeychainCore

/// Why a sync command failed: the message `security sync` prints, and the kind it maps to an exit status.
///
/// Messages name devices, files and causes, never an item's attributes or secrets.
package struct SyncError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The remote could not be read or written (unreachable, push refused, I/O): nothing was lost.
        case remote
        /// This device's clone of a git remote could not be updated (git failed here: a rebase, a commit, making
        /// the clone): nothing was lost, the changes stay queued, but the next run may fail the same way.
        case local
        /// What the remote holds failed verification (bad signature, fork, rollback, dropped, replayed or
        /// reordered segment, unknown device): nothing from that device was applied.
        case verification
        /// The keychain refused (locked, damaged, …).
        case keychain(KeychainStatus)
        /// The command does not apply in this state (not set up, already set up, no such device or code).
        case state
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The keychain's failure during `operation`; a locked keychain is said once, with what to do.
    package init(_ failure: KeychainFailure, while operation: String) {
        kind = .keychain(failure.status)
        if failure.status == .interactionNotAllowed {
            message = "the keychain is locked (\(operation)): unlock it with security unlock-keychain"
        } else {
            message = "\(operation): \(failure.detail ?? failure.status.message)"
        }
    }

    package var description: String { message }
}
