internal import KeychainCore

/// `security set-keychain-password [-o oldPassword] [-p newPassword] [keychain]`: changes a
/// keychain's password (Apple's `keychain_set_settings.c`, `do_keychain_set_password`).
///
/// Missing passwords are asked without echo (`Old Password: `, `New Password: `,
/// `Retype New Password: `), or read from standard input when it is not a terminal: the old
/// password's line, then the new one's. A keychain without a password asks for no old password.
/// A mismatch or a cancelled prompt prints `security: try again` and exits 1. A wrong old password
/// prints `security: error changing password for "<keychain>": The user name or passphrase you
/// entered is not correct.` and exits 51; nothing changes. Only the class keys are re-wrapped.
struct SetKeychainPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "set-keychain-password", synopsis: "[-o oldPassword] [-p newPassword] [keychain]",
        options: [
            OptionSpec("o", value: "oldPassword", "Old keychain password (\(PasswordOptionHelp.warning))"),
            OptionSpec("p", value: "newPassword", "New keychain password (\(PasswordOptionHelp.warning))"),
        ],
        trailer: PasswordOptionHelp.trailer, summary: "Set password for a keychain.")

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
        var old: SecureBytes?
        if hasPassword {
            old = input.read(given: oldPassword, prompt: "Old Password: ")
            guard old != nil else { return tryAgain(context) }
        }
        guard
            let new = input.readNew(
                given: newPassword, prompt: "New Password: ", retype: "Retype New Password: ", tries: 1)
        else { return tryAgain(context) }
        do {
            try store.setPassword(new, current: old, parameters: context.kdfParameters)
            return 0
        } catch {
            return context.fail(failure, error)
        }
    }

    private func tryAgain(_ context: SecurityContext) -> Int32 {
        context.io.error.line("security: try again")
        return 1
    }
}
