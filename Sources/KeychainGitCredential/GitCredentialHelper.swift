package import KeychainCore
package import KeychainToolSupport

/// `git-credential-keychain get|store|erase`: git's credential-helper protocol over internet passwords.
///
/// Protocol (git-credential(1)): git writes `key=value` lines and a blank line or end of input;
/// the value is everything after the first `=`. Mapping, as git's own `git-credential-osxkeychain`
/// does it: class internet password, `srvr` = host (stored in lower case; found in any case),
/// `port` from `host:port` (a request without a port finds only credentials stored without one,
/// as git compares `host` whole), `path`, `acct` =
/// username, `ptcl` from the protocol (https → `htps`, http → `http`, ftp → `ftp `, ftps → `ftps`,
/// imap → `imap`, imaps → `imps`, smtp → `smtp`), `atyp` = `dflt`. Like osxkeychain, a credential
/// for any other protocol is ignored silently (exit 0): those have no Apple protocol code.
/// The secret stores the password, then `\npassword_expiry_utc=…` and `\noauth_refresh_token=…`
/// when given, so they stay encrypted and are returned by `get`.
///
/// Scope: the helper reads and deletes every internet password that matches except docker's
/// (label `Docker Credentials`), so passwords added with `security add-internet-password` or
/// imported from a browser serve git too; `store` replaces only the item with exactly the
/// credential's protocol, host, port, path and user name.
///
/// - `get`: prints `username` (when not given) and `password`, plus the expiry and refresh token;
///   nothing, exit 0, when there is no host or no match (git's convention). A stored value git's
///   protocol cannot carry (a line feed, a NUL, or a trailing CR) is never written: the credential
///   is skipped with a message on stderr naming it and the field, as for no match.
/// - `store`: an upsert in one transaction; needs protocol, host, username and password, and is
///   skipped otherwise (as git's libsecret helper does).
/// - `erase`: removes matching items; with a password, only those whose password matches
///   (compared in constant time, in the same write transaction as the delete, as osxkeychain does).
///
/// Malformed input (a line without `=`, a NUL byte, a line over 1 MiB, the keychain's limit for a
/// secret; git itself has none; a `host` whose port is digits outside 1–65535, which git's own URL
/// parser refuses) is rejected with a message on stderr and exit 1, never misread and
/// never partly stored. User names and paths need not be UTF-8. Other failures print
/// `git-credential-keychain: failed to <action>: <message> (<status>)` and exit 1.
package enum GitCredentialHelper {
    /// The longest input line accepted, in bytes: the keychain's limit for a secret (git has none).
    package static let maximumLineBytes = ItemGateway.maximumSecretBytes
    /// The `state[]` value `get` emits (when git announces `capability[]=state`) so that git does
    /// not store again a credential it just read from this helper.
    static let seenState = "keychain:seen=1"
    static let name = CredentialHelpers.gitName
    /// What `--help` and `-h` print on stdout.
    static let help = """
        usage: git credential-keychain <get|store|erase>

        A git credential helper that keeps credentials in the keychain as internet passwords.
        git runs it with one action and the credential on standard input (git-credential(1)):
          get      print the stored username and password for the credential git describes
          store    save the credential (protocol, host, username and password are needed)
          erase    remove the matching credentials
        Other actions are ignored, as git's protocol requires. To use it:
          git config --global credential.helper keychain
          -h, --help   show this help

        """

    /// Runs the helper with `arguments` (without the program name).
    /// - Parameters:
    ///   - arguments: one action: `get`, `store` or `erase`; other actions are ignored, after the input
    ///     is read (gitcredentials(7): a helper silently ignores operations it does not know). `-h` or
    ///     `--help` as the first argument prints ``help`` on stdout and reads nothing.
    ///   - io: the streams and environment.
    ///   - location: the keychain; `nil` means the default keychain of `io.environment`
    ///     (`security default-keychain`; the login keychain unless set).
    /// - Returns: the exit status: 0 (also for `--help` and unknown actions), or 1 after a message on
    ///   stderr (no action: git's usage line).
    package static func run(_ arguments: [String], io: CommandIO, location: KeychainLocation? = nil) -> Int32 {
        CommandFailure.exitStatus(.gitCredential, io: io) { () throws(CommandFailure) in
            try perform(arguments, io: io, location: location)
        }
    }

    /// The helper's work, throwing how it fails.
    /// - Throws: `.message` (exit 1) for a missing action or malformed input; `.keychain` with the
    ///   action for an engine failure.
    static func perform(_ arguments: [String], io: CommandIO, location: KeychainLocation?) throws(CommandFailure) {
        guard let action = arguments.first else {
            throw .message("usage: git credential-keychain <get|store|erase>", status: 1)
        }
        if action == "-h" || action == "--help" {
            io.output.write(Self.help)
            return
        }
        let credential = try GitCredential.read(from: io.input)
        guard ["get", "store", "erase"].contains(action) else { return }
        // Protocols without an Apple code are ignored, as git-credential-osxkeychain does.
        if let scheme = credential.protocolName, GitCredential.appleProtocol(scheme) == nil { return }
        guard credential.host != nil else { return }
        do throws(KeychainFailure) {
            let identity = try ApplicationIdentity.fromEnvironment(io.environment)
            let store = try KeychainPreferences.openDefault(location, environment: io.environment)
            let session = GitKeychain(gateway: ItemGateway(keystore: store, identity: identity))
            switch action {
            case "get": session.get(credential, io: io, found: try session.find(credential))
            case "store": try session.store(credential)
            default: try session.erase(credential)
            }
        } catch {
            throw .keychain(action, error)
        }
    }

    /// The `main` of the executable: real streams and environment.
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let io = CommandIO.standard(environment: environment)
        let status = run(Array(arguments.dropFirst()), io: io)
        io.flush()
        return status
    }
}
