internal import KeychainCore
internal import KeychainToolSupport

/// `security set-keychain-settings [-lu] [-t timeout] [keychain]`: sets a keychain's auto-lock
/// timeout (Apple's `keychain_set_settings.c`).
///
/// As on macOS, `-t` implies `-u`, and omitting `-t` means "no timeout" (even with `-u`). The
/// timeout is read as `atoi(3)` reads it and must be at least 1 second here (the engine's 0 means
/// "never"). Linux gives this tool no sleep notification, so `-l` (lock on sleep) is not
/// supported: the command says so on stderr and sets the rest. `--access-policy confirm|open` (not in
/// macOS's tool) sets whether the Secret Service provider asks before an application not on an item's
/// access list uses it (`docs/SECURITY.md`); given without `-l`, `-u` or `-t`, it leaves the timeout.
/// Errors print `security: SecKeychainSetSettings <keychain|<NULL>>: <message>`.
struct SetKeychainSettings: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "set-keychain-settings", synopsis: "[-lu] [-t timeout] [keychain]",
        options: [
            OptionSpec("l", "Lock keychain when the system sleeps (not supported on Linux)"),
            OptionSpec("u", "Lock keychain after timeout interval"),
            OptionSpec("t", value: "timeout", "Timeout in seconds (omitting this option specifies \"no timeout\")"),
            OptionSpec(
                nil, long: "access-policy", value: "confirm|open",
                "Ask before an application not on a Secret Service item's access list uses it (confirm), or never (open)"),
        ],
        summary: "Set settings for a keychain.")

    static let lockOnSleepNotice = "security: set-keychain-settings: -l (lock on sleep) is not supported on Linux; ignored"

    let lockOnSleep: Bool
    let timeout: UInt32
    let keychain: String?
    /// `--access-policy` (issue 27); given alone, the timeout is left as it is.
    let accessPolicy: SecretAccessPolicy?
    let setsTimeout: Bool

    init(_ options: ParsedOptions) throws(CommandFailure) {
        if let text = options.value("access-policy") {
            guard let policy = SecretAccessPolicy(rawValue: text) else {
                throw .usage("security: set-keychain-settings: --access-policy must be confirm or open")
            }
            accessPolicy = policy
        } else {
            accessPolicy = nil
        }
        setsTimeout = accessPolicy == nil || options.has("l") || options.has("u") || options.value("t") != nil
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
            if let accessPolicy { try store.setSecretAccessPolicy(accessPolicy) }
            if setsTimeout { try store.setAutoLockTimeout(timeout) }
            return
        } catch {
            throw CommandFailure.keychain("SecKeychainSetSettings \(KeychainOperand.display(keychain))", error.status)
        }
    }
}
