internal import KeychainCore
internal import KeychainToolSupport

/// `security backup-keychain [-f] [-o file] [keychain]`: writes every item of a keychain to an
/// encrypted backup file (`docs/BACKUP-FORMAT.md`). Not in macOS's tool, whose `export` writes keys
/// and certificates.
///
/// The passphrase is asked twice without echo (`backup passphrase: `, `retype backup passphrase: `,
/// three tries, `passphrases don't match`, then exit 1), or read as one line of standard input when
/// it is not a terminal; never from argv. The file (mode 0600) is `<keychain name>.swkcbackup` in
/// the current directory unless `-o` names one; an existing file is replaced only with `-f`
/// (otherwise exit 45). The report goes to stdout and holds counts only.
///
/// ThisDeviceOnly items are sealed a second time with a key derived from this installation's
/// device key, which never goes into the backup: they restore only here.
/// WhenPasscodeSetThisDeviceOnly items are never backed up (counted). A locked keychain exits 36.
struct BackupKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "backup-keychain", synopsis: "[-f] [-o file] [keychain]",
        options: [
            OptionSpec(
                "o", value: "file",
                "Write the backup to file (default: <keychain name>\(TransferOptions.backupExtension) "
                    + "in the current directory)"),
            OptionSpec("f", "Replace file if it exists"),
        ],
        trailer: TransferOptions.passphraseTrailer + [
            "ThisDeviceOnly items restore only onto this installation; WhenPasscodeSetThisDeviceOnly items are",
            "never backed up.",
        ],
        summary: "Write an encrypted backup of a keychain's items.")

    let file: String?
    let overwrite: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        file = options.value("o")
        if file?.isEmpty == true { throw .usage(nil) }
        overwrite = options.has("f")
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let target = context.target(keychain)
        let path = file ?? TransferOptions.defaultBackupFile(for: target.location)
        let operation = "backup-keychain \(path)"
        let store: Keystore
        do { store = try context.open(target) } catch { throw CommandFailure.transfer(operation, error) }
        if !overwrite && FileSystem.exists(path) {
            throw CommandFailure.message(
                "security: \(operation): The file already exists; -f replaces it.",
                status: SecurityContext.exitStatus(.duplicateItem))
        }
        // A locked keychain is refused before its backup passphrase is asked for (the backup would refuse
        // it after the passphrase and its Argon2id run: it never leaves items out). The backup checks
        // again, so a lock in between still fails the same way.
        if (try? store.lockState()) == .locked {
            throw CommandFailure.transfer(operation, KeychainFailure(.interactionNotAllowed))
        }
        let input = PasswordInput(context)
        guard
            let passphrase = input.readNew(
                given: nil, prompt: "backup passphrase: ", retype: "retype backup passphrase: ",
                mismatch: "passphrases don't match")
        else {
            if input.isInteractive { throw CommandFailure.exit(1) }
            throw CommandFailure.keychain(operation, .userCanceled)
        }
        let report: BackupReport
        do {
            report = try store.backup(
                to: path, passphrase: passphrase, parameters: context.kdfParameters, overwrite: overwrite)
        } catch {
            throw CommandFailure.transfer(operation, error)
        }
        let output = context.io.output
        output.line("backed up \(report.items) items to \(path) (\(report.bytes) bytes)")
        output.line("    restore onto any installation: \(report.migratable)")
        output.line("    ThisDeviceOnly, restore onto this installation only: \(report.deviceBound)")
        output.line("    WhenPasscodeSetThisDeviceOnly, never backed up: \(report.excludedWhenPasscodeSet)")
        output.line("    Secret Service items, restore onto any installation: \(report.secretServiceItems)")
        if report.unreadableThisDeviceOnly > 0 {
            output.line(
                "    ThisDeviceOnly of another installation, unreadable here, left out: \(report.unreadableThisDeviceOnly)"
            )
        }
        return
    }
}
