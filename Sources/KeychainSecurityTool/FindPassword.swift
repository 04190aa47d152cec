internal import KeychainCore
internal import KeychainToolSupport

/// What `find-generic-password` and `find-internet-password` print (Apple's `do_password_item_printing`):
/// the attribute block on stdout; with `-g` also `password: …` on stderr; with `-w` only the
/// password and a newline on stdout.
enum FindPassword {
    /// Runs a find: not found prints `security: SecKeychainSearchCopyNext: The specified item could
    /// not be found in the keychain.` and exits 44.
    static func run(_ lookup: ItemLookup, _ options: ParsedOptions, _ context: SecurityContext) throws(CommandFailure) {
        let passwordOnly = options.has("w")
        let showPassword = passwordOnly || options.has("g")
        let targets = context.targets(options.operands)
        switch lookup.first(in: targets, context: context, withSecret: showPassword) {
        case .failed(let failure):
            throw CommandFailure.keychain("SecKeychainSearchCopyNext", failure)
        case .notReleased(let failure):
            throw CommandFailure.keychain("SecKeychainItemCopyContent", failure)
        case .found(let item, let target, _):
            if passwordOnly {
                item.secret?.withUnsafeBytes { context.io.output.write(bytes: AppleFormat.passwordOnly($0)) }
                context.io.output.line("")
                return
            }
            context.io.output.write(ItemPrinter.attributes(of: item, keychainPath: target.location.databasePath))
            if showPassword {
                context.io.error.write("password: ")
                if let secret = item.secret {
                    secret.withUnsafeBytes { context.io.error.write(AppleFormat.buffer($0)) }
                }
                context.io.error.line("")
            }
            return
        }
    }

    /// Options both find commands share after their matching options.
    static let displayOptions: [OptionSpec] = [
        OptionSpec("g", "Display the password for the item found"),
        OptionSpec("w", "Display only the password on stdout"),
        OptionSpec(nil, long: "access-group", value: "group", "Match only items of this access group"),
    ]

    static let trailer = ["If no keychains are specified to search, the default search list is used."]
}

/// `security find-generic-password`: finds the first generic password matching the options.
///
/// Flags as macOS defines them: `-a` account, `-s` service, `-c` creator, `-C` type, `-D` kind,
/// `-G` generic attribute, `-j` comment, `-l` label, `-g` show the password (stderr), `-w` only the
/// password (stdout); then keychains to search. Exit 0, or the low 8 bits of the `OSStatus`.
struct FindGenericPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "find-generic-password", synopsis: "[-h] [-a account] [-s service] [options...] [-g] [keychain...]",
        options: GenericPasswordOptions.matching + FindPassword.displayOptions, trailer: FindPassword.trailer,
        summary: "Find a generic password item.")

    let options: ParsedOptions
    let lookup: ItemLookup

    init(_ options: ParsedOptions) throws(CommandFailure) {
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
        self.lookup = try ItemLookup(.genericPassword, options)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) { try FindPassword.run(lookup, options, context) }
}

/// `security find-internet-password`: finds the first internet password matching the options.
///
/// Flags as macOS defines them: `-a` account, `-s` server, `-d` security domain, `-p` path,
/// `-P` port, `-r` protocol and `-t` authentication type (four-character codes such as `htps`,
/// `dflt`), `-c`, `-C`, `-D`, `-j`, `-l`, `-g`, `-w`. Exit 0, or the low 8 bits of the `OSStatus`.
struct FindInternetPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "find-internet-password", synopsis: "[-h] [-a account] [-s server] [options...] [-g] [keychain...]",
        options: InternetPasswordOptions.matching + FindPassword.displayOptions, trailer: FindPassword.trailer,
        summary: "Find an internet password item.")

    let options: ParsedOptions
    let lookup: ItemLookup

    init(_ options: ParsedOptions) throws(CommandFailure) {
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
        self.lookup = try ItemLookup(.internetPassword, options)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) { try FindPassword.run(lookup, options, context) }
}

/// The matching options of the generic-password commands, in macOS's help order.
enum GenericPasswordOptions {
    static let matching: [OptionSpec] = [
        OptionSpec("a", value: "account", "Match \"account\" string"),
        OptionSpec("c", value: "creator", "Match \"creator\" (four-character code)"),
        OptionSpec("C", value: "type", "Match \"type\" (four-character code)"),
        OptionSpec("D", value: "kind", "Match \"kind\" string"),
        OptionSpec("G", value: "value", "Match \"value\" string (generic attribute)"),
        OptionSpec("j", value: "comment", "Match \"comment\" string"),
        OptionSpec("l", value: "label", "Match \"label\" string"),
        OptionSpec("s", value: "service", "Match \"service\" string"),
    ]
}

/// The matching options of the internet-password commands, in macOS's help order.
enum InternetPasswordOptions {
    static let matching: [OptionSpec] = [
        OptionSpec("a", value: "account", "Match \"account\" string"),
        OptionSpec("c", value: "creator", "Match \"creator\" (four-character code)"),
        OptionSpec("C", value: "type", "Match \"type\" (four-character code)"),
        OptionSpec("d", value: "securityDomain", "Match \"securityDomain\" string"),
        OptionSpec("D", value: "kind", "Match \"kind\" string"),
        OptionSpec("j", value: "comment", "Match \"comment\" string"),
        OptionSpec("l", value: "label", "Match \"label\" string"),
        OptionSpec("p", value: "path", "Match \"path\" string"),
        OptionSpec("P", value: "port", "Match port number"),
        OptionSpec("r", value: "protocol", "Match \"protocol\" (four-character code)"),
        OptionSpec("s", value: "server", "Match \"server\" string"),
        OptionSpec("t", value: "authenticationType", "Match \"authenticationType\" (four-character code)"),
    ]
}
