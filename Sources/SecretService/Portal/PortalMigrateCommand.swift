internal import KeychainCore

/// `keychain-secret-service portal-migrate` (and `security portal-migrate`, which runs it): moves the
/// keychain's Secret Service items that the user names into an app's sandboxed libsecret keyring
/// (``PortalMigration``), and prints how many, never a secret.
///
/// Usage: `portal-migrate [-s SCHEMA] [-a NAME=VALUE]... [-o FILE] [-k] [-n] APP_ID`
/// - `-s SCHEMA`: items whose `xdg:schema` is SCHEMA (libsecret's schema name, e.g. `org.gnome.Evolution.Data.Source`);
/// - `-a NAME=VALUE` (repeatable): items with that attribute; with `-s`, items with both;
/// - `-o FILE`: the keyring file (default `~/.var/app/APP_ID/data/keyrings/default.keyring`);
/// - `-k`: keep the items in the keychain too; `-n`: count only, change nothing.
///
/// Exit statuses: 0 when the items were moved (or counted); 1 for a usage error, no item matched,
/// a keychain that stayed locked, or a file or keychain failure (the message names it); nothing is
/// deleted from the keychain unless the file was written.
package enum PortalMigrateCommand {
    static let usage = """
        usage: portal-migrate [-s SCHEMA] [-a NAME=VALUE]... [-o FILE] [-k] [-n] APP_ID

        Moves keychain items into the keyring that the sandboxed app APP_ID (a Flatpak app id, or
        snap.NAME) reads through libsecret and the Secret portal, so that it finds them after moving to
        the portal. Name the items by schema, attributes or both; at least one is needed.
          -s SCHEMA      items whose xdg:schema attribute is SCHEMA
          -a NAME=VALUE  items with this attribute (repeatable; all must match)
          -o FILE        the app's keyring file (default ~/.var/app/APP_ID/data/keyrings/default.keyring)
          -k             keep the items in the keychain as well (copy instead of move)
          -n             count the items that would move; change nothing
          -h, --help     show this help

        """

    /// Runs the command.
    /// - Parameters:
    ///   - arguments: the words after `portal-migrate`.
    ///   - environment: for `HOME` (the default file) and the keychains' folders.
    /// - Returns: the exit status (see the type's documentation).
    package static func main(
        arguments: [String], environment: [String: String] = ProcessEnvironment.current()
    ) -> Int32 {
        var selection: [String: String] = [:]
        var keyring: String?
        var keep = false
        var dryRun = false
        var app: PortalAppID?
        var rest = arguments[...]
        func fail(_ message: String) -> Int32 {
            SecretServiceDaemon.printError("portal-migrate: \(message)")
            return 1
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                print(usage, terminator: "")
                return 0
            case "-k": keep = true
            case "-n": dryRun = true
            case "-s":
                guard let schema = rest.popFirst(), !schema.isEmpty else { return fail("-s needs a schema name") }
                selection["xdg:schema"] = schema
            case "-a":
                guard let pair = rest.popFirst(), let equals = pair.firstIndex(of: "="), equals != pair.startIndex
                else { return fail("-a needs NAME=VALUE") }
                selection[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            case "-o":
                guard let path = rest.popFirst(), !path.isEmpty else { return fail("-o needs a file") }
                keyring = path
            default:
                guard app == nil, !argument.hasPrefix("-") else { return fail("unexpected \(argument)\n\(usage)") }
                guard let id = PortalAppID(argument) else { return fail("\(argument) is not an application id") }
                app = id
            }
        }
        guard let app else { return fail("name the app (APP_ID)\n\(usage)") }
        guard !selection.isEmpty else { return fail(PortalMigration.Failure.nothingSelected.description) }
        let home = environment["HOME"] ?? ""
        guard keyring != nil || home.hasPrefix("/") else { return fail("HOME is not set; name the file with -o") }
        var options = PortalMigration.Options(
            app: app, selection: selection,
            keyringPath: keyring ?? PortalMigration.defaultKeyringPath(app: app, home: home))
        options.keep = keep
        options.dryRun = dryRun
        let store = KeychainSecretStore(
            configuration: .fromEnvironment(environment), createsLogin: !dryRun)
        do {
            let count = try PortalMigration.run(options, store: store)
            let noun = count == 1 ? "item" : "items"
            if dryRun {
                print("\(count) \(noun) would move to \(options.keyringPath)")
            } else {
                print("\(keep ? "copied" : "moved") \(count) \(noun) to \(options.keyringPath)")
            }
            return 0
        } catch {
            return fail("\(error)")
        }
    }
}
