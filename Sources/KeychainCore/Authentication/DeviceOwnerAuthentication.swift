internal import Synchronization

/// Device-owner authentication on Linux: the user types the keychain password (the stand-in for the
/// device passcode) into the prompter, and the keychain verifies it by unlocking.
package enum DeviceOwnerAuthentication {
    /// Attempts before `errSecAuthFailed`, as macOS's password sheet allows.
    package static let attempts = 3

    private static let last = Mutex<UInt64?>(nil)

    /// When the keychain password was last verified in this process (`CLOCK_BOOTTIME` seconds).
    static var lastSuccess: UInt64? { last.withLock { $0 } }

    /// Asks for the keychain password and verifies it (unlocking the keychain as a side effect).
    /// - Parameters:
    ///   - keystore: the keychain whose password counts.
    ///   - prompt: what the user is shown; a wrong attempt adds an error line and asks again.
    /// - Throws: `.authFailed` (-25293) when the keychain has no password (no passcode is set) or after
    ///   ``attempts`` wrong ones; `.userCanceled` (-128) when the user cancels;
    ///   `.interactionNotAllowed` (-25308) when no prompt can be shown.
    ///   - prompter: who asks; `nil` for the current one (``Prompters/current()``).
    package static func authenticate(
        keystore: Keystore, prompt: PasswordPrompt, prompter: (any Prompter)? = nil
    ) throws(KeychainFailure) {
        guard try keystore.hasPassword() else {
            throw KeychainFailure(
                .authFailed, "the keychain has no password, so the device owner cannot be authenticated")
        }
        let chosen: any Prompter
        if let prompter { chosen = prompter } else { chosen = try Prompters.current() }
        var shown = prompt
        for attempt in 0..<attempts {
            if attempt > 0 { shown.error = "Wrong password. Try again." }
            let password = try chosen.requestPassword(shown)
            do {
                try keystore.unlock(password: password)
                let now = Monotonic.seconds()
                last.withLock { $0 = now }
                return
            } catch  where error.status == .authFailed {
                continue
            }
        }
        throw KeychainFailure(.authFailed, "wrong keychain password")
    }
}
