internal import KeychainCore
internal import KeychainToolSupport

/// `security set-keychain-settings [-lu] [-t timeout] [keychain]`: sets a keychain's auto-lock
/// timeout and whether it locks on sleep (Apple's `keychain_set_settings.c`).
///
/// As on macOS, `-t` implies `-u`, and omitting `-t` means "no timeout" (even with `-u`); omitting
/// `-l` turns lock-on-sleep off. The timeout is read as `atoi(3)` reads it and must be at least
/// 1 second here (the engine's 0 means "never"). `-l` is kept in the keychain
/// (``Keystore/setLocksOnSleep(_:)``) and honoured by the session agent
/// (`keychain-secret-service session-agent`), which locks such keychains before the machine sleeps,
/// when the screen locks and when the session ends (docs/ARCHITECTURE.md, "Locking with the session").
/// `--access-policy confirm|open` (not in macOS's tool) sets whether the Secret Service provider asks
/// before an application not on an item's access list uses it (`docs/SECURITY.md`); given without `-l`,
/// `-u` or `-t`, it leaves the timeout and lock-on-sleep as they are.
/// Errors print `security: SecKeychainSetSettings <keychain|<NULL>>: <message>`.
struct SetKeychainSettings: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "set-keychain-settings", synopsis: "[-lu] [-t timeout] [keychain]",
        options: [
            OptionSpec("l", "Lock keychain when the system sleeps"),
            OptionSpec("u", "Lock keychain after timeout interval"),
            OptionSpec("t", value: "timeout", "Timeout in seconds (omitting this option specifies \"no timeout\")"),
            OptionSpec(
                nil, long: "access-policy", value: "confirm|open",
                "Ask before an application not on a Secret Service item's access list uses it (confirm), or never (open)"
            ),
        ],
        summary: "Set settings for a keychain.")

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
            guard seconds >= 1 else {
                throw .usage("security: set-keychain-settings: the timeout must be at least 1 second")
            }
            timeout = UInt32(min(seconds, Int64(Int32.max)))
        } else {
            timeout = 0
        }
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        do {
            let store = try context.open(context.target(keychain))
            if let accessPolicy { try store.setSecretAccessPolicy(accessPolicy) }
            if setsTimeout {
                try store.setAutoLockTimeout(timeout)
                try store.setLocksOnSleep(lockOnSleep)
            }
            return
        } catch {
            throw CommandFailure.keychain("SecKeychainSetSettings \(KeychainOperand.display(keychain))", error)
        }
    }
}
