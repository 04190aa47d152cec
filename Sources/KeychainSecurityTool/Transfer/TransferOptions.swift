internal import KeychainCore
internal import KeychainToolSupport

/// What the backup, restore, import and export commands share: the conflict policy option, the
/// default backup file name and passphrase help (engine failures are reported as
/// ``CommandFailure/transfer(_:_:)``).
enum TransferOptions {
    /// The extension of backup files.
    static let backupExtension = ".swkcbackup"

    /// `--policy skip|replace|fail`: what to do with an item whose primary key is already in the keychain.
    static let policyOption = OptionSpec(
        nil, long: "policy", value: "skip|replace|fail",
        "What to do with an item already in the keychain: keep it (skip, the default), replace it, "
            + "or stop and change nothing (fail)")

    /// The `--policy` value; an unknown one prints `security: unknown policy: x` and the usage (exit 2).
    static func policy(_ options: ParsedOptions) throws(CommandFailure) -> ConflictPolicy {
        guard let text = options.value("policy") else { return .skip }
        guard let policy = ConflictPolicy(rawValue: text) else { throw .usage("security: unknown policy: \(text)") }
        return policy
    }

    /// The backup file used when none is given: `<keychain name>.swkcbackup` in the current directory.
    static func defaultBackupFile(for location: KeychainLocation) -> String {
        var name = Substring(location.databasePath.split(separator: "/").last ?? "keychain")
        for suffix in [".keychain-db", ".keychain"] where name.hasSuffix(suffix) {
            name = name.dropLast(suffix.count)
            break
        }
        return String(name) + backupExtension
    }

    /// Help lines on where passphrases come from.
    static let passphraseTrailer = [
        "The passphrase is prompted for without echo, or read from standard input (one line) when standard",
        "input is not a terminal. It is never taken from the command line.",
    ]
}
