internal import CGIO

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// `keychain-secret-service migrate`: copies every item of the Secret Service provider that runs now
/// into this store (see ``SecretServiceMigration``) and prints counts per collection, never a secret.
///
/// Usage: `keychain-secret-service migrate [--from-bus-name NAME] [--dry-run] [--no-unlock]
/// [--prompt-timeout SECONDS]`
///
/// Exit statuses:
/// - 0: every item the source lists was copied or was already here;
/// - 1: a usage error, no session bus, the store cannot be opened, or a source call the whole run
///   needs failed;
/// - 3: no provider owns the name (nothing to migrate from), or the owner is keychain-secret-service;
/// - 4: the run finished but some items were skipped (they or their collection stayed locked) or failed,
///   or a collection stayed locked.
package enum MigrationCommand {
    static let usage = """
        usage: keychain-secret-service migrate [--from-bus-name NAME] [--dry-run] [--no-unlock]
                                               [--prompt-timeout SECONDS]

        Copies every item (label, attributes, secret, content type) of the Secret Service provider that
        runs now (gnome-keyring, KWallet, KeePassXC) into the keychain. The source's login collection goes
        to the login keychain, other collections to collections with the same label. Secrets are never
        printed. Run it while the old provider still owns the name, before switching (see the README).
          --from-bus-name NAME      the source's bus name (default org.freedesktop.secrets)
          --dry-run                 read everything, write nothing; counts what would be copied
          --no-unlock               skip locked source collections instead of asking to unlock them
          --prompt-timeout SECONDS  how long to wait for each unlock prompt (default 300)
          -h, --help                show this help
        Exit status: 0 all copied; 1 error; 3 no provider to migrate from; 4 some items skipped (locked)
        or failed, or a collection stayed locked.

        """

    /// Runs the command.
    /// - Parameters:
    ///   - arguments: the words after `migrate`.
    ///   - makeStore: opens the store items go to, told whether this is a dry run (which must write
    ///     nothing, not even a new login keychain); `nil` when it cannot be opened (exit 1).
    /// - Returns: the exit status (see the type's documentation).
    package static func main(arguments: [String], makeStore: (_ dryRun: Bool) -> (any SecretStore)?) -> Int32 {
        var options = SecretServiceMigration.Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                print(usage, terminator: "")
                return 0
            case "--dry-run": options.dryRun = true
            case "--no-unlock": options.unlock = false
            case "--from-bus-name":
                guard let name = rest.popFirst(), g_dbus_is_name(name) != 0 else {
                    SecretServiceDaemon.printError("keychain-secret-service migrate: --from-bus-name needs a bus name")
                    return 1
                }
                options.busName = name
            case "--prompt-timeout":
                guard let value = rest.popFirst().flatMap(UInt32.init) else {
                    SecretServiceDaemon.printError("keychain-secret-service migrate: --prompt-timeout needs seconds")
                    return 1
                }
                options.promptTimeoutSeconds = value
            default:
                SecretServiceDaemon.printError("keychain-secret-service migrate: unknown option \(argument)\n\(usage)")
                return 1
            }
        }
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            SecretServiceDaemon.printError(
                "keychain-secret-service migrate: \(ProviderError.connection(SecretServiceDaemon.consume(error)))")
            return 1
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        guard let store = makeStore(options.dryRun) else {
            SecretServiceDaemon.printError("keychain-secret-service migrate: cannot open the keychain store")
            return 1
        }
        let report: SecretServiceMigration.Report
        do {
            report = try SecretServiceMigration.run(connection: connection, store: store, options: options)
        } catch {
            SecretServiceDaemon.printError("keychain-secret-service migrate: \(error)")
            switch error {
            case .noProvider, .ownProvider: return 3
            case .bus: return 1
            }
        }
        print(render(report), terminator: "")
        for collection in report.collections {
            for failure in collection.failures { SecretServiceDaemon.printError("failed: \(failure)") }
        }
        return report.complete ? 0 : 4
    }

    /// The report as a table, one row per source collection, then the totals.
    package static func render(_ report: SecretServiceMigration.Report) -> String {
        let program =
            report.sourceProgram.isEmpty ? report.sourceOwner : "\(report.sourceProgram) (\(report.sourceOwner))"
        var text = "Migrating from \(program), \(report.encryptedSession ? "encrypted (DH)" : "plain") session"
        text += report.dryRun ? "; dry run: nothing is written\n" : "\n"
        let header = [
            "source collection", "label", "here", "read", report.dryRun ? "to copy" : "copied", "present",
            "locked", "failed",
        ]
        var rows = [header]
        for collection in report.collections {
            rows.append([
                collection.sourcePath, "\"\(collection.sourceLabel)\"",
                collection.target?.rawValue ?? (collection.read > collection.skippedLocked ? "(new)" : "-"),
                "\(collection.read)", "\(collection.stored)", "\(collection.present)",
                collection.stayedLocked && collection.read == 0 ? "?" : "\(collection.skippedLocked)",
                "\(collection.failed)",
            ])
        }
        func sum(_ field: (SecretServiceMigration.CollectionReport) -> Int) -> String {
            "\(report.collections.reduce(0) { $0 + field($1) })"
        }
        rows.append(["total", "", "", sum(\.read), sum(\.stored), sum(\.present), sum(\.skippedLocked), sum(\.failed)])
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                column < 3
                    ? cell + String(repeating: " ", count: widths[column] - cell.count)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }
            text += cells.joined(separator: "  ") + "\n"
        }
        for collection in report.collections where collection.stayedLocked && collection.read == 0 {
            text +=
                "\(collection.sourcePath) stayed locked and lists no items while locked (KeePassXC does so):"
                + " unlock it in its program and run again.\n"
        }
        if report.sessionItemsNotCopied > 0 {
            text +=
                "The source's session collection (in memory) holds \(report.sessionItemsNotCopied) items; not copied.\n"
        }
        return text
    }
}
