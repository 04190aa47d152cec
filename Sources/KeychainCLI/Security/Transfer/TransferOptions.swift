internal import KeychainCore

/// What the backup, restore, import and export commands share: the conflict policy option, the
/// default backup file name, passphrase help, and how engine failures are printed.
enum TransferOptions {
    /// The extension of backup files.
    static let backupExtension = ".swkcbackup"

    /// `--policy skip|replace|fail`: what to do with an item whose primary key is already in the keychain.
    static let policyOption = OptionSpec(
        nil, long: "policy", value: "skip|replace|fail",
        "What to do with an item already in the keychain: keep it (skip, the default), replace it, "
            + "or stop and change nothing (fail)")

    /// The `--policy` value; an unknown one prints `security: unknown policy: x` and the usage (exit 2).
    static func policy(_ options: ParsedOptions) throws(ValidationError) -> ConflictPolicy {
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

    /// Prints a failure as `security: <operation>: <Apple's message>` and, when the engine gave one,
    /// its non-secret reason as a second sentence; returns the status's low 8 bits.
    ///
    /// A wrong passphrase prints Apple's message alone: there is nothing more to say.
    @discardableResult
    static func fail(_ context: SecurityContext, _ operation: String, _ failure: KeychainFailure) -> Int32 {
        var line = "security: \(operation): \(failure.status.message)"
        if failure.status != .authFailed, let detail = failure.detail, let first = detail.first {
            line += " " + first.uppercased() + detail.dropFirst() + (detail.hasSuffix(".") ? "" : ".")
        }
        context.io.error.line(line)
        return SecurityContext.exitStatus(failure.status)
    }
}
