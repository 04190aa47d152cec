internal import KeychainCore
internal import KeychainToolSupport

/// `security restore-keychain [-i file] [--policy skip|replace|fail] [keychain]`: restores the
/// items of an encrypted backup (`backup-keychain`) into a keychain, all or nothing.
///
/// The passphrase is asked once without echo (`passphrase for <file>: `) or read as one line of
/// standard input when it is not a terminal. The file is `<keychain name>.swkcbackup` in the current
/// directory unless `-i` names one. Items already in the keychain are kept (`skip`, the default),
/// replaced, or stop the restore (`fail`, exit 45, nothing changes). The login keychain is created
/// on first use, so a new machine needs no set-up.
///
/// ThisDeviceOnly items restore only onto the installation that made the backup; elsewhere they
/// are skipped and counted. The report (stdout) holds counts only.
///
/// - Wrong passphrase: `security: restore-keychain <file>: The user name or passphrase you entered
///   is not correct.`, exit 51.
/// - Not a backup, damaged, altered, truncated or extended: `… Unable to decode the provided data.`
///   and the reason, exit 93 (errSecDecode, -26275). The keychain is unchanged.
struct RestoreKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "restore-keychain", synopsis: "[-i file] [--policy skip|replace|fail] [keychain]",
        options: [
            OptionSpec(
                "i", value: "file",
                "Read the backup from file (default: <keychain name>\(TransferOptions.backupExtension) "
                    + "in the current directory)"),
            TransferOptions.policyOption,
        ],
        trailer: TransferOptions.passphraseTrailer + [
            "ThisDeviceOnly items restore only onto the installation that made the backup; elsewhere they are",
            "skipped and counted. Any error leaves the keychain unchanged.",
        ],
        summary: "Restore a keychain's items from an encrypted backup.")

    let file: String?
    let policy: ConflictPolicy
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        file = options.value("i")
        if file?.isEmpty == true { throw .usage(nil) }
        policy = try TransferOptions.policy(options)
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let target = context.target(keychain)
        let path = file ?? TransferOptions.defaultBackupFile(for: target.location)
        let operation = "restore-keychain \(path)"
        guard FileSystem.exists(path) else {
            throw CommandFailure.message(
                "security: \(operation): \(KeychainStatus.io.message) The file does not exist.",
                status: SecurityContext.exitStatus(.io))
        }
        guard let passphrase = PasswordInput(context).read(given: nil, prompt: "passphrase for \(path): ") else {
            throw CommandFailure.keychain(operation, .userCanceled)
        }
        // The passphrase is checked before the keychain is opened, which creates the login keychain on
        // first use: a wrong passphrase leaves no new keychain behind.
        let backup: UnlockedBackup
        do { backup = try Keystore.unlockBackup(at: path, passphrase: passphrase) } catch {
            throw CommandFailure.transfer(operation, error)
        }
        let store: Keystore
        do { store = try context.open(target) } catch { throw CommandFailure.transfer(operation, error) }
        let report: RestoreReport
        do {
            report = try store.restore(backup, policy: policy)
        } catch {
            throw CommandFailure.transfer(operation, error)
        }
        let output = context.io.output
        output.line("restored \(report.restored) of \(report.itemsInBackup) items from \(path)")
        output.line("    of them Secret Service items: \(report.secretServiceItems)")
        output.line("    replaced existing items: \(report.replaced)")
        output.line("    skipped, already in the keychain: \(report.skippedExisting)")
        output.line("    skipped, ThisDeviceOnly from another installation: \(report.skippedThisDeviceOnly)")
        if report.reassignedReferences > 0 {
            output.line("    given a new persistent reference: \(report.reassignedReferences)")
        }
        if report.excludedFromBackup > 0 {
            output.line("    WhenPasscodeSetThisDeviceOnly, never backed up: \(report.excludedFromBackup)")
        }
        return
    }
}
