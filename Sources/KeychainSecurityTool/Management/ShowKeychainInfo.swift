internal import KeychainCore
internal import KeychainToolSupport

/// `security show-keychain-info [keychain]`: prints a keychain's settings on stderr, in Apple's
/// format (`keychain_show_info.c`), followed by its lock state:
///
///     Keychain "work" no-timeout access-policy=confirm unlocked
///     Keychain "work" lock-on-sleep use-lock-interval timeout=300s access-policy=open locked
///
/// The name is the operand as given, or the default keychain's path when none is given (macOS
/// prints `<NULL>` there). The lock state is `locked`, `unlocked` or `no-password` (a keychain
/// without a password is always available), as this process sees it. An unlocked keychain gets a
/// second line saying where the unlock is kept: the kernel keyring (every process of the user) or
/// this process only. `lock-on-sleep` appears when `set-keychain-settings -l` set it. `access-policy=`
/// (ours, issue 27) is whether the Secret Service asks before an application not on an item's access list
/// uses it (`confirm`) or not (`open`, a keychain made before access lists), as `set-keychain-settings
/// --access-policy` sets it; left out when it cannot be read (a keychain whose device key is lost). Errors print
/// `security: SecKeychainCopySettings <keychain|<NULL>>: <message>`.
struct ShowKeychainInfo: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "show-keychain-info", synopsis: "[keychain]", options: [],
        summary: "Show the settings for keychain.")

    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let target = context.target(keychain)
        do {
            let store = try Keystore(location: target.location, create: false)
            let timeout = try store.autoLockTimeout()
            let state: String
            switch try store.lockState() {
            case .noPassword: state = "no-password"
            case .locked: state = "locked"
            case .unlocked: state = "unlocked"
            }
            let sleep = try store.locksOnSleep() ? " lock-on-sleep" : ""
            let settings =
                sleep + (timeout == 0 ? " no-timeout" : " use-lock-interval timeout=\(timeout)s")
                + ((try? store.secretAccessPolicy()).map { " access-policy=\($0.rawValue)" } ?? "")
            let name = keychain ?? target.location.databasePath
            context.io.error.line("Keychain \"\(name)\"\(settings) \(state)")
            switch try store.unlockPlacement() {
            case .userSession?:
                context.io.error.line(
                    "security: the unlock is kept in the kernel keyring \"\(ClassKeyStore.keyringName)\" and reaches every process of yours"
                )
            case .thisProcess?:
                context.io.error.line("security: the unlock is kept by this process only")
            case nil:
                break
            }
            if try store.needsAdoption() { context.io.error.line("security: \(store.foreignKeychainAdvice)") }
            return
        } catch {
            throw CommandFailure.keychain("SecKeychainCopySettings \(KeychainOperand.display(keychain))", error)
        }
    }
}
