internal import KeychainCore
internal import KeychainToolSupport

/// `security set-keychain-settings [-lu] [-t timeout] [keychain]`: sets a keychain's auto-lock
/// timeout (Apple's `keychain_set_settings.c`).
///
/// As on macOS, `-t` implies `-u`, and omitting `-t` means "no timeout" (even with `-u`). The
/// timeout is read as `atoi(3)` reads it and must be at least 1 second here (the engine's 0 means
/// "never"). Linux gives this tool no sleep notification, so `-l` (lock on sleep) is not
/// supported: the command says so on stderr and sets the rest.
/// Errors print `security: SecKeychainSetSettings <keychain|<NULL>>: <message>`.
struct SetKeychainSettings: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "set-keychain-settings", synopsis: "[-lu] [-t timeout] [keychain]",
        options: [
            OptionSpec("l", "Lock keychain when the system sleeps (not supported on Linux)"),
            OptionSpec("u", "Lock keychain after timeout interval"),
            OptionSpec("t", value: "timeout", "Timeout in seconds (omitting this option specifies \"no timeout\")"),
        ],
        summary: "Set settings for a keychain.")

    static let lockOnSleepNotice = "security: set-keychain-settings: -l (lock on sleep) is not supported on Linux; ignored"

    let lockOnSleep: Bool
    let timeout: UInt32
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        lockOnSleep = options.has("l")
        if let text = options.value("t") {
            let seconds = ItemOptions.atoi(text)
            guard seconds >= 1 else { throw .usage("security: set-keychain-settings: the timeout must be at least 1 second") }
            timeout = UInt32(min(seconds, Int64(Int32.max)))
        } else {
            timeout = 0
        }
        keychain = try KeychainOperand.single(options)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        if lockOnSleep { context.io.error.line(Self.lockOnSleepNotice) }
        do {
            let store = try context.open(context.target(keychain))
            try store.setAutoLockTimeout(timeout)
            return
        } catch {
            throw CommandFailure.keychain("SecKeychainSetSettings \(KeychainOperand.display(keychain))", error.status)
        }
    }
}
