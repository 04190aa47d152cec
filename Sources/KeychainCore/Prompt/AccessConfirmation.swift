/// The question asked when an application not on a Secret Service item's access list wants its
/// secret (issue 27, item 2), with macOS's wording and three answers.
package struct AccessConfirmation: Sendable, Equatable {
    /// The user's answer.
    package enum Answer: Sendable, Equatable {
        /// Refuse this use.
        case deny
        /// Allow this use only: the next one asks again.
        case allowOnce
        /// Allow, and add the application to the item's access list.
        case alwaysAllow
    }

    /// The application's identity as the provider prints it (`flatpak:org.example.App`, `exe:/usr/bin/foo`).
    package var application: String
    /// The item's label.
    package var itemLabel: String

    package init(application: String, itemLabel: String) {
        self.application = application
        self.itemLabel = itemLabel
    }

    /// The dialog's text, as macOS words it: `<app> wants to use your confidential information stored
    /// in "<label>" in your keychain.`
    package var text: String {
        "\(application) wants to use your confidential information stored in \"\(itemLabel)\" in your keychain."
    }

    /// The dialog's title.
    package static let title = "Keychain Access"
    /// The buttons' labels (pinentry: `SETOK`, `SETNOTOK`, `SETCANCEL`).
    package static let allowOnceLabel = "Allow"
    package static let alwaysAllowLabel = "Always Allow"
    package static let denyLabel = "Deny"
}
