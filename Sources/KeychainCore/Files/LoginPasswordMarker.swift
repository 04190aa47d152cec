/// The marker `keychain-pam-helper` leaves in the keychain folder when the login password no longer
/// opens the login keychain (a root-made password change, or a login unlock that failed), and what the
/// next unlock prompt of the login keychain says while it is there (gnome-keyring's repair; tracker
/// issue 25, docs/PAM.md). The file holds the reason only, never a secret.
package enum LoginPasswordMarker {
    /// The marker's file name in the keychain folder.
    package static let name = "login-password-changed"

    /// The first sentence of the login keychain's unlock prompt while the marker is there.
    package static let mismatchMessage =
        "The password you use to log in no longer matches the password of your login keychain."

    /// What the prompt adds when no re-key will be offered: how to get in now and how to bring the two
    /// back in line by hand.
    package static let repairAdvice =
        "Type the keychain's old password to unlock it, then run security set-keychain-password"
        + " (old password, then your login password) so that logging in unlocks it again."

    /// What the prompt adds when the re-key will be offered once the old password opens the keychain.
    package static let rekeyAdvice =
        "Type the keychain's old password to unlock it; you will then be offered to change it to your login"
        + " password."

    /// The login keychain's unlock prompt while the marker is there, the one text that both the Secret
    /// Service provider's pinentry and `security unlock-keychain`'s terminal prompt show: the mismatch,
    /// then what comes next.
    /// - Parameter rekeyOffered: a login password is kept (``KeptLoginPassword``), so the unlock will ask
    ///   whether to re-key to it (``rekeyAdvice``); otherwise the prompt gives the way by hand
    ///   (``repairAdvice``).
    /// - Returns: ``mismatchMessage``, a space, and the advice.
    package static func unlockPrompt(rekeyOffered: Bool) -> String {
        mismatchMessage + " " + (rekeyOffered ? rekeyAdvice : repairAdvice)
    }

    /// Whether the marker is there for the keychain at `databasePath`: only a login keychain
    /// (`login.keychain-db`) has one, beside it in its folder.
    package static func applies(toKeychainAt databasePath: String) -> Bool {
        guard databasePath.hasSuffix("/login.keychain-db") else { return false }
        return FileSystem.exists(FileSystem.directory(of: databasePath) + "/" + name)
    }

    /// The question the next unlock with the old password asks while the login password is kept
    /// (``KeptLoginPassword``).
    package static let repairQuestion = mismatchMessage + " Change the keychain password to your login password?"

    /// Removes the marker beside the keychain at `databasePath`, if any.
    package static func remove(forKeychainAt databasePath: String) {
        let path = FileSystem.directory(of: databasePath) + "/" + name
        if FileSystem.exists(path) { FileSystem.remove(path) }
    }
}
