internal import KeychainCore

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
/// An empty new password is refused (exit 1) wherever it comes from. A wrong old password prints
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
        ], summary: "Set password for a keychain.")

    let oldPassword: String?
    let newPassword: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(ValidationError) {
        oldPassword = options.value("o")
        newPassword = options.value("p")
        keychain = try KeychainOperand.single(options)
    }

    func run(_ context: SecurityContext) -> Int32 {
        let name = KeychainOperand.display(keychain)
        let failure = "error changing password for \"\(name)\""
        let target = context.target(keychain)
        let store: Keystore
        let hasPassword: Bool
        do {
            store = try context.open(target)
            hasPassword = try store.hasPassword()
        } catch {
            return context.fail(failure, error)
        }
        let input = PasswordInput(context)
        let passwords = input.isInteractive ? fromTerminal(input, hasPassword: hasPassword) : fromPipe(input, context)
        guard case .success(let (old, new)) = passwords else {
            if case .failure(let status) = passwords { return status.code }
            return 1
        }
        if !hasPassword, let old, old.count > 0 { return context.fail(failure, .authFailed) }
        guard new.count > 0 else {
            context.io.error.line("security: set-keychain-password: the new password is empty; nothing was changed")
            return 1
        }
        do {
            try store.setPassword(new, current: hasPassword ? old : nil, parameters: context.kdfParameters)
            // The keychain stays unlocked: say so when only this process sees it (a full key quota).
            if try store.unlockPlacement() == .thisProcess { context.io.error.line(UnlockKeychain.thisProcessNotice) }
            return 0
        } catch {
            return context.fail(failure, error)
        }
    }

    /// The old (when the keychain has one) and new passwords from the options and the terminal.
    private func fromTerminal(
        _ input: PasswordInput, hasPassword: Bool
    ) -> Result<(SecureBytes?, SecureBytes), ExitStatus> {
        var old: SecureBytes?
        if hasPassword {
            old = input.read(given: oldPassword, prompt: "Old Password: ")
            guard old != nil else { return .failure(tryAgain(input)) }
        }
        guard
            let new = input.readNew(
                given: newPassword, prompt: "New Password: ", retype: "Retype New Password: ", tries: 1)
        else { return .failure(tryAgain(input)) }
        return .success((old, new))
    }

    /// The old and new passwords from the options and standard input: old, new and confirmation,
    /// one line each, those given as options left out.
    private func fromPipe(
        _ input: PasswordInput, _ context: SecurityContext
    ) -> Result<(SecureBytes?, SecureBytes), ExitStatus> {
        func line(_ what: String) -> Result<SecureBytes, ExitStatus> {
            if let bytes = input.nextLine() { return .success(bytes) }
            if input.lastLineTooLong {
                context.io.error.line(
                    "security: set-keychain-password: the \(what) line is longer than \(PasswordInput.maximumBytes) bytes; "
                        + "nothing was changed")
                return .failure(ExitStatus(1))
            }
            context.io.error.line(
                "security: set-keychain-password: standard input ended before the \(what) line (expected one line each: "
                    + "old password, empty when there is none; new password; new password again); nothing was changed")
            return .failure(ExitStatus(1))
        }
        let old: SecureBytes
        if let oldPassword {
            old = SecureBytes(copying: Array(oldPassword.utf8))
        } else {
            switch line("old password") {
            case .success(let bytes): old = bytes
            case .failure(let status): return .failure(status)
            }
        }
        if let newPassword { return .success((old, SecureBytes(copying: Array(newPassword.utf8)))) }
        let new: SecureBytes
        switch line("new password") {
        case .success(let bytes): new = bytes
        case .failure(let status): return .failure(status)
        }
        switch line("confirmation") {
        case .failure(let status): return .failure(status)
        case .success(let again):
            guard again.constantTimeEquals(new) else {
                context.io.error.line(
                    "security: set-keychain-password: the new password and its confirmation differ; nothing was changed")
                return .failure(ExitStatus(1))
            }
        }
        return .success((old, new))
    }

    private func tryAgain(_ input: PasswordInput) -> ExitStatus {
        input.context.io.error.line("security: try again")
        return ExitStatus(1)
    }
}
