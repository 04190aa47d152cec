internal import KeychainCore
internal import KeychainToolSupport

/// `security create-keychain [-P] [-p password] keychain...`: creates keychains with a password
/// and adds them to the search list (Apple's `keychain_create.c`).
///
/// Without `-p` the password is asked twice without echo (`password for new keychain: `,
/// `retype password for new keychain: `, three tries, `passwords don't match`, then exit 1), or
/// read as one line of standard input when it is not a terminal. `-P` (the SecurityAgent on macOS)
/// prompts the same way. A new keychain starts unlocked. An existing file is never replaced:
/// `security: SecKeychainCreate x: A keychain with the same name already exists.`, exit 48.
struct CreateKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "create-keychain", synopsis: "[-P] [-p password] [keychains...]",
        options: [
            OptionSpec(
                "p", value: "password",
                "Use \"password\" as the password for the keychains being created (\(PasswordOptionHelp.warning))"),
            OptionSpec("P", "Prompt the user for a password (on the terminal; Linux has no SecurityAgent)"),
        ],
        trailer: PasswordOptionHelp.trailer, summary: "Create keychains and add them to the search list.")

    let password: String?
    let keychains: [String]

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard !options.operands.isEmpty, !options.operands.contains("") else { throw .usage(nil) }
        password = options.has("P") ? nil : options.value("p")
        keychains = options.operands
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let input = PasswordInput(context)
        guard
            let secret = input.readNew(
                given: password, prompt: "password for new keychain: ", retype: "retype password for new keychain: ")
        else {
            if input.isInteractive { throw CommandFailure.exit(1) }
            throw CommandFailure.keychain("SecKeychainCreate \(keychains[0])", .userCanceled)
        }
        for name in keychains {
            let location = KeychainLocation.named(name, environment: context.io.environment)
            do {
                let store = try Keystore.create(location: location, password: secret, parameters: context.kdfParameters)
                // A new keychain with a password is left unlocked: say so when only this process sees it.
                if try store.unlockPlacement() == .thisProcess {
                    context.io.error.line(UnlockKeychain.thisProcessNotice)
                }
            } catch {
                throw CommandFailure.keychain("SecKeychainCreate \(name)", error)
            }
            var preferences = context.preferences
            let current = preferences.searchLocations(environment: context.io.environment).map(\.databasePath)
            if !current.contains(location.databasePath) {
                preferences.searchList = current + [location.databasePath]
                do { try preferences.save(environment: context.io.environment) } catch {
                    throw CommandFailure.keychain("SecKeychainSetSearchList", error)
                }
            }
        }
        return
    }
}
