internal import KeychainCore
internal import KeychainToolSupport

/// What both delete commands do (Apple's `do_keychain_delete_*_password`): find the first match and
/// delete it (one write transaction), print its attribute block on stdout, and print
/// `password has been deleted.` on stderr.
enum DeletePassword {
    static func run(_ lookup: ItemLookup, _ options: ParsedOptions, _ context: SecurityContext) throws(CommandFailure) {
        let targets = context.targets(options.operands)
        var lastFailure = KeychainFailure(.itemNotFound)
        for target in targets {
            do {
                let gateway = try context.gateway(target)
                // Found and deleted in one write transaction: the item printed is the item deleted.
                guard let item = try gateway.deleteFirst(try lookup.query(gateway), projection: [.attributes]) else {
                    continue
                }
                context.io.output.write(ItemPrinter.attributes(of: item, keychainPath: target.location.databasePath))
                context.io.error.line("password has been deleted.")
                return
            } catch  where error.status == .noSuchKeychain && targets.count > 1 {
                continue  // a search list entry whose file is gone, as for find
            } catch {
                lastFailure = error
            }
        }
        if lastFailure.reason == .orphanedItem && deleteUnreadable(lookup, targets, context) { return }
        throw CommandFailure.keychain("SecKeychainSearchCopyNext", lastFailure)
    }

    /// Deletes a `…ThisDeviceOnly` item that an adopted keychain can no longer open (its
    /// attributes cannot be printed), when the options select it by indexed attributes only
    /// (account, and service or server). Returns `false` when nothing could be deleted that way.
    private static func deleteUnreadable(
        _ lookup: ItemLookup, _ targets: [SecurityContext.Target], _ context: SecurityContext
    ) -> Bool {
        // The gateway deletes an unreadable row only when the query selects it by indexed attributes
        // alone; otherwise it answers the orphaned-item failure and nothing is deleted.
        for target in targets {
            guard let gateway = try? context.gateway(target), let query = try? lookup.query(gateway, limit: nil),
                let deleted = try? gateway.delete(query), deleted > 0
            else { continue }
            context.io.error.line("password has been deleted.")
            return true
        }
        return false
    }

    static let accessGroupOption = OptionSpec(
        nil, long: "access-group", value: "group", "Match only items of this access group")
}

/// `security delete-generic-password`: deletes the first generic password matching the options.
///
/// Flags as macOS defines them (`-a -s -c -C -D -G -j -l`), then keychains. Exit 0, or the low
/// 8 bits of the `OSStatus` (44 when nothing matches).
struct DeleteGenericPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "delete-generic-password", synopsis: "[-h] [-a account] [-s service] [options...] [keychain...]",
        options: GenericPasswordOptions.matching + [DeletePassword.accessGroupOption], trailer: FindPassword.trailer,
        summary: "Delete a generic password item.")

    let options: ParsedOptions
    let lookup: ItemLookup

    init(_ options: ParsedOptions) throws(CommandFailure) {
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
        self.lookup = try ItemLookup(.genericPassword, options)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) { try DeletePassword.run(lookup, options, context) }
}

/// `security delete-internet-password`: deletes the first internet password matching the options.
///
/// Flags as macOS defines them (`-a -s -d -p -P -r -t -c -C -D -j -l`), then keychains. Exit 0,
/// or the low 8 bits of the `OSStatus` (44 when nothing matches).
struct DeleteInternetPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "delete-internet-password", synopsis: "[-h] [-a account] [-s server] [options...] [keychain...]",
        options: InternetPasswordOptions.matching + [DeletePassword.accessGroupOption],
        trailer: FindPassword.trailer, summary: "Delete an internet password item.")

    let options: ParsedOptions
    let lookup: ItemLookup

    init(_ options: ParsedOptions) throws(CommandFailure) {
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
        self.lookup = try ItemLookup(.internetPassword, options)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) { try DeletePassword.run(lookup, options, context) }
}
