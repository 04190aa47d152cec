/// Decides, for one SecItem call, whether each access-controlled item may be used, asking the user
/// when the call allows it. One call asks at most once for each kind of proof.
package struct AccessAuthorizer {
    /// `kSecUseAuthenticationUI`.
    package enum UI: Sendable { case allow, fail, skip }

    package let keystore: Keystore
    package let context: AuthenticationContext?
    package let ui: UI
    /// `kSecUseOperationPrompt`, shown as the prompt's description.
    package let reason: String?

    private var passcodeVerified = false
    private var enteredApplicationPassword: SecureBytes?

    package init(keystore: Keystore, context: AuthenticationContext?, ui: UI, reason: String?) {
        self.keystore = keystore
        self.context = context
        self.ui = ui
        self.reason = reason
    }

    /// Whether an item with `constraints` may be used.
    /// - Returns: `true` when its constraints are satisfied (after asking, if needed); `false` when
    ///   it needs authentication and `ui` is `.skip` (the item is left out).
    /// - Throws: `.interactionNotAllowed` (-25308) when it needs authentication and `ui` is `.fail`,
    ///   the context forbids interaction, or nothing can be shown; `.authFailed` (-25293) when it
    ///   cannot be satisfied here (biometry or a watch only), with an invalidated context, or after
    ///   wrong passwords; `.userCanceled` (-128) when the user cancels.
    package mutating func authorize(_ constraints: AccessConstraints) throws(KeychainFailure) -> Bool {
        if constraints.isSatisfied(by: evidence) { return true }
        let userOnly = AccessConstraints(rawValue: constraints.rawValue & ~AccessConstraints.applicationPassword)
        guard userOnly.isSatisfied(by: AccessConstraints.Evidence(devicePasscode: true)) else {
            throw KeychainFailure(
                .authFailed, "the item needs biometry or a paired watch; this system has no enrolled biometry")
        }
        if context?.isInvalidated == true {
            throw KeychainFailure(.authFailed, "the authentication context was invalidated")
        }
        if ui == .skip { return false }
        if ui == .fail || context?.interactionNotAllowed == true {
            throw KeychainFailure(
                .interactionNotAllowed, "the item needs authentication and interaction is not allowed")
        }
        if !userOnly.isSatisfied(by: evidence) {
            try DeviceOwnerAuthentication.authenticate(
                keystore: keystore,
                prompt: PasswordPrompt(description: reason ?? "An app wants to use a protected keychain item."))
            passcodeVerified = true
            context?.recordDevicePasscode()
        }
        if constraints.needsApplicationPassword && !constraints.isSatisfied(by: evidence) {
            if context?.applicationPassword == nil && enteredApplicationPassword == nil {
                enteredApplicationPassword = try Prompters.current().requestPassword(
                    PasswordPrompt(
                        description: reason
                            ?? "An app wants to use a keychain item protected by its application password.",
                        label: "Application password:"))
            }
        }
        guard constraints.isSatisfied(by: evidence) else {
            throw KeychainFailure(.authFailed, "wrong application password")
        }
        return true
    }

    /// The application password for a new item's constraints: the context's, else asked for.
    /// - Throws: `.interactionNotAllowed` when it must be asked for and `ui` is not `.allow`.
    package mutating func applicationPasswordForNewItem() throws(KeychainFailure) -> SecureBytes {
        if let password = context?.applicationPassword ?? enteredApplicationPassword { return password }
        guard ui == .allow, context?.interactionNotAllowed != true else {
            throw KeychainFailure(
                .interactionNotAllowed, "the item needs an application password and interaction is not allowed")
        }
        let password = try Prompters.current().requestPassword(
            PasswordPrompt(
                description: reason ?? "Choose an application password for this keychain item.",
                label: "Application password:"))
        enteredApplicationPassword = password
        return password
    }

    private var evidence: AccessConstraints.Evidence {
        AccessConstraints.Evidence(
            devicePasscode: passcodeVerified || context?.hasVerifiedDevicePasscode == true,
            applicationPassword: context?.applicationPassword ?? enteredApplicationPassword)
    }
}
