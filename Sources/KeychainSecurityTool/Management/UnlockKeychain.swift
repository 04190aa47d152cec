internal import KeychainCore
internal import KeychainToolSupport

/// `security unlock-keychain [-u] [-p password] [keychain]`: unlocks a keychain (Apple's
/// `keychain_unlock.c`).
///
/// The password comes from `-p`, a no-echo prompt (`password to unlock <keychain|default>: `), or one
/// line of standard input when it is not a terminal. The unlock lasts for every process of the user
/// (kernel user keyring) until `lock-keychain`, the auto-lock timeout, or the end of the session.
/// Where the kernel keyring is unavailable, or refuses the keys because the user's key quota is full,
/// it lasts only for this process, and the command says so once, with the cause and the fix.
///
/// - Wrong password: `security: SecKeychainUnlock <keychain|<NULL>>: The user name or passphrase you
///   entered is not correct.`, exit 51, then how many tries are left before the unlock throttle waits, or
///   how long the next try will wait (``UnlockThrottle/afterWrongPassword(failures:)``). Repeated failures
///   wait an escalating delay first, said before the wait (``UnlockThrottle/notice(failures:seconds:)``).
/// - Missing keychain: `… The specified keychain could not be found.`, exit 50; nothing is created.
/// - Cancelled (end of input): `… The user canceled the operation.`, exit 128.
/// - `-u` (macOS: ask the SecurityAgent) prompts on the terminal; without one, `… User interaction is
///   not allowed.`, exit 36.
/// Unlocking only reads the keychain: a failed or cancelled unlock never changes the file.
/// - Login keychain after a changed login password (``LoginPasswordMarker`` and ``KeptLoginPassword``
///   there): the prompt says so first (the provider's text); once the old password unlocked it, asks y/N on
///   the terminal, with echo, whether to re-key it to the login password (gnome-keyring's repair;
///   docs/PAM.md); without a terminal, says how and changes nothing.
struct UnlockKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "unlock-keychain", synopsis: "[-u] [-p password] [keychain]",
        options: [
            OptionSpec(
                "p", value: "password",
                "Use \"password\" as the password to unlock the keychain (\(PasswordOptionHelp.warning))"),
            OptionSpec("u", "Do not use the password (prompt on the terminal instead)"),
        ],
        trailer: PasswordOptionHelp.trailer, summary: "Unlock the specified keychain.")

    /// What the command prints, once, when the unlock lasts for this process only: the cause (no
    /// kernel keyring, or a full key quota with its figures), the keychains holding entries, and the fix.
    static var thisProcessNotice: String { "security: " + ClassKeyStore.refusalDiagnosis() }

    static let adoptedNotice =
        "security: this keychain's device key was missing or belonged to another installation; it is now bound to "
        + "this installation's device key, and its ThisDeviceOnly items cannot be read here (delete and re-add them)"

    let password: String?
    let interactiveOnly: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        interactiveOnly = options.has("u")
        password = interactiveOnly ? nil : options.value("p")
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let operation = "SecKeychainUnlock \(KeychainOperand.display(keychain))"
        let target = context.target(keychain)
        let store: Keystore
        do {
            store = try Keystore(location: target.location, create: false)
            // A keychain without a password is always unlocked: nothing to ask.
            guard try store.hasPassword() else { return }
        } catch {
            throw CommandFailure.keychain(operation, error)
        }
        let input = PasswordInput(context)
        if interactiveOnly && !input.isInteractive { throw CommandFailure.keychain(operation, .interactionNotAllowed) }
        guard let secret = input.read(given: password, prompt: prompt(for: store, context: context))
        else { throw CommandFailure.keychain(operation, .userCanceled) }
        do {
            let wait = try store.unlockWait()
            if let notice = UnlockThrottle.notice(failures: wait.failures, seconds: wait.seconds) {
                context.io.error.line("security: \(notice)")
            }
            let outcome = try store.unlockReportingAdoption(password: secret)
            if outcome.scope == .thisProcess { context.io.error.line(Self.thisProcessNotice) }
            if outcome.adopted { context.io.error.line(Self.adoptedNotice) }
        } catch {
            let failure = CommandFailure.keychain(operation, error)
            guard error.status == .authFailed, let wait = try? store.unlockWait() else { throw failure }
            // Apple's line first, then what the throttle will do about the next try.
            let status = failure.report(to: .security(usage: nil), io: context.io)
            context.io.error.line("security: " + UnlockThrottle.afterWrongPassword(failures: wait.failures))
            throw .exit(status)
        }
        try offerRepair(store, oldPassword: secret, input: input, context: context)
    }

    /// The terminal prompt: macOS's `password to unlock <keychain|default>: `, after the login keychain's
    /// own text on a line of its own while the login password no longer opens it
    /// (``KeptLoginPassword/unlockPrompt(forKeychainAt:keyring:)``, the provider's pinentry text too).
    private func prompt(for store: Keystore, context: SecurityContext) -> String {
        let plain = "password to unlock \(keychain ?? "default"): "
        let keyring = KeptLoginPassword.keyringName(environment: context.io.environment)
        guard let login = KeptLoginPassword.unlockPrompt(forKeychainAt: store.location.databasePath, keyring: keyring)
        else { return plain }
        return login + "\n" + plain
    }

    /// What the command says when it declines the repair for want of a terminal.
    static let repairWithoutTerminal =
        "security: \(LoginPasswordMarker.mismatchMessage) Run security unlock-keychain on a terminal within 10 "
        + "minutes of logging in to change it to your login password, or run security set-keychain-password "
        + "(old password, then your login password); nothing was changed"

    /// After an unlock of the login keychain with its old password while the PAM helper keeps the new
    /// login password (``KeptLoginPassword``, beside ``LoginPasswordMarker``): asks once, y/N, on the
    /// terminal and on yes re-keys the keychain to the login password in one transaction, then withdraws the
    /// kept password and the marker. A no leaves both until the entry expires; without a terminal it
    /// changes nothing and says how (gnome-keyring's repair; tracker issue 25, docs/PAM.md).
    private func offerRepair(
        _ store: Keystore, oldPassword: SecureBytes, input: PasswordInput, context: SecurityContext
    ) throws(CommandFailure) {
        let path = store.location.databasePath
        let keyring = KeptLoginPassword.keyringName(environment: context.io.environment)
        guard let login = KeptLoginPassword.pendingRepair(forKeychainAt: path, keyring: keyring, typed: oldPassword)
        else { return }
        guard input.isInteractive else {
            context.io.error.line(Self.repairWithoutTerminal)
            return
        }
        // The answer is no secret: read with echo, so that the user sees what they typed.
        let answer = context.io.terminal.readAnswer(prompt: LoginPasswordMarker.repairQuestion + " [y/N] ")
        guard let answer, ["y", "yes"].contains(answer.lowercased()) else { return }
        do {
            try store.setPassword(login, current: oldPassword, parameters: context.kdfParameters)
        } catch {
            throw CommandFailure.keychain("SecKeychainChangePassword \(KeychainOperand.display(keychain))", error)
        }
        KeptLoginPassword.finishRepair(forKeychainAt: path, keyring: keyring)
        context.io.error.line("security: the login keychain's password is now your login password")
    }
}
