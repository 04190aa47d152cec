internal import KeychainCore
internal import KeychainToolSupport

/// `security lock-keychain [-a | keychain]`: locks a keychain, or with `-a` every keychain
/// (Apple's `keychain_lock.c`).
///
/// Locking one keychain withdraws its WhenUnlocked class keys for every process of the user at once;
/// its AfterFirstUnlock keys stay until the session ends, as on iOS. `-a` locks every keychain the
/// user has unlocked, wherever its file is, as a logout does: it withdraws every entry the project
/// keeps in the kernel keyring (AfterFirstUnlock ones too) with one `KEYCTL_CLEAR`, and frees their
/// share of the user's key quota.
/// Errors print `security: SecKeychainLock <keychain>: <message>` and exit with the low 8 bits.
struct LockKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "lock-keychain", synopsis: "[-a | keychain]",
        options: [OptionSpec("a", "Lock all keychains")], summary: "Lock the specified keychain.")

    let all: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        all = options.has("a")
        if all && !options.operands.isEmpty { throw .usage(nil) }
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        if all {
            // Every keychain of the user, wherever its file is: one call clears the project keyring.
            ClassKeyStore.lockAll()
            return
        }
        let target = context.target(keychain)
        do {
            let store = try Keystore(location: target.location, create: false)
            try store.lock()
            if try !store.hasPassword() {
                // Nothing was withdrawn: say so rather than let the user believe the secrets are protected.
                context.io.error.line(
                    "security: warning: \(target.location.databasePath) has no password, so it cannot be locked;"
                        + " set one with set-keychain-password")
            }
            return
        } catch {
            throw CommandFailure.keychain("SecKeychainLock \(KeychainOperand.display(keychain))", error.status)
        }
    }
}
