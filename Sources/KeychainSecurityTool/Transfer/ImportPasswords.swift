internal import KeychainCore
internal import KeychainToolSupport

/// `security import-passwords [--policy skip|replace|fail] [--access-group group] file.csv [keychain]`:
/// imports a browser's or password manager's CSV export as internet passwords, in one transaction.
///
/// Not macOS's `import` (keys and certificates): this command is found only by a prefix of at least
/// `import-`. The format (Chrome/Edge, Firefox, Apple Passwords/Safari, Bitwarden) is detected from
/// the header row. The report (stdout) gives the counts and, for each row not imported, its number,
/// its line and why; never a secret or an account. A note on stderr reminds the user that the CSV
/// file holds passwords in plain text.
///
/// - Unknown header or empty file: `… Unknown format in import.`, exit 87 (errSecUnknownFormat).
/// - Broken quoting: `… Unable to decode the provided data.` and the line, exit 93; nothing imported.
/// - A duplicate under `--policy fail`: exit 45 with the row; nothing imported.
struct ImportPasswords: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "import-passwords", synopsis: "[--policy skip|replace|fail] [--access-group group] file.csv [keychain]",
        options: [
            TransferOptions.policyOption,
            OptionSpec(
                nil, long: "access-group", value: "group",
                "Add the items to this access group (default: the unsigned tools' group)"),
        ],
        trailer: [
            "Reads the CSV password exports of Chrome/Edge, Firefox, Apple Passwords/Safari and Bitwarden;",
            "each login becomes an internet password. Rows without a URL or a password are skipped and listed.",
            "Delete the CSV file afterwards: it holds your passwords in plain text.",
        ],
        summary: "Import passwords from a browser's CSV export.", minimumPrefixLength: "import-".count)

    /// The note printed on stderr after an import.
    static func plainTextNote(_ path: String) -> String {
        "Note: \(path) holds your passwords in plain text. Delete it once you have checked the import."
    }

    let file: String
    let policy: ConflictPolicy
    let accessGroup: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let file = options.operands.first, !file.isEmpty else { throw .usage(nil) }
        self.file = file
        policy = try TransferOptions.policy(options)
        accessGroup = options.value("access-group")
        if accessGroup?.isEmpty == true { throw .usage(nil) }
        try KeychainOperand.noOption(after: "the file name", in: options.operands.dropFirst(), command: Self.spec.name)
        var rest = options
        rest.operands.removeFirst()
        keychain = try KeychainOperand.single(rest, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let operation = "import-passwords \(file)"
        let summary: ImportSummary
        do {
            let gateway = try context.gateway(context.target(keychain))
            summary = try gateway.importPasswords(fromFile: file, group: accessGroup, policy: policy)
        } catch {
            throw CommandFailure.transfer(operation, error)
        }
        let output = context.io.output
        output.line(
            "imported \(summary.imported) of \(summary.rows) rows from \(file) (\(summary.format.rawValue) export)")
        output.line("    replaced existing items: \(summary.replaced)")
        output.line("    skipped: \(summary.skipped.count)")
        for skip in summary.skipped {
            output.line("        row \(skip.row) (line \(skip.line)): \(skip.reason.rawValue)")
        }
        if summary.oneTimeCodesNotImported > 0 {
            output.line("    one-time-code secrets not imported: \(summary.oneTimeCodesNotImported)")
        }
        context.io.error.line(Self.plainTextNote(file))
        return
    }
}
