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
    /// The application's name as the user knows it (`Seahorse`, from its desktop entry), or the identity.
    package var applicationName: String
    /// The item's label.
    package var itemLabel: String

    /// - Parameters:
    ///   - application: the caller's identity string.
    ///   - itemLabel: the item's label.
    ///   - applicationName: the name the user knows the application by; the identity when `nil`.
    package init(application: String, itemLabel: String, applicationName: String? = nil) {
        self.application = application
        self.itemLabel = itemLabel
        self.applicationName = applicationName ?? application
    }

    /// The dialog's text, as macOS words it: `<app> wants to use your confidential information stored
    /// in "<label>" in your keychain.`, where `<app>` is the name the user knows; when that is not the
    /// identity itself, a second line gives the identity (`Program: exe:/usr/bin/seahorse`) so that the
    /// user can tell which program it is (a name comes from a desktop file, which anyone can write).
    package var text: String {
        let question =
            "\(applicationName) wants to use your confidential information stored in \"\(itemLabel)\" in your keychain."
        return applicationName == application ? question : question + "\n" + Self.programPrefix + application
    }

    /// The follow-up question after "Allow" when the pinentry cannot show a third button (GNOME's:
    /// ``Pinentry/showsThirdButton(flavor:program:)``): `Always allow <app> to use this item?`.
    package var alwaysText: String {
        "Always allow \(applicationName) to use this item?"
            + (applicationName == application ? "" : "\n" + Self.programPrefix + application)
    }

    /// The dialog's title.
    package static let title = "Keychain Access"
    /// What comes before the identity on the second line of the text.
    package static let programPrefix = "Program: "
    /// The buttons' labels (pinentry: `SETOK`, `SETNOTOK`, `SETCANCEL`).
    package static let allowOnceLabel = "Allow"
    package static let alwaysAllowLabel = "Always Allow"
    package static let denyLabel = "Deny"
    /// The follow-up question's buttons (pinentry: `SETOK`, `SETCANCEL`).
    package static let alwaysLabel = "Always"
    package static let notNowLabel = "Not now"
}
