internal import KeychainCore
internal import KeychainToolSupport

/// Rules shared by the keychain-management commands (Apple's `keychain_*.c`).
enum KeychainOperand {
    /// At most one keychain operand, and not an empty string (macOS: usage, exit 2).
    static func single(_ options: ParsedOptions) throws(CommandFailure) -> String? {
        guard options.operands.count <= 1 else { throw .usage(nil) }
        if let name = options.operands.first, name.isEmpty { throw .usage(nil) }
        return options.operands.first
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
