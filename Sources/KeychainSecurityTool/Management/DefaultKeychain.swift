internal import KeychainCore
internal import KeychainToolSupport

/// `security default-keychain [-d user|system|common|dynamic] [-s [keychain]]`: shows or sets the
/// default keychain (Apple's `keychain_list.c`, `keychain_default`).
///
/// Shows it as `    "<path>"` on stdout. `-s keychain` makes an existing keychain the default
/// (stored in ``KeychainPreferences``); `-s` alone resets it to the login keychain. Adds, `git` and
/// `docker` use the default keychain. Only the user domain is stored: the other domains have no
/// default (`security: SecKeychainCopyDomainDefault system: A default keychain could not be
/// found.`, exit 1) and cannot be set (exit 1).
struct DefaultKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "default-keychain", synopsis: "[-d user|system|common|dynamic] [-s [keychain]]",
        options: [
            KeychainOperand.domainOption,
            OptionSpec("s", "Set the default keychain to the specified keychain"),
        ],
        trailer: ["With no parameters, display the default keychain."],
        summary: "Display or set the default keychain.")

    let domain: String?
    let set: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        domain = try KeychainOperand.domain(options)
        set = options.has("s")
        guard set || options.operands.isEmpty else { throw .usage(nil) }
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let environment = context.io.environment
        if let domain, domain != "user" {
            if set { throw CommandFailure.keychain("SecKeychainSetDomainDefault \(domain)", .unimplemented, exit: 1) }
            throw CommandFailure.keychain("SecKeychainCopyDomainDefault \(domain)", .noDefaultKeychain, exit: 1)
        }
        let operation = domain == nil ? "SecKeychainSetDefault" : "SecKeychainSetDomainDefault user"
        guard set else {
            KeychainOperand.printPath(context.defaultTarget().location.databasePath, context)
            return
        }
        var preferences = context.preferences
        if let keychain {
            let location = KeychainLocation.named(keychain, environment: environment)
            guard FileSystem.exists(location.databasePath) else {
                throw CommandFailure.keychain(operation, .noSuchKeychain, exit: 1)
            }
            preferences.defaultKeychain = location.databasePath
        } else {
            preferences.defaultKeychain = nil
        }
        do {
            try preferences.save(environment: environment)
        } catch {
            throw CommandFailure.keychain(operation, error, exit: 1)
        }
        return
    }
}
