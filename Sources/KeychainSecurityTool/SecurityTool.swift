internal import KeychainCore
internal import KeychainToolSupport

/// The `security` tool: global options, the command table, help, and dispatch.
///
/// Follows Apple's `security.c`: a subcommand is found by prefix in table order
/// (`find-gen` runs `find-generic-password`); an unknown one prints `security: unknown command "x"`
/// and exits 1; no subcommand prints the tool's usage to stdout and exits 2 (`-h` or `--help` alone print it
/// and exit 0; `--version` prints the release); a subcommand's usage
/// error prints its usage and summary to stderr and exits 2. `help [command...]`, `-h` and `--help`
/// print help to stdout and exit 0.
package enum SecurityTool {
    static var commands: [any SecuritySubcommand.Type] {
        [
            ListKeychains.self, DefaultKeychain.self,
            CreateKeychain.self, DeleteKeychain.self, LockKeychain.self, UnlockKeychain.self,
            SetKeychainSettings.self, SetKeychainPassword.self, ShowKeychainInfo.self,
            DumpKeychain.self, DeviceKeyCommand.self,
            ShowItemAccess.self, RevokeItemAccess.self,
            AddGenericPassword.self, AddInternetPassword.self,
            FindGenericPassword.self, DeleteGenericPassword.self,
            FindInternetPassword.self, DeleteInternetPassword.self,
            FindCertificate.self, FindIdentity.self, DeleteCertificate.self, DeleteIdentity.self,
            BackupKeychain.self, RestoreKeychain.self, ImportPasswords.self, ExportPasswords.self,
            // After `error`, so that `security e` stays `error`.
            ErrorCommand.self, ImportItems.self, ExportItems.self,
            PortalMigrate.self,
            SyncCommand.self,
        ]
    }

    static let helpSummary = "Show all commands, or show usage for a command."

    /// Runs one command line (without the program name) and returns its exit status.
    /// - Parameters:
    ///   - arguments: the arguments after `security`.
    ///   - context: streams, environment and default keychain.
    /// - Returns: the exit status (see the type's documentation and each subcommand's).
    package static func run(_ arguments: [String], context: SecurityContext) -> Int32 {
        var rest = arguments[...]
        // Global options: -h (help), -q and -v (accepted; this tool has nothing to make quieter or louder).
        var help = false
        while let first = rest.first, first.hasPrefix("-"), first.count > 1 {
            rest = rest.dropFirst()
            if first == "--" { break }
            if first == "--help" {
                help = true
                continue
            }
            if first == "--version" {
                context.io.output.line("security (swift-keychain) \(ProjectVersion.current)")
                return 0
            }
            for letter in first.dropFirst() {
                switch letter {
                case "h": help = true
                case "q", "v": break
                default:
                    context.io.error.line("security: illegal option -- \(letter)")
                    return usage(context)
                }
            }
        }
        // `security -h` alone prints the same synopsis and list as bare `security`, but as the help that
        // was asked for: exit 0 (issue 24, item 7).
        if help { return rest.isEmpty ? usage(context, status: 0) : Help.run(Array(rest), context) }
        guard let name = rest.first else { return usage(context) }
        let operands = Array(rest.dropFirst())
        if !name.isEmpty && "help".hasPrefix(name) { return Help.run(operands, context) }
        guard let command = find(name) else {
            return CommandFailure.message("security: unknown command \"\(name)\"", status: 1)
                .report(to: .security(usage: nil), io: context.io)
        }
        let spec = command.spec
        // The one place a command's failure becomes its message and exit status.
        return CommandFailure.exitStatus(
            .security(usage: spec.usage + "        " + spec.summary + "\n"), io: context.io
        ) {
            () throws(CommandFailure) in
            var parsed: ParsedOptions
            if spec.takesLeadingOperand, let leading = operands.first, !leading.hasPrefix("-") {
                parsed = try OptionParser.parse(Array(operands.dropFirst()), spec: spec)
                parsed.operands.insert(leading, at: 0)
            } else {
                parsed = try OptionParser.parse(operands, spec: spec)
            }
            if parsed.helpRequested {
                context.io.output.write(spec.usage)
                return
            }
            try command.init(parsed).run(context)
        }
    }

    /// The subcommand whose name starts with `name`, in table order, among those whose
    /// ``CommandSpec/minimumPrefixLength`` `name` reaches.
    static func find(_ name: String) -> (any SecuritySubcommand.Type)? {
        guard !name.isEmpty else { return nil }
        return commands.first { $0.spec.name.hasPrefix(name) && name.count >= $0.spec.minimumPrefixLength }
    }

    /// Apple's `usage()`: the global synopsis and the command list on stdout.
    /// - Parameter status: the exit status: 2 for bare `security` (Apple's), 0 for `-h`/`--help`.
    static func usage(_ context: SecurityContext, status: Int32 = 2) -> Int32 {
        context.io.output.write(
            """
            Usage: security [-h] [-q] [-v] [command] [opt ...]
                -q    Be less verbose.
                -v    Be more verbose about what's going on.
            security commands are:

            """)
        Help.list(context)
        return status
    }

    /// The `main` of the `security` executable: real streams, environment and terminal.
    /// - Returns: the exit status.
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let io = CommandIO.standard(environment: environment)
        let status = run(Array(arguments.dropFirst()), context: SecurityContext(io: io))
        io.flush()
        return status
    }
}

/// `security help [command...]`: with no operand lists every command (`    %-17s %s`); with
/// operands prints each command's usage; an unknown one prints
/// `security: help: no such command: x` and exits 1.
enum Help {
    static func run(_ names: [String], _ context: SecurityContext) -> Int32 {
        if names.isEmpty {
            list(context)
            return 0
        }
        for name in names {
            if !name.isEmpty && "help".hasPrefix(name) {
                context.io.output.line("Usage: help [command ...]")
            } else if let command = SecurityTool.find(name) {
                context.io.output.write(command.spec.usage)
            } else {
                return CommandFailure.message("security: help: no such command: \(name)", status: 1)
                    .report(to: .security(usage: nil), io: context.io)
            }
        }
        return 0
    }

    static func list(_ context: SecurityContext) {
        func row(_ name: String, _ summary: String) {
            let padded = name.count < 17 ? name + String(repeating: " ", count: 17 - name.count) : name
            context.io.output.line("    \(padded) \(summary)")
        }
        row("help", SecurityTool.helpSummary)
        for command in SecurityTool.commands { row(command.spec.name, command.spec.summary) }
    }
}
