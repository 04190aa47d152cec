internal import KeychainCore
internal import KeychainToolSupport

/// `security export-passwords -o file.csv [-f] [keychain]`: writes every internet password to a
/// CSV file in Chrome's format (`name,url,username,password,note`), for importing elsewhere.
///
/// Only on explicit request: `-o` is required and the command is found only by a prefix of at
/// least `export-` (macOS's `export` writes keys and certificates). The file holds the passwords in
/// plain text; it is created with mode 0600 and never replaces an existing file without `-f`
/// (exit 45). After writing, the count goes to stdout and ``Keystore/plainTextExportWarning`` to
/// stderr. A locked keychain exits 36 and writes nothing.
struct ExportPasswords: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "export-passwords", synopsis: "-o file.csv [-f] [keychain]",
        options: [
            OptionSpec("o", value: "file.csv", "Write the passwords to file.csv (required)"),
            OptionSpec("f", "Replace file.csv if it exists"),
        ],
        trailer: [
            "Writes every internet password in Chrome's CSV format, which browsers and password managers import.",
            "The file holds your passwords in plain text (mode 0600): import it, then delete it.",
        ],
        summary: "Export internet passwords to a plain-text CSV file.", minimumPrefixLength: "export-".count)

    let file: String
    let overwrite: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let file = options.value("o"), !file.isEmpty else { throw .usage(nil) }
        self.file = file
        overwrite = options.has("f")
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let operation = "export-passwords \(file)"
        if !overwrite && FileSystem.exists(file) {
            throw CommandFailure.message(
                "security: \(operation): The file already exists; -f replaces it.",
                status: SecurityContext.exitStatus(.duplicateItem))
        }
        let report: ExportReport
        do {
            // The management identity's scope: every access group, as before the scope was the gateway's.
            let gateway = try context.gateway(context.target(keychain))
            report = try gateway.keystore.exportPasswords(to: file, scope: gateway.callerScope, overwrite: overwrite)
        } catch {
            throw CommandFailure.transfer(operation, error)
        }
        context.io.output.line("exported \(report.exported) internet passwords to \(file)")
        if report.skippedWithoutServer > 0 {
            context.io.output.line("    left out, no server to make a URL from: \(report.skippedWithoutServer)")
        }
        if report.skippedInvalidPort > 0 {
            context.io.output.line(
                "    left out, port outside 1-65535 (a URL cannot hold it): \(report.skippedInvalidPort)")
        }
        if report.skippedAccessControlled > 0 {
            context.io.output.line(
                "    left out, access-controlled (they need authentication): \(report.skippedAccessControlled)")
        }
        if report.skippedUnreadable > 0 {
            context.io.output.line(
                "    left out, ThisDeviceOnly of another installation (unreadable here): \(report.skippedUnreadable)")
        }
        context.io.error.line(Keystore.plainTextExportWarning)
        return
    }
}
