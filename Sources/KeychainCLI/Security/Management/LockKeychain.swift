#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import KeychainCore

/// `security lock-keychain [-a | keychain]`: locks a keychain, or with `-a` every keychain in the
/// keychain folder and the search list (Apple's `keychain_lock.c`).
///
/// Locking withdraws the WhenUnlocked class keys for every process of the user at once.
/// Errors print `security: SecKeychainLock <keychain>: <message>` and exit with the low 8 bits.
struct LockKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "lock-keychain", synopsis: "[-a | keychain]",
        options: [OptionSpec("a", "Lock all keychains")], summary: "Lock the specified keychain.")

    let all: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(ValidationError) {
        all = options.has("a")
        if all && !options.operands.isEmpty { throw .usage(nil) }
        keychain = try KeychainOperand.single(options)
    }

    func run(_ context: SecurityContext) -> Int32 {
        if all {
            var locations = context.preferences.searchLocations(environment: context.io.environment)
            locations.append(context.defaultTarget().location)
            let directory = KeychainLocation.keychainDirectory(environment: context.io.environment)
            for name in Self.keychainFiles(in: directory) {
                locations.append(KeychainLocation.named(directory + "/" + name, environment: context.io.environment))
            }
            var seen: Set<String> = []
            for location in locations where seen.insert(location.databasePath).inserted {
                guard let store = try? Keystore(location: location, create: false) else { continue }
                do { try store.lock() } catch { return context.fail("SecKeychainLockAll", error) }
            }
            return 0
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
            return 0
        } catch {
            return context.fail("SecKeychainLock \(KeychainOperand.display(keychain))", error.status)
        }
    }

    private static func keychainFiles(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".keychain-db") }.sorted()
    }
}
