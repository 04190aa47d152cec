internal import KeychainCore
internal import KeychainToolSupport

/// `security list-keychains [-d user|system|common|dynamic] [-s [keychain...]]`: shows or sets the
/// keychain search list (Apple's `keychain_list.c`, `keychain_list`).
///
/// Shows one `    "<path>"` line per keychain on stdout. The find, delete and dump commands
/// search these keychains when given none. Until it is set, the list is the default keychain
/// alone, shown once its file exists (not before its first use, nor after `delete-keychain`). `-s` sets it (no operand: an empty list); `create-keychain` appends to it and
/// `delete-keychain` removes from it. Only the user domain is stored: the other domains are empty
/// and cannot be set (exit 1).
struct ListKeychains: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "list-keychains", synopsis: "[-d user|system|common|dynamic] [-s [keychain...]]",
        options: [
            KeychainOperand.domainOption,
            OptionSpec("s", "Set the search list to the specified keychains"),
        ],
        trailer: ["With no parameters, display the search list."],
        summary: "Display or manipulate the keychain search list.")

    let domain: String?
    let set: Bool
    let keychains: [String]

    init(_ options: ParsedOptions) throws(CommandFailure) {
        domain = try KeychainOperand.domain(options)
        set = options.has("s")
        guard set || options.operands.isEmpty else { throw .usage(nil) }
        keychains = options.operands
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let environment = context.io.environment
        if let domain, domain != "user" {
            if set {
                throw CommandFailure.keychain("SecKeychainSetDomainSearchList \(domain)", .unimplemented, exit: 1)
            }
            return
        }
        guard set else {
            // Never set, the list is the default keychain, shown only while it exists (after
            // `delete-keychain` of the login keychain, as macOS's list loses it).
            let implicit = context.preferences.searchList == nil
            for target in context.targets([]) where !implicit || FileSystem.exists(target.location.databasePath) {
                KeychainOperand.printPath(target.location.databasePath, context)
            }
            return
        }
        var preferences = context.preferences
        preferences.searchList = keychains.map { KeychainLocation.named($0, environment: environment).databasePath }
        do {
            try preferences.save(environment: environment)
        } catch {
            throw CommandFailure.keychain(
                domain == nil ? "SecKeychainSetSearchList" : "SecKeychainSetDomainSearchList user", error, exit: 1)
        }
        return
    }
}
