internal import KeychainCore
internal import KeychainToolSupport

/// `security portal-migrate [-s schema] [-a name=value]... [-o file] [-k] [-n] app-id`: moves keychain
/// items into the keyring a sandboxed app reads through libsecret and the Secret portal
/// (xdg-desktop-portal#483), by running `keychain-secret-service portal-migrate` with the same
/// arguments (found next to this program, else on `PATH`): the keyring file's format is GLib's, which
/// that program links and this one does not. Not in macOS `security`.
///
/// Exit statuses: those of `keychain-secret-service portal-migrate` (0 moved or counted; 1 a usage
/// error, no match, a keychain left locked, a file or keychain failure); 1 with
/// `security: portal-migrate: cannot run keychain-secret-service` when it cannot be started.
struct PortalMigrate: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "portal-migrate", synopsis: "[-s schema] [-a name=value]... [-o file] [-k] [-n] app-id", options: [],
        trailer: [
            "    -s  Move items whose xdg:schema is schema",
            "    -a  Move items with this attribute (repeatable; all must match)",
            "    -o  The app's keyring file (default ~/.var/app/app-id/data/keyrings/default.keyring)",
            "    -k  Keep the items in the keychain as well",
            "    -n  Count the items that would move; change nothing",
        ], summary: "Move items into a sandboxed app's Secret portal keyring.", takesRawOperands: true,
        minimumPrefixLength: 6)

    let arguments: [String]

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard !options.operands.isEmpty else { throw .usage(nil) }
        arguments = options.operands
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        context.io.flush()
        let name = "keychain-secret-service"
        let own = Platform.executablePath().map { FileSystem.directory(of: $0) + "/" + name }
        let path =
            ([own].compactMap { $0 }
            + (context.io.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }).first { FileSystem.exists($0) }
        guard let path,
            let status = Platform.run(path, ["portal-migrate"] + arguments, environment: context.io.environment)
        else { throw .message("security: portal-migrate: cannot run \(name)", status: 1) }
        if status != 0 { throw .exit(status) }
    }
}
