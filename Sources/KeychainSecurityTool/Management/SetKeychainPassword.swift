internal import KeychainCore
internal import KeychainToolSupport

/// `security set-keychain-password [-o oldPassword] [-p newPassword] [keychain]`: changes a
/// keychain's password (Apple's `keychain_set_settings.c`, `do_keychain_set_password`).
///
/// On a terminal, missing passwords are asked without echo (`Old Password: `, `New Password: `,
/// `Retype New Password: `); a keychain without a password asks for no old password. A mismatch
/// or a cancelled prompt prints `security: try again` and exits 1.
///
/// From a pipe the format is fixed, whatever the keychain's state: one line each for the old
/// password (empty when the keychain has none), the new password and its confirmation, leaving
/// out those given with `-o` and `-p`. Input that ends early, a confirmation that differs, or an
/// old-password line that is not empty for a keychain without a password is refused with a
/// message and exit 1 (the last as a wrong password, exit 51).
///
/// An empty new password removes the password (``Keystore/setPassword(_:current:parameters:)`` with
/// none), as turning off the passcode does on iOS: anyone who can read the user's files can then
/// open the keychain, and every WhenPasscodeSetThisDeviceOnly item is deleted. So it is asked again:
/// ``removalWarning(_:deleting:)`` goes to stderr, then a terminal asks `Type yes to remove the
/// password: ` and a pipe must give a fourth line `yes`. Anything else, or no answer, changes
/// nothing and exits 1; on success ``removedNotice(_:deleted:)`` goes to stderr. On a keychain
/// without a password an empty new password is refused (exit 1). A wrong old password prints
/// `security: error changing password for "<keychain>": The user name or passphrase you entered is
/// not correct.` and exits 51. In every refusal nothing changes on disk. Only the class keys are
/// re-wrapped.
struct SetKeychainPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "set-keychain-password", synopsis: "[-o oldPassword] [-p newPassword] [keychain]",
        options: [
            OptionSpec("o", value: "oldPassword", "Old keychain password (\(PasswordOptionHelp.warning))"),
            OptionSpec("p", value: "newPassword", "New keychain password (\(PasswordOptionHelp.warning))"),
        ],
        trailer: [
            "Without -o and -p the passwords are prompted for without echo, or, when standard input is not a",
            "terminal, read from it: the old password (an empty line when the keychain has none), the new",
            "password, and the new password again, one line each; those given with -o or -p are left out.",
            "An empty new password removes the password and deletes the WhenPasscodeSetThisDeviceOnly items;",
            "it is asked again (a fourth line \"yes\" from a pipe).",
        ], summary: "Set password for a keychain.")

    let oldPassword: String?
    let newPassword: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        oldPassword = options.value("o")
        newPassword = options.value("p")
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let name = KeychainOperand.display(keychain)
        let failure = "error changing password for \"\(name)\""
        let target = context.target(keychain)
        let store: Keystore
        let hasPassword: Bool
        do {
            store = try context.open(target)
            hasPassword = try store.hasPassword()
        } catch {
            throw CommandFailure.keychain(failure, error)
        }
        let input = PasswordInput(context)
        let (old, new) = try input.isInteractive ? fromTerminal(input, hasPassword: hasPassword) : fromPipe(input)
        if !hasPassword, let old, old.count > 0 { throw CommandFailure.keychain(failure, .authFailed) }
        guard new.count > 0 else {
            guard hasPassword else {
                throw CommandFailure.message(
                    "security: set-keychain-password: the new password is empty; nothing was changed", status: 1)
            }
            try removePassword(store, old: old, name: name, input: input, failure: failure)
            return
        }
        do throws(KeychainFailure) {
            try store.setPassword(new, current: hasPassword ? old : nil, parameters: context.kdfParameters)
            // The keychain stays unlocked: say so when only this process sees it (a full key quota).
            if try store.unlockPlacement() == .thisProcess { context.io.error.line(UnlockKeychain.thisProcessNotice) }
        } catch {
            throw CommandFailure.keychain(failure, error)
        }
    }

    /// The warning shown before a password is removed: what removal deletes and what it exposes.
    static func removalWarning(_ name: String, deleting count: Int) -> String {
        "security: an empty new password removes the password of \"\(name)\": anyone who can read your files "
            + "can then open it, and its \(count) WhenPasscodeSetThisDeviceOnly items (those that need a password) "
            + "are deleted."
    }

    /// What a removal reports on stderr.
    static func removedNotice(_ name: String, deleted count: Int) -> String {
        "security: removed the password of \"\(name)\"; deleted \(count) WhenPasscodeSetThisDeviceOnly items"
    }

    /// The prompt that asks again before a removal (terminal); a pipe gives the answer as a fourth line.
    static let removalPrompt = "Type yes to remove the password: "

    /// Removes the password after the user confirms: warns with the number of items removal
    /// deletes, asks (terminal) or reads a fourth line (pipe), and removes only on `yes`.
    /// - Throws: exit 1 with a message when the answer is not `yes` or missing (nothing changes);
    ///   the engine's failures (a wrong old password: exit 51) as for a change.
    private func removePassword(
        _ store: Keystore, old: SecureBytes?, name: String, input: PasswordInput, failure: String
    ) throws(CommandFailure) {
        let count: Int
        do { count = try store.passcodeSetItemCount() } catch { throw CommandFailure.keychain(failure, error) }
        let context = input.context
        context.io.error.line(Self.removalWarning(name, deleting: count))
        let answer = input.isInteractive ? context.io.terminal.readSecret(prompt: Self.removalPrompt) : input.nextLine()
        guard let answer, answer.constantTimeEquals(SecureBytes(copying: Array("yes".utf8))) else {
            throw CommandFailure.message(
                "security: set-keychain-password: the password of \"\(name)\" was not removed (the answer was not "
                    + "\"yes\"); nothing was changed", status: 1)
        }
        do throws(KeychainFailure) {
            try store.setPassword(nil, current: old, parameters: context.kdfParameters)
        } catch {
            throw CommandFailure.keychain(failure, error)
        }
        context.io.error.line(Self.removedNotice(name, deleted: count))
    }

    /// The old (when the keychain has one) and new passwords from the options and the terminal.
    /// - Throws: `security: try again` (exit 1) when a prompt gives up.
    private func fromTerminal(
        _ input: PasswordInput, hasPassword: Bool
    ) throws(CommandFailure) -> (SecureBytes?, SecureBytes) {
        var old: SecureBytes?
        if hasPassword {
            old = input.read(given: oldPassword, prompt: "Old Password: ")
            guard old != nil else { throw Self.tryAgain }
        }
        guard
            let new = input.readNew(
                given: newPassword, prompt: "New Password: ", retype: "Retype New Password: ", tries: 1)
        else { throw Self.tryAgain }
        return (old, new)
    }

    /// The old and new passwords from the options and standard input: old, new and confirmation,
    /// one line each, those given as options left out.
    /// - Throws: a message (exit 1) for a line over the limit, input that ends early, or a
    ///   confirmation that differs; nothing is changed then.
    private func fromPipe(_ input: PasswordInput) throws(CommandFailure) -> (SecureBytes?, SecureBytes) {
        func line(_ what: String) throws(CommandFailure) -> SecureBytes {
            if let bytes = input.nextLine() { return bytes }
            if input.lastLineTooLong {
                throw .message(
                    "security: set-keychain-password: the \(what) line is longer than \(PasswordInput.maximumBytes) bytes; "
                        + "nothing was changed", status: 1)
            }
            throw .message(
                "security: set-keychain-password: standard input ended before the \(what) line (expected one line each: "
                    + "old password, empty when there is none; new password; new password again); nothing was changed",
                status: 1)
        }
        let old: SecureBytes
        if let oldPassword {
            old = SecureBytes(copying: Array(oldPassword.utf8))
        } else {
            old = try line("old password")
        }
        if let newPassword { return (old, SecureBytes(copying: Array(newPassword.utf8))) }
        let new = try line("new password")
        guard try line("confirmation").constantTimeEquals(new) else {
            throw .message(
                "security: set-keychain-password: the new password and its confirmation differ; nothing was changed",
                status: 1)
        }
        return (old, new)
    }

    private static let tryAgain = CommandFailure.message("security: try again", status: 1)
}
