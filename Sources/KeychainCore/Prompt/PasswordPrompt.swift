/// What a prompt shows the user. Never holds a secret.
package struct PasswordPrompt: Sendable, Hashable {
    /// The window title (pinentry `SETTITLE`).
    package var title: String
    /// Why the password is asked for: the app's `kSecUseOperationPrompt` or `localizedReason`
    /// (pinentry `SETDESC`).
    package var description: String
    /// The label beside the entry field (pinentry `SETPROMPT`).
    package var label: String
    /// Shown after a wrong attempt (pinentry `SETERROR`), or `nil`.
    package var error: String?

    package init(title: String = "Keychain", description: String, label: String = "Password:", error: String? = nil) {
        self.title = title
        self.description = description
        self.label = label
        self.error = error
    }
}
