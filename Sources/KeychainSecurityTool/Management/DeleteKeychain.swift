internal import KeychainCore
internal import KeychainToolSupport

/// `security delete-keychain keychain...`: deletes keychains and removes them from the search list
/// (Apple's `keychain_delete.c`).
///
/// Each keychain's class keys are withdrawn from the kernel keyring first, then the database and
/// its `-wal` and `-shm` files are removed. The device key stays: other keychains use it.
/// A keychain that does not exist prints
/// `security: SecKeychainDelete: The specified keychain could not be found.` and exits 50.
struct DeleteKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "delete-keychain", synopsis: "[keychains...]", options: [],
        summary: "Delete keychains and remove them from the search list.")

    let keychains: [String]

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard !options.operands.isEmpty, !options.operands.contains("") else { throw .usage(nil) }
        keychains = options.operands
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        for name in keychains {
            let location = KeychainLocation.named(name, environment: context.io.environment)
            let path = location.databasePath
            guard FileSystem.exists(path) else { throw CommandFailure.keychain("SecKeychainDelete", .noSuchKeychain) }
            do {
                try KeychainPreferences.deleteKeychain(
                    location, preferencesPath: KeychainPreferences.path(environment: context.io.environment))
            } catch {
                throw CommandFailure.keychain("SecKeychainDelete", error)
            }
        }
    }
}
