internal import KeychainCore
internal import KeychainSync
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
            let synced = syncedRemote(location, context)
            do {
                try KeychainPreferences.deleteKeychain(
                    location, preferencesPath: KeychainPreferences.path(environment: context.io.environment))
            } catch {
                throw CommandFailure.keychain("SecKeychainDelete", error)
            }
            if let synced {
                SyncClone.remove(synced.clone)
                context.io.error.line(
                    "security: delete-keychain: \(name) synced with \(synced.remote): it is deleted on this device only, "
                        + "and the other devices keep its items (to stop syncing it here without deleting it, run "
                        + "security sync leave first)")
            }
        }
    }

    /// Where the keychain at `location` syncs (issue 26), read before it is deleted; nil when it does not sync or its
    /// state cannot be read (the delete goes ahead either way).
    private func syncedRemote(_ location: KeychainLocation, _ context: SecurityContext) -> (
        remote: String, clone: String
    )? {
        guard let store = try? Keystore(location: location, create: false) else { return nil }
        return try? SyncEngine(replica: store, environment: context.io.environment).syncedRemote()
    }
}
