internal import KeychainCore
internal import KeychainToolSupport

/// Rules shared by the keychain-management commands (Apple's `keychain_*.c`).
enum KeychainOperand {
    /// At most one keychain operand, and not an empty string.
    ///
    /// macOS prints the bare usage for either; here a line says why first (issue 29's new-user trial:
    /// `security add-generic-password -a a -s s KEYCHAIN -w` gave no reason). Options end at the first
    /// operand, as with `getopt`, so an option after the keychain is named as such; only its name is
    /// printed (`-w`, `--access-group`), never an attached value or the arguments after it.
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - command: the subcommand's name, which starts the line.
    /// - Returns: the keychain operand, or `nil` for the default keychain.
    /// - Throws: `.usage` (exit 2) with `security: <command>: the keychain name is empty`,
    ///   `security: <command>: option -w after the keychain name: options go before it`, or
    ///   `security: <command>: 2 keychains given: at most one is allowed`.
    static func single(_ options: ParsedOptions, command: String) throws(CommandFailure) -> String? {
        guard let name = options.operands.first else { return nil }
        if name.isEmpty { throw .usage("security: \(command): the keychain name is empty") }
        let extra = options.operands.dropFirst()
        guard !extra.isEmpty else { return name }
        try noOption(after: "the keychain name", in: extra, command: command)
        throw .usage("security: \(command): \(options.operands.count) keychains given: at most one is allowed")
    }

    /// Any number of keychain operands (a search list, as macOS's find, delete and dump commands take),
    /// with no option after them: `getopt` ends the options at the first operand, so `find-generic-password
    /// -s svc login -w` would otherwise print the attribute block where a script reads the password.
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - command: the subcommand's name, which starts the line.
    /// - Returns: the keychain operands (empty: the default search list).
    /// - Throws: `.usage` (exit 2) with `security: <command>: option -w after the keychain name: options go
    ///   before it`.
    static func list(_ options: ParsedOptions, command: String) throws(CommandFailure) -> [String] {
        try noOption(after: "the keychain name", in: options.operands.dropFirst(), command: command)
        return options.operands
    }

    /// Rejects an option among the operands after `what` (`getopt` ends the options at the first operand,
    /// so `-w` there is not read as an option), naming only the option: `-w` of `-whunter2`, `--name` of
    /// `--name=value`.
    /// - Parameters:
    ///   - what: the operand they follow, as the message names it (`the keychain name`).
    ///   - operands: the operands after it.
    ///   - command: the subcommand's name, which starts the line.
    /// - Throws: `.usage` (exit 2) with `security: <command>: option -w after <what>: options go before it`.
    static func noOption(after what: String, in operands: ArraySlice<String>, command: String) throws(CommandFailure) {
        guard let option = operands.first(where: { $0.hasPrefix("-") && $0.count > 1 }) else { return }
        let optionName = option.hasPrefix("--") ? String(option.prefix { $0 != "=" }) : String(option.prefix(2))
        throw .usage("security: \(command): option \(optionName) after \(what): options go before it")
    }

    /// The name macOS prints for a keychain in messages: the operand as given, or `<NULL>` for the default.
    static func display(_ name: String?) -> String { name ?? "<NULL>" }

    /// `parse_domain` of Apple's `keychain_list.c`: any prefix of `user`, `system`, `common` or
    /// `dynamic`; anything else prints `security: Invalid domain: x` and the usage (exit 2).
    static func domain(_ options: ParsedOptions) throws(CommandFailure) -> String? {
        guard let name = options.value("d") else { return nil }
        for domain in ["user", "system", "common", "dynamic"] where domain.hasPrefix(name) { return domain }
        throw .usage("security: Invalid domain: \(name)")
    }

    /// The `-d` option of `default-keychain` and `list-keychains`.
    static let domainOption = OptionSpec(
        "d", value: "user|system|common|dynamic",
        "Use the specified preference domain (only user is stored on Linux; the others are empty)")

    /// Prints a keychain path as `display_name` does: four spaces and the quoted path, on stdout.
    static func printPath(_ path: String, _ context: SecurityContext) {
        context.io.output.line("    \"\(path)\"")
    }
}
